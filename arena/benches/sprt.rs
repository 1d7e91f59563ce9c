//! The SPRT's error rates by simulation: 10,000 seeded runs per line, the
//! test checked after every outcome (a game, or a deal pair), truth at
//! elo0 for α and at elo1 for β, in both Elo models. Prints
//! `bench: sprt/<model>/<games|pairs>/0_<elo1>/alpha 4.9 %` and the mean
//! number of outcomes a run took. `cargo bench -p cairn-arena --bench sprt`;
//! figures in docs/performance.md.

use cairn_arena::stats::simulation::{run, true_distribution};
use cairn_arena::stats::{EloModel, Sprt};

const RUNS: u64 = 10_000;

fn main() {
    for model in [EloModel::Logistic, EloModel::Normalized] {
        for pairs in [false, true] {
            for elo1 in [10.0, 50.0, 200.0] {
                line(model, pairs, elo1);
            }
        }
    }
}

fn line(model: EloModel, pairs: bool, elo1: f64) {
    let sprt = Sprt::new(0.0, elo1, 0.05, 0.05)
        .expect("valid bounds")
        .with_model(model);
    let name = format!(
        "sprt/{}/{}/0_{elo1}",
        model.name(),
        if pairs { "pairs" } else { "games" }
    );
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
