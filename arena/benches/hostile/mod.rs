//! The hostile-reader phase: ingest alone, then ingest while 40 clients
//! ask for uncached deep `ListMatches` pages with their games, 2,000 watch
//! streams are opened and 50 HTTP readers read `/api/*`, in alternating
//! rounds on a fresh arena (SQLite). Every hostile client calls from
//! 127.0.0.1, as a crowd behind one address does; each asks again the
//! moment it is answered, and after a refusal it waits the retry hint (a
//! client that ignored it would spend only its own time on refusals).
//! One polite reader asks for the leaderboard back to back throughout.
//!
//! Prints `bench: arena/ingest_slowdown_hostile_readers` (the median over
//! the rounds of results/s alone divided by results/s under the crowd) and
//! `bench: arena/leaderboard_p99_ms_hostile_readers`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_arena::admission::Admission;
use cairn_arena::service::pb::arena_client::ArenaClient;
use cairn_arena::service::{pb, Listeners, ServeOptions};
use cairn_arena::store::Quotas;
use cairn_arena::testkit::{test_game_check, test_verifier, TEST_DUEL};
use cairn_arena::Store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::caller::{count_field, Caller};
use super::{
    connect, ingest, median, p99_ms, set_up, Processes, BOARD_ROWS, MATCHES_PER_PHASE, N_BOTS,
};

const DEEP_READERS: usize = 40;
const WATCHERS: usize = 2_000;
const HTTP_READERS: usize = 50;
/// Rounds of ingest alone then under the crowd.
const ROUNDS: usize = 3;
/// The wait after a refusal whose hint could not be read.
const DEFAULT_RETRY: Duration = Duration::from_millis(250);

/// What the crowd saw: answers and refusals.
#[derive(Debug, Default)]
struct Tally {
    answered: AtomicU64,
    refused: AtomicU64,
}

