//! Arena latency and ingest under load, over a real server on 127.0.0.1
//! with a SQLite file: a 12,250-game round robin (50 bots, 10 games per
//! pairing, matches of 5 games) reported game by game by 2 runners, in
//! rounds: alone, then while 200 concurrent readers ask for the leaderboard
//! and for the first page of `ListMatches` as any caller gets it by default
//! (each match with its game counts; its games come only with
//! `with_games`). The readers pause while ingest is timed alone.
//!
//! Each side runs as it would in its own process: the server on its own
//! runtime (a worker per core but one, and the writes alone on the last
//! core, as `cairn serve` runs it), the runners on another, each with its
//! own connection to the server's runner port, and the readers on a
//! third, each reader with its own connection to the public port. The
//! readers speak gRPC over HTTP/2 by hand (`caller/`): a general client
//! took as much of the shared cores per call as the arena's answer did.
//!
//! Prints `bench: arena/results_per_s` (no readers, the rounds' median),
//! `bench: arena/list_matches_p99_ms`, `bench: arena/leaderboard_p99_ms_under_load`
//! and `bench: arena/ingest_slowdown_under_load` (the median over the
//! rounds of results/s alone divided by results/s under the readers' load);
//! then, the last report answered, the
//! same readers for a few seconds with nothing reported:
//! `bench: arena/reads_per_s_no_ingest` and both p99s `_no_ingest`. On a
//! machine whose cores the readers share with the arena, those show what
//! the readers alone take: with 200 back-to-back readers, their p99 is
//! about 2.4 times 200 divided by the reads per second. Then the same on
//! PostgreSQL, and on two arena servers sharing it (`postgres/`). Last, on
//! a fresh arena, ingest under a hostile crowd of readers (`hostile/`).

mod caller;
mod hostile;
mod postgres;

/// The `cairn` binary's allocator (see `cli/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_arena::service::pb::arena_client::ArenaClient;
use cairn_arena::service::pb::runner_service_client::RunnerServiceClient;
use cairn_arena::service::{pb, Listeners, Placement, ServeOptions};
use cairn_arena::store::Quotas;
use cairn_arena::testkit::{bot_archive, test_game_check, test_replay, test_verifier, TEST_DUEL};
use cairn_arena::Store;
use cairn_runner::placement::{self, CpuSet};
use caller::{count_field, Caller};
use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::watch;
use tonic::transport::Channel;
use tonic::Request;

const N_BOTS: usize = 50;
const GAMES_PER_PAIRING: u32 = 10;
const N_RUNNERS: usize = 2;
const N_READERS: usize = 200;
const RUNNER_TOKEN: &str = "bench-runner-token-0123456789";
/// How long the readers go on after the last report, timed alone.
const READS_ALONE_FOR: Duration = Duration::from_secs(5);

fn authorized<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii token"),
    );
    request
}

/// Reports `n_matches` waiting matches game by game (the best bot version
/// wins); returns the games reported.
async fn runner(channel: Channel, token: String, n_matches: usize) -> u64 {
    let mut client = RunnerServiceClient::new(channel);
    let mut games = 0;
    for _ in 0..n_matches {
        let leased = client
            .lease_match(authorized(pb::LeaseMatchRequest { lease_ms: 0 }, &token))
            .await
            .expect("lease")
            .into_inner();
        let Some(lease) = leased.lease else {
            return games;
        };
        let best = lease
            .seats
            .iter()
            .map(|seat| seat.bot_version_id)
            .max()
            .expect("seats");
        for game in &lease.games {
            let seats: Vec<pb::SeatResult> = lease
                .seats
                .iter()
                .map(|seat| {
                    let won = seat.bot_version_id == best;
                    pb::SeatResult {
                        bot_version_id: seat.bot_version_id,
                        score: i64::from(won),
                        rank: if won { 1 } else { 2 },
                        forfeit: None,
                        stderr_tail: Vec::new(),
                    }
                })
                .collect();
            let scores: Vec<i64> = seats.iter().map(|seat| seat.score).collect();
            let report = pb::ReportGameRequest {
                match_id: lease.match_id,
                lease_generation: lease.lease_generation,
                game: Some(pb::GameResult {
                    game_index: game.game_index,
                    seats,
                    replay: test_replay(game.seed, &scores),
                    end_reason: pb::EndReason::Finished as i32,
                }),
            };
            client
                .report_game(authorized(report, &token))
                .await
                .expect("report");
            games += 1;
        }
    }
    games
}

