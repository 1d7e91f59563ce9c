use super::*;
use crate::store::tests::{both_backends, count, duel, Scenario, LEASE_MS};
use crate::store::Page;
use crate::store::ReportOutcome;
use crate::testkit::report_by_strength;

both_backends! {
async fn a_match_given_back_is_queued_again_then_given_up_and_never_rated() {
    let Scenario { test: kept, tournament, runner, .. } =
        Scenario::duel(&["a", "b"], 2, "box-1").await;
    let test = kept.store.clone().with_max_attempts(2);
    let first = test.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    let given = test
        .give_back_match(&runner, first.match_id, first.lease_generation, "disk full")
        .await
        .unwrap();
    assert_eq!(
        given,
        GiveBack {
            attempts: 1,
            failed: false
        }
    );
    // Given back once: it cannot be given back again under the old lease.
    assert!(matches!(
        test.give_back_match(&runner, first.match_id, first.lease_generation, "again")
            .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    let second = test.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    assert_eq!(second.match_id, first.match_id);
    let given = test
        .give_back_match(
            &runner,
            second.match_id,
            second.lease_generation,
            "sandbox setup failed",
        )
        .await
        .unwrap();
    assert_eq!(
        given,
        GiveBack {
            attempts: 2,
            failed: true
        }
    );
    // The other seating plays; the tournament finishes with one failure.
    let other = test.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    assert_ne!(other.match_id, first.match_id);
    assert_eq!(count(&test, "ratings").await, 0);
    test.report_result(&runner, &report_by_strength(&other, |id| id))
        .await
        .unwrap();
    assert!(test.lease_match(&runner, LEASE_MS).await.unwrap().is_none());
    let progress = test.tournament_progress(tournament.id).await.unwrap();
    assert!(progress.finished());
    assert_eq!((progress.matches_failed, progress.games_done), (1, 1));
    let matches = test
        .list_matches(tournament.id, &Page::first())
        .await
        .unwrap()
        .items;
    let failed = matches.iter().find(|m| m.id == first.match_id).unwrap();
    assert_eq!(failed.status, "failed");
    assert!(failed
        .failure
        .as_deref()
        .unwrap()
        .contains("sandbox setup failed"));
}
}

both_backends! {
async fn a_failed_build_breaks_the_version_and_ends_its_matches_with_build_failed() {
    let Scenario { test: kept, tournament, runner, .. } =
        Scenario::built(&["a", "b", "c"], &duel(&["a", "b", "c"], 2), "box-1").await;
    let test = kept.store.clone();
    let lease = test.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    let broken = lease.seats[0].bot_version_id;
    let huge_log = format!("{}the last line", "x".repeat(10_000));
    let ended = test
        .report_build_failure(
            &runner,
            lease.match_id,
            lease.lease_generation,
            broken,
            &huge_log,
        )
        .await
        .unwrap();
    let version = test.bot_version(broken).await.unwrap();
    let log = version.build_log.unwrap();
    assert!(log.len() <= MAX_FAULT_TEXT_BYTES && log.ends_with("the last line"));
    // Every match seating the broken version ended, with it ranked last.
    let matches = test
        .list_matches(tournament.id, &Page::first())
        .await
        .unwrap()
        .items;
    let seating_it: Vec<_> = matches
        .iter()
        .filter(|m| m.seats.iter().any(|seat| seat.bot_version_id == broken))
        .collect();
    assert_eq!(ended, seating_it.len());
    for summary in seating_it {
        assert_eq!(summary.status, "done");
        for game_id in summary.games.iter().map(|game| game.game_id) {
            let result = test.game_result(game_id).await.unwrap();
            for seat in result {
                if seat.bot_version_id == broken {
                    assert_eq!(seat.rank, 2);
                    assert_eq!(seat.forfeit.unwrap().reason, ForfeitReason::BuildFailed);
                } else {
                    assert_eq!((seat.rank, seat.score, seat.forfeit), (1, 0, None));
                }
            }
        }
    }
    // The other matches are still to play, and play normally.
    while let Some(next) = test.lease_match(&runner, LEASE_MS).await.unwrap() {
        assert!(next.seats.iter().all(|seat| seat.bot_version_id != broken));
        assert_eq!(
            test.report_result(&runner, &report_by_strength(&next, |id| id))
                .await
                .unwrap(),
            ReportOutcome::Recorded
        );
    }
    assert!(test
        .tournament_progress(tournament.id)
        .await
        .unwrap()
        .finished());
    // Issue 36: a version that never played is not rated, and its forfeits
    // give nobody a rating: the board holds only the two bots that played.
    let board = test
        .fitted_leaderboard(
            &crate::store::LeaderboardQuery {
                game: crate::testkit::TEST_DUEL.into(),
                options: Default::default(),
                model: None,
            },
            None,
        )
        .await
        .unwrap();
    let rated: Vec<i64> = board.rows.iter().map(|line| line.row.bot_version_id).collect();
    assert_eq!(rated.len(), 2, "{rated:?}");
    assert!(!rated.contains(&broken));
    assert!(board.rows.iter().all(|line| line.row.standing.games == 2));
    assert_eq!(board.summary.unwrap().games, 2);
}
}

both_backends! {
async fn only_a_seated_version_of_a_held_match_can_be_reported_broken() {
    let Scenario { test: kept, runner, .. } =
        Scenario::built(&["a", "b", "c"], &duel(&["a", "b", "c"], 2), "box-1").await;
    let test = kept.store.clone();
    let (other, _) = test.register_runner("box-2").await.unwrap();
    let lease = test.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    let absent: i64 = sqlx::query_scalar(
        "SELECT id FROM bot_versions WHERE id NOT IN (SELECT bot_version_id FROM seats WHERE match_id = $1)",
    )
    .bind(lease.match_id)
    .fetch_one(test.pool())
    .await
    .unwrap();
    assert!(matches!(
        test.report_build_failure(
            &runner,
            lease.match_id,
            lease.lease_generation,
            absent,
            "log"
        )
        .await,
        Err(ArenaError::InvalidArgument(_))
    ));
    let seated = lease.seats[0].bot_version_id;
    assert!(matches!(
        test.report_build_failure(
            &other,
            lease.match_id,
            lease.lease_generation,
            seated,
            "log"
        )
        .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    assert_eq!(count(&test, "results").await, 0);
    assert!(test.bot_version(seated).await.unwrap().build_log.is_none());
}
}
