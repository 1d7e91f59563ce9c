//! Arena throughput and latency over a real server on 127.0.0.1 with a
//! SQLite file: how fast results are ingested (concurrent runners leasing
//! and reporting matches through gRPC) and how fast leaderboards answer
//! while results keep arriving.
//!
//! Prints `bench: arena/results_per_s`, `bench: arena/leaderboard_p50_ms`
//! and `bench: arena/leaderboard_p99_ms`.

use std::time::{Duration, Instant};

use cairn_arena::service::pb;
use cairn_arena::service::pb::arena_client::ArenaClient;
use cairn_arena::service::pb::runner_service_client::RunnerServiceClient;
use cairn_arena::testkit::{bot_archive, test_game_check, test_replay, test_verifier, TEST_DUEL};
use cairn_arena::Store;
use tokio::net::TcpListener;
use tonic::transport::Channel;
use tonic::Request;

const N_BOTS: usize = 16;
const GAMES_PER_PAIRING: u32 = 4;
const N_RUNNERS: usize = 4;
const N_READERS: usize = 8;
const READS_PER_READER: usize = 250;
const RUNNER_TOKEN: &str = "bench-runner-token-0123456789";

fn authorized<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii token"),
    );
    request
}

/// Plays every waiting match with fixed results; returns the games reported.
async fn runner(channel: Channel, token: String) -> u64 {
    let mut client = RunnerServiceClient::new(channel);
    let mut games = 0;
    loop {
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
        let results = lease
            .games
            .iter()
            .map(|game| pb::GameResult {
                game_index: game.game_index,
                seats: lease
                    .seats
                    .iter()
                    .map(|seat| {
                        let won = seat.bot_version_id == best;
                        pb::SeatResult {
                            bot_version_id: seat.bot_version_id,
                            score: i64::from(won),
                            rank: if won { 1 } else { 2 },
                            forfeit: None,
                        }
                    })
                    .collect(),
                replay: Vec::new(),
                end_reason: pb::EndReason::Finished as i32,
            })
            .collect::<Vec<_>>();
        games += results.len() as u64;
        for (mut result, game) in results.into_iter().zip(&lease.games) {
            let scores: Vec<i64> = result.seats.iter().map(|seat| seat.score).collect();
            result.replay = test_replay(game.seed, &scores);
            let report = pb::ReportGameRequest {
                match_id: lease.match_id,
                lease_generation: lease.lease_generation,
                game: Some(result),
            };
            client
                .report_game(authorized(report, &token))
                .await
                .expect("report");
        }
    }
}

async fn run_runners(channel: &Channel) -> (u64, Duration) {
    let started = Instant::now();
    let tasks: Vec<_> = (0..N_RUNNERS)
        .map(|index| tokio::spawn(runner(channel.clone(), format!("{RUNNER_TOKEN}-{index}"))))
        .collect();
    let mut games = 0;
    for task in tasks {
        games += task.await.expect("runner task");
    }
    (games, started.elapsed())
}

async fn create_tournament(arena: &mut ArenaClient<Channel>, token: &str, seed: u64) {
    let bots = (0..N_BOTS).map(|index| format!("bot-{index:02}")).collect();
    let request = pb::CreateTournamentRequest {
        game: TEST_DUEL.into(),
        options: Default::default(),
        bots,
        seats_per_game: 2,
        games_per_pairing: GAMES_PER_PAIRING,
        seed,
    };
    arena
        .create_tournament(authorized(request, token))
        .await
        .expect("tournament");
}

async fn reader(channel: Channel) -> Vec<Duration> {
    let mut client = ArenaClient::new(channel);
    let mut latencies = Vec::with_capacity(READS_PER_READER);
    for _ in 0..READS_PER_READER {
        let started = Instant::now();
        let board = client
            .get_leaderboard(pb::GetLeaderboardRequest {
                game: TEST_DUEL.into(),
                ..Default::default()
            })
            .await
            .expect("leaderboard");
        latencies.push(started.elapsed());
        assert_eq!(board.into_inner().rows.len(), N_BOTS);
    }
    latencies
}

fn percentile_ms(sorted: &[Duration], percentile: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * percentile).round() as usize;
    sorted[index].as_secs_f64() * 1000.0
}

async fn bench() {
    let folder = tempfile::tempdir().expect("temp folder");
    let store = Store::open(folder.path().join("bench.db"))
        .await
        .expect("store")
        .with_game_check(test_game_check)
        .with_verifier(test_verifier);
    for index in 0..N_RUNNERS {
        store
            .register_runner_with_token(
                &format!("runner-{index}"),
                &format!("{RUNNER_TOKEN}-{index}"),
            )
            .await
            .expect("runner");
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(cairn_arena::run(listener, store, async move {
        let _ = stopped.await;
    }));
    let channel = Channel::from_shared(format!("http://{address}"))
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut arena = ArenaClient::new(channel.clone());
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

    create_tournament(&mut arena, &token, 1).await;
    let (games, elapsed) = run_runners(&channel).await;
    println!(
        "bench: arena/results_per_s {:.0} results/s",
        games as f64 / elapsed.as_secs_f64()
    );

    // Leaderboards under load: readers while runners ingest a second tournament.
    create_tournament(&mut arena, &token, 2).await;
    let writers = tokio::spawn({
        let channel = channel.clone();
        async move { run_runners(&channel).await }
    });
    let readers: Vec<_> = (0..N_READERS)
        .map(|_| tokio::spawn(reader(channel.clone())))
        .collect();
    let mut latencies = Vec::new();
    for task in readers {
        latencies.extend(task.await.expect("reader task"));
    }
    writers.await.expect("writers");
    latencies.sort_unstable();
    println!(
        "bench: arena/leaderboard_p50_ms {:.2} ms",
        percentile_ms(&latencies, 0.50)
    );
    println!(
        "bench: arena/leaderboard_p99_ms {:.2} ms",
        percentile_ms(&latencies, 0.99)
    );

    stop.send(()).expect("server running");
    server
        .await
        .expect("server task")
        .expect("server stops cleanly");
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(bench());
}
