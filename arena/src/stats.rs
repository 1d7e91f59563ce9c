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
//! - Normalized Elo (nElo): `(s - ½) / σ · 800 / ln 10`, `σ` the standard
//!   deviation of one game's score (over pairs: `sqrt(2 var)`), as fishtest
//!   and fastchess: a difference in units of the noise, not of strength.
//! - LOS: over games `Φ((W - L) / sqrt(W + L))` (draws carry no
//!   information); over deal pairs `Φ((s - ½) / se)`, the pairs' model.
//! - GSPRT: the exact generalized log-likelihood ratio over the outcomes'
//!   bins ([`gsprt`]), in logistic Elo (H0: mean score `s0` of elo0, H1:
//!   `s1`) or normalized Elo (`model=normalized`: the t-value); H0 accepted
//!   at `ln(β/(1-α))`, H1 at `ln((1-β)/α)`. `arena/benches/sprt.rs`
//!   simulates its error rates.

mod gsprt;
pub mod paired;
pub mod seats;
pub mod simulation;

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
    /// 1 for games, 2 for deal pairs: a pair's score is the mean of two
    /// games', which normalized Elo scales back to one game.
    pub games_per_outcome: u32,
}

impl Outcomes {
    /// Games from one bot's side: wins, draws, losses.
    pub fn trinomial(wins: u64, draws: u64, losses: u64) -> Outcomes {
        Outcomes {
            bins: vec![
                (0.0, losses as f64),
                (0.5, draws as f64),
                (1.0, wins as f64),
            ],
            games_per_outcome: 1,
        }
    }

