//! The service over a real server on 127.0.0.1:0 and a temporary SQLite
//! file, called through the generated clients.

use std::collections::BTreeSet;
use std::sync::Arc;

use cairn_runner::placement;
use prost::Message;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Request};

use super::pb::arena_client::ArenaClient;
use super::pb::runner_service_client::RunnerServiceClient;
use super::*;
use crate::deal::DealSecret;
use crate::store::{ManualClock, Store};
use crate::testkit::{bot_archive, tar_gz, test_game_check, test_replay, test_verifier, TEST_DUEL};

const RUNNER_TOKEN: &str = "runner-token-for-tests-0123456789";

/// A running arena: its address, a handle on its clock, and what stops it.
struct TestApp {
    channel: Channel,
    clock: ManualClock,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<Result<(), ArenaError>>>,
    _folder: tempfile::TempDir,
}

impl TestApp {
    fn arena(&self) -> ArenaClient<Channel> {
        ArenaClient::new(self.channel.clone())
    }

    fn runners(&self) -> RunnerServiceClient<Channel> {
        RunnerServiceClient::new(self.channel.clone())
    }

    async fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            shutdown.send(()).expect("the server is running");
        }
        if let Some(server) = self.server.take() {
            server
                .await
                .expect("the server task ends")
                .expect("the server stops cleanly");
        }
    }
}

/// The deal secret of [`spawn_app`]'s arena, so tests know the deals.
const DEAL_SECRET: DealSecret = DealSecret::from_bytes([9; 32]);

/// Starts an arena on a free loopback port with its own database file and
/// two runners (`box-1`, `box-2`) registered.
async fn spawn_app() -> TestApp {
    spawn_app_with(ServeOptions::default()).await
}

/// [`spawn_app`], its threads placed as `options` say.
async fn spawn_app_with(options: ServeOptions) -> TestApp {
    let folder = tempfile::tempdir().unwrap();
    let clock = ManualClock::starting_at(1_000_000);
    let store = Store::open(
        folder.path().join("arena.db"),
        crate::store::StoreOptions {
            clock: Arc::new(clock.clone()),
            game_check: test_game_check,
            verifier: test_verifier,
            deal_secret: Some(DEAL_SECRET),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    store
        .register_runner_with_token("box-1", RUNNER_TOKEN)
        .await
        .unwrap();
    store
        .register_runner_with_token("box-2", &format!("{RUNNER_TOKEN}-2"))
        .await
        .unwrap();
    let (channel, shutdown, server) = serve_on_loopback(store, options).await;
    TestApp {
        channel,
        clock,
        shutdown: Some(shutdown),
        server: Some(server),
        _folder: folder,
    }
}

/// Serves `store` on a free loopback port and connects to it; the sender
/// stops the server.
async fn serve_on_loopback(
    store: Store,
    options: ServeOptions,
) -> (
    Channel,
    oneshot::Sender<()>,
    JoinHandle<Result<(), ArenaError>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (shutdown, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(run(listener, store, options, async move {
        let _ = stopped.await;
    }));
    let channel = Channel::from_shared(format!("http://{address}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    (channel, shutdown, server)
}

fn authorized<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    request
}

async fn register(app: &TestApp, name: &str) -> String {
    app.arena()
        .register_owner(pb::RegisterOwnerRequest { name: name.into() })
        .await
        .unwrap()
        .into_inner()
        .token
}

async fn submit(
    app: &TestApp,
    token: &str,
    archive: Vec<u8>,
) -> Result<pb::SubmitBotVersionResponse, Status> {
    app.arena()
        .submit_bot_version(authorized(pb::SubmitBotVersionRequest { archive }, token))
        .await
        .map(|response| response.into_inner())
}

fn duel(bots: &[&str], games_per_pairing: u32) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        game: TEST_DUEL.into(),
        options: Default::default(),
        bots: bots.iter().map(|bot| bot.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing,
        seed: 11,
        ..Default::default()
    }
}

async fn bot_count(app: &TestApp) -> usize {
    app.arena()
        .list_bots(pb::ListBotsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .bots
        .len()
}

/// The niceness of thread `tid` of this process, from `/proc`.
fn nice_of(tid: &str) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    // After the name in parentheses: state is field 3, niceness field 19.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(16)?.parse().ok()
}

/// How many threads of this process named `name` run at niceness `nice`.
fn threads_at(name: &str, nice: i32) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim() == name)
        })
        .filter(|task| nice_of(&task.file_name().to_string_lossy()) == Some(nice))
        .count()
}

