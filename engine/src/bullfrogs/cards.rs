//! Every number printed on a Bullfrogs component: lily pad kinds (spaces,
//! action icons, victory points, copies per deck), pieces per color, the
//! solo dice and the solo rank titles. Rules code reads only this table, so
//! a correction to the printed data (see the ASSUMPTIONs in
//! `shared/rules/bullfrogs.md`) touches this file alone.

/// One kind of lily pad card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PadKind {
    /// The stable name used in action texts (`play pad3 at 1,0`).
    pub name: &'static str,
    /// Spaces for frogs and bullfrogs; the pad is full when all are taken.
    pub spaces: u8,
    /// Action icons: how many actions the player takes after playing it.
    pub actions: u8,
    /// Victory points printed on the card.
    pub victory_points: u8,
    /// Copies in one color's deck with 2 or 3 players (and solo).
    pub per_deck: u8,
    /// Copies in one color's deck with 4 players.
    pub per_deck_four_players: u8,
}

/// The lily pad kinds. Index 0 is the neutral starting pad; the others make
/// up each color's deck.
/// ASSUMPTION (rules page): spaces + actions = 7; decks of 3 x (3, 4),
/// 4 x (4, 3), 3 x (5, 2); a 4-player deck drops one 3-action card; VP =
/// spaces. The rulebook's worked example agrees: its 14 VP for three pads
/// are their 13 VP (4 + 4 + 5) plus the +1 own-colour bonus for one of them.
pub const PAD_KINDS: [PadKind; 4] = [
    PadKind {
        name: "start",
        spaces: 6,
        actions: 0,
        victory_points: 6,
        per_deck: 0,
        per_deck_four_players: 0,
    },
    PadKind {
        name: "pad3",
        spaces: 3,
        actions: 4,
        victory_points: 3,
        per_deck: 3,
        per_deck_four_players: 3,
    },
    PadKind {
        name: "pad4",
        spaces: 4,
        actions: 3,
        victory_points: 4,
        per_deck: 4,
        per_deck_four_players: 3,
    },
    PadKind {
        name: "pad5",
        spaces: 5,
        actions: 2,
        victory_points: 5,
        per_deck: 3,
        per_deck_four_players: 3,
    },
];

/// Number of pad kinds (the length of [`PAD_KINDS`]).
pub const N_PAD_KINDS: usize = PAD_KINDS.len();

/// The index of the neutral starting pad in [`PAD_KINDS`].
pub const START_PAD: u8 = 0;

/// Starting pads placed around the log at setup.
pub const STARTING_PADS: usize = 4;

/// The largest deck of one color (sizes the fixed deck arrays).
pub const MAX_DECK: usize = 10;

/// Cards in hand in the standard game.
pub const HAND_SIZE: u8 = 3;

/// Frogs and bullfrogs each color starts with.
pub const FROGS_PER_COLOR: u8 = 14;
pub const BULLFROGS_PER_COLOR: u8 = 2;

/// Isaac's frogs in the solo game (his bullfrog is only a position marker).
pub const ISAAC_FROGS: u8 = 14;

/// Battle strength of each piece.
pub const FROG_STRENGTH: u8 = 1;
pub const BULLFROG_STRENGTH: u8 = 2;

/// Final scoring: points per piece on the log, the log-majority bonus and
/// the bonus per won pad of one's own color.
pub const LOG_POINTS_PER_FROG: i32 = 1;
pub const LOG_POINTS_PER_BULLFROG: i32 = 2;
pub const LOG_MAJORITY_BONUS: i32 = 3;
pub const OWN_COLOR_BONUS: i32 = 1;

/// Isaac recruits at most this many frogs in one turn.
pub const ISAAC_RECRUITS_PER_TURN: u8 = 2;

/// A player recruits at most this many pieces on one card in one turn.
pub const RECRUITS_PER_CARD_PER_TURN: u8 = 2;

/// Colors in seat order; in solo the player is red and Isaac is blue.
pub const COLOR_NAMES: [&str; 4] = ["red", "blue", "green", "yellow"];

/// One face of the solo movement die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MovementFace {
    Up,
    Down,
    Left,
    Right,
    /// Isaac must move; the player chooses the direction.
    AnyDirection,
    Blank,
}

