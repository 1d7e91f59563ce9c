//! The ways out (issue 10), end to end through the CLI: `cairn bot delete`
//! keeps a bot's history but keeps it out of new tournaments, and `cairn
//! tournament cancel` drops unplayed matches (never leased again, a late
//! report refused with its reason) while played games stay rated, and a
//! runner playing one of its matches stops it at its next heartbeat and
//! takes other work (issue 36). Only the owner may do either.

use arena_support::*;
use cairn_arena::testkit::played_game_report;
use cairn_proto::arena::v1 as pb;
use tonic::Code;

use crate::arena_support;

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

/// A bot folder of `tests/bots/sleeper.py`, `pause` seconds a decision,
/// writing its pid to `fifo` at start.
fn sleeper_bot(root: &std::path::Path, pause: &str, fifo: &std::path::Path) -> std::path::PathBuf {
    let folder = root.join("sleeper");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        cairn_tests::workspace_root().join("tests/bots/sleeper.py"),
        folder.join("sleeper.py"),
    )
    .unwrap();
    let manifest = format!(
        "name = \"sleeper\"\ncommand = [\"python3\", \"sleeper.py\", \"{pause}\", {:?}]\n",
        fifo.display().to_string()
    );
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    folder
}

/// Reads `log` on a thread of its own to its end (a runner whose log is not
/// read would block), handing each line to the receiver.
fn follow_log(log: std::process::ChildStderr) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (lines, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(log).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// The lines of `log` up to the first containing `needle`.
fn read_log_until(log: &std::sync::mpsc::Receiver<String>, needle: &str) -> Vec<String> {
    let mut seen = Vec::new();
    while let Ok(line) = log.recv_timeout(DEADLINE) {
        let found = line.contains(needle);
        seen.push(line);
        if found {
            return seen;
        }
    }
    panic!("no log line with {needle:?}: {seen:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_stops_the_games_in_play_at_the_next_heartbeat_and_the_runner_moves_on() {
    let arena = Arena::start();
    let ada = register_owner(&arena, "ada").await;
    let fifo = arena.folder.path().join("sleeper-started");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Two seconds a decision, four games: the match would last minutes.
    add_bot_folder(&arena, &ada, &sleeper_bot(arena.folder.path(), "2", &fifo));
    add_bot(&arena, &ada, "steady", "first");
    add_bot(&arena, &ada, "a", "first");
    add_bot(&arena, &ada, "b", "random");
    let slow = create_round_robin(&arena, &ada, &["sleeper", "steady"], 4).await;
    // One worker, heartbeats every second.
    let mut runner = runner_logged_at(
        &arena.address,
        &arena.folder.path().join("runner-cache"),
        3_000,
        1,
    );
    let log = follow_log(runner.0.stderr.take().unwrap());
    let reading = fifo.clone();
    let pid = tokio::time::timeout(
        DEADLINE,
        tokio::task::spawn_blocking(move || std::fs::read_to_string(reading).unwrap()),
    )
    .await
    .expect("the sleeper starts")
    .unwrap();
    let pid: u32 = pid.trim().parse().unwrap();

    let (ok, _, error) = cli(
        &arena,
        &ada,
        &["tournament", "cancel", &slow.id.to_string()],
    );
    assert!(ok, "{error}");
    let next = create_round_robin(&arena, &ada, &["a", "b"], 2).await;
    let logged = tokio::task::block_in_place(|| read_log_until(&log, "dropped"));
    let last = logged.last().unwrap();
    assert!(
        last.contains("was cancelled with its tournament"),
        "{logged:#?}"
    );
    // Far less than the minutes the cancelled match would have taken.
    let done = wait_for_progress_within(
        &arena,
        next.id,
        std::time::Duration::from_secs(60),
        |progress| progress.finished,
    )
    .await;
    assert_eq!(done.games_done, 2, "{done:?}");
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the sleeper ({pid}) was killed"
    );
    let status = progress(&arena, slow.id).await;
    assert!(status.cancelled && status.finished, "{status:?}");
    assert_eq!(
        status.games_done, 0,
        "nothing of the dropped match is recorded"
    );
}
