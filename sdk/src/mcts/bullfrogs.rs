//! Bullfrogs playouts: a random player recruits anywhere, fills pads for
//! its opponents and stops at random, so a uniform playout says little
//! about who the position favours (at 3 and 4 seats most of a game is
//! others' moves). Mostly, a playout takes what the greedy bot would (its
//! measure, on the engine's state: play the card with the most actions,
//! recruit where the pad will be won, never fill a pad for someone else,
//! sabotage, jump one's own pieces to the log and the others' away; ties
//! at random); otherwise uniform. The tree widens in the greedy order, so
//! that a short search starts from the greedy choice and leaves it only
//! for what its playouts find better.

use cairn_engine::bullfrogs::cards::pad_kind;
use cairn_engine::bullfrogs::grid::{Pos, Slot};
use cairn_engine::bullfrogs::{Action, Bullfrogs, Piece};
use cairn_engine::Rng;

/// Out of 100: how often a playout takes the greedy choice rather than any
/// legal action.
const GREEDY_PERCENT: usize = 80;

/// The index in `legal` (never empty) a playout takes.
pub(super) fn playout_pick(state: &Bullfrogs, legal: &[Action], rng: &mut Rng) -> usize {
    if legal.len() == 1 || rng.below(100) >= GREEDY_PERCENT {
        return rng.below(legal.len());
    }
    greedy_pick(state, legal, rng)
}

/// The index in `legal` (never empty) of the greedy choice, uniform among
/// the best.
pub(super) fn greedy_pick(state: &Bullfrogs, legal: &[Action], rng: &mut Rng) -> usize {
    let color = state.public().active as usize;
    let mut best = (i32::MIN, 0, 0usize);
    for (index, action) in legal.iter().enumerate() {
        let score = action_score(state, color, action);
        if score > best.0 {
            best = (score, index, 1);
        } else if score == best.0 {
            // Uniform among the best: the `n`th tie replaces with odds 1/n.
            best.2 += 1;
            if rng.below(best.2) == 0 {
                best.1 = index;
            }
        }
    }
    best.1
}

/// The greedy bot's measure of `action` for `color`, the color to move.
fn action_score(state: &Bullfrogs, color: usize, action: &Action) -> i32 {
    match *action {
        Action::Recruit { piece, at } => match state.public().table.at(at) {
            Some(slot) => recruit_score(slot, color, piece),
            None => 0,
        },
        Action::Sabotage { to, .. } => {
            if to == Pos::LOG {
                1
            } else {
                2
            }
        }
        Action::Jump {
            color: jumper, to, ..
        } => i32::from((usize::from(jumper) == color) == (to == Pos::LOG)),
        Action::Play { kind, .. } => i32::from(pad_kind(kind).actions),
        _ => 0,
    }
}

/// Strength of `color`'s pieces on a slot.
fn strength(slot: &Slot, color: usize) -> i32 {
    i32::from(slot.frogs[color]) + 2 * i32::from(slot.bullfrogs[color])
}

/// Recruiting `piece` onto `slot`: worth a little while the pad stays open
/// (a bullfrog nothing, it is lost when the pad sinks), a lot when it fills
/// the pad and wins it, a loss when it fills the pad for someone else.
fn recruit_score(slot: &Slot, color: usize, piece: Piece) -> i32 {
    let piece_strength = match piece {
        Piece::Frog => 1,
        Piece::Bullfrog => 2,
    };
    let ours = strength(slot, color) + piece_strength;
    let best_other = (0..slot.frogs.len())
        .filter(|&other| other != color)
        .map(|other| strength(slot, other))
        .max()
        .unwrap_or(0);
    if slot.empty_spaces() > 1 {
        return match piece {
            Piece::Bullfrog => 0,
            Piece::Frog => 1 + i32::from(ours >= best_other),
        };
    }
    match ours.cmp(&best_other) {
        std::cmp::Ordering::Greater => {
            20 + i32::from(pad_kind(slot.kind).victory_points) - piece_strength
        }
        std::cmp::Ordering::Equal => -2,
        std::cmp::Ordering::Less => -10,
    }
}