    /// Deal pairs from one bot's side: how many pairs scored 0, ½, 1, 1½, 2
    /// points over their two games.
    pub fn pentanomial(pairs: [u64; 5]) -> Outcomes {
        Outcomes {
            bins: (0..5).map(|i| (i as f64 / 4.0, pairs[i] as f64)).collect(),
            games_per_outcome: 2,
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

/// `800 / ln 10`: one unit of t-value in normalized Elo.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The score and the Elo difference with its 95% interval, in logistic and
/// normalized Elo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloEstimate {
    pub score: f64,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// Normalized Elo and its interval. While the outcomes have no spread
    /// (nElo is measured in units of it), infinite at a perfect or null
    /// score, with the interval's ends read at the most spread they allow.
    pub nelo: (f64, f64, f64),
    /// The score's standard error.
    pub standard_error: f64,
    /// How many outcomes (games or deal pairs).
    pub n: f64,
}

impl EloEstimate {
    /// `None` without outcomes. A perfect or null score gives an infinite
    /// Elo (never NaN): its interval's other end is the one-sided bound.
    pub fn of(outcomes: &Outcomes) -> Option<EloEstimate> {
        let (mean, variance) = outcomes.mean_and_variance()?;
        let n = outcomes.n();
        let standard_error = (variance / n).sqrt();
        let (low, high) = if variance > 0.0 {
            (mean - Z95 * standard_error, mean + Z95 * standard_error)
        } else {
            wilson(mean, n)
        };
        let games = f64::from(outcomes.games_per_outcome);
        let sigma = (games * variance).sqrt();
        let nelo = if sigma > 0.0 {
            let nelo_of = |s: f64| (s - 0.5) / sigma * NELO_PER_T;
            let margin = Z95 * standard_error;
            (
                nelo_of(mean),
                nelo_of(mean - margin),
                nelo_of(mean + margin),
            )
        } else {
            // No spread: nElo is infinite (or 0 at an even score), and each
            // end of Wilson's interval is read with the most spread its mean
            // can have, `p (1 - p)`, which can only pull it towards 0.
            let bound = |s: f64| match s {
                0.0 => f64::NEG_INFINITY,
                1.0 => f64::INFINITY,
                s => (s - 0.5) / (games * s * (1.0 - s)).sqrt() * NELO_PER_T,
            };
            let point = match mean {
                0.5 => 0.0,
                m if m > 0.5 => f64::INFINITY,
                _ => f64::NEG_INFINITY,
            };
            (point, bound(low), bound(high))
        };
        Some(EloEstimate {
            score: mean,
            elo: elo_of_score(mean),
            elo_low: elo_of_score(low),
            elo_high: elo_of_score(high),
            nelo,
            standard_error,
            n,
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

    /// The likelihood of superiority under the same normal model as the
    /// interval (for deal pairs, the pentanomial one). While every outcome
    /// was the same, the spread an even score can have at most stands in
    /// for the observed none (as the interval's Wilson fallback does).
    pub fn los(&self) -> f64 {
        let standard_error = if self.standard_error > 0.0 {
            self.standard_error
        } else {
            (0.25 / self.n).sqrt()
        };
        normal_cdf((self.score - 0.5) / standard_error)
    }
}

/// The Wilson interval of a mean in [0, 1] whose `n` outcomes were all the
/// same: the variance a mean `p` can have at most (`p (1 - p)`) stands in
/// for the observed none, so 20 pairs that each split their deal, or 60
/// wins in 60 games, are not pinned to a point (60-0 reads "at least +480").
fn wilson(mean: f64, n: f64) -> (f64, f64) {
    let z2 = Z95 * Z95;
    let centre = (mean + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (mean * (1.0 - mean) / n + z2 / (4.0 * n * n)).sqrt();
    // At an end the interval reaches it exactly: rounded to just inside,
    // `+inf` would print as a finite Elo of several thousand.
    let low = if mean <= 0.0 { 0.0 } else { centre - half };
    let high = if mean >= 1.0 { 1.0 } else { centre + half };
    (low.max(0.0), high.min(1.0))
}

/// The likelihood of superiority over games; `None` when every game was
/// drawn or none was played.
pub fn los(wins: u64, losses: u64) -> Option<f64> {
    let decisive = (wins + losses) as f64;
    if decisive == 0.0 {
        return None;
    }
    Some(normal_cdf((wins as f64 - losses as f64) / decisive.sqrt()))
}

/// The Elo scale an SPRT's bounds are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EloModel {
    /// Logistic Elo, the scale of ratings: elo0 and elo1 name mean scores.
    #[default]
    Logistic,
    /// Normalized Elo (fastchess's and fishtest's default): elo0 and elo1
    /// name t-values `(s - ½) / σ`, so the test's length depends little on
    /// the draw rate.
    Normalized,
}

impl EloModel {
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        }
    }

    pub fn parse(text: &str) -> Result<EloModel, String> {
        match text {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" => Ok(EloModel::Normalized),
            other => Err(format!(
                "sprt: unknown model `{other}` (models: logistic, normalized)"
            )),
        }
    }
}

/// A sequential probability ratio test between elo0 (H0) and elo1 (H1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
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
    /// first game decides). Logistic Elo; see [`Sprt::with_model`].
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
            model: EloModel::Logistic,
        })
    }

    pub fn with_model(self, model: EloModel) -> Sprt {
        Sprt { model, ..self }
    }

    /// Parses `elo0=A elo1=B alpha=.. beta=.. model=..` (alpha and beta
    /// default to 0.05, the model to logistic), one `key=value` per item.
    pub fn parse<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<Sprt, String> {
        const KEYS: &str = "keys: elo0, elo1, alpha, beta, model";
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        let mut model = EloModel::Logistic;
        for item in items {
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!("sprt: `{item}` is not key=value ({KEYS})"));
            };
            if key.trim() == "model" {
                model = EloModel::parse(value.trim())?;
                continue;
            }
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("sprt: `{value}` is not a number"))?;
            match key.trim() {
                "elo0" => elo0 = Some(value),
                "elo1" => elo1 = Some(value),
                "alpha" => alpha = value,
                "beta" => beta = value,
                other => return Err(format!("sprt: unknown key `{other}` ({KEYS})")),
            }
        }
        match (elo0, elo1) {
            (Some(elo0), Some(elo1)) => Ok(Sprt::new(elo0, elo1, alpha, beta)?.with_model(model)),
            _ => Err("sprt: elo0 and elo1 are required, e.g. --sprt elo0=0 elo1=10".into()),
        }
    }

    /// Wald's bound `ln(β/(1-α))`, below which H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Wald's bound `ln((1-β)/α)`, above which H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The exact generalized log-likelihood ratio of H1 against H0 over the
    /// outcomes' bins, empty bins regularized; 0 without outcomes.
    pub fn llr(&self, outcomes: &Outcomes) -> f64 {
        self.check(outcomes).llr
    }

    /// The LLR and the verdict against Wald's bounds. Where one outcome
    /// moves the LLR a lot (wide bounds over deal pairs), the test stops
    /// past its bound and errs less often than α and β: conservative, as
    /// `arena/benches/sprt.rs` measures (docs/performance.md).
    pub fn check(&self, outcomes: &Outcomes) -> SprtCheck {
        self.check_scaled(outcomes, score_of_elo)
    }

    /// [`Sprt::check`] where a logistic Elo difference predicts the mean
    /// outcome `mean_of_elo(elo)` (an A/B pair's, see [`paired`]); the
    /// normalized model tests the t-value, which needs no such map.
    pub fn check_scaled(&self, outcomes: &Outcomes, mean_of_elo: impl Fn(f64) -> f64) -> SprtCheck {
        let (lower, upper) = (self.lower_bound(), self.upper_bound());
        if outcomes.n() <= 0.0 {
            return SprtCheck {
                llr: 0.0,
                lower,
                upper,
                verdict: Verdict::Continue,
            };
        }
        let scores: Vec<f64> = outcomes.bins.iter().map(|&(score, _)| score).collect();
        let counts: Vec<f64> = outcomes.bins.iter().map(|&(_, count)| count).collect();
        let counts = gsprt::regularized(&counts);
        let total: f64 = counts.iter().sum();
        let probs: Vec<f64> = counts.iter().map(|n| n / total).collect();
        let (q0, q1) = match self.model {
            EloModel::Logistic => (
                gsprt::with_mean(&scores, &probs, mean_of_elo(self.elo0)),
                gsprt::with_mean(&scores, &probs, mean_of_elo(self.elo1)),
            ),
            EloModel::Normalized => {
                // A pair's t-value is sqrt(2) times one game's.
                let scale = f64::from(outcomes.games_per_outcome).sqrt() / NELO_PER_T;
                (
                    gsprt::with_t_value(&scores, &probs, self.elo0 * scale),
                    gsprt::with_t_value(&scores, &probs, self.elo1 * scale),
                )
            }
        };
        let llr = gsprt::log_ratio(&counts, &q0, &q1);
        let verdict = if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        };
        SprtCheck {
            llr,
            lower,
            upper,
            verdict,
        }
    }
}

