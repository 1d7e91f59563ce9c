//! The PostgreSQL figures of the arena benchmark, on a throwaway server
//! ([`Postgres`]) and the same tournament, runners and readers as the
//! SQLite figures:
//!
//! - `arena/results_per_s_postgres`: one arena server, the runners alone;
//! - `arena/leaderboard_p99_ms_postgres`: the same, under the readers' load;
//! - `arena/results_per_s_postgres_2_arenas`: two arena servers on the one
//!   database (each its own store, pool and caches, on its own runtime, as
//!   two processes would be), each with its runners; beside it, for the
//!   same offered load, as many runners on one arena server;
//! - `arena/postgres_2_arenas_speedup`: two arena servers over one, with
//!   the same runners.
//!
//! Without a PostgreSQL server these figures are skipped, loudly.

use std::net::SocketAddr;
use std::time::Instant;

use cairn_arena::store::Quotas;
use cairn_arena::testkit::postgres::Postgres;
use cairn_arena::testkit::{test_game_check, test_verifier};
use cairn_arena::Store;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

use super::{
    ingest_over, p99_ms, reader, set_up, CpuTimes, N_BOTS, N_READERS, N_RUNNERS, RUNNER_TOKEN,
    STOP, UNDER_INGEST,
};

/// Matches each runner reports per measurement (the tournament has 2,450:
/// 4 measurements of 600).
const MATCHES_PER_MEASUREMENT: usize = 600;

/// An arena server on its own runtime, as in its own process.
struct ArenaServer {
    runtime: Runtime,
    store: Store,
    address: SocketAddr,
    stop: oneshot::Sender<()>,
    served: tokio::task::JoinHandle<Result<(), cairn_arena::ArenaError>>,
}

impl ArenaServer {
    fn start(url: &str) -> ArenaServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("arena-pg")
            .enable_all()
            .build()
            .expect("runtime");
        let quotas = Quotas {
            bots: N_BOTS as i64,
            ..Quotas::default()
        };
        let (store, listener) = runtime.block_on(async {
            let location = cairn_arena::store::Location::parse(url).expect("a PostgreSQL URL");
            let store = Store::open(
                location,
                cairn_arena::store::StoreOptions {
                    game_check: test_game_check,
                    verifier: test_verifier,
                    quotas,
                    ..Default::default()
                },
            )
            .await
            .expect("the store opens on PostgreSQL");
            (store, TcpListener::bind("127.0.0.1:0").await.expect("bind"))
        });
        let address = listener.local_addr().expect("address");
        let (stop, stopped) = oneshot::channel::<()>();
        let served = runtime.spawn(cairn_arena::run(
            listener,
            store.clone(),
            Default::default(),
            async move {
                let _ = stopped.await;
            },
        ));
        ArenaServer {
            runtime,
            store,
            address,
            stop,
            served,
        }
    }

    fn stop(self) {
        let _ = self.stop.send(());
        self.runtime
            .block_on(self.served)
            .expect("server task")
            .expect("server stops cleanly");
    }
}

/// Where the CPU of one measurement went, per result: the arena servers
/// (their runtimes and writer threads), the runners, and the PostgreSQL
/// server's processes; steadier than results per second on a shared
/// machine, and what says whether a figure is bound by CPU or by waiting.
struct CpuPerResult {
    arena_us: f64,
    runners_us: f64,
    postgres_us: f64,
    wall_us: f64,
}

impl std::fmt::Display for CpuPerResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let busy = self.arena_us + self.runners_us + self.postgres_us;
        write!(
            f,
            "arena {:.0} µs, runners {:.0} µs, postgres {:.0} µs of cpu per result \
             ({:.2} of {:.0} µs wall per result busy)",
            self.arena_us,
            self.runners_us,
            self.postgres_us,
            busy / self.wall_us.max(1.0),
            self.wall_us,
        )
    }
}

