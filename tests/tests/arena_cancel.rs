//! The ways out (issue 10), end to end through the CLI: `cairn bot delete`
//! keeps a bot's history but keeps it out of new tournaments, and `cairn
//! tournament cancel` drops unplayed matches (never leased again, a late
//! report refused with its reason) while played games stay rated. Only the
//! owner may do either.

mod arena_support;

use arena_support::*;
use cairn_arena::testkit::played_game_report;
use cairn_proto::arena::v1 as pb;
use tonic::Code;

/// Runs `cairn` with `args` plus the arena and `token`; (success, stdout, stderr).
fn cli(arena: &Arena, token: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = args.to_vec();
    all.extend(["--arena", &arena.address, "--token", token]);
    let output = cairn(&all);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs a reading `cairn` command (no token) against the arena.
fn read(arena: &Arena, args: &[&str]) -> (bool, String, String) {
    let mut all = args.to_vec();
    all.extend(["--arena", &arena.address]);
    let output = cairn(&all);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn report(lease: &pb::MatchLease, index: usize) -> pb::ReportGameRequest {
    report_to_wire(lease, &played_game_report(&planned_game(lease, index)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_bot_keeps_its_history_and_joins_no_new_tournament() {
    let arena = Arena::start();
    let ada = register_owner(&arena, "ada").await;
    let bob = register_owner(&arena, "bob").await;
    add_bot(&arena, &ada, "a", "first");
    add_bot(&arena, &ada, "b", "random");
    let tournament = create_round_robin(&arena, &ada, &["a", "b"], 2).await;
    let _runner = arena.runner(30_000, 1);
    wait_for_progress(&arena, tournament.id, |progress| progress.finished).await;
    let before = leaderboard(&arena, "schotten-totten").await;

    let (ok, _, error) = cli(&arena, &bob, &["bot", "delete", "a"]);
    assert!(!ok && error.contains("belongs to another owner"), "{error}");
    let (ok, out, error) = cli(&arena, &ada, &["bot", "delete", "a"]);
    assert!(ok && out.contains("deleted a"), "{error}");
    let (ok, _, error) = cli(&arena, &ada, &["bot", "delete", "nobody"]);
    assert!(!ok && error.contains("not found"), "{error}");

    let (ok, _, error) = cli(
        &arena,
        &ada,
        &[
            "tournament",
            "create",
            "--game",
            "schotten-totten",
            "a",
            "b",
        ],
    );
    assert!(!ok && error.contains("has been deleted"), "{error}");
    // The finished tournament keeps its games, replays and ratings.
    let (ok, shown, error) = read(&arena, &["bot", "show", "a", "--json"]);
    assert!(ok && shown.contains("\"deleted\": true"), "{error}{shown}");
    let (ok, listed, error) = read(
        &arena,
        &["match", "list", &tournament.id.to_string(), "--json"],
    );
    assert!(ok, "{error}");
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let after = leaderboard(&arena, "schotten-totten").await;
    let games = |board: &pb::Leaderboard| -> Vec<(String, i64)> {
        board
            .rows
            .iter()
            .map(|row| (row.bot_name.clone(), row.games))
            .collect()
    };
    assert_eq!(games(&after), games(&before));
    assert!(games(&after).contains(&("a".to_string(), 2)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_tournament_drops_unplayed_matches_and_keeps_played_games_rated() {
    let arena = Arena::start();
    let ada = register_owner(&arena, "ada").await;
    let bob = register_owner(&arena, "bob").await;
    add_bot(&arena, &ada, "a", "first");
    add_bot(&arena, &ada, "b", "first");
    let tournament = create_round_robin(&arena, &ada, &["a", "b"], 8).await;
    let id = tournament.id.to_string();
    let mut runners = arena.runner_client().await;
    let lease_request = || authorized(pb::LeaseMatchRequest { lease_ms: 60_000 }, RUNNER_TOKEN);
    let lease = runners
        .lease_match(lease_request())
        .await
        .unwrap()
        .into_inner()
        .lease
        .unwrap();
    assert!(lease.games.len() >= 2, "{lease:?}");
    runners
        .report_game(authorized(report(&lease, 0), RUNNER_TOKEN))
        .await
        .unwrap();

    let (ok, _, error) = cli(&arena, &bob, &["tournament", "cancel", &id]);
    assert!(!ok && error.contains("belongs to another owner"), "{error}");
    let (ok, out, error) = cli(&arena, &ada, &["tournament", "cancel", &id, "--json"]);
    assert!(ok, "{error}");
    let answer: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dropped = answer["matches_dropped"].as_i64().unwrap();
    assert!(dropped >= 2, "the leased match and the queued ones: {out}");
    let (ok, out, _) = cli(&arena, &ada, &["tournament", "cancel", &id, "--json"]);
    assert!(ok && out.contains("\"matches_dropped\":0"), "again: {out}");

    // Never leased again; the leased match's late report refused cleanly.
    let none = runners
        .lease_match(lease_request())
        .await
        .unwrap()
        .into_inner();
    assert!(none.lease.is_none(), "{none:?}");
    let late = runners
        .report_game(authorized(report(&lease, 1), RUNNER_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition, "{late:?}");
    assert!(late.message().contains("was cancelled"), "{late:?}");
    let heartbeat = runners
        .heartbeat(authorized(
            pb::HeartbeatRequest {
                match_id: lease.match_id,
                lease_generation: lease.lease_generation,
                lease_ms: 60_000,
            },
            RUNNER_TOKEN,
        ))
        .await
        .unwrap_err();
    assert_eq!(heartbeat.code(), Code::FailedPrecondition);

    let status = progress(&arena, tournament.id).await;
    assert!(status.cancelled && status.finished, "{status:?}");
    assert_eq!(status.games_done, 1);
    assert_eq!(status.matches_queued + status.matches_leased, 0);
    let (ok, shown, _) = read(&arena, &["tournament", "status", &id]);
    assert!(ok && shown.contains("cancelled"), "{shown}");
    let board = leaderboard(&arena, "schotten-totten").await;
    let rated: i64 = board.rows.iter().map(|row| row.games).sum();
    assert_eq!(rated, 2, "the played game, once per seat: {board:?}");
}
