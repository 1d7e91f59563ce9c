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
//! The budget is 100 ms of the searching thread's own CPU time per decision
//! (from the thread's CPU clock, the count the runner's time control
//! charges), not wall time: on a loaded machine a search waits longer for
//! its 100 ms but still gets all of them, so other processes do not weaken
//! it. What load can still change is how fast a CPU-second is (shared
//! caches): the bench measures playouts per CPU-second before and after
//! the games (`# calibration` lines, then the `bench:` lines), so a reader
//! sees what the games were played at.
//!
//! Games run on `--threads N` threads (default: the machine's cores), every
//! figure's games in one queue; a figure prints as soon as its last game
//! ends, and every 10 games a `#` line gives it so far, so that a run cut
//! short still says something.
//!
//! Flags: `--games N` (per figure, rounded up to a multiple of the seats;
//! default 200), `--think-ms N` (default 100), `--only TEXT` (figures whose
//! name contains TEXT; `playouts/GAME` measures one game's playout rate
//! alone), `--threads N`, `--rate-iterations N` (the playout rates search
//! N iterations instead of a second: a fixed amount of work, for callgrind).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use cairn_engine::bullfrogs::Bullfrogs;
use cairn_engine::game::parse_options;
use cairn_engine::lords_of_scotland::LordsOfScotland;
use cairn_engine::schotten_totten::SchottenTotten;
use cairn_engine::{GameOptions, Rng};
use cairn_proto::convert::FromWire;
use cairn_sdk::bots::{GreedyBot, MctsBot, ThinkPolicy};
use cairn_sdk::local::play_local;
use cairn_sdk::mcts::{search, Budget, Playout, ThinkClock};
use cairn_sdk::Bot;

/// The `cairn` binary's allocator (see `cli/src/main.rs`): `cairn bot-run
/// mcts` searches with it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Args {
    games: u64,
    think_ms: u32,
    only: Option<String>,
    threads: usize,
    /// Searches of the playout rates stop at this many iterations rather
    /// than after a second (a fixed amount of work, for callgrind).
    rate_iterations: Option<u32>,
}

fn args() -> Args {
    let mut args = Args {
        games: 200,
        think_ms: 100,
        only: None,
        threads: std::thread::available_parallelism().map_or(2, usize::from),
        rate_iterations: None,
    };
    let words: Vec<String> = std::env::args().collect();
    for pair in words.windows(2) {
        match pair[0].as_str() {
            "--games" => args.games = pair[1].parse().unwrap_or(args.games),
            "--think-ms" => args.think_ms = pair[1].parse().unwrap_or(args.think_ms),
            "--only" => args.only = Some(pair[1].clone()),
            "--threads" => args.threads = pair[1].parse().unwrap_or(args.threads).max(1),
            "--rate-iterations" => args.rate_iterations = pair[1].parse().ok(),
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

/// A mean and its 95% interval (normal approximation).
fn mean_interval(values: &[f64]) -> (f64, f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let half = 1.96 * (variance / n).sqrt();
    (mean, mean - half, mean + half)
}

fn print_figure(name: &str, (value, low, high): (f64, f64, f64), unit: &str, games: u64) {
    println!("bench: bots/mcts_vs_greedy/{name} {value:.3} {unit}");
    println!("bench: bots/mcts_vs_greedy/{name}/ci95_low {low:.3} {unit}");
    println!("bench: bots/mcts_vs_greedy/{name}/ci95_high {high:.3} {unit}");
    println!("# {name}: {games} games");
}

/// One figure: ISMCTS in each seat in turn against greedy over the same
/// seeds (`n_seats` > 1), or ISMCTS's and greedy's solo scores on the same
/// seeds (`n_seats` == 1).
struct Figure {
    name: String,
    game: &'static str,
    options: GameOptions,
    n_seats: usize,
    /// Games (one per deal and ISMCTS seat; solo: one per seed).
    jobs: u64,
    tally: Mutex<Tally>,
}

#[derive(Default)]
struct Tally {
    /// Per game: the score (two seats: 1, 1/2, 0), the first place (more
    /// seats: 1 or 0), or ISMCTS's solo score minus greedy's.
    values: Vec<f64>,
}

impl Figure {
    fn new(name: &str, game: &'static str, words: &[&str], n_seats: usize, games: u64) -> Figure {
        let deals = games.div_ceil(n_seats as u64);
        Figure {
            name: name.to_string(),
            game,
            options: parse_options(words.iter().copied()).expect("bench options are valid"),
            n_seats,
            jobs: deals * n_seats as u64,
            tally: Mutex::new(Tally::default()),
        }
    }

    fn unit_and_value(&self, values: &[f64]) -> ((f64, f64, f64), &'static str) {
        if self.n_seats == 1 {
            (mean_interval(values), "points")
        } else {
            (wilson(values.iter().sum(), values.len() as f64), "share")
        }
    }

    /// Plays game `job` and returns its value.
    fn play(&self, job: u64, think_ms: u32) -> f64 {
        if self.n_seats == 1 {
            return self.play_solo(job, think_ms);
        }
        let (deal, mcts_seat) = (
            job / self.n_seats as u64,
            (job % self.n_seats as u64) as usize,
        );
        let mut owned: Vec<Box<dyn Bot>> = (0..self.n_seats)
            .map(|seat| -> Box<dyn Bot> {
                if seat == mcts_seat {
                    Box::new(mcts(deal * 31 + seat as u64, think_ms))
                } else {
                    Box::new(GreedyBot)
                }
            })
            .collect();
        let outcome = play_local(self.game, &self.options, 1000 + deal, think_ms, &mut owned)
            .unwrap_or_else(|error| panic!("{} deal {deal}: {error}", self.name));
        let rank = outcome.ranks[mcts_seat];
        if self.n_seats == 2 {
            match rank.cmp(&outcome.ranks[1 - mcts_seat]) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            }
        } else {
            f64::from(u8::from(rank == 1))
        }
    }

    fn play_solo(&self, seed: u64, think_ms: u32) -> f64 {
        let score = |bot: Box<dyn Bot>| {
            play_local(self.game, &self.options, 2000 + seed, think_ms, &mut [bot])
                .unwrap_or_else(|error| panic!("solo seed {seed}: {error}"))
                .scores[0]
        };
        let ours = score(Box::new(mcts(seed, think_ms)));
        let theirs = score(Box::new(GreedyBot));
        f64::from(ours - theirs)
    }

    /// Records one game's value; prints progress, and the figure once whole.
    fn record(&self, value: f64) {
        let mut tally = self
            .tally
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        tally.values.push(value);
        let games = tally.values.len() as u64;
        let (figure, unit) = self.unit_and_value(&tally.values);
        if games == self.jobs {
            let name = if self.n_seats == 1 {
                format!("{}/mean_score_minus_greedy", self.name)
            } else if self.n_seats > 2 {
                format!("{}/first_place", self.name)
            } else {
                self.name.clone()
            };
            print_figure(&name, figure, unit, games);
        } else if games % 10 == 0 {
            println!(
                "# {}: {:.3} {unit} [{:.3}, {:.3}] after {games} of {} games",
                self.name, figure.0, figure.1, figure.2, self.jobs
            );
        }
    }
}

/// Plays every figure's games on `threads` threads, one queue for all.
fn play_all(figures: &[Figure], args: &Args) {
    let queue: Vec<(usize, u64)> = figures
        .iter()
        .enumerate()
        .flat_map(|(index, figure)| (0..figure.jobs).map(move |job| (index, job)))
        .collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..args.threads {
            scope.spawn(|| {
                while let Some(&(index, job)) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let figure = &figures[index];
                    figure.record(figure.play(job, args.think_ms));
                }
            });
        }
    });
}

