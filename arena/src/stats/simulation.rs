//! How often an SPRT accepts H1 when the truth is known: seeded runs that
//! draw outcomes from a true distribution and check the test after every
//! outcome, as `cairn play` and the gauntlet do. The unit tests and
//! `arena/benches/sprt.rs` measure α (truth at elo0) and β (truth at elo1)
//! with it, and an A/B's false positives on real games ([`ab_runs`]).

use cairn_engine::Rng;

use super::paired::{half_seats_beaten, AbPairs};
use super::{gsprt, score_of_elo, EloModel, Outcomes, Sprt, Verdict, NELO_PER_T};

/// What a batch of simulated SPRTs decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decisions {
    pub runs: u64,
    pub accepted_h1: u64,
    /// Runs still undecided after the cap on outcomes.
    pub undecided: u64,
    pub mean_outcomes: f64,
}

impl Decisions {
    pub fn h1_rate(&self) -> f64 {
        self.accepted_h1 as f64 / self.runs as f64
    }

    /// `runs` runs of `one`, each giving its verdict and how many
    /// outcomes it took.
    fn tally<E>(
        runs: u64,
        mut one: impl FnMut() -> Result<(Verdict, u64), E>,
    ) -> Result<Decisions, E> {
        let mut decisions = Decisions {
            runs,
            accepted_h1: 0,
            undecided: 0,
            mean_outcomes: 0.0,
        };
        let mut total = 0_u64;
        for _ in 0..runs {
            let (verdict, outcomes) = one()?;
            total += outcomes;
            match verdict {
                Verdict::AcceptH1 => decisions.accepted_h1 += 1,
                Verdict::AcceptH0 => {}
                Verdict::Continue => decisions.undecided += 1,
            }
        }
        decisions.mean_outcomes = total as f64 / runs.max(1) as f64;
        Ok(decisions)
    }

    pub fn h0_rate(&self) -> f64 {
        (self.runs - self.accepted_h1 - self.undecided) as f64 / self.runs as f64
    }
}

/// Outcomes of games (`pairs` false: 0, ½, 1 with some draws) or deal
/// pairs (0 .. 1 in quarters), distributed so that the truth is exactly
/// `elo` in the SPRT's model.
pub fn true_distribution(model: EloModel, pairs: bool, elo: f64) -> (Vec<f64>, Vec<f64>) {
    let base: &[f64] = if pairs {
        &[0.06, 0.22, 0.44, 0.22, 0.06]
    } else {
        &[0.35, 0.3, 0.35]
    };
    truth_of_shape(model, base, elo)
}

/// Outcomes of the shape `base` (games: loss, draw, win; pairs: the five
/// scores from 0 to 1), tilted so that the truth is exactly `elo` in the
/// SPRT's model.
pub fn truth_of_shape(model: EloModel, base: &[f64], elo: f64) -> (Vec<f64>, Vec<f64>) {
    let last = base.len().saturating_sub(1).max(1) as f64;
    let scores: Vec<f64> = (0..base.len()).map(|i| i as f64 / last).collect();
    let probs = match model {
        EloModel::Logistic => gsprt::with_mean(&scores, base, score_of_elo(elo)),
        EloModel::Normalized => {
            let scale = if base.len() == 5 { 2f64.sqrt() } else { 1.0 } / NELO_PER_T;
            gsprt::with_t_value(&scores, base, elo * scale)
        }
    };
    (scores, probs)
}

/// `runs` SPRTs on outcomes drawn from `probs`, each stopped at its
/// verdict or after `cap` outcomes.
pub fn run(
    sprt: &Sprt,
    scores: &[f64],
    probs: &[f64],
    runs: u64,
    cap: u64,
    seed: u64,
) -> Decisions {
    let mut rng = Rng::seeded(seed);
    let tallied = Decisions::tally(runs, || {
        let mut outcomes = Outcomes {
            bins: scores.iter().map(|&s| (s, 0.0)).collect(),
            games_per_outcome: if scores.len() == 5 { 2 } else { 1 },
        };
        let mut verdict = Verdict::Continue;
        let mut n = 0;
        while verdict == Verdict::Continue && n < cap {
            let bin = draw(probs, &mut rng);
            outcomes.bins[bin].1 += 1.0;
            n += 1;
            verdict = sprt.check(&outcomes).verdict;
        }
        Ok::<_, std::convert::Infallible>((verdict, n))
    });
    match tallied {
        Ok(decisions) => decisions,
        Err(never) => match never {},
    }
}

