//! Random-playout throughput of every game and variant on one core.
//! Prints `bench: GAME/VARIANT/SEATS VALUE games/s` lines. Rates are per
//! second of this process's CPU time (single-threaded), so a busy machine
//! does not deflate them; `--quick` shortens every run to 100 ms.

use std::time::{Duration, Instant};

use cairn_engine::bullfrogs::Bullfrogs;
use cairn_engine::game::parse_options;
use cairn_engine::lords_of_scotland::LordsOfScotland;
use cairn_engine::schotten_totten::SchottenTotten;
use cairn_engine::{Game, Rng};

/// Plays seeded random games of `G` for about `budget` and prints the rate.
fn bench_game<G: Game>(name: &str, options: &[&str], n_seats: usize, budget: Duration) {
    let options = parse_options(options.iter().copied()).expect("benchmark options are valid");
    let mut rng = Rng::seeded(0xBE_4C4);
    let mut legal = Vec::new();
    let mut games = 0u64;
    let mut decisions = 0u64;
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    while start.elapsed() < budget {
        for _ in 0..64 {
            let mut state = G::new(&options, n_seats, games + 1).expect("benchmark setup is valid");
            while !state.is_terminal() {
                legal.clear();
                state.legal_actions(&mut legal);
                let action = &legal[rng.below(legal.len())];
                state.apply_legal(action);
                decisions += 1;
            }
            games += 1;
        }
    }
    let seconds = (cpu_seconds() - cpu_start).max(1e-3);
    println!("bench: {name} {:.0} games/s", games as f64 / seconds);
    println!(
        "bench: {name}/decisions {:.0} decisions/s",
        decisions as f64 / seconds
    );
}

/// User + system CPU time of this process, from /proc (10 ms ticks);
/// falls back to wall time where /proc is missing.
fn cpu_seconds() -> f64 {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            let after_name = &stat[stat.rfind(')')? + 2..];
            let fields: Vec<&str> = after_name.split(' ').collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        });
    match ticks {
        Some(ticks) => ticks as f64 / 100.0,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
    }
}

fn main() {
    let budget = Duration::from_millis(if std::env::args().any(|a| a == "--quick") {
        100
    } else {
        2000
    });
    bench_game::<SchottenTotten>("schotten_totten/base/2p", &[], 2, budget);
    bench_game::<SchottenTotten>("schotten_totten/expert/2p", &["expert=true"], 2, budget);
    bench_game::<SchottenTotten>("schotten_totten/tactics/2p", &["tactics=true"], 2, budget);
    bench_game::<SchottenTotten>(
        "schotten_totten/tactics_expert/2p",
        &["tactics=true", "expert=true"],
        2,
        budget,
    );
    bench_game::<LordsOfScotland>("lords_of_scotland/2p", &[], 2, budget);
    bench_game::<LordsOfScotland>("lords_of_scotland/4p", &[], 4, budget);
    bench_game::<LordsOfScotland>("lords_of_scotland/5p/bruce", &["bruce=true"], 5, budget);
    bench_game::<Bullfrogs>("bullfrogs/2p", &[], 2, budget);
    bench_game::<Bullfrogs>("bullfrogs/4p", &[], 4, budget);
    bench_game::<Bullfrogs>("bullfrogs/solo", &["solo=true"], 1, budget);
}
