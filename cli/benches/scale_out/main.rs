//! Scaling out where the arena is the bottleneck: real `cairn serve`
//! processes on one throwaway PostgreSQL server, each in a cgroup of its
//! own held to the same share of one core ([`ARENA_SHARE`]), driven by the
//! same report-only runners (`fleet`), first all through one arena process
//! and then spread over two, taking turns for [`ROUNDS`] rounds.
//!
//! Prints `bench: arena/postgres_capped_1_arena_results_per_s`,
//! `..._2_arenas_results_per_s` (the medians over the rounds) and
//! `..._2_arenas_speedup` (the median of the rounds' ratios), then what a
//! result costs in the two-arena setup: the arena processes' CPU (from
//! their cgroups) and PostgreSQL's (its processes' `/proc/PID/stat`),
//! `bench: arena/capped_arena_cpu_ms_per_result` and
//! `bench: arena/postgres_cpu_ms_per_result`. Each phase also says how
//! often the capped arenas used up their quota: near every period, or the
//! runners are not offering the arena enough.
//!
//! Without PostgreSQL or a cpu cgroup this process may create, the figures
//! are skipped, loudly. The arena processes die with this one (even by
//! SIGKILL), and their cgroups are removed when they are dropped (on a
//! panic too) or by the next run.

mod capped;
mod fleet;
mod waits;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_arena::testkit::postgres::Postgres;
use capped::CpuCgroups;
use fleet::{ArenaProcess, PrePlayed};
use tokio::runtime::Runtime;

/// Each arena process's CPU: this share of one core, or what
/// `CAIRN_BENCH_SHARE` says (0.05 to 1). Small enough that one process is
/// the bottleneck (its quota used up in every period) and two still leave
/// PostgreSQL, at some 2 ms of CPU a result, the cores it needs on a
/// 2-core host; at 0.4 one process never used up its quota
/// (docs/performance.md, "Scaling out").
const ARENA_SHARE: f64 = 0.15;

/// The share each arena process is held to (see [`ARENA_SHARE`]).
fn arena_share() -> f64 {
    std::env::var("CAIRN_BENCH_SHARE")
        .ok()
        .and_then(|share| share.parse::<f64>().ok())
        .filter(|share| (0.05..=1.0).contains(share))
        .unwrap_or(ARENA_SHARE)
}

/// Runners, each with a lease or a report in flight, in both setups.
const N_RUNNERS: usize = 32;
const ROUNDS: usize = 3;
const PHASE: Duration = Duration::from_secs(10);
/// Untimed, on both arena processes first: connections, caches.
const WARM_UP: Duration = Duration::from_secs(3);

const FIGURES: &str = "arena/postgres_capped_1_arena_results_per_s, \
    arena/postgres_capped_2_arenas_results_per_s, arena/postgres_capped_2_arenas_speedup, \
    arena/capped_arena_cpu_ms_per_result, arena/postgres_cpu_ms_per_result";

/// What every phase runs on.
/// Dropped in this order: the arena processes are killed (and their
/// cgroups removed) before the database server stops.
struct Setup {
    /// The sampler's connections ([`waits`]).
    watcher: sqlx::PgPool,
    runtime: Runtime,
    arenas: Vec<ArenaProcess>,
    postgres: Postgres,
    played: Arc<PrePlayed>,
}

/// What one phase measured.
#[derive(Debug, Clone, Copy)]
struct Phase {
    results: f64,
    per_s: f64,
    arena_us: f64,
    postgres_us: f64,
    runners_us: f64,
}

impl Phase {
    fn ms_per_result(&self, us: f64) -> f64 {
        us / self.results.max(1.0) / 1_000.0
    }
}

/// The CPU time (µs) of this process so far: the runners and little else.
fn own_cpu_us() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |index: usize| -> f64 {
        fields
            .get(index)
            .and_then(|f| f.parse().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) * 10_000.0
}