/// Where an SPRT stands after some outcomes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtCheck {
    pub llr: f64,
    /// The bounds the LLR was compared with (Wald's).
    pub lower: f64,
    pub upper: f64,
    pub verdict: Verdict,
}

/// A mean with its 95% interval (normal approximation, sample variance).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    pub n: usize,
    pub mean: f64,
    /// Half the interval's width; `None` where the samples cannot give one
    /// (fewer than two, or all alike with no bounds known).
    pub margin: Option<f64>,
}

impl MeanInterval {
    /// The normal interval of the mean; `None` without samples.
    pub fn of(samples: &[f64]) -> Option<MeanInterval> {
        let (n, mean, variance) = sample_moments(samples)?;
        let margin = (n >= 2 && variance > 0.0).then(|| Z95 * (variance / n as f64).sqrt());
        Some(MeanInterval { n, mean, margin })
    }

    /// The interval of the mean of samples that lie in `[low, high]`: the
    /// variance taken never below what one more sample at each bound
    /// would give it (a pseudo-count), so three equal ranks are not a
    /// certainty. The floor only binds for samples nearly alike.
    pub fn of_bounded(samples: &[f64], (low, high): (f64, f64)) -> Option<MeanInterval> {
        let (n, mean, variance) = sample_moments(samples)?;
        let variance = variance.max(variance_floor(mean, n, (low, high)));
        let margin = Some(Z95 * (variance / n as f64).sqrt());
        Some(MeanInterval { n, mean, margin })
    }
}