/// The LLR after every outcome of `runs` SPRTs on outcomes drawn from
/// `probs`, each followed until the LLR leaves `(-reach, reach)` or `cap`
/// outcomes: enough to tell where any narrower bounds would have stopped.
pub fn llr_paths(
    sprt: &Sprt,
    scores: &[f64],
    probs: &[f64],
    (runs, reach, cap): (u64, f64, usize),
    seed: u64,
) -> Vec<Vec<f64>> {
    let mut rng = Rng::seeded(seed);
    (0..runs)
        .map(|_| {
            let mut outcomes = Outcomes {
                bins: scores.iter().map(|&s| (s, 0.0)).collect(),
                games_per_outcome: if scores.len() == 5 { 2 } else { 1 },
            };
            let mut path = Vec::new();
            while path.last().is_none_or(|llr: &f64| llr.abs() < reach) && path.len() < cap {
                outcomes.bins[draw(probs, &mut rng)].1 += 1.0;
                path.push(sprt.check(&outcomes).llr);
            }
            path
        })
        .collect()
}

/// The share of `paths` that first leave `(lower, upper)` through `upper`
/// (`through_upper`) or through `lower`.
pub fn exit_rate(paths: &[Vec<f64>], (lower, upper): (f64, f64), through_upper: bool) -> f64 {
    let exits = paths
        .iter()
        .filter(|path| {
            path.iter()
                .find(|&&llr| llr >= upper || llr <= lower)
                .is_some_and(|&llr| (llr >= upper) == through_upper)
        })
        .count();
    exits as f64 / paths.len().max(1) as f64
}

/// The bounds at which `at_h0` (paths drawn at elo0) accept H1 as often as
/// α and `at_h1` (paths at elo1) accept H0 as often as β: what Wald's
/// bounds would have to be for the test to err exactly as asked at the
/// outcome shape the paths were drawn from. Each bound by bisection, in
/// turn, until they settle.
pub fn calibrated_bounds(sprt: &Sprt, at_h0: &[Vec<f64>], at_h1: &[Vec<f64>]) -> (f64, f64) {
    let (mut lower, mut upper) = (sprt.lower_bound(), sprt.upper_bound());
    let bisect = |mut inside: f64, mut outside: f64, too_many: &dyn Fn(f64) -> bool| {
        // `inside` errs too often, `outside` not.
        for _ in 0..50 {
            let middle = 0.5 * (inside + outside);
            if too_many(middle) {
                inside = middle;
            } else {
                outside = middle;
            }
        }
        outside
    };
    for _ in 0..20 {
        let last = (lower, upper);
        upper = bisect(0.0, 4.0 * sprt.upper_bound(), &|upper| {
            exit_rate(at_h0, (lower, upper), true) > sprt.alpha
        });
        lower = bisect(0.0, 4.0 * sprt.lower_bound(), &|lower| {
            exit_rate(at_h1, (lower, upper), false) > sprt.beta
        });
        if last == (lower, upper) {
            break;
        }
    }
    (lower, upper)
}

/// What an SPRT decides on games that are only won or lost, summed
/// exactly over its paths rather than sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactDecisions {
    pub accepted_h1: f64,
    pub accepted_h0: f64,
    pub mean_games: f64,
}