/// Runs `ingest` (which returns the results recorded), measuring its CPU
/// per result.
fn measured(postgres: &Postgres, ingest: impl FnOnce() -> (u64, f64)) -> (f64, CpuPerResult) {
    let (process, server, started) = (CpuTimes::now(), postgres.cpu_us(), Instant::now());
    let (results, rate) = ingest();
    let wall_us = started.elapsed().as_secs_f64() * 1e6;
    let (process, server) = (CpuTimes::now().since(&process), postgres.cpu_us() - server);
    let per = |us: f64| us / results.max(1) as f64;
    let cpu = CpuPerResult {
        arena_us: per(process.group_us("arena-pg") + process.group_us("cairn-arena-wri")),
        runners_us: per(process.group_us("bench-runners")),
        postgres_us: per(server),
        wall_us: per(wall_us),
    };
    (rate, cpu)
}
/// Prints the PostgreSQL figures, or says loudly why they are skipped.
pub(crate) fn bench(runners: &Runtime, readers: &Runtime) {
    let Some(server) = Postgres::start_or_skip("the arena benchmark") else {
        println!(
            "SKIPPED bench: arena/results_per_s_postgres, arena/results_per_s_postgres_2_arenas, \
             arena/leaderboard_p99_ms_postgres (no PostgreSQL server could be started)"
        );
        return;
    };
    let url = server.fresh_database().expect("a fresh database");
    let first = ArenaServer::start(&url);
    let tournament_id = runners.block_on(set_up(first.store.clone(), first.address));
    let n_runners = 2 * N_RUNNERS;
    runners.block_on(async {
        for index in N_RUNNERS..n_runners {
            first
                .store
                .register_runner_with_token(
                    &format!("runner-{index}"),
                    &format!("{RUNNER_TOKEN}-{index}"),
                )
                .await
                .expect("runner");
        }
    });
    let per_runner = MATCHES_PER_MEASUREMENT / N_RUNNERS;
    let (alone, cpu_alone) = measured(&server, || {
        runners.block_on(ingest_over(&[first.address], N_RUNNERS, per_runner))
    });
    println!("(one arena server, {N_RUNNERS} runners: {cpu_alone})");
    println!("bench: arena/results_per_s_postgres {alone:.0} results/s");

    let (phase, reading) = tokio::sync::watch::channel(UNDER_INGEST);
    let reading: Vec<_> = (0..N_READERS)
        .map(|index| {
            readers.spawn(reader(
                first.address,
                tournament_id,
                index % 2 == 0,
                reading.clone(),
            ))
        })
        .collect();
    let loaded = runners
        .block_on(ingest_over(&[first.address], N_RUNNERS, per_runner))
        .1;
    phase.send_replace(STOP);
    let mut boards = Vec::new();
    for (index, task) in reading.into_iter().enumerate() {
        let [under_ingest, _] = readers.block_on(task).expect("reader task");
        if index % 2 == 0 {
            boards.extend(under_ingest);
        }
    }
    println!(
        "({} leaderboard reads on PostgreSQL; {loaded:.0} results/s under load)",
        boards.len()
    );
    println!(
        "bench: arena/leaderboard_p99_ms_postgres {:.2} ms",
        p99_ms(boards)
    );

    let per_runner = MATCHES_PER_MEASUREMENT / n_runners;
    let (one_arena, cpu_one) = measured(&server, || {
        runners.block_on(ingest_over(&[first.address], n_runners, per_runner))
    });
    let second = ArenaServer::start(&url);
    let both = [first.address, second.address];
    let (two_arenas, cpu_two) = measured(&server, || {
        runners.block_on(ingest_over(&both, n_runners, per_runner))
    });
    println!(
        "({n_runners} runners: {one_arena:.0} results/s on one arena server, {cpu_one}; \
         {two_arenas:.0} on two, {cpu_two})"
    );
    println!("bench: arena/results_per_s_postgres_2_arenas {two_arenas:.0} results/s");
    // The same runners and the same offered load on one arena server and
    // on two: the speedup is what the second process adds, nothing else.
    println!(
        "bench: arena/postgres_2_arenas_speedup {:.2} x",
        two_arenas / one_arena
    );
    second.stop();
    first.stop();
}
