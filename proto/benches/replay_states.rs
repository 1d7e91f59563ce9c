//! The web replay viewer's server work for one page: re-simulating a full
//! game and building every step's state (each seat's observation) as JSON.
//! Prints `bench: web/replay_states_ms/GAME VALUE ms` (median of the runs)
//! and the game's length; `--quick` runs each game a few times only.

use std::time::Instant;

use cairn_engine::game::parse_options;
use cairn_engine::{new_game, Replay, Rng};
use cairn_proto::steps::replay_steps;

/// A seeded random game of `game` played to its end.
fn random_game(game: &str, options: &[&str], n_seats: usize, seed: u64) -> Replay {
    let options = parse_options(options.iter().copied()).expect("benchmark options are valid");
    let mut state = new_game(game, &options, n_seats, seed).expect("benchmark setup is valid");
    let mut rng = Rng::seeded(seed);
    let mut actions = Vec::new();
    while state.current_seat().is_some() {
        let legal = state.legal_actions();
        let action = legal[rng.below(legal.len())].clone();
        state.apply_text(&action).expect("a legal action applies");
        actions.push(action);
    }
    Replay {
        game: game.to_string(),
        options,
        seed,
        n_seats,
        actions,
    }
}

fn bench(name: &str, replay: &Replay, runs: usize) {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let steps = replay_steps(replay).expect("the replay re-simulates");
            let json = steps.to_json_string();
            std::hint::black_box(json.len());
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let bytes = replay_steps(replay).unwrap().to_json_string().len();
    println!(
        "bench: web/replay_states_ms/{name} {:.2} ms",
        times[runs / 2]
    );
    println!(
        "bench: web/replay_states_steps/{name} {} steps",
        replay.actions.len() + 1
    );
    println!("bench: web/replay_states_kib/{name} {} KiB", bytes / 1024);
}

fn main() {
    let runs = if std::env::args().any(|arg| arg == "--quick") {
        3
    } else {
        21
    };
    let games: [(&str, &str, &[&str], usize); 5] = [
        ("schotten-totten", "schotten-totten", &[], 2),
        (
            "schotten-totten-tactics",
            "schotten-totten",
            &["tactics=true"],
            2,
        ),
        ("lords-of-scotland-4", "lords-of-scotland", &[], 4),
        ("bullfrogs-4", "bullfrogs", &[], 4),
        ("bullfrogs-solo", "bullfrogs", &["solo=true"], 1),
    ];
    for (name, game, options, n_seats) in games {
        bench(name, &random_game(game, options, n_seats, 7), runs);
    }
}