impl Tally {
    fn count(&self, answered: bool) {
        let counter = if answered {
            &self.answered
        } else {
            &self.refused
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn read(&self) -> (u64, u64) {
        (
            self.answered.load(Ordering::Relaxed),
            self.refused.load(Ordering::Relaxed),
        )
    }
}

/// Waits while the crowd is paused; false once it is told to stop.
async fn go_on(hostile: &mut watch::Receiver<Option<bool>>) -> bool {
    match hostile.wait_for(|now| *now != Some(false)).await {
        Ok(now) => now.is_some(),
        Err(_) => false,
    }
}

/// Asks for deep pages with their games, each from a page not asked
/// before (so none is kept anywhere), until told to stop.
async fn deep_reader(
    address: SocketAddr,
    tournament_id: i64,
    index: usize,
    mut hostile: watch::Receiver<Option<bool>>,
    tally: Arc<Tally>,
) {
    let mut caller = Caller::connect(address).await;
    let mut after = 1 + index as i64 * 37;
    while go_on(&mut hostile).await {
        after = (after + 97) % 2_300 + 1;
        let asked = pb::ListMatchesRequest {
            tournament_id,
            with_games: true,
            page_size: 100,
            page_token: after.to_string(),
        };
        let answer = caller
            .try_call("/cairn.arena.v1.Arena/ListMatches", &asked)
            .await;
        tally.count(answer.is_some());
        if answer.is_none() {
            tokio::time::sleep(DEFAULT_RETRY).await;
        }
    }
}

/// Keeps one watch stream open (reading what it sends), opening it again
/// after the retry hint when refused, until told to stop.
async fn watcher(
    mut arena: ArenaClient<tonic::transport::Channel>,
    tournament_id: i64,
    mut hostile: watch::Receiver<Option<bool>>,
    tally: Arc<Tally>,
) {
    while go_on(&mut hostile).await {
        let asked = pb::WatchTournamentRequest { tournament_id };
        match arena.watch_tournament(asked).await {
            Ok(stream) => {
                tally.count(true);
                let mut stream = stream.into_inner();
                loop {
                    tokio::select! {
                        next = stream.message() => if !matches!(next, Ok(Some(_))) { break },
                        // Paused or stopped: the stream closes.
                        _ = hostile.wait_for(|now| *now != Some(true)) => break,
                    }
                }
            }
            Err(status) => {
                tally.count(false);
                let hint = status
                    .metadata()
                    .get(cairn_arena::service::RETRY_PUSHBACK)
                    .and_then(|value| value.to_str().ok()?.parse().ok())
                    .map_or(DEFAULT_RETRY, Duration::from_millis);
                tokio::select! {
                    () = tokio::time::sleep(hint) => {}
                    _ = hostile.wait_for(|now| *now != Some(true)) => {}
                }
            }
        }
    }
}

/// Reads `/api/*` over HTTP/1.1, a connection a request, until told to stop.
async fn http_reader(
    address: SocketAddr,
    tournament_id: i64,
    index: usize,
    mut hostile: watch::Receiver<Option<bool>>,
    tally: Arc<Tally>,
) {
    let paths = [
        "/api/leaderboards".to_string(),
        "/api/tournaments".to_string(),
        format!("/api/tournaments/{tournament_id}?page=3"),
        "/api/bots/bot-07".to_string(),
    ];
    let mut turn = index;
    while go_on(&mut hostile).await {
        turn += 1;
        let path = &paths[turn % paths.len()];
        let (status, retry_after) = http_get(address, path).await;
        tally.count(status == 200);
        if status != 200 {
            let wait = retry_after.map_or(DEFAULT_RETRY, Duration::from_secs);
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = hostile.wait_for(|now| *now != Some(true)) => {}
            }
        }
    }
}

/// One GET: the status and the `Retry-After` seconds, if any.
async fn http_get(address: SocketAddr, path: &str) -> (u16, Option<u64>) {
    let mut tcp = TcpStream::connect(address).await.expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    tcp.read_to_end(&mut raw).await.expect("read");
    let head = String::from_utf8_lossy(&raw[..raw.len().min(1024)]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let retry_after = head
        .lines()
        .find_map(|line| line.strip_prefix("retry-after: "))
        .and_then(|value| value.trim().parse().ok());
    (status, retry_after)
}

/// The polite reader: the leaderboard back to back, timed while the crowd
/// is at it.
async fn board_prober(
    address: SocketAddr,
    mut hostile: watch::Receiver<Option<bool>>,
) -> Vec<Duration> {
    let mut caller = Caller::connect(address).await;
    let mut latencies = Vec::new();
    while go_on(&mut hostile).await {
        let asked = pb::GetLeaderboardRequest {
            game: TEST_DUEL.into(),
            ..Default::default()
        };
        let started = Instant::now();
        let board = caller
            .call("/cairn.arena.v1.Arena/GetLeaderboard", &asked)
            .await;
        assert_eq!(count_field(&board, BOARD_ROWS), N_BOTS);
        if *hostile.borrow() == Some(true) {
            latencies.push(started.elapsed());
        }
    }
    latencies
}

/// The arena, its web pages and the tournament: the addresses (public,
/// runners', web), the tournament and what stops them.
struct Served {
    public: SocketAddr,
    runners: SocketAddr,
    web: SocketAddr,
    tournament_id: i64,
    stop: tokio::sync::watch::Sender<bool>,
    server: std::thread::JoinHandle<Result<(), cairn_arena::ArenaError>>,
    _folder: tempfile::TempDir,
}

fn serve(processes: &Processes, options: ServeOptions) -> Served {
    let folder = tempfile::tempdir().expect("temp folder");
    let store_options = cairn_arena::store::StoreOptions {
        game_check: test_game_check,
        verifier: test_verifier,
        quotas: Quotas {
            bots: N_BOTS as i64,
            ..Quotas::default()
        },
        ..Default::default()
    };
    let (store, listeners) = processes.arena.block_on(async {
        let store = Store::open(folder.path().join("hostile.db"), store_options)
            .await
            .expect("store");
        let bind = || async { TcpListener::bind("127.0.0.1:0").await.expect("bind") };
        (store, [bind().await, bind().await, bind().await])
    });
    let [public, runners, web] = listeners;
    let addresses =
        [&public, &runners, &web].map(|listener| listener.local_addr().expect("address"));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let admission: Admission = options.admission.clone();
    let mut web_stopped = stopped.clone();
    processes.arena.spawn(cairn_arena::web::serve(
        web,
        store.clone(),
        admission,
        async move {
            let _ = web_stopped.wait_for(|stop| *stop).await;
        },
    ));
    let mut arena_stopped = stopped;
    let serving = cairn_arena::run(
        Listeners {
            public,
            runners: Some(runners),
        },
        store.clone(),
        options,
        async move {
            let _ = arena_stopped.wait_for(|stop| *stop).await;
        },
    );
    let arena = processes.arena.handle().clone();
    let server = std::thread::spawn(move || arena.block_on(serving));
    let tournament_id = processes.runners.block_on(set_up(store, addresses[0]));
    Served {
        public: addresses[0],
        runners: addresses[1],
        web: addresses[2],
        tournament_id,
        stop,
        server,
        _folder: folder,
    }
}

pub(crate) fn bench(processes: &Processes, options: ServeOptions) {
    let served = serve(processes, options);
    // Some matches recorded first, so deep pages carry games.
    processes
        .runners
        .block_on(ingest(served.runners, MATCHES_PER_PHASE));
    let (hostile, crowd_state) = watch::channel(Some(false));
    let tallies = [(); 3].map(|()| Arc::new(Tally::default()));
    let mut crowd = Vec::new();
    for index in 0..DEEP_READERS {
        crowd.push(processes.readers.spawn(deep_reader(
            served.public,
            served.tournament_id,
            index,
            crowd_state.clone(),
            tallies[0].clone(),
        )));
    }
    let channels: Vec<_> = (0..WATCHERS.div_ceil(100))
        .map(|_| processes.readers.block_on(connect(served.public)))
        .collect();
    for index in 0..WATCHERS {
        crowd.push(processes.readers.spawn(watcher(
            ArenaClient::new(channels[index % channels.len()].clone()),
            served.tournament_id,
            crowd_state.clone(),
            tallies[1].clone(),
        )));
    }
    for index in 0..HTTP_READERS {
        crowd.push(processes.readers.spawn(http_reader(
            served.web,
            served.tournament_id,
            index,
            crowd_state.clone(),
            tallies[2].clone(),
        )));
    }
    let prober = processes
        .readers
        .spawn(board_prober(served.public, crowd_state.clone()));
    let mut rounds = Vec::new();
    for _ in 0..ROUNDS {
        hostile.send_replace(Some(false));
        let (_, alone) = processes
            .runners
            .block_on(ingest(served.runners, MATCHES_PER_PHASE));
        hostile.send_replace(Some(true));
        let (_, loaded) = processes
            .runners
            .block_on(ingest(served.runners, MATCHES_PER_PHASE));
        rounds.push((alone, loaded));
    }
    hostile.send_replace(None);
    for task in crowd {
        processes.readers.block_on(task).expect("a hostile reader");
    }
    let boards = processes.readers.block_on(prober).expect("the prober");
    let slowdown = median(rounds.iter().map(|(alone, loaded)| alone / loaded));
    let by_round: Vec<String> = rounds
        .iter()
        .map(|(alone, loaded)| format!("{alone:.0}/{loaded:.0}"))
        .collect();
    let [deep, watches, http] = tallies.map(|tally| tally.read());
    println!(
        "(hostile readers: results/s alone/under the crowd by round: {}; answered/refused: \
         deep pages {}/{}, watch streams {}/{}, HTTP {}/{}; {} leaderboard probes)",
        by_round.join(", "),
        deep.0,
        deep.1,
        watches.0,
        watches.1,
        http.0,
        http.1,
        boards.len()
    );
    println!("bench: arena/ingest_slowdown_hostile_readers {slowdown:.2} x");
    println!(
        "bench: arena/leaderboard_p99_ms_hostile_readers {:.2} ms",
        p99_ms(boards)
    );
    served.stop.send_replace(true);
    served
        .server
        .join()
        .expect("server thread")
        .expect("server stops cleanly");
}
