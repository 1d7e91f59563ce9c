//! The seatings a table of `n` bots plays a deal from, so that neither a
//! seat nor a neighbour favours anyone: every bot sits in every seat
//! equally often, and for every distance `k` every bot sits `k` seats after
//! every other bot equally often (turns go round the table, so who plays
//! right after whom matters as much as the seat: in Bullfrogs neighbours
//! interact). Rotations alone keep the cyclic order, and two copies of one
//! deterministic bot came out 214 Elo apart at four seats (issue 29).
//!
//! The designs have `n (n - 1)` seatings:
//! - 2 and 3 seats: every order;
//! - 5 seats: the rotations of the four orders `seat s -> m s (mod 5)`,
//!   `m = 1..4` (bot `b` is followed by `b + m`, so every distance is
//!   covered once per multiplier);
//! - 4 seats: every cyclic order of four (six, as no three directed
//!   Hamiltonian cycles cover each ordered pair once: Tillson's exception
//!   at 4), each from two rotations picked so every seat stays balanced.

/// One seating per row: `seating[seat]` is the bot at that seat.
const FOUR: [[usize; 4]; 12] = [
    [0, 1, 2, 3],
    [1, 2, 3, 0],
    [0, 1, 3, 2],
    [3, 2, 0, 1],
    [1, 3, 0, 2],
    [3, 0, 2, 1],
    [2, 3, 1, 0],
    [1, 0, 2, 3],
    [0, 3, 1, 2],
    [2, 0, 3, 1],
    [3, 2, 1, 0],
    [2, 1, 0, 3],
];

/// How many seatings [`balanced_seatings`] gives a table of `n`.
pub fn seatings_per_table(n: usize) -> usize {
    if n <= 1 {
        1
    } else {
        n * (n - 1)
    }
}

/// The balanced seatings of a table of `n` bots (1 to 5), in a fixed order.
pub fn balanced_seatings(n: usize) -> Vec<Vec<usize>> {
    match n {
        0 | 1 => vec![vec![0; n]],
        2 => vec![vec![0, 1], vec![1, 0]],
        3 => [[0, 1, 2], [0, 2, 1]]
            .iter()
            .flat_map(|order| rotations(order))
            .collect(),
        4 => FOUR.iter().map(|row| row.to_vec()).collect(),
        _ => (1..n)
            .flat_map(|m| rotations(&(0..n).map(|seat| (m * seat) % n).collect::<Vec<_>>()))
            .collect(),
    }
}

fn rotations(order: &[usize]) -> Vec<Vec<usize>> {
    let n = order.len();
    (0..n)
        .map(|shift| (0..n).map(|seat| order[(seat + shift) % n]).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bot_sits_everywhere_and_behind_everyone_equally_often() {
        for n in 2..=5 {
            let seatings = balanced_seatings(n);
            assert_eq!(seatings.len(), seatings_per_table(n), "{n} seats");
            let mut at_seat = vec![vec![0; n]; n];
            // behind[k][a][b]: b sits k seats after a, round the table.
            let mut behind = vec![vec![vec![0; n]; n]; n];
            for seating in &seatings {
                let mut sorted = seating.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "{seating:?}");
                for (seat, &bot) in seating.iter().enumerate() {
                    at_seat[bot][seat] += 1;
                    for k in 1..n {
                        behind[k][bot][seating[(seat + k) % n]] += 1;
                    }
                }
            }
            assert!(
                at_seat.iter().flatten().all(|&c| c == n - 1),
                "{n}: {at_seat:?}"
            );
            for (k, counts) in behind.iter().enumerate().skip(1) {
                for (a, row) in counts.iter().enumerate() {
                    for (b, &count) in row.iter().enumerate() {
                        let want = if a == b { 0 } else { n };
                        assert_eq!(count, want, "{n} seats: {b} {k} after {a}");
                    }
                }
            }
        }
    }
}