/// Iterations per CPU-second of one search from a fresh deal's first decision.
fn playouts_per_s<G: FromWire + Playout>(
    words: &[&str],
    n_seats: usize,
    iterations: Option<u32>,
) -> f64 {
    let options: GameOptions =
        parse_options(words.iter().copied()).expect("bench options are valid");
    let state = G::new(&options, n_seats, 7).expect("bench setup is valid");
    let seat = state.current_seat().unwrap_or(0);
    let seen = state.observation(seat);
    let mut rng = Rng::seeded(1);
    let clock = ThinkClock::start();
    let budget = Budget {
        think: Duration::from_secs(if iterations.is_some() { 3600 } else { 1 }),
        iterations,
    };
    let result = search::<G>(&seen, seat, budget, &mut rng).expect("a fresh deal can be searched");
    result.iterations as f64 / clock.elapsed().as_secs_f64().max(1e-3)
}

fn rates(only: Option<&str>, iterations: Option<u32>) -> Vec<(&'static str, f64)> {
    type Rate = fn(&[&str], usize, Option<u32>) -> f64;
    let all: [(&str, &[&str], Rate); 4] = [
        ("schotten-totten", &[], playouts_per_s::<SchottenTotten>),
        (
            "schotten-totten-tactics",
            &["tactics=true"],
            playouts_per_s::<SchottenTotten>,
        ),
        ("lords-of-scotland", &[], playouts_per_s::<LordsOfScotland>),
        ("bullfrogs", &[], playouts_per_s::<Bullfrogs>),
    ];
    // `--only playouts/GAME` measures that game alone.
    let game_wanted = |game: &str| {
        only.and_then(|only| only.strip_prefix("playouts/"))
            .is_none_or(|wanted| wanted == game)
    };
    all.into_iter()
        .filter(|(game, ..)| game_wanted(game))
        .map(|(game, words, rate)| (game, rate(words, 2, iterations)))
        .collect()
}

fn main() {
    let args = args();
    let wanted = |name: &str| args.only.as_deref().is_none_or(|only| name.contains(only));
    let measure_rates = wanted("playouts")
        || args
            .only
            .as_deref()
            .is_some_and(|o| o.starts_with("playouts/"));
    if measure_rates {
        for (game, rate) in rates(args.only.as_deref(), args.rate_iterations) {
            println!("# calibration before the games: {game} {rate:.0} playouts per CPU-second");
        }
    }
    // The missing and the weakest figures first, so that they finish first.
    let figures: Vec<Figure> = [
        ("lords-of-scotland-4p", "lords-of-scotland", &[][..], 4),
        (
            "schotten-totten-tactics",
            "schotten-totten",
            &["tactics=true"][..],
            2,
        ),
        ("schotten-totten-base", "schotten-totten", &[][..], 2),
        ("lords-of-scotland-2p", "lords-of-scotland", &[][..], 2),
        ("bullfrogs-2p", "bullfrogs", &[][..], 2),
        ("bullfrogs-4p", "bullfrogs", &[][..], 4),
        ("bullfrogs-solo", "bullfrogs", &["solo=true"][..], 1),
    ]
    .into_iter()
    .filter(|(name, ..)| wanted(name))
    .map(|(name, game, words, n_seats)| Figure::new(name, game, words, n_seats, args.games))
    .collect();
    println!(
        "# {} figures, {} ms of CPU per ISMCTS decision, {} threads",
        figures.len(),
        args.think_ms,
        args.threads
    );
    play_all(&figures, &args);
    if measure_rates {
        for (game, rate) in rates(args.only.as_deref(), args.rate_iterations) {
            println!("bench: bots/mcts_playouts_per_s/{game} {rate:.0} playouts/s");
        }
    }
}
