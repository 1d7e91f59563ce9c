//! Match statistics for `cairn play` and SPRT gauntlets, as chess engine
//! testers compute them
//! (fastchess, cutechess-cli, fishtest): the score, the Elo difference with
//! a 95% interval, the likelihood of superiority, the pentanomial form over
//! mirrored deal pairs, a generalized SPRT, and per-bot mean rank and score
//! for 3-5 seats. Pure functions over counts; no I/O.
//!
//! - Elo from a score `s`: `-400 log10(1/s - 1)` (logistic Elo).
//! - Interval: the score's standard error `sqrt(var / n)`, `var` the variance
//!   of the per-game (or per-pair) score, `s ± 1.959964 se` mapped through
//!   the Elo curve (normal approximation, as cutechess-cli and fastchess).
//! - LOS: `Φ((W - L) / sqrt(W + L))` (draws carry no information).
//! - GSPRT (Michel Van den Bergh's approximation, used by fishtest and
//!   fastchess): `LLR = n (s1 - s0)(2m - s0 - s1) / (2 var)` with `m`, `var`
//!   the mean and variance of the per-game (or per-pair) score and `s0`, `s1`
//!   the scores of elo0 and elo1; H0 accepted at `ln(β/(1-α))`, H1 at
//!   `ln((1-β)/α)`.

