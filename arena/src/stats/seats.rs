//! Seat bias on a board: each seat's score share per table size, with a 95%
//! interval over deals.
//!
//! A seat's share of one game is the fraction of the other seats it
//! finished above, a tie counting half: 1 for a win and ½ for a draw at two
//! seats, and ½ on average over the seats of any fair table. The games of
//! a deal (its seatings) are one unit, as in the fitted ratings: a seat's
//! share of a deal is its mean over the deal's games, and the interval is
//! the mean of the deals' shares ± Student's t over deals.

use std::collections::BTreeMap;

use crate::fit::{DealKey, FitGame};

/// One seat of one table size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeatShare {
    pub table_size: u32,
    /// 0 moves first.
    pub seat: u32,
    pub games: usize,
    pub deals: usize,
    pub share: f64,
    /// The 95% interval; infinite with fewer than two deals.
    pub low: f64,
    pub high: f64,
}

/// Every seat of every table size among `games`, by table size then seat.
pub fn seat_shares(games: &[FitGame]) -> Vec<SeatShare> {
    // (table size, seat) -> deal -> (sum of shares, games)
    let mut by_seat: BTreeMap<(u32, u32), BTreeMap<DealKey, (f64, usize)>> = BTreeMap::new();
    for game in games {
        let n = game.seats.len();
        if n < 2 {
            continue;
        }
        for (seat, mine) in game.seats.iter().enumerate() {
            let above = game
                .seats
                .iter()
                .filter(|other| other.rank > mine.rank)
                .count() as f64;
            let tied = game
                .seats
                .iter()
                .filter(|other| other.rank == mine.rank)
                .count()
                - 1;
            let share = (above + 0.5 * tied as f64) / (n - 1) as f64;
            let deal = by_seat
                .entry((n as u32, seat as u32))
                .or_default()
                .entry(game.deal)
                .or_default();
            deal.0 += share;
            deal.1 += 1;
        }
    }
    by_seat
        .into_iter()
        .map(|((table_size, seat), deals)| {
            let means: Vec<f64> = deals.values().map(|&(sum, n)| sum / n as f64).collect();
            let (share, low, high) = mean_interval(&means);
            SeatShare {
                table_size,
                seat,
                games: deals.values().map(|&(_, n)| n).sum(),
                deals: means.len(),
                share,
                low,
                high,
            }
        })
        .collect()
}

/// The mean of `values` (shares, in [0, 1]) and its 95% t-interval
/// (unbounded below two values), the variance never below
/// [`super::variance_floor`]'s.
fn mean_interval(values: &[f64]) -> (f64, f64, f64) {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, f64::NEG_INFINITY, f64::INFINITY);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let variance = variance.max(super::variance_floor(mean, n, (0.0, 1.0)));
    let half = crate::fit::student_t_95(n - 1) * (variance / n as f64).sqrt();
    (mean, mean - half, mean + half)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::FitSeat;
    use cairn_engine::Rng;

    fn game(seed: i64, ranks: &[u32]) -> FitGame {
        FitGame {
            deal: DealKey {
                tournament_id: 1,
                seed,
            },
            seats: ranks
                .iter()
                .enumerate()
                .map(|(bot, &rank)| FitSeat {
                    bot_version_id: bot as i64,
                    rank,
                })
                .collect(),
        }
    }

    #[test]
    fn a_few_equal_shares_still_leave_an_interval_of_some_width() {
        let (share, low, high) = mean_interval(&[5.0 / 12.0; 3]);
        assert!((share - 5.0 / 12.0).abs() < 1e-12);
        assert!(low < share - 0.1 && high > share + 0.1, "[{low}, {high}]");
    }

    #[test]
    fn a_seat_scores_the_share_of_the_others_it_finished_above() {
        let shares = seat_shares(&[game(1, &[1, 3, 2, 2]), game(2, &[1, 2])]);
        let four: Vec<f64> = shares
            .iter()
            .filter(|s| s.table_size == 4)
            .map(|s| s.share)
            .collect();
        assert_eq!(four, [1.0, 0.0, 0.5, 0.5]);
        let two: Vec<(u32, f64)> = shares
            .iter()
            .filter(|s| s.table_size == 2)
            .map(|s| (s.seat, s.share))
            .collect();
        assert_eq!(two, [(0, 1.0), (1, 0.0)]);
        assert!(shares.iter().all(|s| s.low == f64::NEG_INFINITY));
    }

    /// Fair three-seat tables (every seat equally likely to win) over 200
    /// deals of two games, 1,000 times: each seat's interval holds ½ in
    /// 93-97% of the runs.
    #[test]
    fn a_fair_seats_interval_holds_one_half_95_percent_of_the_time() {
        let mut rng = Rng::seeded(29);
        let runs = 1_000;
        let mut covered = 0;
        for _ in 0..runs {
            let games: Vec<FitGame> = (0..200)
                .flat_map(|deal| [0, 1].map(|_| deal))
                .map(|deal| {
                    let mut ranks = [1, 2, 3];
                    for i in (1..3).rev() {
                        ranks.swap(i, rng.below(i + 1));
                    }
                    game(deal, &ranks)
                })
                .collect();
            let first = seat_shares(&games)[0];
            covered += usize::from(first.low <= 0.5 && 0.5 <= first.high);
        }
        let rate = covered as f64 / runs as f64;
        assert!(
            (0.93..=0.97).contains(&rate),
            "covered in {covered} of {runs}"
        );
    }
}
