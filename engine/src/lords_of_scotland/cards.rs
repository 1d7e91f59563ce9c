//! The 98 cards of Lords of Scotland in one table (clan, strength, rank),
//! and the card masks the rules code derives from it.
//!
//! Card ids are the table index: `0..96` are the eight basic clans, `96` and
//! `97` the two Bruce cards (only shuffled in with the `bruce` option).
//! ASSUMPTION (rules page): `rank = 8 * (strength - 1) + clan index`, Bruce
//! ranks 97 and 98. Correct the data here; no rules code depends on the formula.

use crate::cards::CardSet;

/// A card id: an index into [`CARDS`].
pub type CardId = u8;

/// The eight basic clans in rulebook order, then the royal clan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Clan {
    Scott,
    Makgill,
    MacDonnell,
    Wemyss,
    Fergusson,
    Forsyth,
    Cockburn,
    Cochrane,
    Bruce,
}

impl Clan {
    pub const ALL: [Clan; 9] = [
        Clan::Scott,
        Clan::Makgill,
        Clan::MacDonnell,
        Clan::Wemyss,
        Clan::Fergusson,
        Clan::Forsyth,
        Clan::Cockburn,
        Clan::Cochrane,
        Clan::Bruce,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Clan::Scott => "scott",
            Clan::Makgill => "makgill",
            Clan::MacDonnell => "macdonnell",
            Clan::Wemyss => "wemyss",
            Clan::Fergusson => "fergusson",
            Clan::Forsyth => "forsyth",
            Clan::Cockburn => "cockburn",
            Clan::Cochrane => "cochrane",
            Clan::Bruce => "bruce",
        }
    }

    pub fn from_name(text: &str) -> Option<Clan> {
        Clan::ALL.into_iter().find(|clan| clan.name() == text)
    }

    /// Powers that act at the end of the skirmish: activating one only marks
    /// the card, so it needs no target.
    pub fn acts_at_end_of_round(self) -> bool {
        matches!(self, Clan::Bruce | Clan::Cochrane | Clan::MacDonnell)
    }
}

/// One printed card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardData {
    /// The text form used in actions, e.g. `makgill7`.
    pub name: &'static str,
    pub clan: Clan,
    pub strength: u8,
    /// Unique; the higher rank wins a tie.
    pub rank: u8,
}

pub const N_CARDS: usize = 98;
/// Ids below this are the basic clans; the Bruce cards follow.
pub const N_BASIC_CARDS: usize = 96;

const fn card(name: &'static str, clan: Clan, strength: u8, rank: u8) -> CardData {
    CardData {
        name,
        clan,
        strength,
        rank,
    }
}

use Clan::{Bruce, Cochrane, Cockburn, Fergusson, Forsyth, MacDonnell, Makgill, Scott, Wemyss};