/// The exact probabilities that `sprt` accepts H1 or H0 when every game is
/// won with probability `p_win` and lost otherwise, each path followed
/// until less than `tail` of the probability is undecided. Without draws
/// an outcome has no shape left to estimate and the LLR is the binomial
/// one, so these are the error rates of Wald's bounds at their best: what
/// is left is only the LLR passing its bound by part of a step.
pub fn exact_win_loss(sprt: &Sprt, p_win: f64, tail: f64) -> ExactDecisions {
    let mut decided = ExactDecisions {
        accepted_h1: 0.0,
        accepted_h0: 0.0,
        mean_games: 0.0,
    };
    // The undecided paths after `games` games, by their wins.
    let mut undecided: Vec<(u64, f64)> = vec![(0, 1.0)];
    let mut games = 0_u64;
    while undecided.iter().map(|&(_, p)| p).sum::<f64>() > tail {
        games += 1;
        let mut next: Vec<(u64, f64)> = Vec::with_capacity(undecided.len() + 1);
        for &(wins, p) in &undecided {
            for (wins, p) in [(wins, p * (1.0 - p_win)), (wins + 1, p * p_win)] {
                match next.last_mut() {
                    Some(last) if last.0 == wins => last.1 += p,
                    _ => next.push((wins, p)),
                }
            }
        }
        next.retain(|&(wins, p)| {
            let outcomes = Outcomes {
                bins: vec![(0.0, (games - wins) as f64), (1.0, wins as f64)],
                games_per_outcome: 1,
            };
            let verdict = sprt.check(&outcomes).verdict;
            match verdict {
                Verdict::AcceptH1 => decided.accepted_h1 += p,
                Verdict::AcceptH0 => decided.accepted_h0 += p,
                Verdict::Continue => {}
            }
            if verdict != Verdict::Continue {
                decided.mean_games += p * games as f64;
            }
            verdict == Verdict::Continue
        });
        undecided = next;
    }
    decided
}

/// `runs` A/B SPRTs (`cairn play --ab`) in which NEW and OLD are the same
/// bot: every seat plays a uniformly random legal action. Each pair plays
/// one deal twice, the tested seat moving round the table from deal to
/// deal; the field draws from the same stream in both games, NEW and OLD
/// from streams of their own (the noisiest case: a seeded bot would repeat
/// its game). Every H1 accepted is a false positive.
pub fn ab_runs(
    sprt: &Sprt,
    game: &str,
    n_seats: usize,
    runs: u64,
    cap: u64,
    seed: u64,
) -> Result<Decisions, cairn_engine::SetupError> {
    let mut rng = Rng::seeded(seed);
    Decisions::tally(runs, || {
        let mut ab = AbPairs::new(n_seats);
        let mut verdict = Verdict::Continue;
        while verdict == Verdict::Continue && (ab.pairs.len() as u64) < cap {
            let (deal, field) = (rng.next_u64(), rng.next_u64());
            let tested = ab.pairs.len() % n_seats;
            let mut shares = [0; 2];
            for share in &mut shares {
                let mut players = [Rng::seeded(field), rng.fork(1)];
                let ranks = random_game(game, n_seats, deal, tested, &mut players)?;
                *share = half_seats_beaten(&ranks, tested);
            }
            ab.pairs.push((shares[0], shares[1]));
            verdict = ab.check(sprt).verdict;
        }
        Ok((verdict, ab.pairs.len() as u64))
    })
}

/// One game of uniformly random legal actions: `players[1]` chooses for
/// the tested seat, `players[0]` for the field. The final ranks.
fn random_game(
    game: &str,
    n_seats: usize,
    deal: u64,
    tested: usize,
    players: &mut [Rng; 2],
) -> Result<Vec<u32>, cairn_engine::SetupError> {
    let mut state = cairn_engine::new_game(game, &Default::default(), n_seats, deal)?;
    while let Some(seat) = state.current_seat() {
        let actions = state.legal_actions();
        let player = &mut players[usize::from(seat == tested)];
        let action = &actions[player.below(actions.len())];
        state.apply_text(action).expect("a legal action applies");
    }
    Ok(state
        .outcome()
        .map(|outcome| outcome.ranks)
        .unwrap_or_default())
}