/// A new connection to the arena.
async fn connect(address: SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{address}"))
        .expect("url")
        .connect()
        .await
        .expect("connect")
}

/// Every runner, on its own connection, reports `n_matches`; the results
/// reported and results per second.
async fn ingest(address: SocketAddr, n_matches: usize) -> (u64, f64) {
    ingest_over(&[address], N_RUNNERS, n_matches).await
}

/// `n_runners` runners, spread over `arenas`, each reporting `n_matches`
/// matches: the games recorded and the rate they were recorded at.
async fn ingest_over(arenas: &[SocketAddr], n_runners: usize, n_matches: usize) -> (u64, f64) {
    let mut channels = Vec::new();
    for index in 0..n_runners {
        channels.push(connect(arenas[index % arenas.len()]).await);
    }
    let started = Instant::now();
    let tasks: Vec<_> = channels
        .into_iter()
        .enumerate()
        .map(|(index, channel)| {
            tokio::spawn(runner(
                channel,
                format!("{RUNNER_TOKEN}-{index}"),
                n_matches,
            ))
        })
        .collect();
    let mut games = 0;
    for task in tasks {
        games += task.await.expect("runner task");
    }
    (games, games as f64 / started.elapsed().as_secs_f64())
}

/// What the readers are timing: reads under ingest, reads alone, nothing
/// for now (paused while ingest is timed alone), or nothing (stop).
const UNDER_INGEST: u8 = 0;
const NO_INGEST: u8 = 1;
const STOP: u8 = 2;
const PAUSED: u8 = 3;

/// Rounds of ingest timed alone then under the readers, each phase this
/// many matches per runner. The slowdown is the median of the rounds'
/// ratios: on a shared machine one hiccup in one phase of one or two
/// seconds moved a single ratio by a third, and with three rounds two
/// such hiccups moved the median; with five it takes three.
const ROUNDS: usize = 5;
const MATCHES_PER_PHASE: usize = 120;
/// The tournament's matches: 1,225 pairings of 10 games, 5 games a match.
const MATCHES: usize = 2_450;
const _: () = assert!(ROUNDS * 2 * MATCHES_PER_PHASE * N_RUNNERS <= MATCHES);

/// The repeated field holding a leaderboard's rows, and a page's matches.
const BOARD_ROWS: u64 = 4;
const PAGE_MATCHES: u64 = 1;

/// Reads until `phase` says stop, asking one thing only; the latencies of
/// the reads begun under ingest and of those begun after it. A reader
/// stands for a caller on another machine: it counts each answer's rows
/// in their encoding, decoding none of them, so that it takes as little
/// as it can of the cores it shares here with the arena.
async fn reader(
    address: SocketAddr,
    tournament_id: i64,
    leaderboard: bool,
    mut phase: watch::Receiver<u8>,
) -> [Vec<Duration>; 2] {
    let mut caller = Caller::connect(address).await;
    let mut latencies = [Vec::new(), Vec::new()];
    loop {
        let began_in = *phase.borrow_and_update();
        match began_in {
            STOP => return latencies,
            PAUSED => {
                let _ = phase.wait_for(|now| *now != PAUSED).await;
                continue;
            }
            _ => {}
        }
        let started = Instant::now();
        if leaderboard {
            let asked = pb::GetLeaderboardRequest {
                game: TEST_DUEL.into(),
                ..Default::default()
            };
            let board = caller
                .call("/cairn.arena.v1.Arena/GetLeaderboard", &asked)
                .await;
            assert_eq!(count_field(&board, BOARD_ROWS), N_BOTS);
        } else {
            let asked = pb::ListMatchesRequest {
                tournament_id,
                ..Default::default()
            };
            let page = caller
                .call("/cairn.arena.v1.Arena/ListMatches", &asked)
                .await;
            assert_eq!(count_field(&page, PAGE_MATCHES), 100);
        }
        latencies[usize::from(began_in)].push(started.elapsed());
    }
}

