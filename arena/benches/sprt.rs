//! The SPRT's error rates by simulation: 10,000 seeded runs per line, the
//! test checked after every outcome (a game, or a deal pair), truth at
//! elo0 for α and at elo1 for β, in both Elo models. Prints
//! `bench: sprt/<model>/<games|pairs>/0_<elo1>/alpha 4.9 %` and the mean
//! number of outcomes a run took. Then `cairn play --ab`'s test with NEW and
//! OLD the same random bot in Lords of Scotland at 3-5 seats, 400 runs a
//! line: `bench: sprt/ab/<seats>_seats/0_<elo1>/false_positives 4.5 %`.
//! Then, at [0, 200], how the error rates and the bounds that would give
//! exactly 5% depend on the outcomes' shape (the draw ratio; the pairs'
//! spread): `bench: sprt/shape/<model>/<games|pairs>/<shape>/0_200/upper
//! 1.37 llr`, 10,000 runs a line. Last, the floor: games only won or
//! lost (no shape to estimate), Wald's error rates summed exactly over the
//! test's paths: `bench: sprt/win_loss/<model>/0_<elo1>/alpha 4.06 %`.
//! `cargo bench -p cairn-arena --bench sprt [-- NAME_PART]` (only the lines
//! whose name holds NAME_PART); figures in docs/performance.md.

use cairn_arena::stats::simulation::{
    ab_runs, calibrated_bounds, exact_win_loss, exit_rate, llr_paths, run, true_distribution,
    truth_of_shape,
};
use cairn_arena::stats::{EloModel, Sprt};

const RUNS: u64 = 10_000;
/// The count for the A/B's false positives.
const AB_RUNS: u64 = 400;

fn main() {
    let only = std::env::args().skip(1).find(|arg| !arg.starts_with("--"));
    let wanted = |name: &str| only.as_deref().is_none_or(|part| name.contains(part));
    for model in [EloModel::Logistic, EloModel::Normalized] {
        for pairs in [false, true] {
            for elo1 in [10.0, 50.0, 200.0] {
                let name = format!(
                    "sprt/{}/{}/0_{elo1}",
                    model.name(),
                    if pairs { "pairs" } else { "games" }
                );
                if wanted(&name) {
                    line(&name, model, pairs, elo1);
                }
            }
        }
    }
    for model in [EloModel::Logistic, EloModel::Normalized] {
        for (shape, base) in SHAPES {
            let kind = if base.len() == 5 { "pairs" } else { "games" };
            let name = format!("sprt/shape/{}/{kind}/{shape}/0_200", model.name());
            if wanted(&name) {
                shape_line(&name, model, base);
            }
        }
    }
    for n_seats in [3, 4, 5] {
        for elo1 in [20.0, 50.0] {
            let name = format!("sprt/ab/{n_seats}_seats/0_{elo1}");
            if wanted(&name) {
                ab_line(&name, n_seats, elo1);
            }
        }
    }
    for model in [EloModel::Logistic, EloModel::Normalized] {
        for elo1 in [10.0, 50.0, 200.0] {
            let name = format!("sprt/win_loss/{}/0_{elo1}", model.name());
            if wanted(&name) {
                win_loss_line(&name, model, elo1);
            }
        }
    }
}

/// Wald's exact error rates on games only won or lost.
fn win_loss_line(name: &str, model: EloModel, elo1: f64) {
    let sprt = Sprt::new(0.0, elo1, 0.05, 0.05)
        .expect("valid bounds")
        .with_model(model);
    let p_win = |elo| truth_of_shape(model, &[0.5, 0.5], elo).1[1];
    let (at_h0, at_h1) = std::thread::scope(|scope| {
        let at_h0 = scope.spawn(|| exact_win_loss(&sprt, p_win(0.0), 1e-9));
        let at_h1 = exact_win_loss(&sprt, p_win(elo1), 1e-9);
        (at_h0.join().expect("h0 thread"), at_h1)
    });
    println!("bench: {name}/alpha {:.2} %", 100.0 * at_h0.accepted_h1);
    println!("bench: {name}/beta {:.2} %", 100.0 * at_h1.accepted_h0);
    println!(
        "bench: {name}/mean_games {:.0} games",
        (at_h0.mean_games + at_h1.mean_games) / 2.0
    );
}