/// RULING (ours): the least variance taken for `n` samples of mean `mean`
/// that lie in `[low, high]`: what one more sample at each bound would
/// give it. It binds only for samples nearly alike, so a few equal ranks
/// or shares never make a zero-width interval; `cairn play`'s margins and
/// `cairn ratings --seats` take it alike.
pub fn variance_floor(mean: f64, n: usize, (low, high): (f64, f64)) -> f64 {
    ((low - mean).powi(2) + (high - mean).powi(2)) / (2.0 * (n as f64 + 1.0))
}

/// How many samples, their mean and their sample variance (0 for one).
fn sample_moments(samples: &[f64]) -> Option<(usize, f64, f64)> {
    let n = samples.len();
    if n == 0 {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let variance = match n {
        1 => 0.0,
        _ => samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64,
    };
    Some((n, mean, variance))
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
        assert_eq!(estimate.elo_high, f64::INFINITY);
        assert!(estimate.elo_low.is_finite() && estimate.elo_low > 0.0);
        assert_eq!(estimate.margin(), f64::INFINITY);
        // Issue 29: 60-0 is "at least +480", not +inf .. +inf.
        let sixty = EloEstimate::of(&Outcomes::trinomial(60, 0, 0)).unwrap();
        assert!(close(sixty.elo_low, 480.0, 10.0), "{}", sixty.elo_low);
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
        let spread = EloEstimate::of(&Outcomes::pentanomial([1, 2, 34, 2, 1])).unwrap();
        assert!(spread.margin() < games.margin());
        // Every pair split the same way: 20 pairs cannot pin the difference
        // to a point (issue 29), so the interval falls back on the widest
        // spread a mean of one half can have.
        assert!(pairs.margin() > 50.0, "{}", pairs.margin());
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
    fn near_even_the_exact_llr_agrees_with_the_quadratic_approximation() {
        // 30 wins, 40 draws, 30 losses at elo0 = 0, elo1 = 20 is evidence
        // for H0: m = 0.5, var = 0.15; the approximation
        // n (s1 - s0)(2m - s0 - s1) / (2 var) gives -0.2755 and the exact
        // ratio is within a percent of it this close to even.
        let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05).unwrap();
        let check = sprt.check(&Outcomes::trinomial(30, 40, 30));
        assert!(close(check.llr, -0.2755, 0.003), "{}", check.llr);
        assert_eq!(check.verdict, Verdict::Continue);
    }

    #[test]
    fn a_bot_that_never_loses_is_decided_and_one_loss_moves_the_llr_a_little() {
        // Issue 29: 39-1 at [0, 50] has the exact LLR 5.05 (the
        // approximation gave 51.5, and 0 for 60-0).
        let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let llr = sprt.llr(&Outcomes::trinomial(39, 0, 1));
        assert!(close(llr, 5.05, 0.01), "{llr}");
        let unbeaten = sprt.llr(&Outcomes::trinomial(39, 0, 0));
        assert!(unbeaten > llr && unbeaten < 6.5, "{unbeaten}");
        // The LLR grows with every win from the first game on.
        let mut last = 0.0;
        let mut decided_at = None;
        for wins in 1..=60 {
            let check = sprt.check(&Outcomes::trinomial(wins, 0, 0));
            assert!(check.llr > last, "{wins}: {} after {last}", check.llr);
            last = check.llr;
            if decided_at.is_none() && check.verdict == Verdict::AcceptH1 {
                decided_at = Some(wins);
            }
        }
        assert!(matches!(decided_at, Some(n) if n < 30), "{decided_at:?}");
        let losing = sprt.check(&Outcomes::trinomial(0, 0, 20));
        assert_eq!(losing.verdict, Verdict::AcceptH0);
        assert_eq!(sprt.llr(&Outcomes::trinomial(0, 0, 0)), 0.0);
    }

    #[test]
    fn the_bounds_are_wald_s() {
        let sprt = Sprt::new(0.0, 5.0, 0.1, 0.2).unwrap();
        assert!(close(sprt.lower_bound(), (0.2f64 / 0.9).ln(), 1e-12));
        assert!(close(sprt.upper_bound(), (0.8f64 / 0.1).ln(), 1e-12));
        let check = sprt.check(&Outcomes::trinomial(40, 20, 40));
        assert_eq!(
            (check.lower, check.upper),
            (sprt.lower_bound(), sprt.upper_bound())
        );
    }

    #[test]
    fn the_normalized_model_tests_t_values() {
        // Even outcomes sit at nElo 0: H0 at [0, 5] gains, whichever model.
        let outcomes = Outcomes::pentanomial([10, 40, 100, 40, 10]);
        for model in [EloModel::Logistic, EloModel::Normalized] {
            let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap().with_model(model);
            assert!(sprt.llr(&outcomes) < 0.0, "{model:?}");
        }
        // A clear edge: H1 at [0, 10] in both models.
        let ahead = Outcomes::pentanomial([5, 30, 100, 60, 20]);
        let normalized = Sprt::parse(["elo0=0", "elo1=10", "model=normalized"]).unwrap();
        assert_eq!(normalized.model, EloModel::Normalized);
        assert!(normalized.llr(&ahead) > 0.0);
        assert!(Sprt::parse(["elo0=0", "elo1=5", "model=bayes"])
            .unwrap_err()
            .contains("logistic, normalized"));
    }

    #[test]
    fn normalized_elo_is_the_score_over_its_noise() {
        // 60 wins, 20 draws, 20 losses: s = 0.7, σ = 0.4.
        let estimate = EloEstimate::of(&Outcomes::trinomial(60, 20, 20)).unwrap();
        let (nelo, low, high) = estimate.nelo;
        assert!(close(nelo, 0.2 / 0.4 * NELO_PER_T, 1e-9), "{nelo}");
        assert!(low < nelo && nelo < high);
        // Pairs: σ of one game is sqrt(2 var) of a pair.
        let pairs = EloEstimate::of(&Outcomes::pentanomial([0, 0, 5, 5, 0])).unwrap();
        let (s, var) = (0.625_f64, 0.015_625_f64);
        let (nelo, _, _) = pairs.nelo;
        assert!(close(
            nelo,
            (s - 0.5) / (2.0 * var).sqrt() * NELO_PER_T,
            1e-9
        ));
    }

    #[test]
    fn a_perfect_score_reads_at_least_a_finite_bound_never_a_rounded_one() {
        for games in [5, 30, 40, 60, 100, 1000] {
            let won = EloEstimate::of(&Outcomes::trinomial(games, 0, 0)).unwrap();
            assert_eq!(won.elo, f64::INFINITY);
            assert_eq!(won.elo_high, f64::INFINITY, "{games} games");
            assert!(won.elo_low.is_finite() && won.elo_low > 0.0);
            let (nelo, low, high) = won.nelo;
            assert_eq!((nelo, high), (f64::INFINITY, f64::INFINITY));
            assert!(low.is_finite() && low > 0.0, "{games}: {low}");
            let lost = EloEstimate::of(&Outcomes::trinomial(0, 0, games)).unwrap();
            assert_eq!(lost.elo_low, f64::NEG_INFINITY, "{games} games");
            assert!(lost.elo_high.is_finite() && lost.nelo.2.is_finite());
            assert_eq!(lost.nelo.1, f64::NEG_INFINITY);
        }
        // Every pair split: an even score, with room either side.
        let split = EloEstimate::of(&Outcomes::pentanomial([0, 0, 12, 0, 0])).unwrap();
        let (nelo, low, high) = split.nelo;
        assert_eq!(nelo, 0.0);
        assert!(low < 0.0 && high > 0.0 && (low + high).abs() < 1e-9);
    }

    #[test]
    fn a_bounded_mean_of_alike_samples_keeps_a_width_that_shrinks_with_more() {
        let three = MeanInterval::of_bounded(&[4.0; 3], (1.0, 4.0)).unwrap();
        let thirty = MeanInterval::of_bounded(&[4.0; 30], (1.0, 4.0)).unwrap();
        let (m3, m30) = (three.margin.unwrap(), thirty.margin.unwrap());
        assert!(m3 > 1.0 && m30 > 0.0 && m30 < m3 / 3.0, "{m3} {m30}");
        // Spread samples: the floor does not bind, the interval is the normal one.
        let spread: Vec<f64> = (0..40).map(|i| f64::from(i % 4 + 1)).collect();
        let bounded = MeanInterval::of_bounded(&spread, (1.0, 4.0)).unwrap();
        assert_eq!(bounded.margin, MeanInterval::of(&spread).unwrap().margin);
        // Without bounds, alike samples give no interval rather than a point.
        assert_eq!(MeanInterval::of(&[2.0; 5]).unwrap().margin, None);
    }

    /// Coverage of the bounded interval over small samples of a 4-seat
    /// rank drawn from a lopsided distribution, where the normal one
    /// collapses on samples that happen to be alike.
    #[test]
    fn the_bounded_interval_covers_small_lopsided_samples() {
        let mut rng = cairn_engine::Rng::seeded(11);
        let probs = [0.85, 0.1, 0.04, 0.01];
        let truth: f64 = probs
            .iter()
            .enumerate()
            .map(|(i, p)| (i + 1) as f64 * p)
            .sum();
        for n in [3_usize, 5, 10] {
            let trials = 4_000;
            let mut covered = 0;
            for _ in 0..trials {
                let samples: Vec<f64> = (0..n)
                    .map(|_| {
                        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                        let mut cumulative = 0.0;
                        let rank = probs.iter().position(|p| {
                            cumulative += p;
                            u < cumulative
                        });
                        (rank.unwrap_or(3) + 1) as f64
                    })
                    .collect();
                let interval = MeanInterval::of_bounded(&samples, (1.0, 4.0)).unwrap();
                let margin = interval.margin.unwrap();
                covered += usize::from((interval.mean - truth).abs() <= margin);
            }
            let coverage = covered as f64 / trials as f64;
            // The normal interval covers about 40% here (0.85³ of samples
            // of three are alike); the floor errs on the wide side.
            assert!(coverage >= 0.95, "n {n}: coverage {coverage}");
        }
    }

    #[test]
    fn the_pairs_los_follows_the_pairs_interval() {
        // Pairs split evenly but one won twice: an interval above 0 must
        // come with a LOS above 97.5%.
        let pairs = Outcomes::pentanomial([0, 1, 30, 6, 1]);
        let estimate = EloEstimate::of(&pairs).unwrap();
        assert!(estimate.elo_low > 0.0);
        assert!(estimate.los() > 0.975);
        // Every pair won twice: likely superior, not unknown.
        let swept = EloEstimate::of(&Outcomes::pentanomial([0, 0, 0, 0, 4])).unwrap();
        assert!(close(swept.los(), normal_cdf(2.0), 1e-9));
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
        assert_eq!(
            Sprt::parse(["elo0=0", "elo1=5"]).unwrap().model,
            EloModel::Logistic
        );
        assert!(Sprt::parse(["elo0=x", "elo1=1"]).is_err());
        assert!(Sprt::parse(["elo0=NaN", "elo1=1"]).is_err());
    }

    #[test]
    fn a_mean_interval_uses_the_sample_variance() {
        let interval = MeanInterval::of(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(close(interval.mean, 2.5, 1e-12));
        // sample variance 5/3, se sqrt(5/12) = 0.645497.
        assert!(close(interval.margin.unwrap(), 1.959964 * 0.645_497, 1e-5));
        assert_eq!(MeanInterval::of(&[3.0]).unwrap().margin, None);
        assert_eq!(MeanInterval::of(&[]), None);
    }
}