/// The two-sided 95% quantile of the normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The expected score of a player `elo` points stronger (logistic Elo).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of a score in [0, 1]; ±infinity at 1 and 0.
pub fn elo_of_score(score: f64) -> f64 {
    if score >= 1.0 {
        f64::INFINITY
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else {
        // `+ 0.0` shows an even score as 0, not -0.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// The standard normal distribution function, from `erf`.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// Abramowitz and Stegun 7.1.26: absolute error below 1.5e-7, plenty for a
/// LOS shown to 0.1%.
fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Outcomes with their scores (0, ½, 1 for games; 0, ¼, ½, ¾, 1 for pairs,
/// a pair's points over its two games) and how often each happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcomes {
    /// `(score in [0, 1], count)`.
    pub bins: Vec<(f64, f64)>,
}

impl Outcomes {
    /// Games from one bot's side: wins, draws, losses.
    pub fn trinomial(wins: u64, draws: u64, losses: u64) -> Outcomes {
        Outcomes {
            bins: vec![
                (1.0, wins as f64),
                (0.5, draws as f64),
                (0.0, losses as f64),
            ],
        }
    }

    /// Deal pairs from one bot's side: how many pairs scored 0, ½, 1, 1½, 2
    /// points over their two games.
    pub fn pentanomial(pairs: [u64; 5]) -> Outcomes {
        Outcomes {
            bins: (0..5).map(|i| (i as f64 / 4.0, pairs[i] as f64)).collect(),
        }
    }

    pub fn n(&self) -> f64 {
        self.bins.iter().map(|&(_, count)| count).sum()
    }

    /// The mean score and the variance of one outcome's score; `None`
    /// without outcomes.
    pub fn mean_and_variance(&self) -> Option<(f64, f64)> {
        let n = self.n();
        if n <= 0.0 {
            return None;
        }
        let mean = self.bins.iter().map(|&(s, c)| s * c).sum::<f64>() / n;
        let variance = self
            .bins
            .iter()
            .map(|&(s, c)| c * (s - mean).powi(2))
            .sum::<f64>()
            / n;
        Some((mean, variance))
    }
}

/// The score and the Elo difference with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloEstimate {
    pub score: f64,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
}

impl EloEstimate {
    /// `None` without outcomes. A perfect or null score gives an infinite
    /// Elo (never NaN).
    pub fn of(outcomes: &Outcomes) -> Option<EloEstimate> {
        let (mean, variance) = outcomes.mean_and_variance()?;
        let margin = Z95 * (variance / outcomes.n()).sqrt();
        Some(EloEstimate {
            score: mean,
            elo: elo_of_score(mean),
            elo_low: elo_of_score(mean - margin),
            elo_high: elo_of_score(mean + margin),
        })
    }

    /// Half the interval's width, the `±` a tester prints.
    /// Infinite when an end of the interval is.
    pub fn margin(&self) -> f64 {
        let margin = (self.elo_high - self.elo_low) / 2.0;
        if margin.is_nan() {
            f64::INFINITY
        } else {
            margin
        }
    }
}

/// The likelihood of superiority; `None` when every game was drawn or none
/// was played.
pub fn los(wins: u64, losses: u64) -> Option<f64> {
    let decisive = (wins + losses) as f64;
    if decisive == 0.0 {
        return None;
    }
    Some(normal_cdf((wins as f64 - losses as f64) / decisive.sqrt()))
}

/// A sequential probability ratio test between elo0 (H0) and elo1 (H1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// The largest Elo difference an SPRT may test.
pub const MAX_SPRT_ELO: f64 = 1000.0;

/// Where an SPRT stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// elo0 holds: the candidate is not elo1 stronger.
    AcceptH0,
    /// elo1 holds.
    AcceptH1,
}

impl Sprt {
    /// Checks the parameters: elo0 < elo1, both within ±[`MAX_SPRT_ELO`],
    /// α and β in (0, 1) with α + β < 1 (else the bounds cross and any
    /// first game decides).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        let in_unit = |p: f64| p > 0.0 && p < 1.0;
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!("sprt: elo0 ({elo0}) must be below elo1 ({elo1})"));
        }
        if elo0.abs() > MAX_SPRT_ELO || elo1.abs() > MAX_SPRT_ELO {
            return Err(format!(
                "sprt: elo0 and elo1 must be within ±{MAX_SPRT_ELO} (a score of 99.7%)"
            ));
        }
        if !(in_unit(alpha) && in_unit(beta)) {
            return Err(format!(
                "sprt: alpha ({alpha}) and beta ({beta}) must be between 0 and 1"
            ));
        }
        if alpha + beta >= 1.0 {
            return Err(format!(
                "sprt: alpha ({alpha}) plus beta ({beta}) must be below 1, or the test decides before any game"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Parses `elo0=A elo1=B alpha=.. beta=..` (alpha and beta default to
    /// 0.05), one `key=value` per item.
    pub fn parse<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<Sprt, String> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        for item in items {
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!(
                    "sprt: `{item}` is not key=value (keys: elo0, elo1, alpha, beta)"
                ));
            };
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("sprt: `{value}` is not a number"))?;
            match key.trim() {
                "elo0" => elo0 = Some(value),
                "elo1" => elo1 = Some(value),
                "alpha" => alpha = value,
                "beta" => beta = value,
                other => {
                    return Err(format!(
                        "sprt: unknown key `{other}` (keys: elo0, elo1, alpha, beta)"
                    ))
                }
            }
        }
        match (elo0, elo1) {
            (Some(elo0), Some(elo1)) => Sprt::new(elo0, elo1, alpha, beta),
            _ => Err("sprt: elo0 and elo1 are required, e.g. --sprt elo0=0 elo1=10".into()),
        }
    }

    /// The log-likelihood ratio `ln(β/(1-α))` below which H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The log-likelihood ratio `ln((1-β)/α)` above which H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of H1 against H0; 0 without outcomes or
    /// while every outcome was the same (no variance yet, as fastchess).
    pub fn llr(&self, outcomes: &Outcomes) -> f64 {
        let Some((mean, variance)) = outcomes.mean_and_variance() else {
            return 0.0;
        };
        if variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        outcomes.n() * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    pub fn verdict(&self, llr: f64) -> Verdict {
        if llr >= self.upper_bound() {
            Verdict::AcceptH1
        } else if llr <= self.lower_bound() {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

/// A mean with its 95% interval (normal approximation, sample variance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    pub n: usize,
    pub mean: f64,
    /// Half the interval's width; 0 with fewer than two samples.
    pub margin: f64,
}

impl MeanInterval {
    /// `None` without samples.
    pub fn of(samples: &[f64]) -> Option<MeanInterval> {
        let n = samples.len();
        if n == 0 {
            return None;
        }
        let mean = samples.iter().sum::<f64>() / n as f64;
        let margin = if n < 2 {
            0.0
        } else {
            let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            Z95 * (variance / n as f64).sqrt()
        };
        Some(MeanInterval { n, mean, margin })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn an_sprt_whose_bounds_would_cross_or_whose_elo_is_absurd_is_refused() {
        for (elo0, elo1, alpha, beta, says) in [
            (0.0, 5.0, 0.5, 0.5, "below 1"),
            (0.0, 5.0, 0.999_999, 0.999_999, "below 1"),
            (0.0, 1e308, 0.05, 0.05, "within"),
            (-5000.0, 0.0, 0.05, 0.05, "within"),
        ] {
            let refused = Sprt::new(elo0, elo1, alpha, beta).unwrap_err();
            assert!(refused.contains(says), "{refused}");
        }
        assert!(Sprt::new(-1000.0, 1000.0, 0.49, 0.5).is_ok());
    }

    #[test]
    fn a_known_wdl_gives_the_closed_form_elo_and_interval() {
        // 60 wins, 20 draws, 20 losses: s = 70/100 = 0.7.
        let estimate = EloEstimate::of(&Outcomes::trinomial(60, 20, 20)).unwrap();
        let s: f64 = 0.7;
        let variance =
            (60.0 * (1.0 - s).powi(2) + 20.0 * (0.5 - s).powi(2) + 20.0 * s.powi(2)) / 100.0;
        let se = (variance / 100.0).sqrt();
        let elo = |x: f64| -400.0 * (1.0 / x - 1.0).log10();
        assert!(close(estimate.score, 0.7, 1e-12));
        assert!(close(estimate.elo, elo(s), 1e-9));
        assert!(close(estimate.elo_low, elo(s - 1.959964 * se), 1e-3));
        assert!(close(estimate.elo_high, elo(s + 1.959964 * se), 1e-3));
        // Checked by hand: -400 log10(0.3 / 0.7) = 400 * 0.367977 = 147.19.
        assert!(close(estimate.elo, 147.19, 0.01), "{}", estimate.elo);
        // variance 0.16, se 0.04, s ± 0.078400: 0.621601 .. 0.778399.
        assert!(close(estimate.elo_low, 86.23, 0.05), "{}", estimate.elo_low);
        assert!(
            close(estimate.elo_high, 218.25, 0.05),
            "{}",
            estimate.elo_high
        );
    }

    #[test]
    fn an_even_score_is_zero_elo_and_even_los() {
        let estimate = EloEstimate::of(&Outcomes::trinomial(10, 5, 10)).unwrap();
        assert!(close(estimate.elo, 0.0, 1e-9));
        assert!(close(estimate.elo_low, -estimate.elo_high, 1e-9));
        assert!(close(los(10, 10).unwrap(), 0.5, 1e-9));
    }

    #[test]
    fn los_is_the_normal_cdf_of_the_win_surplus() {
        // (60 - 20) / sqrt(80) = 4.4721: Φ = 0.999996.
        assert!(close(los(60, 20).unwrap(), 0.999_996_1, 1e-6));
        // (12 - 8) / sqrt(20) = 0.894427: Φ = 0.814453.
        assert!(close(los(12, 8).unwrap(), 0.814_453, 1e-5));
        assert!(close(los(8, 12).unwrap(), 1.0 - 0.814_453, 1e-5));
        assert_eq!(los(0, 0), None);
    }

    #[test]
    fn all_wins_is_infinite_elo_not_nan_and_zero_games_is_none() {
        let estimate = EloEstimate::of(&Outcomes::trinomial(7, 0, 0)).unwrap();
        assert_eq!(estimate.elo, f64::INFINITY);
        assert_eq!(estimate.elo_low, f64::INFINITY);
        assert_eq!(estimate.margin(), f64::INFINITY);
        let estimate = EloEstimate::of(&Outcomes::trinomial(0, 0, 3)).unwrap();
        assert_eq!(estimate.elo, f64::NEG_INFINITY);
        assert_eq!(EloEstimate::of(&Outcomes::trinomial(0, 0, 0)), None);
        assert_eq!(EloEstimate::of(&Outcomes::pentanomial([0; 5])), None);
        assert_eq!(los(7, 0).map(|p| p > 0.99), Some(true));
    }

    #[test]
    fn pairs_that_split_their_deals_have_a_narrower_interval_than_their_games() {
        // 20 pairs each won once and lost once (a lucky deal decides): the
        // same games as 20 wins and 20 losses, but no variance over pairs.
        let games = EloEstimate::of(&Outcomes::trinomial(20, 0, 20)).unwrap();
        let pairs = EloEstimate::of(&Outcomes::pentanomial([0, 0, 20, 0, 0])).unwrap();
        assert!(close(games.elo, 0.0, 1e-9) && close(pairs.elo, 0.0, 1e-9));
        assert!(games.margin() > 100.0);
        assert!(close(pairs.margin(), 0.0, 1e-9));
    }

    #[test]
    fn the_pentanomial_variance_is_over_pairs() {
        // Pairs scored 0, ½, 1, 1½, 2 points: 1, 2, 4, 2, 1 times.
        let outcomes = Outcomes::pentanomial([1, 2, 4, 2, 1]);
        let (mean, variance) = outcomes.mean_and_variance().unwrap();
        assert!(close(mean, 0.5, 1e-12));
        let by_hand = (2.0 * 0.25f64.powi(2) * 2.0 + 2.0 * 0.5f64.powi(2)) / 10.0;
        assert!(close(variance, by_hand, 1e-12), "{variance} {by_hand}");
    }

    #[test]
    fn a_known_sequence_gives_the_closed_form_llr() {
        // 30 wins, 40 draws, 30 losses at elo0 = 0, elo1 = 20 is evidence
        // for H0: m = 0.5, var = 0.15.
        let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05).unwrap();
        let outcomes = Outcomes::trinomial(30, 40, 30);
        let s0 = 0.5;
        let s1 = 1.0 / (1.0 + 10f64.powf(-20.0 / 400.0));
        let by_hand = 100.0 * (s1 - s0) * (2.0 * 0.5 - s0 - s1) / (2.0 * 0.15);
        assert!(close(sprt.llr(&outcomes), by_hand, 1e-9));
        // Checked by hand: s1 = 0.528751, so -100 * 0.028751^2 / 0.3 = -0.2755.
        assert!(
            close(sprt.llr(&outcomes), -0.2755, 1e-3),
            "{}",
            sprt.llr(&outcomes)
        );
        assert_eq!(sprt.verdict(sprt.llr(&outcomes)), Verdict::Continue);
    }

    #[test]
    fn the_bounds_are_wald_s() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        assert!(close(sprt.lower_bound(), (0.05f64 / 0.95).ln(), 1e-12));
        assert!(close(sprt.upper_bound(), (0.95f64 / 0.05).ln(), 1e-12));
        assert!(close(sprt.upper_bound(), 2.944_438_98, 1e-8));
        let skewed = Sprt::new(0.0, 5.0, 0.1, 0.2).unwrap();
        assert!(close(skewed.lower_bound(), (0.2f64 / 0.9).ln(), 1e-12));
        assert!(close(skewed.upper_bound(), (0.8f64 / 0.1).ln(), 1e-12));
        assert_eq!(sprt.verdict(3.0), Verdict::AcceptH1);
        assert_eq!(sprt.verdict(-3.0), Verdict::AcceptH0);
        assert_eq!(sprt.verdict(0.0), Verdict::Continue);
    }

    #[test]
    fn a_one_sided_run_waits_for_variance_then_decides() {
        let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        assert_eq!(sprt.llr(&Outcomes::trinomial(20, 0, 0)), 0.0);
        assert_eq!(sprt.llr(&Outcomes::trinomial(0, 0, 0)), 0.0);
        // 10 wins, 1 loss: m = 10/11, var = m (1 - m).
        let (m, s0) = (10.0 / 11.0, 0.5);
        let s1 = 1.0 / (1.0 + 10f64.powf(-0.5));
        let by_hand = 11.0 * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * m * (1.0 - m));
        let llr = sprt.llr(&Outcomes::trinomial(10, 0, 1));
        assert!(close(llr, by_hand, 1e-9), "{llr} {by_hand}");
        assert_eq!(sprt.verdict(llr), Verdict::AcceptH1);
        let llr = sprt.llr(&Outcomes::trinomial(1, 0, 10));
        assert_eq!(sprt.verdict(llr), Verdict::AcceptH0);
    }

    #[test]
    fn sprt_parameters_are_checked() {
        let sprt = Sprt::parse(["elo0=0", "elo1=200", "alpha=0.1"]).unwrap();
        assert_eq!(
            (sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta),
            (0.0, 200.0, 0.1, 0.05)
        );
        assert!(Sprt::parse(["elo0=5", "elo1=0"])
            .unwrap_err()
            .contains("below"));
        assert!(Sprt::parse(["elo0=0", "elo1=5", "beta=1"]).is_err());
        assert!(Sprt::parse(["elo0=0"]).unwrap_err().contains("required"));
        assert!(Sprt::parse(["elo=0"]).unwrap_err().contains("keys"));
        assert!(Sprt::parse(["elo0=x", "elo1=1"]).is_err());
        assert!(Sprt::parse(["elo0=NaN", "elo1=1"]).is_err());
    }

    #[test]
    fn a_mean_interval_uses_the_sample_variance() {
        let interval = MeanInterval::of(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(close(interval.mean, 2.5, 1e-12));
        // sample variance 5/3, se sqrt(5/12) = 0.645497.
        assert!(close(interval.margin, 1.959964 * 0.645_497, 1e-5));
        assert_eq!(MeanInterval::of(&[3.0]).unwrap().margin, 0.0);
        assert_eq!(MeanInterval::of(&[]), None);
    }
}
