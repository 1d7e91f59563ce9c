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

use std::cell::RefCell;

use cairn_engine::bullfrogs::cards::pad_kind;
use cairn_engine::bullfrogs::grid::{Pos, Slot};
use cairn_engine::bullfrogs::{Action, Bullfrogs, Phase, Piece};
use cairn_engine::{Game, Rng};

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

/// One playout decision. A play is taken without listing every play:
/// the plays are each kind in hand (ascending) at each open cell, and the
/// greedy measure of a play is its kind's alone, so the kinds and the
/// cells name the play [`playout_pick`] would take, with the same draws.
pub(super) fn playout_step(state: &mut Bullfrogs, legal: &mut Vec<Action>, rng: &mut Rng) {
    if state.public().phase == Phase::Play {
        legal.clear();
        if let Some(play) = play_pick(state, legal, rng) {
            state.apply_legal(&play);
            return;
        }
    }
    super::playout::step_from_listed(state, legal, rng);
}

/// The play [`playout_pick`] takes in the play phase, given `cells`
/// (scratch) to list the open cells into; `None`, before any draw, when
/// there is no play.
fn play_pick(state: &Bullfrogs, cells: &mut Vec<Action>, rng: &mut Rng) -> Option<Action> {
    let hand = state.hand(state.public().active as usize);
    let kinds = (1..hand.len() as u8).filter(|&kind| hand[kind as usize] > 0);
    state
        .public()
        .table
        .for_each_open_cell(|at| cells.push(Action::Play { kind: 0, at }));
    let (n_kinds, n_cells) = (kinds.clone().count(), cells.len());
    if n_kinds == 0 || n_cells == 0 {
        return None;
    }
    let n_plays = n_kinds * n_cells;
    let (kind, cell) = if n_plays == 1 || rng.below(100) >= GREEDY_PERCENT {
        let index = rng.below(n_plays);
        (kinds.clone().nth(index / n_cells)?, index % n_cells)
    } else {
        let actions = |kind: u8| pad_kind(kind).actions;
        let best = kinds.clone().map(actions).max()?;
        let best_kinds = kinds.filter(|&kind| actions(kind) == best);
        let nth = rng.below(best_kinds.clone().count() * n_cells);
        (best_kinds.clone().nth(nth / n_cells)?, nth % n_cells)
    };
    match cells[cell] {
        Action::Play { at, .. } => Some(Action::Play { kind, at }),
        _ => None,
    }
}

thread_local! {
    /// The scores of one pick's legal actions (a scratch vector a thread,
    /// so that a pick neither allocates nor draws once a tie).
    static SCORES: RefCell<Vec<i32>> = const { RefCell::new(Vec::new()) };
}

/// The index in `legal` (never empty) of the greedy choice, uniform among
/// the best: one draw among the ties, once every action is scored.
pub(super) fn greedy_pick(state: &Bullfrogs, legal: &[Action], rng: &mut Rng) -> usize {
    let color = state.public().active as usize;
    let mut slots = SlotCursor::new(state.public().table.slots());
    SCORES.with_borrow_mut(|scores| {
        scores.clear();
        scores.resize(legal.len(), 0);
        let (mut best, mut n_best) = (i32::MIN, 0);
        for (action, kept) in legal.iter().zip(scores.iter_mut()) {
            let score = action_score(&mut slots, color, action);
            *kept = score;
            if score > best {
                (best, n_best) = (score, 1);
            } else if score == best {
                n_best += 1;
            }
        }
        let nth = rng.below(n_best);
        (scores.iter().enumerate())
            .filter(|&(_, &score)| score == best)
            .nth(nth)
            .map_or(0, |(index, _)| index)
    })
}

/// Finds the slot at a cell, scanning on from the slot found last: the
/// recruits are listed in slot order, two a target, so that most lookups
/// take one comparison.
struct SlotCursor<'a> {
    slots: &'a [Slot],
    last: usize,
}

impl<'a> SlotCursor<'a> {
    fn new(slots: &'a [Slot]) -> SlotCursor<'a> {
        SlotCursor { slots, last: 0 }
    }

    fn at(&mut self, at: Pos) -> Option<&'a Slot> {
        let start = self.last.min(self.slots.len());
        let (before, from_last) = self.slots.split_at(start);
        let found = (from_last.iter().position(|slot| slot.pos == at))
            .map(|index| start + index)
            .or_else(|| before.iter().position(|slot| slot.pos == at))?;
        self.last = found;
        Some(&self.slots[found])
    }
}