const TABLE: [CardData; N_CARDS] = [
    card("scott1", Scott, 1, 1),
    card("makgill1", Makgill, 1, 2),
    card("macdonnell1", MacDonnell, 1, 3),
    card("wemyss1", Wemyss, 1, 4),
    card("fergusson1", Fergusson, 1, 5),
    card("forsyth1", Forsyth, 1, 6),
    card("cockburn1", Cockburn, 1, 7),
    card("cochrane1", Cochrane, 1, 8),
    card("scott2", Scott, 2, 9),
    card("makgill2", Makgill, 2, 10),
    card("macdonnell2", MacDonnell, 2, 11),
    card("wemyss2", Wemyss, 2, 12),
    card("fergusson2", Fergusson, 2, 13),
    card("forsyth2", Forsyth, 2, 14),
    card("cockburn2", Cockburn, 2, 15),
    card("cochrane2", Cochrane, 2, 16),
    card("scott3", Scott, 3, 17),
    card("makgill3", Makgill, 3, 18),
    card("macdonnell3", MacDonnell, 3, 19),
    card("wemyss3", Wemyss, 3, 20),
    card("fergusson3", Fergusson, 3, 21),
    card("forsyth3", Forsyth, 3, 22),
    card("cockburn3", Cockburn, 3, 23),
    card("cochrane3", Cochrane, 3, 24),
    card("scott4", Scott, 4, 25),
    card("makgill4", Makgill, 4, 26),
    card("macdonnell4", MacDonnell, 4, 27),
    card("wemyss4", Wemyss, 4, 28),
    card("fergusson4", Fergusson, 4, 29),
    card("forsyth4", Forsyth, 4, 30),
    card("cockburn4", Cockburn, 4, 31),
    card("cochrane4", Cochrane, 4, 32),
    card("scott5", Scott, 5, 33),
    card("makgill5", Makgill, 5, 34),
    card("macdonnell5", MacDonnell, 5, 35),
    card("wemyss5", Wemyss, 5, 36),
    card("fergusson5", Fergusson, 5, 37),
    card("forsyth5", Forsyth, 5, 38),
    card("cockburn5", Cockburn, 5, 39),
    card("cochrane5", Cochrane, 5, 40),
    card("scott6", Scott, 6, 41),
    card("makgill6", Makgill, 6, 42),
    card("macdonnell6", MacDonnell, 6, 43),
    card("wemyss6", Wemyss, 6, 44),
    card("fergusson6", Fergusson, 6, 45),
    card("forsyth6", Forsyth, 6, 46),
    card("cockburn6", Cockburn, 6, 47),
    card("cochrane6", Cochrane, 6, 48),
    card("scott7", Scott, 7, 49),
    card("makgill7", Makgill, 7, 50),
    card("macdonnell7", MacDonnell, 7, 51),
    card("wemyss7", Wemyss, 7, 52),
    card("fergusson7", Fergusson, 7, 53),
    card("forsyth7", Forsyth, 7, 54),
    card("cockburn7", Cockburn, 7, 55),
    card("cochrane7", Cochrane, 7, 56),
    card("scott8", Scott, 8, 57),
    card("makgill8", Makgill, 8, 58),
    card("macdonnell8", MacDonnell, 8, 59),
    card("wemyss8", Wemyss, 8, 60),
    card("fergusson8", Fergusson, 8, 61),
    card("forsyth8", Forsyth, 8, 62),
    card("cockburn8", Cockburn, 8, 63),
    card("cochrane8", Cochrane, 8, 64),
    card("scott9", Scott, 9, 65),
    card("makgill9", Makgill, 9, 66),
    card("macdonnell9", MacDonnell, 9, 67),
    card("wemyss9", Wemyss, 9, 68),
    card("fergusson9", Fergusson, 9, 69),
    card("forsyth9", Forsyth, 9, 70),
    card("cockburn9", Cockburn, 9, 71),
    card("cochrane9", Cochrane, 9, 72),
    card("scott10", Scott, 10, 73),
    card("makgill10", Makgill, 10, 74),
    card("macdonnell10", MacDonnell, 10, 75),
    card("wemyss10", Wemyss, 10, 76),
    card("fergusson10", Fergusson, 10, 77),
    card("forsyth10", Forsyth, 10, 78),
    card("cockburn10", Cockburn, 10, 79),
    card("cochrane10", Cochrane, 10, 80),
    card("scott11", Scott, 11, 81),
    card("makgill11", Makgill, 11, 82),
    card("macdonnell11", MacDonnell, 11, 83),
    card("wemyss11", Wemyss, 11, 84),
    card("fergusson11", Fergusson, 11, 85),
    card("forsyth11", Forsyth, 11, 86),
    card("cockburn11", Cockburn, 11, 87),
    card("cochrane11", Cochrane, 11, 88),
    card("scott12", Scott, 12, 89),
    card("makgill12", Makgill, 12, 90),
    card("macdonnell12", MacDonnell, 12, 91),
    card("wemyss12", Wemyss, 12, 92),
    card("fergusson12", Fergusson, 12, 93),
    card("forsyth12", Forsyth, 12, 94),
    card("cockburn12", Cockburn, 12, 95),
    card("cochrane12", Cochrane, 12, 96),
    card("bruce12a", Bruce, 12, 97),
    card("bruce12b", Bruce, 12, 98),
];

