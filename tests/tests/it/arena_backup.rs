//! `cairn backup` (issue 33): a copy of a live SQLite arena taken while a
//! runner reports is consistent: served again, it holds every game it
//! counted, each whole, its deals still secret and the same, so its
//! tournament finishes there with every planned game exactly once.

use arena_support::*;

use crate::arena_support;

async fn games_done(arena: &Arena, tournament_id: i64) -> i64 {
    progress(arena, tournament_id).await.games_done
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_runners_report_serves_again_and_finishes_its_tournament() {
    let arena = Arena::start();
    let ada = register_owner(&arena, "ada").await;
    add_bot(&arena, &ada, "a", "first");
    add_bot(&arena, &ada, "b", "random");
    let tournament = create_round_robin(&arena, &ada, &["a", "b"], 120).await;
    // Short leases: those the copy holds expire soon after it is served.
    let runner = arena.runner(3_000, 1);
    wait_for_progress(&arena, tournament.id, |p| p.games_done >= 20).await;

    let restored_folder = tempfile::tempdir().unwrap();
    let copy = restored_folder.path().join("arena.sqlite");
    let before = games_done(&arena, tournament.id).await;
    let output = cairn(&[
        "backup",
        "--db",
        arena.db().to_str().unwrap(),
        copy.to_str().unwrap(),
    ]);
    let after = games_done(&arena, tournament.id).await;
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // `backed up DB (N games, X MiB) to OUT`
    let copied: i64 = said
        .split('(')
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no game count in {said:?}"));
    assert!(
        before <= copied && copied <= after,
        "{before} <= {copied} <= {after}"
    );

    // A second backup to the same file is refused and leaves it alone.
    let again = cairn(&[
        "backup",
        "--db",
        arena.db().to_str().unwrap(),
        copy.to_str().unwrap(),
    ]);
    let refused = String::from_utf8_lossy(&again.stderr);
    assert!(
        !again.status.success() && refused.contains("never overwrites"),
        "{refused}"
    );
    drop(runner);

    let (process, address) = serve_with(&copy, "127.0.0.1:0", &["--open-registration"]);
    let restored = Arena {
        folder: restored_folder,
        address,
        process,
    };
    assert_eq!(games_done(&restored, tournament.id).await, copied);
    let board = leaderboard(&restored, "schotten-totten").await;
    let rated_seats: i64 = board.rows.iter().map(|row| row.games).sum();
    assert_eq!(rated_seats, 2 * copied, "{board:?}");
    // Its matches left leased by the old runner expire and are played here.
    let _runner = restored.runner(30_000, 2);
    wait_for_progress(&restored, tournament.id, |p| p.finished).await;
    assert_complete_and_exact(&restored, &tournament, 120).await;
}
