//! The exact generalized log-likelihood ratio of an SPRT over multinomial
//! outcomes (games: 0, ½, 1; deal pairs: 0, ¼, ½, ¾, 1), after Michel Van
//! den Bergh's notes for fishtest: under each hypothesis the outcomes'
//! distribution is the maximum-likelihood one among those that meet the
//! hypothesis (a mean score for logistic Elo, a t-value `(mean - ½) / σ` for
//! normalized Elo), and the LLR is the log ratio of the two likelihoods of
//! the observed counts. Empty bins count as 1e-3 (as fastchess), so a bot
//! that never loses still gives a finite, growing LLR.

/// The pseudo-count an empty bin gets.
pub(crate) const EMPTY_BIN: f64 = 1e-3;

/// The root in `(lo, hi)` of a function decreasing from +∞ to -∞ there:
/// Newton steps kept inside a shrinking bracket (bisection when a step
/// would leave it).
fn decreasing_root(f: impl Fn(f64) -> (f64, f64), mut lo: f64, mut hi: f64) -> f64 {
    let mut x = 0.0_f64.clamp(lo, hi);
    if !(lo < x && x < hi) {
        x = 0.5 * (lo + hi);
    }
    for _ in 0..200 {
        let (value, slope) = f(x);
        if value == 0.0 {
            return x;
        }
        if value > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - value / slope;
        let next = if slope < 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - x).abs() <= 1e-13 * (1.0 + x.abs()) || hi - lo <= 1e-15 {
            return next;
        }
        x = next;
    }
    x
}

/// The distribution closest (in likelihood) to `probs` among those
/// `q_i = p_i / (1 + θ φ_i)`, θ making them sum to one: Proposition 1.1 of
/// Van den Bergh's "Comparing the approximations" note, which gives the
/// maximum-likelihood distribution under the constraint `Σ q_i φ_i = 0`.
fn tilted(probs: &[f64], phi: &[f64]) -> Vec<f64> {
    let (low, high) = phi
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &f| {
            (lo.min(f), hi.max(f))
        });
    if !(low < 0.0 && high > 0.0) {
        // The constraint sits on the edge of the outcomes: no tilt fits it.
        return probs.to_vec();
    }
    let theta = decreasing_root(
        |theta| {
            probs
                .iter()
                .zip(phi)
                .fold((0.0, 0.0), |(value, slope), (&p, &f)| {
                    let d = 1.0 + theta * f;
                    (value + p * f / d, slope - p * f * f / (d * d))
                })
        },
        -1.0 / high,
        -1.0 / low,
    );
    probs
        .iter()
        .zip(phi)
        .map(|(&p, &f)| p / (1.0 + theta * f))
        .collect()
}

/// The maximum-likelihood distribution over `scores` with mean `mean`.
pub(crate) fn with_mean(scores: &[f64], probs: &[f64], mean: f64) -> Vec<f64> {
    let phi: Vec<f64> = scores.iter().map(|&a| a - mean).collect();
    tilted(probs, &phi)
}

/// The maximum-likelihood distribution over `scores` whose t-value
/// `(mean - ½) / σ` is `t`: the fixed point of Section 4.1 of Van den
/// Bergh's "Comments on normalized Elo", from the uniform distribution.
pub(crate) fn with_t_value(scores: &[f64], probs: &[f64], t: f64) -> Vec<f64> {
    let mut q = vec![1.0 / scores.len() as f64; scores.len()];
    for _ in 0..50 {
        let (mu, variance) = mean_and_variance(scores, &q);
        let sigma = variance.sqrt();
        let phi: Vec<f64> = scores
            .iter()
            .map(|&a| a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma).powi(2)))
            .collect();
        let next = tilted(probs, &phi);
        let change = next
            .iter()
            .zip(&q)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        q = next;
        if change < 1e-9 {
            break;
        }
    }
    q
}

fn mean_and_variance(scores: &[f64], probs: &[f64]) -> (f64, f64) {
    let mean: f64 = scores.iter().zip(probs).map(|(a, p)| a * p).sum();
    let variance = scores
        .iter()
        .zip(probs)
        .map(|(a, p)| p * (a - mean).powi(2))
        .sum();
    (mean, variance)
}

/// `Σ n_i ln(q1_i / q0_i)`: the log-likelihood ratio of the counts under
/// two distributions.
pub(crate) fn log_ratio(counts: &[f64], q0: &[f64], q1: &[f64]) -> f64 {
    counts
        .iter()
        .zip(q0.iter().zip(q1))
        .map(|(&n, (&a, &b))| n * (b.ln() - a.ln()))
        .sum()
}

/// The counts with every empty bin at [`EMPTY_BIN`].
pub(crate) fn regularized(counts: &[f64]) -> Vec<f64> {
    counts
        .iter()
        .map(|&n| if n > 0.0 { n } else { EMPTY_BIN })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_distribution_with_a_mean_keeps_that_mean_and_sums_to_one() {
        let scores = [0.0, 0.5, 1.0];
        let probs = [0.2, 0.3, 0.5];
        for mean in [0.3, 0.5, 0.65, 0.9] {
            let q = with_mean(&scores, &probs, mean);
            let (m, _) = mean_and_variance(&scores, &q);
            assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{q:?}");
            assert!((m - mean).abs() < 1e-12, "{m} {mean}");
            assert!(q.iter().all(|&p| p > 0.0));
        }
        // Already at the mean: unchanged.
        let q = with_mean(&scores, &probs, 0.65);
        assert!(q.iter().zip(probs).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    #[test]
    fn the_distribution_with_a_t_value_has_that_t_value() {
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        let probs = [0.05, 0.2, 0.4, 0.25, 0.1];
        for t in [-0.1, 0.0, 0.05, 0.2] {
            let q = with_t_value(&scores, &probs, t);
            let (m, v) = mean_and_variance(&scores, &q);
            assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            assert!(((m - 0.5) / v.sqrt() - t).abs() < 1e-6, "{m} {v} {t}");
        }
    }

    #[test]
    fn with_two_outcomes_the_ratio_is_the_binomial_one() {
        // Only wins and losses: the maximum-likelihood distribution with
        // mean s is (1 - s, s) whatever was observed.
        let scores = [0.0, 1.0];
        let counts = [3.0, 7.0];
        let probs = [0.3, 0.7];
        let (s0, s1) = (0.5, 0.6);
        let llr = log_ratio(
            &counts,
            &with_mean(&scores, &probs, s0),
            &with_mean(&scores, &probs, s1),
        );
        let by_hand = 7.0 * (s1 / s0).ln() + 3.0 * ((1.0 - s1) / (1.0 - s0)).ln();
        assert!((llr - by_hand).abs() < 1e-10, "{llr} {by_hand}");
    }
}