/// ASSUMPTION (rules page): the faces of the solo dice.
pub const MOVEMENT_DIE: [MovementFace; 6] = [
    MovementFace::Up,
    MovementFace::Down,
    MovementFace::Left,
    MovementFace::Right,
    MovementFace::AnyDirection,
    MovementFace::Blank,
];
pub const ACTION_DIE: [u8; 6] = [1, 1, 2, 2, 3, 3];

/// Solo rank titles: the lowest final score of each title, best first.
pub const SOLO_RANKS: [(i32, &str); 6] = [
    (45, "Grandmaster Frog"),
    (40, "Commander Frog"),
    (35, "Duke Frog"),
    (30, "Knight Frog"),
    (25, "Soldier Frog"),
    (i32::MIN, "Squire Frog"),
];

/// The score of a solo game the player forfeits or whose bot cannot start:
/// below any score a game played to its end can reach.
///
/// RULING (ours): a solo score is the player's points minus Isaac's, so it
/// can be negative, and zero (the score of a game stopped early) would rank
/// a bot that crashes above one that plays and loses. A forfeited solo game
/// is scored as if Isaac had won every card on the table (the starting pads
/// and the player's whole deck) and put every frog on the log with its
/// majority, and the player nothing: the solo counterpart of ranking last.
pub const SOLO_FORFEIT_SCORE: i32 = -solo_isaac_most();

/// The most points Isaac could ever take (see [`SOLO_FORFEIT_SCORE`]).
const fn solo_isaac_most() -> i32 {
    let mut points = STARTING_PADS as i32 * PAD_KINDS[START_PAD as usize].victory_points as i32;
    let mut kind = 1;
    while kind < N_PAD_KINDS {
        points += PAD_KINDS[kind].per_deck as i32 * PAD_KINDS[kind].victory_points as i32;
        kind += 1;
    }
    points + ISAAC_FROGS as i32 * LOG_POINTS_PER_FROG + LOG_MAJORITY_BONUS
}

/// The kind of a pad by its index.
pub fn pad_kind(kind: u8) -> &'static PadKind {
    &PAD_KINDS[kind as usize]
}

/// The index of the deck kind called `name` (never the starting pad).
pub fn deck_kind_by_name(name: &str) -> Option<u8> {
    (1..N_PAD_KINDS)
        .find(|&k| PAD_KINDS[k].name == name)
        .map(|k| k as u8)
}

/// The solo rank title for a final score.
pub fn solo_rank_title(score: i32) -> &'static str {
    SOLO_RANKS
        .iter()
        .find(|(lowest, _)| score >= *lowest)
        .map_or("Squire Frog", |(_, title)| title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forfeited_solo_game_scores_below_every_point_isaac_could_take() {
        // 4 starting pads of 6, a deck of 3x3 + 4x4 + 3x5, 14 frogs on the
        // log and its majority.
        assert_eq!(SOLO_FORFEIT_SCORE, -(24 + 40 + 14 + 3));
    }

    #[test]
    fn every_deck_pad_has_seven_spaces_plus_actions_and_ten_copies() {
        let copies: u8 = PAD_KINDS[1..].iter().map(|k| k.per_deck).sum();
        assert_eq!(copies as usize, MAX_DECK);
        let four: u8 = PAD_KINDS[1..].iter().map(|k| k.per_deck_four_players).sum();
        assert_eq!(four, 9, "with 4 players each deck loses one 3-action card");
        assert!(PAD_KINDS[1..].iter().all(|k| k.spaces + k.actions == 7));
    }

    #[test]
    fn solo_rank_titles_follow_the_table() {
        assert_eq!(solo_rank_title(-3), "Squire Frog");
        assert_eq!(solo_rank_title(24), "Squire Frog");
        assert_eq!(solo_rank_title(25), "Soldier Frog");
        assert_eq!(solo_rank_title(34), "Knight Frog");
        assert_eq!(solo_rank_title(39), "Duke Frog");
        assert_eq!(solo_rank_title(44), "Commander Frog");
        assert_eq!(solo_rank_title(45), "Grandmaster Frog");
    }
}
