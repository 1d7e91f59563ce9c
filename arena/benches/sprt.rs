//! The SPRT's error rates by simulation: 10,000 seeded runs per line, the
//! test checked after every outcome (a game, or a deal pair), truth at
//! elo0 for α and at elo1 for β, in both Elo models. Prints
//! `bench: sprt/<model>/<games|pairs>/0_<elo1>/alpha 4.9 %` and the mean
//! number of outcomes a run took. Then `cairn play --ab`'s test with NEW and
//! OLD the same random bot in Lords of Scotland at 3-5 seats, 400 runs a
//! line: `bench: sprt/ab/<seats>_seats/0_<elo1>/false_positives 4.5 %`.
//! `cargo bench -p cairn-arena --bench sprt [-- NAME_PART]` (only the lines
//! whose name holds NAME_PART); figures in docs/performance.md.

use cairn_arena::stats::simulation::{ab_runs, run, true_distribution};
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
    for n_seats in [3, 4, 5] {
        for elo1 in [20.0, 50.0] {
            let name = format!("sprt/ab/{n_seats}_seats/0_{elo1}");
            if wanted(&name) {
                ab_line(&name, n_seats, elo1);
            }
        }
    }
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