#[tokio::test]
async fn the_write_paths_sqlite_threads_start_from_the_placed_writer_thread() {
    let base = placement::thread_nice().unwrap();
    assert!(
        base <= 16,
        "the test runs at niceness {base}: too low to lower its writer by 3"
    );
    let lowered = base + 3;
    let place: Placement = Arc::new(move || {
        placement::set_thread_nice(lowered).expect("the writer thread is lowered");
    });
    let app = spawn_app_with(ServeOptions {
        place_writer: Some(place),
        ..ServeOptions::default()
    })
    .await;
    // The server serves once the write path is open again, so any answer
    // means the write connection and the runners' read connection were
    // opened from the writer thread (no other test lowers a thread by 3).
    // A health check, which touches no database: no other connection is
    // opened from the writer thread meanwhile.
    tonic_health::pb::health_client::HealthClient::new(app.channel.clone())
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .unwrap();
    assert_eq!(threads_at("cairn-arena-wri", lowered), 1);
    assert_eq!(threads_at("sqlx-sqlite-wor", lowered), 2);
    app.stop().await;
}

#[tokio::test]
async fn health_reports_both_services_serving() {
    let app = spawn_app().await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(app.channel.clone());
    for service in ["cairn.arena.v1.Arena", "cairn.arena.v1.RunnerService"] {
        let answer = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            answer.status(),
            tonic_health::pb::health_check_response::ServingStatus::Serving,
            "{service}"
        );
    }
    app.stop().await;
}

const EVERY_SERVICE: [&str; 5] = [
    "cairn.arena.v1.Arena",
    "cairn.arena.v1.RunnerService",
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
];

/// Both reflection versions answer the same question with their own types.
macro_rules! reflection_lists_every_service {
    ($test:ident, $version:ident) => {
        #[tokio::test]
        async fn $test() {
            use tonic_reflection::pb::$version::server_reflection_client::ServerReflectionClient;
            use tonic_reflection::pb::$version::server_reflection_request::MessageRequest;
            use tonic_reflection::pb::$version::server_reflection_response::MessageResponse;
            use tonic_reflection::pb::$version::ServerReflectionRequest;
            let app = spawn_app().await;
            let request = ServerReflectionRequest {
                host: String::new(),
                message_request: Some(MessageRequest::ListServices(String::new())),
            };
            let mut answers = ServerReflectionClient::new(app.channel.clone())
                .server_reflection_info(tokio_stream::iter([request]))
                .await
                .unwrap()
                .into_inner();
            let Some(MessageResponse::ListServicesResponse(list)) =
                answers.next().await.unwrap().unwrap().message_response
            else {
                panic!("reflection answered something other than a service list");
            };
            let names: BTreeSet<String> = list
                .service
                .into_iter()
                .map(|service| service.name)
                .collect();
            assert_eq!(
                names,
                EVERY_SERVICE.iter().map(|name| name.to_string()).collect()
            );
            app.stop().await;
        }
    };
}

reflection_lists_every_service!(reflection_v1_lists_every_service, v1);
reflection_lists_every_service!(reflection_v1alpha_lists_every_service, v1alpha);