/// Every card, indexed by [`CardId`].
pub static CARDS: [CardData; N_CARDS] = TABLE;

pub fn clan(card: CardId) -> Clan {
    CARDS[card as usize].clan
}

pub fn strength(card: CardId) -> u8 {
    CARDS[card as usize].strength
}

pub fn rank(card: CardId) -> u8 {
    CARDS[card as usize].rank
}

pub fn card_name(card: CardId) -> &'static str {
    CARDS[card as usize].name
}

pub fn card_by_name(text: &str) -> Option<CardId> {
    CARDS
        .iter()
        .position(|data| data.name == text)
        .map(|index| index as CardId)
}

/// `AT_MOST[s]`: every card of strength `s` or less.
const AT_MOST: [u128; 13] = {
    let mut masks = [0u128; 13];
    let mut s = 0;
    while s < 13 {
        let mut id = 0;
        while id < N_CARDS {
            if TABLE[id].strength as usize <= s {
                masks[s] |= 1u128 << id;
            }
            id += 1;
        }
        s += 1;
    }
    masks
};

/// `CLAN_CARDS[clan]`: every card of that clan.
const CLAN_CARDS: [u128; 9] = {
    let mut masks = [0u128; 9];
    let mut id = 0;
    while id < N_CARDS {
        masks[TABLE[id].clan as usize] |= 1u128 << id;
        id += 1;
    }
    masks
};

/// The cards weaker than `strength`.
pub fn weaker_than(strength: u8) -> CardSet {
    CardSet(if strength == 0 {
        0
    } else {
        AT_MOST[strength as usize - 1]
    })
}

/// The cards of `clan` with at most `strength`.
pub fn clan_at_most(clan: Clan, strength: u8) -> CardSet {
    CardSet(CLAN_CARDS[clan as usize] & AT_MOST[strength as usize])
}

/// The cards in play for a game: the basic clans, plus Bruce if enabled.
pub fn deck(with_bruce: bool) -> CardSet {
    CardSet::first(if with_bruce { N_CARDS } else { N_BASIC_CARDS } as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_clans_hold_twelve_cards_each_of_strength_one_to_twelve() {
        for clan in &Clan::ALL[..8] {
            let mut strengths: Vec<u8> = CARDS
                .iter()
                .filter(|c| c.clan == *clan)
                .map(|c| c.strength)
                .collect();
            strengths.sort();
            assert_eq!(strengths, (1..=12).collect::<Vec<u8>>(), "{clan:?}");
        }
        assert_eq!(CARDS.iter().filter(|c| c.clan == Clan::Bruce).count(), 2);
    }

    #[test]
    fn every_card_has_a_unique_rank_and_name() {
        let mut ranks: Vec<u8> = CARDS.iter().map(|c| c.rank).collect();
        ranks.sort();
        assert_eq!(ranks, (1..=98).collect::<Vec<u8>>());
        for (id, data) in CARDS.iter().enumerate() {
            assert_eq!(card_by_name(data.name), Some(id as CardId));
        }
    }

    #[test]
    fn the_public_rank_data_points_hold() {
        // Makgill 1 has rank 2 and MacDonnell 1 has rank 3 on the printed cards.
        assert_eq!(rank(card_by_name("makgill1").unwrap()), 2);
        assert_eq!(rank(card_by_name("macdonnell1").unwrap()), 3);
    }

    #[test]
    fn the_masks_follow_the_table() {
        let four = card_by_name("wemyss4").unwrap();
        assert!(weaker_than(5).contains(four) && !weaker_than(4).contains(four));
        assert!(clan_at_most(Clan::Wemyss, 4).contains(four));
        assert!(!clan_at_most(Clan::Wemyss, 3).contains(four));
        assert!(!clan_at_most(Clan::Scott, 12).contains(four));
        assert_eq!(deck(false).len(), 96);
        assert_eq!(deck(true).len(), 98);
    }
}
