//! The card table: 54 clan cards (6 colors x strengths 1..9) and the 10
//! tactic cards of the Tactics variant. Card ids: clan `color * 9 +
//! strength - 1` (0..54), tactics 54..64 in [`TACTICS`] order. Every count,
//! strength and name lives here and nowhere else.

/// Number of clan cards.
pub const N_CLAN: u8 = 54;
/// Number of card ids (clan and tactic).
pub const N_CARDS: u8 = 64;
/// Every clan card id.
pub const ALL_CLAN: CardSet = CardSet((1 << N_CLAN) - 1);
/// Every tactic card id.
pub const ALL_TACTICS: CardSet = CardSet(((1 << N_CARDS) - 1) & !ALL_CLAN.0);

use crate::cards::CardSet;

/// Color names are ours (rules: "names are ours"); one letter each in text.
pub const COLOR_LETTERS: [char; 6] = ['r', 'o', 'y', 'g', 'b', 'p'];
pub const COLOR_NAMES: [&str; 6] = ["red", "orange", "yellow", "green", "blue", "purple"];

/// What a tactic card does, by the rulebook's three categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TacticKind {
    /// Played like a clan card; value chosen when the stone is resolved.
    EliteTroop { strengths: u16, bluff_strength: u8 },
    /// Lies under a stone and changes how it is fought.
    CombatMode,
    /// One-shot effect, then onto the discard pile.
    Ruse,
}

/// One line of the tactic table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TacticCard {
    pub name: &'static str,
    pub kind: TacticKind,
}

const fn strengths(low: u8, high: u8) -> u16 {
    let mut mask = 0u16;
    let mut s = low;
    while s <= high {
        mask |= 1 << s;
        s += 1;
    }
    mask
}

/// The 10 tactic cards, ids 54..64 in this order (two Jokers).
pub const TACTICS: [TacticCard; 10] = [
    TacticCard {
        name: "joker",
        kind: TacticKind::EliteTroop {
            strengths: strengths(1, 9),
            bluff_strength: 9,
        },
    },
    TacticCard {
        name: "joker",
        kind: TacticKind::EliteTroop {
            strengths: strengths(1, 9),
            bluff_strength: 9,
        },
    },
    TacticCard {
        name: "spy",
        kind: TacticKind::EliteTroop {
            strengths: strengths(7, 7),
            bluff_strength: 7,
        },
    },
    TacticCard {
        name: "shield",
        kind: TacticKind::EliteTroop {
            strengths: strengths(1, 3),
            bluff_strength: 3,
        },
    },
    TacticCard {
        name: "bluff",
        kind: TacticKind::CombatMode,
    },
    TacticCard {
        name: "mud",
        kind: TacticKind::CombatMode,
    },
    TacticCard {
        name: "recruiter",
        kind: TacticKind::Ruse,
    },
    TacticCard {
        name: "strategist",
        kind: TacticKind::Ruse,
    },
    TacticCard {
        name: "banshee",
        kind: TacticKind::Ruse,
    },
    TacticCard {
        name: "traitor",
        kind: TacticKind::Ruse,
    },
];

pub const JOKER_A: u8 = 54;
pub const JOKER_B: u8 = 55;
pub const SPY: u8 = 56;
pub const SHIELD: u8 = 57;
pub const BLUFF: u8 = 58;
pub const MUD: u8 = 59;
pub const RECRUITER: u8 = 60;
pub const STRATEGIST: u8 = 61;
pub const BANSHEE: u8 = 62;
pub const TRAITOR: u8 = 63;

pub fn is_clan(card: u8) -> bool {
    card < N_CLAN
}

pub fn color(card: u8) -> u8 {
    card / 9
}

pub fn strength(card: u8) -> u8 {
    card % 9 + 1
}

pub fn clan_card(color: u8, strength: u8) -> u8 {
    color * 9 + strength - 1
}

pub fn tactic(card: u8) -> &'static TacticCard {
    &TACTICS[(card - N_CLAN) as usize]
}

/// The two Jokers are the same card to a player: their text form and their
/// "face" are the first Joker's id.
pub fn face(card: u8) -> u8 {
    if card == JOKER_B {
        JOKER_A
    } else {
        card
    }
}

pub fn is_elite_troop(card: u8) -> bool {
    !is_clan(card) && matches!(tactic(card).kind, TacticKind::EliteTroop { .. })
}

/// The card's text form: `r7`, `joker`, `mud`, ...
pub fn card_name(card: u8) -> String {
    let mut name = String::with_capacity(8);
    // Writing into a String cannot fail.
    let _ = write_card_name(&mut name, card);
    name
}

/// Writes the card's text form (as [`card_name`]) without allocating: the
/// runner turns every legal action of every decision into text.
pub fn write_card_name(out: &mut impl std::fmt::Write, card: u8) -> std::fmt::Result {
    match TACTICS.get(card.wrapping_sub(N_CLAN) as usize) {
        _ if is_clan(card) => {
            out.write_char(COLOR_LETTERS[color(card) as usize])?;
            crate::text::write_number(out, i32::from(strength(card)))
        }
        Some(tactic) => out.write_str(tactic.name),
        // Only a hand-built action can carry a card id past the table.
        None => write!(out, "card#{card}"),
    }
}

/// Reads a card's text form into its face id.
pub fn parse_card(text: &str) -> Option<u8> {
    let mut chars = text.chars();
    let first = chars.next()?;
    if let Some(color) = COLOR_LETTERS.iter().position(|&c| c == first) {
        let rest = chars.as_str();
        if rest.len() == 1 {
            let strength = rest.parse::<u8>().ok().filter(|s| (1..=9).contains(s))?;
            return Some(clan_card(color as u8, strength));
        }
    }
    (N_CLAN..N_CARDS)
        .find(|&card| tactic(card).name == text)
        .map(face)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_54_clan_cards_of_six_colors_and_nine_strengths() {
        assert_eq!(ALL_CLAN.len(), 54);
        assert_eq!((0..N_CLAN).map(color).max(), Some(5));
        assert_eq!(
            (0..N_CLAN)
                .map(strength)
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            9
        );
    }

    #[test]
    fn there_are_ten_tactic_cards_with_two_jokers() {
        assert_eq!(ALL_TACTICS.len(), 10);
        assert_eq!(TACTICS.iter().filter(|t| t.name == "joker").count(), 2);
        let elite = TACTICS
            .iter()
            .filter(|t| matches!(t.kind, TacticKind::EliteTroop { .. }))
            .count();
        let combat = TACTICS
            .iter()
            .filter(|t| t.kind == TacticKind::CombatMode)
            .count();
        assert_eq!((elite, combat, 10 - elite - combat), (4, 2, 4));
    }

    #[test]
    fn every_card_name_reads_back() {
        for card in 0..N_CARDS {
            assert_eq!(parse_card(&card_name(card)), Some(face(card)));
        }
        assert_eq!(parse_card("r0"), None);
        assert_eq!(parse_card("x5"), None);
        assert_eq!(parse_card("r10"), None);
        assert_eq!(parse_card(""), None);
    }
}
