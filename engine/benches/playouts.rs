//! Random-playout throughput of every game and variant on one core.
//! Prints `bench: GAME/VARIANT/SEATS VALUE games/s` lines.

use std::time::{Duration, Instant};

use cairn_engine::game::parse_options;
use cairn_engine::bullfrogs::Bullfrogs;
use cairn_engine::{Game, Rng};

/// Plays seeded random games of `G` for about `budget` and prints the rate.
fn bench_game<G: Game>(name: &str, options: &[&str], n_seats: usize, budget: Duration) {
    let options = parse_options(options.iter().copied()).expect("benchmark options are valid");
    let mut rng = Rng::seeded(0xBE_4C4);
    let mut legal = Vec::new();
    let mut games = 0u64;
    let mut decisions = 0u64;
    let start = Instant::now();
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
    let seconds = start.elapsed().as_secs_f64();
    println!("bench: {name} {:.0} games/s", games as f64 / seconds);
    println!("bench: {name}/decisions {:.0} decisions/s", decisions as f64 / seconds);
}

fn main() {
    let budget = Duration::from_millis(if std::env::args().any(|a| a == "--quick") { 100 } else { 2000 });
    bench_game::<Bullfrogs>("bullfrogs/2p", &[], 2, budget);
    bench_game::<Bullfrogs>("bullfrogs/4p", &[], 4, budget);
    bench_game::<Bullfrogs>("bullfrogs/solo", &["solo=true"], 1, budget);
}
