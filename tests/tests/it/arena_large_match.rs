//! Finding 7 of issue 9, end to end: a match too large for one message.
//! A real `cairn serve` on a temporary SQLite file and a real `cairn
//! runner` playing real bot processes.
//!
//! So that the test needs a hundred games rather than thousands, the arena
//! is started with the hidden, test-only `--max-report-bytes` at 32 KiB
//! instead of the 5 MiB default: the match's games together are several
//! times that, each game well under it. The runner reports game by game,
//! so the match finishes; a report over the cap is refused with a clear
//! error and writes nothing; a match given back after a refused report is
//! played again elsewhere without rating a game twice.

use arena_support::*;
use cairn_arena::testkit::played_game_report;
use cairn_proto::arena::v1 as pb;
use tonic::Code;

use crate::arena_support;

/// The arena's cap on one runner message in this test.
const CAP: usize = 32 * 1024;
const GAMES_PER_MATCH: u32 = 60;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_larger_than_a_message_is_reported_game_by_game_and_an_oversized_game_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("arena.sqlite");
    let cap = CAP.to_string();
    let (process, address) = serve_with(
        &db,
        "127.0.0.1:0",
        &["--open-registration", "--max-report-bytes", &cap],
    );
    let arena = Arena {
        folder,
        address,
        process,
    };
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "a", "random");
    add_bot(&arena, &token, "b", "first");
    let tournament = create_round_robin(&arena, &token, &["a", "b"], 2 * GAMES_PER_MATCH).await;
    let planned_games = i64::from(2 * GAMES_PER_MATCH);

    // A broken runner: one honest game, then a report over the cap.
    let mut broken = arena.runner_client().await;
    let lease = lease_one(&mut broken, 60_000, RUNNER_TOKEN).await;
    assert_eq!(lease.games.len(), GAMES_PER_MATCH as usize);
    let first = report_to_wire(&lease, &played_game_report(&planned_game(&lease, 0)));
    broken
        .report_game(authorized(first.clone(), RUNNER_TOKEN))
        .await
        .unwrap();
    let mut oversized = report_to_wire(&lease, &played_game_report(&planned_game(&lease, 1)));
    oversized.game.as_mut().unwrap().replay = vec![b' '; CAP + 1];
    let refused = broken
        .report_game(authorized(oversized, RUNNER_TOKEN))
        .await
        .unwrap_err();
    assert!(
        matches!(refused.code(), Code::OutOfRange | Code::ResourceExhausted)
            && refused.message().contains("too large"),
        "an oversized report is refused clearly: {refused:?}"
    );
    assert_eq!(
        progress(&arena, tournament.id).await.games_done,
        1,
        "the refused report wrote nothing"
    );
    let given = broken
        .give_back_match(authorized(
            pb::GiveBackMatchRequest {
                match_id: lease.match_id,
                lease_generation: lease.lease_generation,
                reason: "the report of game 1 was refused".into(),
            },
            RUNNER_TOKEN,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(!given.failed);

    // A real runner plays both matches, the given-back one again, whole.
    let _runner = arena.runner(60_000, 1);
    let done = wait_for_progress(&arena, tournament.id, |progress| progress.finished).await;
    assert_eq!(done.matches_failed, 0);
    assert_complete_and_exact(&arena, &tournament, planned_games).await;

    let matches = matches_with_games(&arena, tournament.id).await;
    for summary in &matches {
        let mut sizes = Vec::new();
        for game in &summary.games {
            let replay = arena
                .client()
                .await
                .get_replay(pb::GetReplayRequest {
                    game_id: game.game_id,
                })
                .await
                .unwrap()
                .into_inner()
                .replay;
            sizes.push(replay.len());
        }
        let total: usize = sizes.iter().sum();
        assert!(
            total > 2 * CAP && sizes.iter().all(|&size| size < CAP),
            "match {}: {total} bytes of replays, the largest {:?}; the test needs a match over the cap made of games under it",
            summary.match_id,
            sizes.iter().max()
        );
    }

    // The first game, reported again under the old lease, is not rated twice.
    let again = broken
        .report_game(authorized(first, RUNNER_TOKEN))
        .await
        .unwrap()
        .into_inner();
    assert!(again.already_recorded && again.match_done);
    assert_complete_and_exact(&arena, &tournament, planned_games).await;
}