fn draw(probs: &[f64], rng: &mut Rng) -> usize {
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut cumulative = 0.0;
    for (bin, &p) in probs.iter().enumerate() {
        cumulative += p;
        if u < cumulative {
            return bin;
        }
    }
    probs.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// α and β within 1.5 points of 5% over 1,000 seeded runs (the seeds
    /// are fixed, so the figures are too); the bench runs 10,000 per line.
    fn check(model: EloModel, pairs: bool, elo1: f64) {
        let sprt = Sprt::new(0.0, elo1, 0.05, 0.05).unwrap().with_model(model);
        let (scores, at_h0) = true_distribution(model, pairs, 0.0);
        let alpha = run(&sprt, &scores, &at_h0, 1_000, 100_000, 29).h1_rate();
        let (_, at_h1) = true_distribution(model, pairs, elo1);
        let beta = run(&sprt, &scores, &at_h1, 1_000, 100_000, 30).h0_rate();
        for (name, rate) in [("alpha", alpha), ("beta", beta)] {
            assert!(
                (rate - 0.05).abs() <= 0.015,
                "{model:?} pairs {pairs} [0, {elo1}]: {name} {rate}"
            );
        }
    }

    #[test]
    fn the_exact_sprt_keeps_its_error_rates_over_games() {
        check(EloModel::Logistic, false, 50.0);
        check(EloModel::Normalized, false, 50.0);
    }

    #[test]
    fn the_exact_sprt_keeps_its_error_rates_over_pairs_at_the_readme_s_bounds() {
        check(EloModel::Logistic, true, 50.0);
    }

    #[test]
    fn calibrated_bounds_give_the_error_rates_asked_on_their_own_paths() {
        let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        let (scores, at_h0) = true_distribution(EloModel::Logistic, false, 0.0);
        let (_, at_h1) = true_distribution(EloModel::Logistic, false, 200.0);
        let h0 = llr_paths(&sprt, &scores, &at_h0, (2_000, 12.0, 1_000), 3);
        let h1 = llr_paths(&sprt, &scores, &at_h1, (2_000, 12.0, 1_000), 4);
        let (lower, upper) = calibrated_bounds(&sprt, &h0, &h1);
        let alpha = exit_rate(&h0, (lower, upper), true);
        let beta = exit_rate(&h1, (lower, upper), false);
        // A rate moves in steps of one path in 2,000 and jumps where
        // several paths share an LLR: within 0.5 points.
        assert!((alpha - 0.05).abs() <= 0.005, "{alpha} at {upper}");
        assert!((beta - 0.05).abs() <= 0.005, "{beta} at {lower}");
        assert!(lower < 0.0 && upper > 0.0);
    }

    #[test]
    fn the_exact_win_loss_rates_agree_with_sampled_runs() {
        let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        let (scores, at_h0) = truth_of_shape(EloModel::Logistic, &[0.5, 0.5], 0.0);
        let exact = exact_win_loss(&sprt, at_h0[1], 1e-12);
        assert!((exact.accepted_h1 + exact.accepted_h0 - 1.0).abs() < 1e-9);
        let sampled = run(&sprt, &scores, &at_h0, 20_000, 10_000, 5);
        // 4 standard errors of a rate near 4% over 20,000 runs.
        let se = (exact.accepted_h1 * (1.0 - exact.accepted_h1) / 20_000.0).sqrt();
        assert!(
            (sampled.h1_rate() - exact.accepted_h1).abs() < 4.0 * se,
            "{} sampled, {} exact",
            sampled.h1_rate(),
            exact.accepted_h1
        );
        assert!((sampled.mean_outcomes - exact.mean_games).abs() < 0.5);
        // No shape to estimate, yet Wald's bounds err less than asked at
        // [0, 200]: the LLR moves by 0.42 a win and 0.73 a loss.
        assert!(exact.accepted_h1 < 0.045, "{exact:?}");
    }

    #[test]
    fn a_truth_of_any_shape_is_drawn_at_the_elo_asked() {
        for model in [EloModel::Logistic, EloModel::Normalized] {
            let (scores, probs) = truth_of_shape(model, &[0.2, 0.2, 0.2, 0.2, 0.2], 100.0);
            let mean: f64 = scores.iter().zip(&probs).map(|(a, p)| a * p).sum();
            let variance: f64 = scores
                .iter()
                .zip(&probs)
                .map(|(a, p)| p * (a - mean).powi(2))
                .sum();
            let elo = match model {
                EloModel::Logistic => crate::stats::elo_of_score(mean),
                EloModel::Normalized => (mean - 0.5) / (2.0 * variance).sqrt() * NELO_PER_T,
            };
            assert!((elo - 100.0).abs() < 1e-4, "{model:?} {elo}");
        }
    }

    #[test]
    fn a_truth_is_drawn_at_the_elo_asked() {
        let (scores, probs) = true_distribution(EloModel::Logistic, true, 50.0);
        let mean: f64 = scores.iter().zip(&probs).map(|(a, p)| a * p).sum();
        assert!((mean - score_of_elo(50.0)).abs() < 1e-9);
    }
}
