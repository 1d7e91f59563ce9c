//! The PostgreSQL figures of the arena benchmark, on a throwaway server
//! ([`Postgres`]) and the same tournament, runners and readers as the
//! SQLite figures:
//!
//! - `arena/results_per_s_postgres`: one arena server, the runners alone;
//! - `arena/leaderboard_p99_ms_postgres`: the same, under the readers' load;
//! - `arena/results_per_s_postgres_2_arenas`: two arena servers on the one
//!   database (each its own store, pool and caches, on its own runtime, as
//!   two processes would be), each with its runners; beside it, for the
//!   same offered load, as many runners on one arena server.
//!
//! Without a PostgreSQL server these figures are skipped, loudly.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use cairn_arena::store::Quotas;
use cairn_arena::testkit::postgres::Postgres;
use cairn_arena::testkit::{test_game_check, test_verifier};
use cairn_arena::Store;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

use super::{ingest_over, p99_ms, reader, set_up, N_BOTS, N_READERS, N_RUNNERS, RUNNER_TOKEN};

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
            let store = Store::connect(url)
                .await
                .expect("the store opens on PostgreSQL")
                .with_game_check(test_game_check)
                .with_verifier(test_verifier)
                .with_quotas(quotas);
            (store, TcpListener::bind("127.0.0.1:0").await.expect("bind"))
        });
        let address = listener.local_addr().expect("address");
        let (stop, stopped) = oneshot::channel::<()>();
        let served = runtime.spawn(cairn_arena::run(listener, store.clone(), async move {
            let _ = stopped.await;
        }));
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
    let alone = runners
        .block_on(ingest_over(&[first.address], N_RUNNERS, per_runner))
        .1;
    println!("bench: arena/results_per_s_postgres {alone:.0} results/s");

    let stop = Arc::new(AtomicBool::new(false));
    let reading: Vec<_> = (0..N_READERS)
        .map(|index| {
            readers.spawn(reader(
                first.address,
                tournament_id,
                index % 2 == 0,
                Arc::clone(&stop),
            ))
        })
        .collect();
    let loaded = runners
        .block_on(ingest_over(&[first.address], N_RUNNERS, per_runner))
        .1;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut boards = Vec::new();
    for (index, task) in reading.into_iter().enumerate() {
        let latencies = readers.block_on(task).expect("reader task");
        if index % 2 == 0 {
            boards.extend(latencies);
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
    let one_arena = runners
        .block_on(ingest_over(&[first.address], n_runners, per_runner))
        .1;
    let second = ArenaServer::start(&url);
    let both = [first.address, second.address];
    let two_arenas = runners
        .block_on(ingest_over(&both, n_runners, per_runner))
        .1;
    println!(
        "({n_runners} runners: {one_arena:.0} results/s on one arena server, \
         {two_arenas:.0} on two)"
    );
    println!("bench: arena/results_per_s_postgres_2_arenas {two_arenas:.0} results/s");
    println!(
        "bench: arena/postgres_2_arenas_speedup {:.2} x",
        two_arenas / alone
    );
    second.stop();
    first.stop();
}
