//! The arena keeps each seat's stderr tail per game (issue 10), end to end:
//! a Python bot that raises shows its traceback in `cairn match show`, a
//! downloaded replay carries its game's real index, and a runner's report
//! with an oversized tail is refused while invalid UTF-8 is kept as text.

use arena_support::*;
use cairn_arena::testkit::played_game_report;
use cairn_proto::arena::v1 as pb;
use cairn_tests::workspace_root;
use tonic::Code;

use crate::arena_support;

/// A bot folder whose bot raises at its first request.
fn raising_bot(root: &std::path::Path) -> std::path::PathBuf {
    let folder = root.join("raiser");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        workspace_root().join("tests/bots/mistakes.py"),
        folder.join("mistakes.py"),
    )
    .unwrap();
    let manifest = "name = \"raiser\"\ncommand = [\"python3\", \"mistakes.py\", \"raise\"]\n";
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    folder
}

/// Plays a finished two-game round robin of the raising bot and `first`.
async fn raiser_against_steady(arena: &Arena) -> pb::Tournament {
    let token = register_owner(arena, "ada").await;
    add_bot_folder(arena, &token, &raising_bot(arena.folder.path()));
    add_bot(arena, &token, "steady", "first");
    let tournament = create_round_robin(arena, &token, &["raiser", "steady"], 2).await;
    let _runner = arena.runner(30_000, 1);
    wait_for_progress(arena, tournament.id, |progress| progress.finished).await;
    tournament
}

fn text_of(args: &[&str]) -> String {
    let output = cairn(args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_bot_that_raises_shows_its_traceback_in_match_show() {
    let arena = Arena::start();
    let tournament = raiser_against_steady(&arena).await;
    let matches = matches_with_games(&arena, tournament.id).await;
    let games: Vec<&pb::GameSummary> = matches.iter().flat_map(|m| &m.games).collect();
    assert_eq!(games.len(), 2);
    for game in &games {
        assert!(
            game.result.iter().all(|seat| seat.stderr_tail.is_empty()),
            "listings carry no tails"
        );
    }
    let scratch = tempfile::tempdir().unwrap();
    for game in games {
        let id = game.game_id.to_string();
        let replay = scratch.path().join(format!("game-{id}.json"));
        let shown = text_of(&[
            "match",
            "show",
            &id,
            "--arena",
            &arena.address,
            "--replay",
            replay.to_str().unwrap(),
        ]);
        assert!(shown.contains("forfeit"), "{shown}");
        assert!(shown.contains("stderr of seat"), "{shown}");
        assert!(
            shown.contains("Traceback (most recent call last)"),
            "{shown}"
        );
        assert!(
            shown.contains("ValueError: my bot is broken at decision"),
            "{shown}"
        );
        let answer = arena
            .client()
            .await
            .get_replay(pb::GetReplayRequest {
                game_id: game.game_id,
            })
            .await
            .unwrap()
            .into_inner();
        let replayed = text_of(&["replay", replay.to_str().unwrap()]);
        // Games are numbered from 1, as TOURNAMENT/MATCH/GAME numbers them.
        let label = format!("game {}: schotten-totten", answer.game_index + 1);
        assert!(replayed.starts_with(&label), "{label}: {replayed}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_stderr_tail_is_refused_and_invalid_utf8_is_kept_as_text() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "a", "first");
    add_bot(&arena, &token, "b", "first");
    create_round_robin(&arena, &token, &["a", "b"], 2).await;
    let mut runners = arena.runner_client().await;
    let lease = lease_one(&mut runners, 60_000, RUNNER_TOKEN).await;
    let planned = planned_game(&lease, 0);
    let honest = played_game_report(&planned);
    let report = |tails: [Vec<u8>; 2]| {
        let mut request = report_to_wire(&lease, &honest);
        let seats = &mut request.game.as_mut().expect("a game").seats;
        for (seat, tail) in seats.iter_mut().zip(tails) {
            seat.stderr_tail = tail;
        }
        request
    };

    let oversized = vec![b'x'; cairn_proto::STDERR_TAIL_CAP + 1];
    let refused = runners
        .report_game(authorized(report([Vec::new(), oversized]), RUNNER_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(
        refused.message().contains("stderr tail of seat 1"),
        "{refused:?}"
    );
    let invalid = b"half a char \xe2\x82 and \xff then \x1b[2J".to_vec();
    let full = vec![b'y'; cairn_proto::STDERR_TAIL_CAP];
    runners
        .report_game(authorized(report([invalid, full.clone()]), RUNNER_TOKEN))
        .await
        .unwrap();
    let game_id = lease.games[0].game_id;
    let answer = arena
        .client()
        .await
        .get_replay(pb::GetReplayRequest { game_id })
        .await
        .unwrap()
        .into_inner();
    let kept = String::from_utf8(answer.result[0].stderr_tail.clone()).expect("kept as text");
    assert_eq!(kept, "half a char \u{fffd} and \u{fffd} then \u{1b}[2J");
    assert_eq!(answer.result[1].stderr_tail, full);
    let shown = text_of(&[
        "match",
        "show",
        &game_id.to_string(),
        "--arena",
        &arena.address,
    ]);
    assert!(
        !shown.contains('\u{1b}'),
        "control characters escaped: {shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_json_logs_each_forfeit_is_one_structured_line() {
    let folder = tempfile::tempdir().unwrap();
    let log = folder.path().join("serve.log");
    let (process, line) = serve_line_to(
        &folder.path().join("arena.sqlite"),
        "127.0.0.1:0",
        &["--open-registration", "--log-format", "json"],
        false,
        std::fs::File::create(&log).unwrap().into(),
    );
    let arena = Arena {
        address: address_in(&line),
        folder,
        process,
    };
    raiser_against_steady(&arena).await;
    let logged = std::fs::read_to_string(&log).unwrap();
    let forfeits: Vec<serde_json::Value> = logged
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .filter(|entry: &serde_json::Value| entry["fields"]["message"] == "forfeit")
        .collect();
    assert_eq!(forfeits.len(), 2, "{logged}");
    for entry in forfeits {
        let fields = &entry["fields"];
        assert_eq!(fields["reason"], "exit", "{entry}");
        assert!(
            fields["match_id"].is_i64() && fields["bot_version"].is_i64(),
            "{entry}"
        );
        assert!(
            fields["game_index"].is_i64() && entry["timestamp"].is_string(),
            "{entry}"
        );
    }
}