/// Outcome shapes at an even score: games by their draw ratio, pairs from
/// a narrow spread (most pairs split) to a wide one.
const SHAPES: [(&str, &[f64]); 7] = [
    ("draws_10", &[0.45, 0.1, 0.45]),
    ("draws_30", &[0.35, 0.3, 0.35]),
    ("draws_60", &[0.2, 0.6, 0.2]),
    ("narrow", &[0.02, 0.13, 0.7, 0.13, 0.02]),
    ("default", &[0.06, 0.22, 0.44, 0.22, 0.06]),
    ("uniform", &[0.2, 0.2, 0.2, 0.2, 0.2]),
    ("ends", &[0.3, 0.1, 0.2, 0.1, 0.3]),
];

/// Wald's error rates at [0, 200] for outcomes of one shape, and the bounds
/// that would give exactly α and β there.
fn shape_line(name: &str, model: EloModel, base: &[f64]) {
    let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05)
        .expect("valid bounds")
        .with_model(model);
    let (scores, at_h0) = truth_of_shape(model, base, 0.0);
    let (_, at_h1) = truth_of_shape(model, base, 200.0);
    let reach = (RUNS, 4.0 * sprt.upper_bound(), 100_000);
    let (h0, h1) = std::thread::scope(|scope| {
        let h0 = scope.spawn(|| llr_paths(&sprt, &scores, &at_h0, reach, 1));
        let h1 = llr_paths(&sprt, &scores, &at_h1, reach, 2);
        (h0.join().expect("h0 thread"), h1)
    });
    let wald = (sprt.lower_bound(), sprt.upper_bound());
    let alpha = exit_rate(&h0, wald, true);
    let beta = exit_rate(&h1, wald, false);
    let (lower, upper) = calibrated_bounds(&sprt, &h0, &h1);
    println!("bench: {name}/alpha {:.2} %", 100.0 * alpha);
    println!("bench: {name}/beta {:.2} %", 100.0 * beta);
    println!("bench: {name}/lower {lower:.3} llr");
    println!("bench: {name}/upper {upper:.3} llr");
}

fn ab_line(name: &str, n_seats: usize, elo1: f64) {
    let sprt = Sprt::new(0.0, elo1, 0.05, 0.05).expect("valid bounds");
    // Two threads, half the runs each.
    let decisions = std::thread::scope(|scope| {
        let halves = [1, 2].map(|seed| {
            scope.spawn(move || {
                ab_runs(
                    &sprt,
                    "lords-of-scotland",
                    n_seats,
                    AB_RUNS / 2,
                    100_000,
                    seed,
                )
                .expect("lords of scotland seats 3-5")
            })
        });
        halves.map(|half| half.join().expect("a/b thread"))
    });
    let positives: u64 = decisions.iter().map(|d| d.accepted_h1).sum();
    let undecided: u64 = decisions.iter().map(|d| d.undecided).sum();
    let mean = decisions.iter().map(|d| d.mean_outcomes).sum::<f64>() / 2.0;
    println!(
        "bench: {name}/false_positives {:.2} %",
        100.0 * positives as f64 / AB_RUNS as f64
    );
    println!("bench: {name}/mean_pairs {mean:.0} pairs");
    assert_eq!(undecided, 0, "{name}: runs left undecided");
}

fn line(name: &str, model: EloModel, pairs: bool, elo1: f64) {
    let sprt = Sprt::new(0.0, elo1, 0.05, 0.05)
        .expect("valid bounds")
        .with_model(model);
    let (scores, at_h0) = true_distribution(model, pairs, 0.0);
    let (_, at_h1) = true_distribution(model, pairs, elo1);
    // Two threads: α and β at once.
    let (alpha, beta) = std::thread::scope(|scope| {
        let alpha = scope.spawn(|| run(&sprt, &scores, &at_h0, RUNS, 10_000_000, 1));
        let beta = run(&sprt, &scores, &at_h1, RUNS, 10_000_000, 2);
        (alpha.join().expect("alpha thread"), beta)
    });
    println!("bench: {name}/alpha {:.2} %", 100.0 * alpha.h1_rate());
    println!("bench: {name}/beta {:.2} %", 100.0 * beta.h0_rate());
    println!(
        "bench: {name}/mean_outcomes {:.0} outcomes",
        (alpha.mean_outcomes + beta.mean_outcomes) / 2.0
    );
}
