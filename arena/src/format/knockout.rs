//! A seeded single-elimination bracket. Entry order is the seeding (entry
//! 0 the first seed). The bracket has a power of two of slots, seeds placed
//! as in tennis draws (1 and 2 can meet only in the final); the slots past
//! the last entry are byes, which fall to the best seeds. Each tie is one
//! table of two: a mini-match on mirrored deals.
//!
//! RULING (ours): the entry with more points over the tie's games goes
//! through; equal points, the one with the higher total game score (what
//! the games' own scoring gave it, summed); still equal, the better seed.
//! No extra games are played, so a knockout's length is known in advance.

use super::{seat_points, PlayedMatch};

/// The bracket's first round, slot by slot: `Some(entry)` or a bye.
pub fn bracket(n_entries: usize) -> Vec<Option<usize>> {
    let size = n_entries.max(1).next_power_of_two();
    let mut order = vec![0_usize];
    while order.len() < size {
        let doubled = order.len() * 2;
        order = order
            .iter()
            .flat_map(|&seed| [seed, doubled - 1 - seed])
            .collect();
    }
    order
        .into_iter()
        .map(|seed| (seed < n_entries).then_some(seed))
        .collect()
}

/// One tie of the bracket as it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Tie {
    pub round: usize,
    /// `None` is a bye.
    pub first: Option<usize>,
    pub second: Option<usize>,
    pub first_points: f64,
    pub second_points: f64,
    /// Set once decided (at once for a bye).
    pub winner: Option<usize>,
}

/// Every round's ties, as far as the results go.
pub fn ties(n_entries: usize, history: &[PlayedMatch]) -> Vec<Vec<Tie>> {
    let mut slots = bracket(n_entries);
    let mut rounds = Vec::new();
    let mut round = 0;
    while slots.len() > 1 {
        let ties: Vec<Tie> = slots
            .chunks(2)
            .map(|pair| tie(round, pair[0], pair[1], history))
            .collect();
        let decided = ties.iter().all(|tie| tie.winner.is_some());
        slots = ties.iter().map(|tie| tie.winner).collect();
        rounds.push(ties);
        if !decided {
            break;
        }
        round += 1;
    }
    rounds
}

fn tie(round: usize, first: Option<usize>, second: Option<usize>, history: &[PlayedMatch]) -> Tie {
    let (a, b) = match (first, second) {
        (Some(a), Some(b)) => (a, b),
        (one, other) => {
            return Tie {
                round,
                first,
                second,
                first_points: 0.0,
                second_points: 0.0,
                winner: one.or(other),
            }
        }
    };
    let mut points = [0.0, 0.0];
    let mut scores = [0_i64, 0];
    let mut planned = 0;
    let mut finished = true;
    for played in history
        .iter()
        .filter(|m| m.round == round && m.seats.len() == 2)
    {
        let side = |entry: usize| {
            if entry == a {
                Some(0)
            } else if entry == b {
                Some(1)
            } else {
                None
            }
        };
        let (Some(x), Some(y)) = (side(played.seats[0]), side(played.seats[1])) else {
            continue;
        };
        if x == y {
            continue;
        }
        planned += 1;
        // A tie in play, or cancelled, has no winner yet (a given-up
        // match is over: the games it recorded, then the seeding, decide).
        finished &= played.finished;
        for game in &played.games {
            for (seat, side) in [(0, x), (1, y)] {
                points[side] += seat_points(&game.ranks, seat);
                scores[side] += game.scores.get(seat).copied().unwrap_or(0);
            }
        }
    }
    let winner = (planned > 0 && finished).then(|| {
        let a_wins = points[0]
            .total_cmp(&points[1])
            .then(scores[0].cmp(&scores[1]))
            .then(b.cmp(&a))
            .is_gt();
        if a_wins {
            a
        } else {
            b
        }
    });
    Tie {
        round,
        first,
        second,
        first_points: points[0],
        second_points: points[1],
        winner,
    }
}

/// The ties to play in round `round` (tables of two, better seed first),
/// or `None` when the bracket has its champion.
pub(super) fn next_ties(
    n_entries: usize,
    history: &[PlayedMatch],
    round: usize,
) -> Option<Vec<Vec<usize>>> {
    let mut slots = bracket(n_entries);
    for past in 0..round {
        slots = slots
            .chunks(2)
            .map(|pair| tie(past, pair[0], pair[1], history).winner)
            .collect();
    }
    if slots.len() < 2 {
        return None;
    }
    let ties: Vec<Vec<usize>> = slots
        .chunks(2)
        .filter_map(|pair| match (pair[0], pair[1]) {
            (Some(a), Some(b)) => Some(vec![a.min(b), a.max(b)]),
            _ => None,
        })
        .collect();
    Some(ties)
}

/// The champion once the final is decided.
pub fn champion(n_entries: usize, history: &[PlayedMatch]) -> Option<usize> {
    let rounds = ties(n_entries, history);
    let last = rounds.last()?;
    match last.as_slice() {
        [only] if rounds.len() == bracket(n_entries).len().trailing_zeros() as usize => only.winner,
        _ => None,
    }
}