/// CPU time used by this process and by each group of its threads (by
/// thread name, as Linux shortens it to 15 bytes), from `/proc`; zero
/// where `/proc` cannot be read. A thread that ended in between is
/// counted in the total only.
#[derive(Debug, Default)]
struct CpuTimes {
    total_us: f64,
    groups: std::collections::HashMap<String, f64>,
}

/// `/proc`'s clock ticks: fixed at 100 per second for user space on Linux.
const TICK_US: f64 = 10_000.0;

impl CpuTimes {
    fn now() -> CpuTimes {
        let mut times = CpuTimes {
            total_us: ticks_us(&std::fs::read_to_string("/proc/self/stat").unwrap_or_default())
                .map_or(0.0, |(_, us)| us),
            ..CpuTimes::default()
        };
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return times;
        };
        for task in tasks.flatten() {
            let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
            if let Some((name, us)) = ticks_us(&stat) {
                *times.groups.entry(name).or_default() += us;
            }
        }
        times
    }

    fn since(&self, earlier: &CpuTimes) -> CpuTimes {
        CpuTimes {
            total_us: self.total_us - earlier.total_us,
            groups: self
                .groups
                .iter()
                .map(|(name, us)| {
                    let before = earlier.groups.get(name).copied().unwrap_or_default();
                    (name.clone(), us - before)
                })
                .collect(),
        }
    }

    fn add(&mut self, more: &CpuTimes) {
        self.total_us += more.total_us;
        for (name, us) in &more.groups {
            *self.groups.entry(name.clone()).or_default() += us;
        }
    }

    fn group_us(&self, name: &str) -> f64 {
        self.groups.get(name).copied().unwrap_or_default()
    }
}

/// A `stat` line's thread name and user plus system time.
fn ticks_us(stat: &str) -> Option<(String, f64)> {
    let (head, rest) = stat.rsplit_once(") ")?;
    let name = head.split_once(" (")?.1.to_string();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((name, (user + system) * TICK_US))
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn p99_ms(mut latencies: Vec<Duration>) -> f64 {
    latencies.sort_unstable();
    let index = ((latencies.len() as f64 - 1.0) * 0.99).round() as usize;
    latencies[index].as_secs_f64() * 1000.0
}

/// Runtimes standing for separate processes: the arena, the runners and
/// the readers.
struct Processes {
    arena: Runtime,
    runners: Runtime,
    readers: Runtime,
}

fn runtime(name: &str, threads: usize) -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name(name)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The cores for the writes and for the rest as `cairn serve
/// --write-cpu auto` splits them ([`cairn_arena::service::write_core`]).
fn split_cores() -> Option<(CpuSet, CpuSet)> {
    let allowed = placement::allowed_set().expect("the cores of this process");
    let write = cairn_arena::service::write_core(&placement::cpus_in(&allowed))?;
    Some(placement::split_off(&allowed, write).expect("an allowed core"))
}

fn run_on(cores: &CpuSet) {
    placement::move_current_thread(cores).expect("a thread moved to its cores");
}

/// The arena's runtime as `cairn serve` builds it: a worker per core but
/// one, each [`cairn_arena::service::API_NICE`] lower than the threads that
/// start the server (the writer thread and SQLite's for the writes), on
/// the cores the writes leave (`api_cores`).
fn arena_runtime(api_cores: Option<CpuSet>) -> Runtime {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let lowered =
        placement::lowered_nice(cairn_arena::service::API_NICE).expect("the bench's own niceness");
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cairn_arena::service::api_threads(cores))
        .thread_name("bench-arena")
        .on_thread_start(move || {
            placement::set_thread_nice(lowered).expect("the arena's threads run lower");
            if let Some(cores) = &api_cores {
                run_on(cores);
            }
        })
        .enable_all()
        .build()
        .expect("runtime")
}

