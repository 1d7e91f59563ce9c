//! How strong the searching bot is: ISMCTS (`cairn bot-run mcts`, run here
//! in-process through the very same `MctsBot`, seeing what the runner would
//! send) against the greedy bots, at a fixed thinking time per decision
//! (100 ms of this thread's CPU time by default).
//!
//! Mirrored deals: each seed is played once with ISMCTS in every seat
//! (the others greedy), so no figure rides on who was dealt better cards.
//! Prints, per figure, `bench: bots/mcts_vs_greedy/<game-variant> VALUE
//! share` and its 95% interval as `.../ci95_low` and `.../ci95_high`:
//! - two seats: ISMCTS's score share (win 1, draw 1/2);
//! - four seats: the share of games ISMCTS ends in first place (par 0.25);
//! - Bullfrogs solo: ISMCTS's mean score minus greedy's on the same seeds
//!   (`points`), with its interval.
//!
//! Then `bench: bots/mcts_playouts_per_s/<game> VALUE playouts/s`.
//!
//! Flags: `--games N` (per figure, rounded up to a multiple of the seats;
//! default 200), `--think-ms N` (default 100), `--only TEXT` (figures whose
//! name contains TEXT).

use std::time::Duration;

use cairn_engine::bullfrogs::Bullfrogs;
use cairn_engine::game::parse_options;
use cairn_engine::lords_of_scotland::LordsOfScotland;
use cairn_engine::schotten_totten::SchottenTotten;
use cairn_engine::{GameOptions, Rng};
use cairn_proto::convert::FromWire;
use cairn_sdk::bots::{GreedyBot, MctsBot, ThinkPolicy};
use cairn_sdk::local::play_local;
use cairn_sdk::mcts::{search, Budget, ThinkClock};
use cairn_sdk::Bot;

struct Args {
    games: u64,
    think_ms: u32,
    only: Option<String>,
}

fn args() -> Args {
    let mut args = Args {
        games: 200,
        think_ms: 100,
        only: None,
    };
    let words: Vec<String> = std::env::args().collect();
    for pair in words.windows(2) {
        match pair[0].as_str() {
            "--games" => args.games = pair[1].parse().unwrap_or(args.games),
            "--think-ms" => args.think_ms = pair[1].parse().unwrap_or(args.think_ms),
            "--only" => args.only = Some(pair[1].clone()),
            _ => {}
        }
    }
    args
}

fn mcts(seed: u64, think_ms: u32) -> MctsBot {
    MctsBot::new(
        Rng::seeded(seed),
        ThinkPolicy {
            per_decision_share: 1.0,
            bank_divisor: u32::MAX,
            cap: Some(Duration::from_millis(think_ms.into())),
            iterations: None,
        },
    )
}

/// A proportion and its 95% interval (Wilson).
fn wilson(successes: f64, n: f64) -> (f64, f64, f64) {
    let p = successes / n;
    let z = 1.96f64;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (p, centre - half, centre + half)
}

fn print_figure(name: &str, (value, low, high): (f64, f64, f64), unit: &str, games: u64) {
    println!("bench: bots/mcts_vs_greedy/{name} {value:.3} {unit}");
    println!("bench: bots/mcts_vs_greedy/{name}/ci95_low {low:.3} {unit}");
    println!("bench: bots/mcts_vs_greedy/{name}/ci95_high {high:.3} {unit}");
    println!("# {name}: {games} games");
}

/// ISMCTS in each seat in turn, greedy elsewhere, over the same seeds.
/// Returns (score share at two seats / first-place share at more, games).
fn table_figure(game: &str, words: &[&str], n_seats: usize, args: &Args) -> (f64, u64) {
    let options = parse_options(words.iter().copied()).expect("bench options are valid");
    let deals = args.games.div_ceil(n_seats as u64);
    let mut points = 0.0;
    let mut games = 0;
    for deal in 0..deals {
        for mcts_seat in 0..n_seats {
            let mut owned: Vec<Box<dyn Bot>> = (0..n_seats)
                .map(|seat| -> Box<dyn Bot> {
                    if seat == mcts_seat {
                        Box::new(mcts(deal * 31 + seat as u64, args.think_ms))
                    } else {
                        Box::new(GreedyBot)
                    }
                })
                .collect();
            let outcome = play_local(game, &options, 1000 + deal, args.think_ms, &mut owned)
                .unwrap_or_else(|error| panic!("{game} deal {deal}: {error}"));
            let rank = outcome.ranks[mcts_seat];
            points += if n_seats == 2 {
                match rank.cmp(&outcome.ranks[1 - mcts_seat]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                }
            } else {
                (rank == 1) as u8 as f64
            };
            games += 1;
        }
        // Progress, so that a run cut short still says something.
        if deal % 10 == 9 {
            println!("# {game} {words:?} {n_seats} seats: {points} points in {games} games");
        }
    }
    (points, games)
}

