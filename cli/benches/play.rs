//! `cairn play` figures, one `bench: NAME VALUE UNIT` line each:
//! - `play/schotten_totten_games_per_s_single` and `..._concurrent`: the
//!   same sandboxed match between two trivial bots (`first`) at
//!   `--concurrency 1` and `--concurrency 2`, and their ratio (after the
//!   machine's load average, which caps what a second thread can add).
//!   Each figure is the median of five runs of 512 games, single and
//!   concurrent taking turns, so that a start-up's fixed cost and a
//!   moment's noise on a shared machine weigh little: 64 games took a
//!   third of a second and their ratio swung from 1.2 to 2.1;
//! - `play/schotten_totten_cpu_ms_per_game_single` and `..._concurrent`:
//!   the CPU time (user and system) of the whole process tree (`cairn play`,
//!   its sandboxes and bots) per game, the median over the same runs: a
//!   steadier figure than games per second on a shared machine, and the one
//!   that says whether a parallel match costs more CPU than a lone one;
//! - `play/sprt_games_to_decision`: the mean games an SPRT (elo0=0
//!   elo1=50, over mirrored deal pairs) needs to decide greedy versus random
//!   in Schotten Totten, over 10 seeds.

use std::process::Command;
use std::time::Instant;

use serde_json::Value;

const GAMES: u32 = 512;

/// Runs of each figure, taking turns; the median is printed.
const ROUNDS: usize = 5;

fn cairn() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cairn"));
    command.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    command
}

fn bundled(name: &str) -> String {
    format!("cmd:{} bot-run {name}", env!("CARGO_BIN_EXE_cairn"))
}

/// Plays `args` and returns the JSON report.
fn play(args: &[&str]) -> Value {
    let output = cairn()
        .args(["play", "--game", "schotten-totten", "--json", "--quiet"])
        .args(args)
        .output()
        .expect("cairn runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("a json report")
}

/// Games per second and CPU milliseconds per game of one run.
fn games_per_s(concurrency: &str) -> (f64, f64) {
    let first = bundled("first");
    let games = GAMES.to_string();
    let cpu_before = children_cpu_s();
    let start = Instant::now();
    let report = play(&[
        "--games",
        &games,
        "--concurrency",
        concurrency,
        &first,
        &first,
    ]);
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = children_cpu_s() - cpu_before;
    let played = report["games"].as_array().map_or(0, Vec::len);
    assert_eq!(played, GAMES as usize);
    (played as f64 / elapsed, cpu * 1000.0 / played as f64)
}

/// User and system CPU seconds of every waited-for descendant so far: each
/// `cairn play` waits for its sandboxes, which wait for their bots.
fn children_cpu_s() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

fn sprt_games_to_decision() -> f64 {
    let (greedy, random) = (bundled("schotten-totten-greedy"), bundled("random"));
    let seeds = 10;
    let mut total = 0;
    for seed in 0..seeds {
        let seed = (1000 + seed * 7919).to_string();
        let report = play(&[
            "--no-sandbox",
            "--mirror",
            "--concurrency",
            "1",
            "--games",
            "4000",
            "--seed",
            &seed,
            "--sprt",
            "elo0=0",
            "elo1=50",
            &greedy,
            &random,
        ]);
        assert_eq!(
            report["stats"]["sprt"]["accepted"], "H1",
            "{}",
            report["stats"]
        );
        total += report["games"].as_array().map_or(0, Vec::len);
    }
    total as f64 / seeds as f64
}

/// The 1-minute load average: on a loaded machine (more runnable tasks
/// than CPUs) two parallel matches share the CPUs with everything else, and
/// the concurrent figure says more about the load than about `cairn play`.
fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    if let Some(load) = load_average() {
        println!("bench: play/machine_load_average_1m {load:.2} tasks");
    }
    let (mut singles, mut concurrents) = (Vec::new(), Vec::new());
    let (mut single_cpus, mut concurrent_cpus) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let (rate, cpu) = games_per_s("1");
        singles.push(rate);
        single_cpus.push(cpu);
        let (rate, cpu) = games_per_s("2");
        concurrents.push(rate);
        concurrent_cpus.push(cpu);
    }
    let (single, concurrent) = (median(singles), median(concurrents));
    println!("bench: play/schotten_totten_games_per_s_single {single:.1} games/s");
    println!("bench: play/schotten_totten_games_per_s_concurrent {concurrent:.1} games/s");
    println!(
        "bench: play/schotten_totten_concurrent_over_single {:.2} x",
        concurrent / single
    );
    println!(
        "bench: play/schotten_totten_cpu_ms_per_game_single {:.2} ms",
        median(single_cpus)
    );
    println!(
        "bench: play/schotten_totten_cpu_ms_per_game_concurrent {:.2} ms",
        median(concurrent_cpus)
    );
    println!(
        "bench: play/sprt_games_to_decision {:.1} games",
        sprt_games_to_decision()
    );
}