/// The arena with its bots and the tournament; the tournament's id.
async fn set_up(store: Store, address: SocketAddr) -> i64 {
    let mut arena = ArenaClient::new(connect(address).await);
    let token = arena
        .register_owner(pb::RegisterOwnerRequest {
            name: "bench".into(),
        })
        .await
        .expect("owner")
        .into_inner()
        .token;
    for index in 0..N_BOTS {
        let archive = bot_archive(&format!("bot-{index:02}"), 1);
        arena
            .submit_bot_version(authorized(pb::SubmitBotVersionRequest { archive }, &token))
            .await
            .expect("bot");
    }
    for index in 0..N_RUNNERS {
        store
            .register_runner_with_token(
                &format!("runner-{index}"),
                &format!("{RUNNER_TOKEN}-{index}"),
            )
            .await
            .expect("runner");
    }
    let request = pb::CreateTournamentRequest {
        game: TEST_DUEL.into(),
        bots: (0..N_BOTS).map(|index| format!("bot-{index:02}")).collect(),
        seats_per_game: 2,
        games_per_pairing: GAMES_PER_PAIRING,
        seed: 1,
        ..Default::default()
    };
    arena
        .create_tournament(authorized(request, &token))
        .await
        .expect("tournament")
        .into_inner()
        .id
}