/// Bullfrogs solo: mean score of ISMCTS minus greedy's over the same seeds.
fn solo_figure(args: &Args) -> ((f64, f64, f64), u64) {
    let options = parse_options(["solo=true"]).expect("solo is an option");
    let mut differences = Vec::new();
    for seed in 0..args.games {
        let ours = play_local(
            "bullfrogs",
            &options,
            2000 + seed,
            args.think_ms,
            &mut [Box::new(mcts(seed, args.think_ms)) as Box<dyn Bot>],
        );
        let theirs = play_local(
            "bullfrogs",
            &options,
            2000 + seed,
            args.think_ms,
            &mut [Box::new(GreedyBot) as Box<dyn Bot>],
        );
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                differences.push((ours.scores[0] - theirs.scores[0]) as f64);
                if seed % 20 == 19 {
                    let sum: f64 = differences.iter().sum();
                    println!("# solo: {sum} points ahead in {} games", differences.len());
                }
            }
            (ours, theirs) => panic!("solo seed {seed}: {ours:?} {theirs:?}"),
        }
    }
    let n = differences.len() as f64;
    let mean = differences.iter().sum::<f64>() / n;
    let variance = differences.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (variance / n).sqrt();
    ((mean, mean - half, mean + half), differences.len() as u64)
}

/// Iterations per CPU-second of one search from a fresh deal's first decision.
fn playouts_per_s<G: FromWire>(words: &[&str], n_seats: usize) -> f64 {
    let options: GameOptions =
        parse_options(words.iter().copied()).expect("bench options are valid");
    let state = G::new(&options, n_seats, 7).expect("bench setup is valid");
    let seat = state.current_seat().unwrap_or(0);
    let seen = state.observation(seat);
    let mut rng = Rng::seeded(1);
    let clock = ThinkClock::start();
    let budget = Budget {
        think: Duration::from_secs(1),
        iterations: None,
    };
    let result = search::<G>(&seen, seat, budget, &mut rng).expect("a fresh deal can be searched");
    result.iterations as f64 / clock.elapsed().as_secs_f64().max(1e-3)
}

fn main() {
    let args = args();
    let wanted = |name: &str| args.only.as_deref().is_none_or(|only| name.contains(only));
    let two_seat: [(&str, &str, &[&str]); 4] = [
        ("schotten-totten-base", "schotten-totten", &[]),
        (
            "schotten-totten-tactics",
            "schotten-totten",
            &["tactics=true"],
        ),
        ("lords-of-scotland-2p", "lords-of-scotland", &[]),
        ("bullfrogs-2p", "bullfrogs", &[]),
    ];
    for (name, game, words) in two_seat {
        if wanted(name) {
            let (points, games) = table_figure(game, words, 2, &args);
            print_figure(name, wilson(points, games as f64), "share", games);
        }
    }
    for (name, game) in [
        ("lords-of-scotland-4p", "lords-of-scotland"),
        ("bullfrogs-4p", "bullfrogs"),
    ] {
        if wanted(name) {
            let (firsts, games) = table_figure(game, &[], 4, &args);
            print_figure(
                &format!("{name}/first_place"),
                wilson(firsts, games as f64),
                "share",
                games,
            );
        }
    }
    if wanted("bullfrogs-solo") {
        let (figure, games) = solo_figure(&args);
        print_figure(
            "bullfrogs-solo/mean_score_minus_greedy",
            figure,
            "points",
            games,
        );
    }
    if wanted("playouts") {
        let rates = [
            ("schotten-totten", playouts_per_s::<SchottenTotten>(&[], 2)),
            (
                "schotten-totten-tactics",
                playouts_per_s::<SchottenTotten>(&["tactics=true"], 2),
            ),
            (
                "lords-of-scotland",
                playouts_per_s::<LordsOfScotland>(&[], 2),
            ),
            ("bullfrogs", playouts_per_s::<Bullfrogs>(&[], 2)),
        ];
        for (game, rate) in rates {
            println!("bench: bots/mcts_playouts_per_s/{game} {rate:.0} playouts/s");
        }
    }
}