/// [`N_RUNNERS`] runners spread over `used` for `how_long`; the CPU of
/// every arena process (`all`) and of PostgreSQL counted.
fn phase(setup: &Setup, used: &[ArenaProcess], how_long: Duration) -> Phase {
    let Setup {
        runtime,
        arenas: all,
        postgres,
        played,
        watcher,
    } = setup;
    let channels: Vec<_> = runtime.block_on(async {
        let mut channels = Vec::new();
        for index in 0..N_RUNNERS {
            channels.push(fleet::connect(&used[index % used.len()].runners).await);
        }
        channels
    });
    let arena_cpu = || all.iter().map(|arena| arena.group.cpu_us()).sum::<f64>();
    let periods = || {
        used.iter()
            .map(|arena| arena.group.periods())
            .collect::<Vec<_>>()
    };
    let (arena_before, postgres_before, own_before) =
        (arena_cpu(), postgres.cpu_us(), own_cpu_us());
    let periods_before = periods();
    let (stop_sampling, stop) = tokio::sync::watch::channel(false);
    let sampling = runtime.spawn(waits::sample(watcher.clone(), stop));
    let started = Instant::now();
    let until = started + how_long;
    let tasks: Vec<_> = channels
        .into_iter()
        .map(|channel| runtime.spawn(fleet::runner(channel, played.clone(), until)))
        .collect();
    let mut results = 0;
    for task in tasks {
        results += runtime.block_on(task).expect("a runner");
    }
    let elapsed = started.elapsed().as_secs_f64();
    stop_sampling.send_replace(true);
    let waited = runtime.block_on(sampling).expect("the sampler");
    let throttled: Vec<String> = periods()
        .iter()
        .zip(&periods_before)
        .map(|((periods, throttled), (periods_0, throttled_0))| {
            let share = (throttled - throttled_0) / (periods - periods_0).max(1.0);
            format!("{:.0}%", share * 100.0)
        })
        .collect();
    let measured = Phase {
        results: results as f64,
        per_s: results as f64 / elapsed,
        arena_us: arena_cpu() - arena_before,
        postgres_us: postgres.cpu_us() - postgres_before,
        runners_us: own_cpu_us() - own_before,
    };
    println!(
        "({} arena(s): {:.0} results/s; cpu per result: arenas {:.3} ms, postgres {:.3} ms, \
         runners {:.3} ms; quota used up in {} of the capped arenas' periods)",
        used.len(),
        measured.per_s,
        measured.ms_per_result(measured.arena_us),
        measured.ms_per_result(measured.postgres_us),
        measured.ms_per_result(measured.runners_us),
        throttled.join(" and "),
    );
    println!("({waited})");
    measured
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let cgroups = match CpuCgroups::detect() {
        Ok(cgroups) => cgroups,
        Err(reason) => return println!("SKIPPED bench: {FIGURES} ({reason})"),
    };
    let postgres = match Postgres::start() {
        Ok(server) => server,
        Err(reason) => {
            return println!("SKIPPED bench: {FIGURES} (no PostgreSQL server: {reason})")
        }
    };
    let url = postgres.fresh_database().expect("a fresh database");
    let arenas: Vec<ArenaProcess> = (0..2)
        .map(|index| {
            let group = cgroups
                .create(&format!("arena-{index}"))
                .expect("a cgroup for an arena process");
            ArenaProcess::start(&url, group)
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-runners")
        .enable_all()
        .build()
        .expect("a runtime");
    let started = Instant::now();
    let tournaments = runtime.block_on(fleet::set_up(&arenas[0], fleet::boards()));
    let played = Arc::new(runtime.block_on(PrePlayed::play(&url, &tournaments)));
    println!(
        "({} deals on {} boards planned and played before the clock in {:.0} s; each arena \
         process held to {} of a core, {N_RUNNERS} runners, {} s a phase)",
        played.len(),
        tournaments.len(),
        started.elapsed().as_secs_f64(),
        arena_share(),
        PHASE.as_secs(),
    );
    for arena in &arenas {
        arena.group.cap(arena_share()).expect("the cap is written");
    }
    let watcher = runtime
        .block_on(sqlx::PgPool::connect(&url))
        .expect("the database");
    let setup = Setup {
        runtime,
        arenas,
        postgres,
        played,
        watcher,
    };
    phase(&setup, &setup.arenas, WARM_UP);
    let (mut ones, mut twos) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ones.push(phase(&setup, &setup.arenas[..1], PHASE));
        twos.push(phase(&setup, &setup.arenas, PHASE));
    }
    report(&ones, &twos);
}

/// The figures, from the rounds' phases on one arena process and on two.
fn report(ones: &[Phase], twos: &[Phase]) {
    let one = median(ones.iter().map(|phase| phase.per_s).collect());
    let two = median(twos.iter().map(|phase| phase.per_s).collect());
    let ratios = ones
        .iter()
        .zip(twos)
        .map(|(one, two)| two.per_s / one.per_s);
    println!("bench: arena/postgres_capped_1_arena_results_per_s {one:.0} results/s");
    println!("bench: arena/postgres_capped_2_arenas_results_per_s {two:.0} results/s");
    println!(
        "bench: arena/postgres_capped_2_arenas_speedup {:.2} x",
        median(ratios.collect())
    );
    let pooled = |cpu: fn(&Phase) -> f64| {
        let results: f64 = twos.iter().map(|phase| phase.results).sum();
        twos.iter().map(cpu).sum::<f64>() / results.max(1.0) / 1_000.0
    };
    println!(
        "bench: arena/capped_arena_cpu_ms_per_result {:.3} ms",
        pooled(|phase| phase.arena_us)
    );
    println!(
        "bench: arena/postgres_cpu_ms_per_result {:.3} ms",
        pooled(|phase| phase.postgres_us)
    );
}