fn bench(processes: &Processes, write_cores: Option<CpuSet>) {
    let folder = tempfile::tempdir().expect("temp folder");
    let quotas = Quotas {
        bots: N_BOTS as i64,
        ..Quotas::default()
    };
    let (store, listener) = processes.arena.block_on(async {
        let store = Store::open(
            folder.path().join("bench.db"),
            cairn_arena::store::StoreOptions {
                game_check: test_game_check,
                verifier: test_verifier,
                quotas,
                ..Default::default()
            },
        )
        .await
        .expect("store");
        (store, TcpListener::bind("127.0.0.1:0").await.expect("bind"))
    });
    let address = listener.local_addr().expect("address");
    let runner_listener = processes
        .arena
        .block_on(async { TcpListener::bind("127.0.0.1:0").await.expect("bind") });
    let runner_address = runner_listener.local_addr().expect("address");
    let (stop_server, stopped) = tokio::sync::oneshot::channel::<()>();
    // Served from a thread at the arena's own priority, as `cairn serve`
    // serves from its main thread: the writer thread starts from it.
    let options = ServeOptions {
        place_writer: write_cores.map(|cores| Arc::new(move || run_on(&cores)) as Placement),
        ..ServeOptions::default()
    };
    let listeners = Listeners {
        public: listener,
        runners: Some(runner_listener),
    };
    let serving = cairn_arena::run(listeners, store.clone(), options, async move {
        let _ = stopped.await;
    });
    let arena = processes.arena.handle().clone();
    let server = std::thread::spawn(move || arena.block_on(serving));
    let tournament_id = processes.runners.block_on(set_up(store, address));

    // ROUNDS x 2 phases x MATCHES_PER_PHASE per runner: 2,400 of MATCHES.
    let (phase, reading) = watch::channel(PAUSED);
    let readers: Vec<_> = (0..N_READERS)
        .map(|index| {
            processes.readers.spawn(reader(
                address,
                tournament_id,
                index % 2 == 0,
                reading.clone(),
            ))
        })
        .collect();
    let (mut cpu_alone, mut cpu_loaded) = (CpuTimes::default(), CpuTimes::default());
    let (mut n_alone, mut n_loaded) = (0, 0);
    let mut rounds = Vec::new();
    // One phase of a round: the readers set to `reading`, then ingest
    // timed; its rate, its CPU time and games added to `cpu` and `games`.
    let timed = |reading: u8, cpu: &mut CpuTimes, games: &mut u64| {
        phase.send_replace(reading);
        let before = CpuTimes::now();
        let (done, rate) = processes
            .runners
            .block_on(ingest(runner_address, MATCHES_PER_PHASE));
        cpu.add(&CpuTimes::now().since(&before));
        *games += done;
        rate
    };
    for _ in 0..ROUNDS {
        let alone = timed(PAUSED, &mut cpu_alone, &mut n_alone);
        let loaded = timed(UNDER_INGEST, &mut cpu_loaded, &mut n_loaded);
        rounds.push((alone, loaded));
    }
    let alone = median(rounds.iter().map(|(alone, _)| *alone));
    let loaded = median(rounds.iter().map(|(_, loaded)| *loaded));
    let slowdown = median(rounds.iter().map(|(alone, loaded)| alone / loaded));
    println!("bench: arena/results_per_s {alone:.0} results/s");
    // The same readers with nothing reported: what reads alone cost on
    // this machine, and their latencies without ingest beside them.
    phase.send_replace(NO_INGEST);
    let before_reads_alone = CpuTimes::now();
    let reads_began = Instant::now();
    std::thread::sleep(READS_ALONE_FOR);
    phase.send_replace(STOP);
    let reads_took = reads_began.elapsed();
    let cpu_reads_alone = CpuTimes::now().since(&before_reads_alone);
    let mut boards = [Vec::new(), Vec::new()];
    let mut lists = [Vec::new(), Vec::new()];
    for (index, task) in readers.into_iter().enumerate() {
        let latencies = processes.readers.block_on(task).expect("reader task");
        let kind = if index % 2 == 0 {
            &mut boards
        } else {
            &mut lists
        };
        for (into, from) in kind.iter_mut().zip(latencies) {
            into.extend(from);
        }
    }
    let [boards, boards_alone] = boards;
    let [lists, lists_alone] = lists;
    let by_round: Vec<String> = rounds
        .iter()
        .map(|(alone, loaded)| format!("{alone:.0}/{loaded:.0}"))
        .collect();
    println!(
        "({} ListMatches and {} leaderboard reads; median {alone:.0} results/s alone, {loaded:.0} under load; alone/loaded by round: {})",
        lists.len(),
        boards.len(),
        by_round.join(", ")
    );
    let n_reads = (lists.len() + boards.len()).max(1) as f64;
    println!(
        "(cpu, steadier than time on a shared machine: alone {:.0} µs of the whole process per result; \
         under load {:.0} µs per read in the arena's runtime and {:.0} µs in the readers', \
         {:.0} µs per result in the writer thread and all SQLite connections)",
        cpu_alone.total_us / n_alone.max(1) as f64,
        cpu_loaded.group_us("bench-arena") / n_reads,
        cpu_loaded.group_us("bench-readers") / n_reads,
        (cpu_loaded.group_us("cairn-arena-wri") + cpu_loaded.group_us("sqlx-sqlite-wor"))
            / n_loaded.max(1) as f64,
    );
    println!("bench: arena/list_matches_p99_ms {:.2} ms", p99_ms(lists));
    println!(
        "bench: arena/leaderboard_p99_ms_under_load {:.2} ms",
        p99_ms(boards)
    );
    println!("bench: arena/ingest_slowdown_under_load {slowdown:.2} x");
    let n_reads_alone = lists_alone.len() + boards_alone.len();
    println!(
        "(with no ingest: {:.2} of {} cores busy, {:.0} µs per read in the arena's runtime and {:.0} µs in the readers')",
        cpu_reads_alone.total_us / reads_took.as_secs_f64() / 1e6,
        std::thread::available_parallelism().map_or(0, usize::from),
        cpu_reads_alone.group_us("bench-arena") / n_reads_alone.max(1) as f64,
        cpu_reads_alone.group_us("bench-readers") / n_reads_alone.max(1) as f64,
    );
    println!(
        "bench: arena/reads_per_s_no_ingest {:.0} reads/s",
        n_reads_alone as f64 / reads_took.as_secs_f64()
    );
    println!(
        "bench: arena/list_matches_p99_ms_no_ingest {:.2} ms",
        p99_ms(lists_alone)
    );
    println!(
        "bench: arena/leaderboard_p99_ms_no_ingest {:.2} ms",
        p99_ms(boards_alone)
    );
    stop_server.send(()).expect("server running");
    server
        .join()
        .expect("server thread")
        .expect("server stops cleanly");
}

fn main() {
    let (write_cores, api_cores) = split_cores().unzip();
    let processes = Processes {
        arena: arena_runtime(api_cores),
        runners: runtime("bench-runners", 1),
        readers: runtime("bench-readers", 2),
    };
    // `cargo bench --bench arena -- hostile`: the hostile-reader phase only.
    if !std::env::args().any(|arg| arg == "hostile") {
        bench(&processes, write_cores);
        postgres::bench(&processes.runners, &processes.readers);
    }
    let options = ServeOptions {
        place_writer: write_cores.map(|cores| Arc::new(move || run_on(&cores)) as Placement),
        ..ServeOptions::default()
    };
    hostile::bench(&processes, options);
}
