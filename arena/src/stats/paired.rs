//! A/B in a field (`cairn play --ab NEW OLD --field ...`): each deal is
//! played twice with the same field in the same seats, NEW then OLD in the
//! tested seat, and the two games make one pair.
//!
//! - A game's share: the fraction of the other seats the tested seat
//!   finished above, a tie counting half (`h / 2(n-1)`, `h` in half-seats).
//! - A pair's outcome `x = ½ + (share_new - share_old) / 2`, in steps of
//!   `1 / 4(n-1)`: ½ when both did alike, whatever the deal's luck.
//! - The Elo-scale difference: NEW's performance rating against the field
//!   minus OLD's, `g(m_new) - g(m_old)` with `g` the logistic Elo of a
//!   score. At two seats it is exactly the Bradley-Terry difference.
//! - Its interval: the mean of `x` ± 1.96 standard errors (while every
//!   pair came out alike, a floor from the Wilson bound on the pairs that
//!   could come out otherwise), mapped through `g(m_old + 2x - 1) -
//!   g(m_old)`: OLD's share is the scale, NEW's the estimate.
//! - The SPRT: the exact GSPRT over the bins of `x` ([`Sprt::check_scaled`]),
//!   an Elo difference `d` predicting the mean `½ + (L(g(m_old) + d) -
//!   m_old) / 2` (`L` the score of an Elo); `d = 0` predicts ½ whatever
//!   OLD's share. `benches/sprt.rs` measures its false positives on real
//!   games with NEW and OLD the same bot.

use super::{elo_of_score, normal_cdf, score_of_elo, Outcomes, Sprt, SprtCheck, Z95};

/// The tested seat's share of a game in half-seats: 2 for each other seat
/// it finished above, 1 for each it tied with (lower rank is better).
pub fn half_seats_beaten(ranks: &[u32], seat: usize) -> u32 {
    let mine = ranks[seat];
    ranks
        .iter()
        .enumerate()
        .filter(|&(other, _)| other != seat)
        .map(|(_, &rank)| match rank.cmp(&mine) {
            std::cmp::Ordering::Greater => 2,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Less => 0,
        })
        .sum()
}

/// The standard error of `n` pairs that all came out at `mean`: at most a
/// share `z² / (n + z²)` of pairs (the Wilson bound on none seen in `n`)
/// could come out elsewhere, at most `max(mean, 1 - mean)` away.
fn alike_floor(mean: f64, n: f64) -> f64 {
    let unseen = Z95 * Z95 / (n + Z95 * Z95);
    (unseen * mean.max(1.0 - mean).powi(2) / n).sqrt()
}

/// The pairs of an A/B at `n_seats`: each NEW's and OLD's half-seats beaten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbPairs {
    pub n_seats: usize,
    pub pairs: Vec<(u32, u32)>,
}

/// What the pairs say.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbEstimate {
    pub pairs: usize,
    /// The mean share of the field each beat.
    pub new_share: f64,
    pub old_share: f64,
    /// NEW minus OLD on the Elo scale, with its 95% interval (an end is
    /// infinite where the data bound it on one side only).
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// The likelihood that NEW is the stronger, from the pairs' model.
    pub los: f64,
    /// Pairs NEW did better in, alike, worse.
    pub better: usize,
    pub same: usize,
    pub worse: usize,
}

impl AbEstimate {
    /// Whether the Elo scale has a slope at OLD's share: not when OLD beat
    /// every other seat in every game, or none (an Elo difference from a
    /// share of 100% or 0% is infinite whatever NEW did).
    pub fn elo_defined(&self) -> bool {
        self.old_share > 0.0 && self.old_share < 1.0
    }
}

impl AbPairs {
    pub fn new(n_seats: usize) -> AbPairs {
        AbPairs {
            n_seats,
            pairs: Vec::new(),
        }
    }

    fn half_seats(&self) -> f64 {
        (2 * self.n_seats.saturating_sub(1).max(1)) as f64
    }

    /// The pairs' outcomes `x` in their bins (`games_per_outcome` 2: a
    /// pair's spread is that of two games).
    pub fn outcomes(&self) -> Outcomes {
        let span = self.half_seats() as usize;
        let mut bins: Vec<(f64, f64)> = (0..=2 * span)
            .map(|k| (k as f64 / (2 * span) as f64, 0.0))
            .collect();
        for &(new, old) in &self.pairs {
            bins[(new as usize + span) - old as usize].1 += 1.0;
        }
        Outcomes {
            bins,
            games_per_outcome: 2,
        }
    }

    /// OLD's mean share, kept off 0 and 1 by half a game so its Elo is finite.
    fn old_share(&self) -> f64 {
        let n = self.pairs.len() as f64;
        let sum: f64 = self.pairs.iter().map(|&(_, old)| f64::from(old)).sum();
        let share = sum / self.half_seats() / n.max(1.0);
        let floor = 0.5 / (n + 1.0);
        share.clamp(floor, 1.0 - floor)
    }