#[tokio::test]
async fn an_owner_submits_lists_and_shows_bots() {
    let app = spawn_app().await;
    let token = register(&app, "ada").await;
    let first = submit(&app, &token, bot_archive("greedy", 1))
        .await
        .unwrap();
    assert!(first.created);
    let version = first.version.unwrap();
    assert_eq!(
        (
            version.bot_name.as_str(),
            version.version,
            version.owner.as_str()
        ),
        ("greedy", 1, "ada")
    );
    assert_eq!(version.manifest.unwrap().command, ["python3", "bot.py"]);
    assert!(
        !submit(&app, &token, bot_archive("greedy", 1))
            .await
            .unwrap()
            .created
    );
    submit(&app, &token, bot_archive("greedy", 2))
        .await
        .unwrap();
    let shown = app
        .arena()
        .show_bot(pb::ShowBotRequest {
            name: "greedy".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (shown.bot.unwrap().latest_version, shown.versions.len()),
        (2, 2)
    );
    let missing = app
        .arena()
        .show_bot(pb::ShowBotRequest {
            name: "nobody".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
    app.stop().await;
}

#[tokio::test]
async fn tokens_are_required_and_a_stranger_cannot_touch_anothers_bot() {
    let app = spawn_app().await;
    let owner = register(&app, "ada").await;
    let stranger = register(&app, "mallory").await;
    submit(&app, &owner, bot_archive("greedy", 1))
        .await
        .unwrap();
    let anonymous = app
        .arena()
        .submit_bot_version(pb::SubmitBotVersionRequest {
            archive: bot_archive("x", 1),
        })
        .await
        .unwrap_err();
    assert_eq!(anonymous.code(), Code::Unauthenticated);
    assert_eq!(
        submit(&app, "not-a-token", bot_archive("x", 1))
            .await
            .unwrap_err()
            .code(),
        Code::Unauthenticated
    );
    let overwrite = submit(&app, &stranger, bot_archive("greedy", 9))
        .await
        .unwrap_err();
    assert_eq!(overwrite.code(), Code::PermissionDenied, "{overwrite:?}");
    let delete = app
        .arena()
        .delete_bot(authorized(
            pb::DeleteBotRequest {
                name: "greedy".into(),
            },
            &stranger,
        ))
        .await
        .unwrap_err();
    assert_eq!(delete.code(), Code::PermissionDenied);
    let shown = app
        .arena()
        .show_bot(pb::ShowBotRequest {
            name: "greedy".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (shown.versions.len(), shown.bot.unwrap().deleted),
        (1, false),
        "the refused calls changed nothing"
    );
    app.arena()
        .delete_bot(authorized(
            pb::DeleteBotRequest {
                name: "greedy".into(),
            },
            &owner,
        ))
        .await
        .unwrap();
    let runner_with_owner_token = app
        .runners()
        .lease_match(authorized(pb::LeaseMatchRequest { lease_ms: 0 }, &owner))
        .await
        .unwrap_err();
    assert_eq!(runner_with_owner_token.code(), Code::Unauthenticated);
    // A report is checked for its token before anything else: without a
    // runner's token, a report with no game and one of a match that does
    // not exist hear the same; with one, what is wrong with them.
    let no_game = pb::ReportGameRequest {
        match_id: 1,
        lease_generation: 1,
        game: None,
    };
    let no_match = pb::ReportGameRequest {
        match_id: -1,
        game: Some(pb::GameResult {
            end_reason: pb::EndReason::Finished as i32,
            ..Default::default()
        }),
        ..no_game.clone()
    };
    for (token, expected) in [
        (
            owner.as_str(),
            [Code::Unauthenticated, Code::Unauthenticated],
        ),
        (RUNNER_TOKEN, [Code::InvalidArgument, Code::NotFound]),
    ] {
        for (request, code) in [no_game.clone(), no_match.clone()]
            .into_iter()
            .zip(expected)
        {
            let refused = app
                .runners()
                .report_game(authorized(request, token))
                .await
                .unwrap_err();
            assert_eq!(refused.code(), code, "{token}: {refused:?}");
        }
    }
    app.stop().await;
}

#[tokio::test]
async fn bad_archives_are_refused_with_a_clear_status_and_change_nothing() {
    let app = spawn_app().await;
    let token = register(&app, "ada").await;
    let oversized = vec![0_u8; crate::archive::MAX_ARCHIVE_BYTES + 1];
    let refused = submit(&app, &token, oversized).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    let corrupt = submit(&app, &token, b"not a tarball".to_vec())
        .await
        .unwrap_err();
    assert_eq!(corrupt.code(), Code::InvalidArgument);
    assert!(
        corrupt.message().contains("tar.gz"),
        "{}",
        corrupt.message()
    );
    let no_manifest = submit(&app, &token, tar_gz(&[("bot.py", b"print(1)")]))
        .await
        .unwrap_err();
    assert_eq!(no_manifest.code(), Code::InvalidArgument);
    assert!(
        no_manifest.message().contains("cairn-bot.toml"),
        "{}",
        no_manifest.message()
    );
    let escaping = submit(
        &app,
        &token,
        tar_gz(&[
            ("cairn-bot.toml", b"name = \"x\"\ncommand = [\"a\"]\n"),
            ("../x", b""),
        ]),
    )
    .await
    .unwrap_err();
    assert_eq!(escaping.code(), Code::InvalidArgument);
    assert_eq!(bot_count(&app).await, 0);
    app.stop().await;
}

#[tokio::test]
async fn bad_tournaments_and_unknown_ids_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let token = register(&app, "ada").await;
    for bot in ["a", "b"] {
        submit(&app, &token, bot_archive(bot, 1)).await.unwrap();
    }
    let mut unknown_game = duel(&["a", "b"], 2);
    unknown_game.game = "chess".into();
    let refused = app
        .arena()
        .create_tournament(authorized(unknown_game, &token))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("unknown game `chess`"),
        "{}",
        refused.message()
    );
    let odd_games = app
        .arena()
        .create_tournament(authorized(duel(&["a", "b"], 3), &token))
        .await
        .unwrap_err();
    assert_eq!(odd_games.code(), Code::InvalidArgument);
    let unknown_bot = app
        .arena()
        .create_tournament(authorized(duel(&["a", "ghost"], 2), &token))
        .await
        .unwrap_err();
    assert_eq!(unknown_bot.code(), Code::NotFound);
    let tournaments = app
        .arena()
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .tournaments;
    assert!(tournaments.is_empty());
    let status = app
        .arena()
        .get_tournament(pb::GetTournamentRequest { tournament_id: 42 })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    let watch = app
        .arena()
        .watch_tournament(pb::WatchTournamentRequest { tournament_id: -1 })
        .await
        .unwrap_err();
    assert_eq!(watch.code(), Code::NotFound);
    assert_eq!(
        app.arena()
            .get_replay(pb::GetReplayRequest { game_id: 7 })
            .await
            .unwrap_err()
            .code(),
        Code::NotFound
    );
    let board = pb::GetLeaderboardRequest {
        game: "chess".into(),
        ..Default::default()
    };
    assert_eq!(
        app.arena().get_leaderboard(board).await.unwrap_err().code(),
        Code::InvalidArgument
    );
    let model = pb::GetLeaderboardRequest {
        game: TEST_DUEL.into(),
        model: "trueskill".into(),
        ..Default::default()
    };
    assert_eq!(
        app.arena().get_leaderboard(model).await.unwrap_err().code(),
        Code::InvalidArgument
    );
    app.stop().await;
}

#[tokio::test]
async fn an_expired_lease_goes_back_to_the_queue_and_the_late_report_is_refused() {
    let app = spawn_app().await;
    start(&app, &["a", "b"], duel(&["a", "b"], 2)).await;
    let slow_token = RUNNER_TOKEN.to_string();
    let fast_token = format!("{RUNNER_TOKEN}-2");
    let first = app
        .runners()
        .lease_match(authorized(
            pb::LeaseMatchRequest { lease_ms: 1_000 },
            &slow_token,
        ))
        .await
        .unwrap()
        .into_inner()
        .lease
        .unwrap();
    app.clock.advance_ms(1_001);
    let heartbeat = pb::HeartbeatRequest {
        match_id: first.match_id,
        lease_generation: first.lease_generation,
        lease_ms: 1_000,
    };
    assert_eq!(
        app.runners()
            .heartbeat(authorized(heartbeat, &slow_token))
            .await
            .unwrap_err()
            .code(),
        Code::FailedPrecondition
    );
    let retaken = app
        .runners()
        .lease_match(authorized(
            pb::LeaseMatchRequest { lease_ms: 0 },
            &fast_token,
        ))
        .await
        .unwrap()
        .into_inner()
        .lease
        .unwrap();
    assert_eq!(
        (retaken.match_id, retaken.lease_generation),
        (first.match_id, first.lease_generation + 1)
    );
    let late = report_match(&app, &slow_token, report_first_seat_wins(&first))
        .await
        .unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition, "{late:?}");
    let on_time = report_match(&app, &fast_token, report_first_seat_wins(&retaken))
        .await
        .unwrap()
        .into_inner();
    let repeated = report_match(&app, &fast_token, report_first_seat_wins(&retaken))
        .await
        .unwrap()
        .into_inner();
    assert!(!on_time.already_recorded && repeated.already_recorded);
    app.stop().await;
}

/// A whole match's report, sent one game at a time.
struct MatchReport {
    match_id: i64,
    lease_generation: i64,
    games: Vec<pb::GameResult>,
}

/// Reports every game of `report`; the last answer, or the first refusal.
async fn report_match(
    app: &TestApp,
    token: &str,
    report: MatchReport,
) -> Result<tonic::Response<pb::ReportGameResponse>, tonic::Status> {
    let mut answer = Err(tonic::Status::invalid_argument("no games"));
    for game in report.games {
        let request = pb::ReportGameRequest {
            match_id: report.match_id,
            lease_generation: report.lease_generation,
            game: Some(game),
        };
        answer = Ok(app
            .runners()
            .report_game(authorized(request, token))
            .await?);
    }
    answer
}

/// A report where seat 0 wins every game.
fn report_first_seat_wins(lease: &pb::MatchLease) -> MatchReport {
    let seats = |winner: i64| -> Vec<pb::SeatResult> {
        lease
            .seats
            .iter()
            .map(|seat| {
                let won = seat.bot_version_id == winner;
                pb::SeatResult {
                    bot_version_id: seat.bot_version_id,
                    score: i64::from(won),
                    rank: if won { 1 } else { 2 },
                    forfeit: None,
                    stderr_tail: Vec::new(),
                }
            })
            .collect()
    };
    let winner = lease.seats[0].bot_version_id;
    let games = lease
        .games
        .iter()
        .map(|game| {
            let seats = seats(winner);
            let scores: Vec<i64> = seats.iter().map(|seat| seat.score).collect();
            pb::GameResult {
                game_index: game.game_index,
                seats,
                replay: test_replay(game.seed, &scores),
                end_reason: pb::EndReason::Finished as i32,
            }
        })
        .collect();
    MatchReport {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        games,
    }
}

/// A report where the bot with the highest version id wins, the strongest
/// registered last; seat 1 forfeits the second game when it loses it.
fn report_latest_bot_wins(lease: &pb::MatchLease) -> MatchReport {
    let best = lease
        .seats
        .iter()
        .map(|seat| seat.bot_version_id)
        .max()
        .unwrap();
    let games = lease
        .games
        .iter()
        .map(|game| {
            let seats = lease
                .seats
                .iter()
                .enumerate()
                .map(|(seat_index, seat)| {
                    let won = seat.bot_version_id == best;
                    let forfeit =
                        (!won && seat_index == 1 && game.game_index == 1).then(|| pb::Forfeit {
                            reason: pb::ForfeitReason::Timeout as i32,
                            detail: "3 s".into(),
                        });
                    pb::SeatResult {
                        bot_version_id: seat.bot_version_id,
                        score: if won { 2 } else { 0 },
                        rank: if won { 1 } else { 2 },
                        forfeit,
                        stderr_tail: Vec::new(),
                    }
                })
                .collect::<Vec<pb::SeatResult>>();
            let scores: Vec<i64> = seats.iter().map(|seat| seat.score).collect();
            pb::GameResult {
                game_index: game.game_index,
                seats,
                replay: test_replay(game.seed, &scores),
                end_reason: pb::EndReason::Finished as i32,
            }
        })
        .collect();
    MatchReport {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        games,
    }
}

async fn fetch_artifact(app: &TestApp, content_hash: &str) -> Vec<u8> {
    let request = authorized(
        pb::FetchArtifactRequest {
            content_hash: content_hash.into(),
        },
        RUNNER_TOKEN,
    );
    let mut chunks = app
        .runners()
        .fetch_artifact(request)
        .await
        .unwrap()
        .into_inner();
    let mut data = Vec::new();
    while let Some(chunk) = chunks.next().await {
        data.extend(chunk.unwrap().data);
    }
    data
}

/// Leases and reports every waiting match as runner `box-1`.
/// The first page of the test duel's leaderboard.
async fn duel_board(app: &TestApp) -> pb::Leaderboard {
    app.arena()
        .get_leaderboard(pb::GetLeaderboardRequest {
            game: TEST_DUEL.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

/// The next match `token`'s runner leases (default lease time), if any.
async fn lease(app: &TestApp, token: &str) -> Option<pb::MatchLease> {
    app.runners()
        .lease_match(authorized(pb::LeaseMatchRequest { lease_ms: 0 }, token))
        .await
        .unwrap()
        .into_inner()
        .lease
}

async fn play_queue(app: &TestApp, archives: &[(&str, Vec<u8>)]) -> usize {
    let mut played = 0;
    loop {
        let Some(lease) = lease(app, RUNNER_TOKEN).await else {
            return played;
        };
        for seat in &lease.seats {
            let expected = &archives
                .iter()
                .find(|(name, _)| *name == seat.bot_name)
                .unwrap()
                .1;
            assert_eq!(
                &fetch_artifact(app, &seat.content_hash).await,
                expected,
                "the runner gets the archive as submitted"
            );
        }
        let heartbeat = pb::HeartbeatRequest {
            match_id: lease.match_id,
            lease_generation: lease.lease_generation,
            lease_ms: 0,
        };
        app.runners()
            .heartbeat(authorized(heartbeat, RUNNER_TOKEN))
            .await
            .unwrap();
        report_match(app, RUNNER_TOKEN, report_latest_bot_wins(&lease))
            .await
            .unwrap();
        played += 1;
    }
}

/// A tournament's first page of matches, each with its games when
/// `with_games`.
async fn match_page(app: &TestApp, tournament_id: i64, with_games: bool) -> Vec<pb::MatchSummary> {
    app.arena()
        .list_matches(pb::ListMatchesRequest {
            tournament_id,
            with_games,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .matches
}

/// Each match's (games total, games recorded, games carried) on the
/// first page of a tournament's matches, asked without its games.
async fn match_counts(app: &TestApp, tournament_id: i64) -> Vec<(u32, u32, usize)> {
    match_page(app, tournament_id, false)
        .await
        .iter()
        .map(|m| (m.games_total, m.games_done, m.games.len()))
        .collect()
}

/// A tournament's first page of matches, each with its games.
async fn matches_with_games(app: &TestApp, tournament_id: i64) -> Vec<pb::MatchSummary> {
    match_page(app, tournament_id, true).await
}

/// Submits one bot named each of `names`; their archives, by name.
async fn submit_all<'a>(app: &TestApp, token: &str, names: &[&'a str]) -> Vec<(&'a str, Vec<u8>)> {
    let archives: Vec<(&str, Vec<u8>)> = names
        .iter()
        .map(|&name| (name, bot_archive(name, 1)))
        .collect();
    for (_, archive) in &archives {
        submit(app, token, archive.clone()).await.unwrap();
    }
    archives
}

/// The start most service tests share, in a line: the owner `ada` with one
/// bot of each of `names` submitted over gRPC and the tournament `request`
/// of them created. The owner's token, the archives by name, the tournament.
async fn start<'a>(
    app: &TestApp,
    names: &[&'a str],
    request: pb::CreateTournamentRequest,
) -> (String, Vec<(&'a str, Vec<u8>)>, pb::Tournament) {
    let token = register(app, "ada").await;
    let archives = submit_all(app, &token, names).await;
    let tournament = app
        .arena()
        .create_tournament(authorized(request, &token))
        .await
        .unwrap()
        .into_inner();
    (token, archives, tournament)
}

#[tokio::test]
async fn a_match_list_counts_each_matchs_games_and_carries_them_only_when_asked() {
    let app = spawn_app().await;
    let (_, archives, tournament) =
        start(&app, &["weak", "strong"], duel(&["weak", "strong"], 4)).await;
    assert_eq!(match_counts(&app, tournament.id).await, vec![(2, 0, 0); 2]);
    assert_eq!(play_queue(&app, &archives).await, 2);
    // The same first page, after its matches changed.
    assert_eq!(match_counts(&app, tournament.id).await, vec![(2, 2, 0); 2]);
    let with_games = matches_with_games(&app, tournament.id).await;
    assert!(with_games
        .iter()
        .all(|m| (m.games_total, m.games_done, m.games.len()) == (2, 2, 2)));
}

#[tokio::test]
async fn a_round_robin_runs_to_the_end_while_a_watcher_sees_it_progress() {
    let app = spawn_app().await;
    let (_, archives, tournament) = start(
        &app,
        &["weak", "middling", "strong"],
        duel(&["weak", "middling", "strong"], 4),
    )
    .await;
    let mut watch = app
        .arena()
        .watch_tournament(pb::WatchTournamentRequest {
            tournament_id: tournament.id,
        })
        .await
        .unwrap()
        .into_inner();
    let first = watch.next().await.unwrap().unwrap();
    assert_eq!(
        (
            first.matches_total,
            first.games_total,
            first.games_done,
            first.finished
        ),
        (6, 12, 0, false)
    );
    assert_eq!(play_queue(&app, &archives).await, 6);
    let mut last = first;
    while let Some(progress) = watch.next().await {
        let progress = progress.unwrap();
        assert!(
            progress.games_done >= last.games_done,
            "progress never goes back"
        );
        last = progress;
    }
    assert!(last.finished && last.games_done == 12, "{last:?}");
    let matches = matches_with_games(&app, tournament.id).await;
    assert!(matches
        .iter()
        .all(|m| m.status == "done" && m.games.iter().all(|game| game.result.len() == 2)));
    let game = &matches[0].games[0];
    let replay = app
        .arena()
        .get_replay(pb::GetReplayRequest {
            game_id: game.game_id,
        })
        .await
        .unwrap()
        .into_inner();
    let scores: Vec<i64> = game.result.iter().map(|seat| seat.score).collect();
    // Dealt from the listed seed's deal seed, which the replay may show.
    let dealt = DEAL_SECRET.deal_seed(tournament.id, game.seed);
    assert_ne!(dealt, game.seed);
    assert_eq!(replay.replay, test_replay(dealt, &scores));
    let board = duel_board(&app).await;
    let names: Vec<&str> = board.rows.iter().map(|row| row.bot_name.as_str()).collect();
    assert_eq!(
        (board.model.as_str(), names),
        ("glicko2", vec!["strong", "middling", "weak"])
    );
    let strong = &board.rows[0];
    assert_eq!(
        (
            strong.games,
            strong.wins,
            strong.losses,
            strong.draws,
            strong.forfeits
        ),
        (8, 8, 0, 0, 0)
    );
    assert!(board.rows[2].forfeits > 0 && strong.provisional && strong.uncertainty > 0.0);
    app.stop().await;
}

#[tokio::test]
async fn a_table_game_tournament_is_rated_with_weng_lin() {
    let app = spawn_app().await;
    let names = ["w", "x", "y", "z"];
    let mut request = duel(&names, 6);
    (request.game, request.seats_per_game) = (crate::testkit::TEST_TABLE.into(), 3);
    let (_, archives, tournament) = start(&app, &names, request).await;
    let matches = matches_with_games(&app, tournament.id).await;
    assert!(matches
        .iter()
        .all(|m| m.seats.len() == 3 && m.games.len() == 1));
    play_queue(&app, &archives).await;
    let board = pb::GetLeaderboardRequest {
        game: crate::testkit::TEST_TABLE.into(),
        ..Default::default()
    };
    let board = app
        .arena()
        .get_leaderboard(board)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(board.model, "weng-lin");
    // The bot registered last wins every table it sits at: unbeaten, it is
    // ranked above every rated bot, whatever the least rating its few deals
    // allow; the rated follow by rating.
    let z = &board.rows[0];
    assert_eq!(z.bot_name, "z");
    let fitted = z.fitted.as_ref().unwrap();
    assert_eq!(fitted.not_identifiable, "unbeaten");
    assert!(fitted.bound.is_some());
    let ratings: Vec<f64> = board.rows[1..]
        .iter()
        .map(|row| {
            let fitted = row.fitted.as_ref().unwrap();
            assert_eq!(fitted.not_identifiable, "", "{}", row.bot_name);
            fitted.rating
        })
        .collect();
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "{ratings:?}");
    assert!(board.rows.iter().all(|row| row.live && row.games > 0));
    app.stop().await;
}

#[tokio::test]
async fn the_leaderboard_is_read_a_page_at_a_time_and_bogus_tokens_are_refused() {
    let app = spawn_app().await;
    let names: Vec<String> = (0..7).map(|index| format!("bot-{index}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (_, archives, _) = start(&app, &names, duel(&names, 2)).await;
    play_queue(&app, &archives).await;
    let read = |page_size: u32, page_token: String| {
        let mut arena = app.arena();
        async move {
            arena
                .get_leaderboard(pb::GetLeaderboardRequest {
                    game: TEST_DUEL.into(),
                    page_size,
                    page_token,
                    ..Default::default()
                })
                .await
        }
    };
    let whole = read(0, String::new()).await.unwrap().into_inner();
    assert_eq!((whole.rows.len(), whole.total_rows), (7, 7));
    assert!(whole.next_page_token.is_empty());

    let (mut paged, mut page_token) = (Vec::new(), String::new());
    loop {
        let page = read(3, page_token).await.unwrap().into_inner();
        assert!(page.rows.len() <= 3);
        assert_eq!(page.total_rows, 7);
        paged.extend(page.rows);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    assert_eq!(
        paged, whole.rows,
        "pages of three put together are the board"
    );

    let huge = read(u32::MAX, String::new()).await.unwrap().into_inner();
    assert_eq!(huge.rows.len(), 7, "a huge page size is cut to the maximum");
    let past = read(3, "1000000".into()).await.unwrap().into_inner();
    assert!(past.rows.is_empty() && past.next_page_token.is_empty());
    for bogus in [
        "-1",
        "0",
        "abc",
        "1e3",
        "99999999999999999999",
        "3; DROP TABLE ratings",
    ] {
        let refused = read(3, bogus.into()).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "token {bogus:?}");
    }
    app.stop().await;
}

/// Games recorded on the first page of a tournament's matches, and games
/// counted on the leaderboard (each game counts once per seat).
async fn hot_counts(app: &TestApp, tournament_id: i64) -> (usize, i64) {
    let recorded = matches_with_games(app, tournament_id)
        .await
        .iter()
        .flat_map(|summary| &summary.games)
        .filter(|game| !game.result.is_empty())
        .count();
    let board = duel_board(app).await;
    (recorded, board.rows.iter().map(|row| row.games).sum())
}

#[tokio::test]
async fn every_reported_game_is_in_the_next_first_page_and_leaderboard() {
    let app = spawn_app().await;
    let (_, _, tournament) = start(&app, &["a", "b", "c"], duel(&["a", "b", "c"], 2)).await;
    let mut reported = 0;
    while let Some(lease) = lease(&app, RUNNER_TOKEN).await {
        let report = report_first_seat_wins(&lease);
        for game in report.games {
            // Twice, so the second answer comes from what the first kept.
            for _ in 0..2 {
                assert_eq!(
                    hot_counts(&app, tournament.id).await,
                    (reported, 2 * reported as i64)
                );
            }
            let request = pb::ReportGameRequest {
                match_id: report.match_id,
                lease_generation: report.lease_generation,
                game: Some(game),
            };
            app.runners()
                .report_game(authorized(request, RUNNER_TOKEN))
                .await
                .unwrap();
            reported += 1;
            assert_eq!(
                hot_counts(&app, tournament.id).await,
                (reported, 2 * reported as i64),
                "a result is in the next read after its report returns"
            );
        }
    }
    assert_eq!(reported, 6);
    app.stop().await;
}

#[tokio::test]
async fn thousands_of_concurrent_readers_on_one_connection_all_get_the_same_page() {
    let app = spawn_app().await;
    let (_, _, tournament) = start(&app, &["a", "b"], duel(&["a", "b"], 2)).await;
    let readers: Vec<_> = (0..2_000)
        .map(|_| {
            let mut arena = app.arena();
            tokio::spawn(async move {
                arena
                    .list_matches(pb::ListMatchesRequest {
                        tournament_id: tournament.id,
                        ..Default::default()
                    })
                    .await
                    .map(|page| page.into_inner())
            })
        })
        .collect();
    let mut pages = BTreeSet::new();
    for reader in readers {
        let page = reader.await.unwrap().unwrap();
        assert!(!page.matches.is_empty());
        pages.insert(page.encode_to_vec());
    }
    assert_eq!(pages.len(), 1, "every reader got the same bytes");
    app.stop().await;
}

/// The first pages of a tournament's matches (with and without their
/// games) and its board's live rows, encoded, after `app` played a duel of
/// three bots, every game won by its first seat.
async fn played_reads(app: &TestApp) -> Vec<Vec<u8>> {
    let (_, _, tournament) = start(app, &["a", "b", "c"], duel(&["a", "b", "c"], 2)).await;
    let mut reads = Vec::new();
    let read = async |reads: &mut Vec<Vec<u8>>| {
        for with_games in [false, true] {
            let page = app
                .arena()
                .list_matches(pb::ListMatchesRequest {
                    tournament_id: tournament.id,
                    with_games,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            reads.push(page.encode_to_vec());
        }
        let board = duel_board(app).await;
        // The fitted column comes when its fit is ready: not compared.
        for mut row in board.rows {
            row.fitted = None;
            row.provisional = false;
            reads.push(row.encode_to_vec());
        }
    };
    read(&mut reads).await;
    while let Some(lease) = lease(app, RUNNER_TOKEN).await {
        let report = report_first_seat_wins(&lease);
        for game in report.games {
            let request = pb::ReportGameRequest {
                match_id: report.match_id,
                lease_generation: report.lease_generation,
                game: Some(game),
            };
            app.runners()
                .report_game(authorized(request, RUNNER_TOKEN))
                .await
                .unwrap();
            read(&mut reads).await;
        }
    }
    reads
}

#[tokio::test]
async fn the_arena_answers_the_same_with_its_read_optimisations_off() {
    let tuned = spawn_app().await;
    let plain = spawn_app_with(ServeOptions {
        plain_reads: true,
        ..ServeOptions::default()
    })
    .await;
    let (tuned_reads, plain_reads) = (played_reads(&tuned).await, played_reads(&plain).await);
    assert!(tuned_reads.len() > 6 * 3, "every report was read after");
    assert_eq!(tuned_reads, plain_reads);
    tuned.stop().await;
    plain.stop().await;
}

#[test]
fn a_server_leaves_one_core_to_the_writes_and_never_has_no_thread() {
    assert_eq!(super::api_threads(0), 1);
    assert_eq!(super::api_threads(1), 1);
    assert_eq!(super::api_threads(2), 1);
    assert_eq!(super::api_threads(8), 7);
}

mod admission;

/// A public read the database fails (its store closed under the server)
/// is answered with an error and counted once as a database error.
#[tokio::test]
async fn a_public_read_the_database_fails_is_counted_as_a_database_error() {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(folder.path().join("arena.db"), Default::default())
        .await
        .unwrap();
    let closed = store.clone();
    let (channel, shutdown, server) = serve_on_loopback(store, ServeOptions::default()).await;
    let mut arena = ArenaClient::new(channel);
    let errors = |store: &Store| {
        let text = store.metrics().render(None);
        text.lines()
            .find_map(|line| line.strip_prefix("cairn_database_errors_total "))
            .map(str::to_string)
    };
    let listed = arena.list_bots(pb::ListBotsRequest::default()).await;
    assert!(listed.is_ok(), "{listed:?}");
    assert_eq!(errors(&closed).as_deref(), Some("0"));
    closed.close().await;
    let refused = arena
        .list_bots(pb::ListBotsRequest::default())
        .await
        .unwrap_err();
    assert!(
        matches!(refused.code(), Code::Internal | Code::Unavailable),
        "{refused:?}"
    );
    assert_eq!(errors(&closed).as_deref(), Some("1"));
    shutdown.send(()).unwrap();
    let _ = server.await;
}