/// The greedy bot's measure of `action` for `color`, the color to move.
#[inline]
fn action_score(slots: &mut SlotCursor, color: usize, action: &Action) -> i32 {
    match *action {
        Action::Recruit { piece, at } => match slots.at(at) {
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
    let stays_open = slot.empty_spaces() > 1;
    if stays_open && piece == Piece::Bullfrog {
        return 0;
    }
    // Every color's strength at once; the others' best with ours left out
    // (strengths are never negative).
    let mut others: [i32; 4] = std::array::from_fn(|other| strength(slot, other));
    let ours = others[color] + piece_strength;
    others[color] = 0;
    let best_other = others.into_iter().max().unwrap_or(0);
    if stays_open {
        return 1 + i32::from(ours >= best_other);
    }
    match ours.cmp(&best_other) {
        std::cmp::Ordering::Greater => {
            20 + i32::from(pad_kind(slot.kind).victory_points) - piece_strength
        }
        std::cmp::Ordering::Equal => -2,
        std::cmp::Ordering::Less => -10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-seat game after `steps` random actions.
    fn played(steps: usize) -> Bullfrogs {
        played_at(2, 11, steps)
    }

    /// A game of `n_seats` dealt from `seed` after `steps` random actions.
    fn played_at(n_seats: usize, seed: u64, steps: usize) -> Bullfrogs {
        let mut state = Bullfrogs::new(&Default::default(), n_seats, seed).expect("valid setup");
        let mut rng = Rng::seeded(3);
        let mut legal = Vec::new();
        for _ in 0..steps {
            if state.is_terminal() {
                break;
            }
            legal.clear();
            state.legal_actions(&mut legal);
            let action = legal[rng.below(legal.len())];
            state.apply(&action).expect("a listed action is legal");
        }
        state
    }

    #[test]
    fn the_greedy_pick_is_uniform_among_the_best_and_never_takes_a_worse_action() {
        let state = played(0);
        // Four plays of a four-action pad (the best), two of a two-action pad.
        let play = |kind: u8, x: i8| Action::Play {
            kind,
            at: Pos::new(x, 1),
        };
        let legal = [
            play(3, 0),
            play(1, 1),
            play(1, 2),
            play(3, 3),
            play(1, 4),
            play(1, 5),
        ];
        let mut rng = Rng::seeded(7);
        let mut picked = [0u32; 6];
        for _ in 0..8_000 {
            picked[greedy_pick(&state, &legal, &mut rng)] += 1;
        }
        assert_eq!((picked[0], picked[3]), (0, 0), "{picked:?}");
        // Each best play 2,000 times expected; sd about 39.
        for index in [1, 2, 4, 5] {
            assert!((1_800..2_200).contains(&picked[index]), "{picked:?}");
        }
    }

    #[test]
    fn a_playout_step_takes_the_action_and_the_draws_a_pick_from_the_listed_actions_does() {
        let (mut plays, mut others) = (0, 0);
        for (n_seats, deal) in [(2, 1), (3, 2), (4, 3), (2, 4), (4, 5)] {
            let mut state =
                Bullfrogs::new(&Default::default(), n_seats, deal).expect("valid setup");
            let mut rng = Rng::seeded(deal);
            let mut legal = Vec::new();
            while !state.is_terminal() {
                let (mut listed, mut listed_rng) = (state.clone(), rng.clone());
                legal.clear();
                listed.legal_actions(&mut legal);
                let pick = legal[playout_pick(&listed, &legal, &mut listed_rng)];
                listed.apply_legal(&pick);
                match pick {
                    Action::Play { .. } => plays += 1,
                    _ => others += 1,
                }
                playout_step(&mut state, &mut legal, &mut rng);
                assert_eq!(state, listed, "after {pick}");
                assert_eq!(rng, listed_rng, "after {pick}");
            }
        }
        assert!(plays > 100 && others > 300, "{plays} {others}");
    }

    #[test]
    fn the_slot_cursor_finds_every_slot_in_any_order() {
        let state = played(60);
        let slots = state.public().table.slots();
        assert!(slots.len() > 5, "{} slots", slots.len());
        let mut cursor = SlotCursor::new(slots);
        let backwards = slots.iter().rev();
        for slot in slots.iter().chain(backwards).chain(slots.iter().step_by(3)) {
            assert_eq!(cursor.at(slot.pos).map(|s| s.pos), Some(slot.pos));
        }
        let nowhere = Pos::new(40, 40);
        assert!(state.public().table.is_empty_cell(nowhere));
        assert!(cursor.at(nowhere).is_none());
    }

    /// One capped search from `state`: the action, and the playout
    /// decisions it played (which pin every playout's length).
    fn searched(state: &Bullfrogs, search_seed: u64) -> (String, u64) {
        let seat = state.current_seat().expect("a seat to move");
        let budget = crate::mcts::Budget {
            think: std::time::Duration::from_secs(3600),
            iterations: Some(150),
        };
        let seen = state.observation(seat);
        let mut rng = Rng::seeded(search_seed);
        let result = crate::mcts::search::<Bullfrogs>(&seen, seat, budget, &mut rng)
            .expect("a live game can be searched");
        assert_eq!(result.iterations, 150);
        (result.action.to_string(), result.playout_steps)
    }

    #[test]
    fn searched_decisions_are_the_ones_pinned_before_the_search_was_made_faster() {
        // Taken at `a15121b`; a change that keeps every draw and every
        // choice of the search keeps them all.
        let cases = [
            (2, 11, 0, 1),
            (2, 5, 10, 2),
            (2, 5, 11, 2),
            (3, 8, 15, 3),
            (3, 8, 16, 3),
            (4, 3, 26, 4),
            (4, 3, 27, 4),
            (2, 9, 4, 5),
        ];
        let found: Vec<(String, u64)> = cases
            .iter()
            .map(|&(n_seats, deal, steps, seed)| searched(&played_at(n_seats, deal, steps), seed))
            .collect();
        let pinned = [
            ("play pad5 at 2,0", 13675),
            ("recruit frog at 0,-2", 11607),
            ("play pad3 at -1,-2", 11000),
            ("recruit frog at 0,1", 18487),
            ("recruit frog at 0,1", 18583),
            ("recruit frog at 0,-2", 20728),
            ("recruit frog at 0,-2", 20467),
            ("play pad3 at -2,-1", 13146),
        ];
        assert_eq!(found.len(), pinned.len());
        for (found, pinned) in found.iter().zip(pinned) {
            assert_eq!((found.0.as_str(), found.1), pinned);
        }
    }
}