    /// `None` without pairs.
    pub fn estimate(&self) -> Option<AbEstimate> {
        let outcomes = self.outcomes();
        let (mean, variance) = outcomes.mean_and_variance()?;
        let n = outcomes.n();
        let standard_error = match variance > 0.0 {
            true => (variance / n).sqrt(),
            false => alike_floor(mean, n),
        };
        let (low, high) = (mean - Z95 * standard_error, mean + Z95 * standard_error);
        let old = self.old_share();
        let elo_at = |x: f64| elo_of_score(old + 2.0 * x - 1.0) - elo_of_score(old);
        // From the integer sums, so that alike pairs read exactly 0.
        let (new_sum, old_sum) = self
            .pairs
            .iter()
            .fold((0_i64, 0_i64), |(a, b), &(new, old)| {
                (a + i64::from(new), b + i64::from(old))
            });
        let difference = (new_sum - old_sum) as f64 / self.half_seats() / n;
        let count = |keep: fn(u32, u32) -> bool| {
            self.pairs
                .iter()
                .filter(|&&(new, old)| keep(new, old))
                .count()
        };
        Some(AbEstimate {
            pairs: self.pairs.len(),
            new_share: self
                .pairs
                .iter()
                .map(|&(new, _)| f64::from(new))
                .sum::<f64>()
                / self.half_seats()
                / n,
            old_share: self
                .pairs
                .iter()
                .map(|&(_, old)| f64::from(old))
                .sum::<f64>()
                / self.half_seats()
                / n,
            elo: elo_of_score(old + difference) - elo_of_score(old),
            elo_low: elo_at(low),
            elo_high: elo_at(high),
            los: normal_cdf((mean - 0.5) / standard_error),
            better: count(|new, old| new > old),
            same: count(|new, old| new == old),
            worse: count(|new, old| new < old),
        })
    }

    /// The SPRT on the pairs (see the module's notes).
    pub fn check(&self, sprt: &Sprt) -> SprtCheck {
        let old = self.old_share();
        sprt.check_scaled(&self.outcomes(), |elo| {
            0.5 + (score_of_elo(elo_of_score(old) + elo) - old) / 2.0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Verdict;

    #[test]
    fn a_share_counts_the_seats_finished_above_and_half_the_ties() {
        // Ranks 1, 2, 2, 4: seat 1 beat seat 3 and tied seat 2.
        assert_eq!(half_seats_beaten(&[1, 2, 2, 4], 0), 6);
        assert_eq!(half_seats_beaten(&[1, 2, 2, 4], 1), 3);
        assert_eq!(half_seats_beaten(&[1, 2, 2, 4], 3), 0);
        assert_eq!(half_seats_beaten(&[1, 1], 0), 1);
    }

    #[test]
    fn alike_pairs_read_zero_with_an_interval_that_is_not_a_point() {
        let ab = AbPairs {
            n_seats: 3,
            pairs: [(2, 2), (4, 4), (0, 0), (3, 3)].repeat(5),
        };
        let estimate = ab.estimate().unwrap();
        assert_eq!(estimate.elo, 0.0);
        assert!(
            estimate.elo_low < -10.0 && estimate.elo_high > 10.0,
            "{estimate:?}"
        );
        assert_eq!((estimate.better, estimate.same, estimate.worse), (0, 20, 0));
        assert!((estimate.los - 0.5).abs() < 1e-6);
    }

    #[test]
    fn at_two_seats_the_difference_is_that_of_the_performance_ratings() {
        // NEW beats the field in 3 pairs of 4, OLD in 1 of 4.
        let ab = AbPairs {
            n_seats: 2,
            pairs: vec![(2, 0), (2, 2), (2, 0), (0, 0)],
        };
        let estimate = ab.estimate().unwrap();
        let expected = elo_of_score(0.75) - elo_of_score(0.25);
        assert!((estimate.elo - expected).abs() < 1e-9, "{estimate:?}");
        assert!(estimate.elo_low < estimate.elo && estimate.elo < estimate.elo_high);
    }

    #[test]
    fn a_new_that_always_does_better_reads_an_open_interval_and_decides_h1() {
        let ab = AbPairs {
            n_seats: 4,
            pairs: vec![(6, 3); 40],
        };
        let estimate = ab.estimate().unwrap();
        assert_eq!(estimate.elo_high, f64::INFINITY);
        assert!(estimate.elo_low > 100.0, "{estimate:?}");
        let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let mut growing = AbPairs::new(4);
        while growing.check(&sprt).verdict == Verdict::Continue {
            growing.pairs.push((6, 3));
        }
        assert_eq!(growing.check(&sprt).verdict, Verdict::AcceptH1);
        assert!(growing.pairs.len() <= 60, "{}", growing.pairs.len());
    }

    #[test]
    fn pairs_even_around_a_half_favour_no_difference_whatever_old_scores() {
        // OLD beats three quarters of the field; NEW does as well.
        let ab = AbPairs {
            n_seats: 3,
            pairs: [(4, 2), (2, 4), (3, 3), (4, 4)].repeat(30),
        };
        let sprt = Sprt::new(0.0, 30.0, 0.05, 0.05).unwrap();
        let check = ab.check(&sprt);
        assert!(check.llr < 0.0, "{check:?}");
        assert_eq!(ab.estimate().unwrap().elo, 0.0);
    }
}
