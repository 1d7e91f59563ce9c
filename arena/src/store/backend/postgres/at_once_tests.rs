//! PostgreSQL only: a report's write in one statement, raced.

use super::super::seat_locks::{hold_seat_lock, wait_for_seat_lock_waiter};
use crate::ratings::RatingModel;
use crate::store::tests::backends::{
    assert_live_ratings_equal_a_serial_replay, runners_reporting_to_both,
};
use crate::store::tests::{
    count, duel, on_backend, owner_with_bots, test_store, Backend, TestStore, LEASE_MS,
};
use crate::store::{Lease, Location, ReportOutcome, Store};
use crate::testkit::{report_by_strength, TEST_DUEL};

fn tries(store: &Store) -> &super::Tries {
    store.backend.report_tries().expect("a PostgreSQL store")
}

fn url(test: &TestStore) -> &str {
    let Location::Postgres(url) = &test.location else {
        panic!("a PostgreSQL test on another backend");
    };
    url
}

/// The rating changes of every (model, bot version) on the test duel's
/// board, each in the order of its results' ids, chain: each starts where
/// the one before ended. Returns how many changes there were.
async fn assert_history_chains_in_id_order(store: &Store) -> usize {
    let rows: Vec<(String, i64, f64, f64)> = sqlx::query_as(
        "SELECT model, bot_version_id, rating_before, rating_after FROM rating_history \
         WHERE game = $1 ORDER BY model, bot_version_id, result_id",
    )
    .bind(TEST_DUEL)
    .fetch_all(store.pool())
    .await
    .unwrap();
    for pair in rows.windows(2) {
        let ((model, bot, _, after), (next_model, next_bot, before, _)) = (&pair[0], &pair[1]);
        if (model, bot) == (next_model, next_bot) {
            assert_eq!(
                before, after,
                "{model} of {bot}: a change applied out of id order"
            );
        }
    }
    rows.len()
}

/// Two stores on one database, as two arena processes, the second of
/// which takes the transaction after one moved read: their runners report
/// every game of one board (a tournament with a forfeit policy, whose
/// tallies the statement keeps) to both at once. Each game is recorded once,
/// most at once, every bot version's rating changes chain in the order of
/// their results' ids, and the live ratings equal a serial replay.
#[tokio::test]
async fn racing_reports_of_one_board_from_two_stores_land_in_id_order() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let second = test.second_process().await;
        tries(&second).set_limit(1);
        let names = ["a", "b", "c", "d", "e", "f"];
        let owner = owner_with_bots(&test.store, "ada", &names).await;
        let mut table = duel(&names, 4);
        table.format.max_forfeit_rate = Some(crate::store::DEFAULT_MAX_FORFEIT_RATE);
        test.store.create_tournament(&owner, &table).await.unwrap();
        for task in runners_reporting_to_both(&test.store, &second).await {
            task.await.unwrap();
        }
        let games = 15 * 4;
        assert_eq!(
            count(&test.store, "results").await,
            games,
            "every game once"
        );
        let done: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM matches WHERE status <> 'done'")
            .fetch_one(test.store.pool())
            .await
            .unwrap();
        assert_eq!(done, 0, "every match done");
        let models = RatingModel::for_seats(2).len();
        let changes = assert_history_chains_in_id_order(&test.store).await;
        assert_eq!(changes as i64, games * 2 * models as i64);
        let tallied: i64 =
            sqlx::query_scalar("SELECT CAST(SUM(games) AS BIGINT) FROM forfeit_tallies")
                .fetch_one(test.store.pool())
                .await
                .unwrap();
        assert_eq!(tallied, games * 2, "every seat of every game tallied once");
        let (written, _, _) = tries(&test.store).counts();
        let (written_too, _, _) = tries(&second).counts();
        assert!(
            written + written_too > 0,
            "no report was written in one statement"
        );
        assert_live_ratings_equal_a_serial_replay(&test, &second).await;
    })
    .await;
}

/// A lease whose seats both have standings (its bots played before), the
/// leases before it reported in full.
async fn lease_of_rated_bots(test: &TestStore) -> (crate::store::Runner, Lease) {
    let names = ["a", "b", "c", "d"];
    let owner = owner_with_bots(&test.store, "ada", &names).await;
    test.store
        .create_tournament(&owner, &duel(&names, 2))
        .await
        .unwrap();
    let (runner, _) = test.store.register_runner("box").await.unwrap();
    let mut played = std::collections::HashSet::new();
    while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
        if lease
            .seats
            .iter()
            .all(|seat| played.contains(&seat.bot_version_id))
        {
            return (runner, lease);
        }
        let report = report_by_strength(&lease, |id| id);
        test.store.report_result(&runner, &report).await.unwrap();
        played.extend(lease.seats.iter().map(|seat| seat.bot_version_id));
    }
    panic!("no match of two bots that played before");
}

/// The games bot version `bot` has played on the test duel's board under
/// each model, in the models' order.
async fn games_of(store: &Store, bot: i64) -> Vec<i64> {
    sqlx::query_scalar(
        "SELECT games FROM ratings WHERE game = $1 AND bot_version_id = $2 ORDER BY model",
    )
    .bind(TEST_DUEL)
    .bind(bot)
    .fetch_all(store.pool())
    .await
    .unwrap()
}

/// Reports the first game of a match of two rated bots while another
/// connection, holding the first seat's lock, changes that seat's
/// standings (100 games more) and commits once the report waits for the
/// lock: the standings move between the report's read and its write.
/// Returns what the store's counts of tries grew by, and checks the game was applied
/// on the standings as moved.
async fn report_while_standings_move(limit: u32) -> (u64, u64, u64) {
    let test = test_store().await;
    let (runner, lease) = lease_of_rated_bots(&test).await;
    tries(&test.store).set_limit(limit);
    let counted = tries(&test.store).counts();
    let held = lease.seats[0].bot_version_id;
    let before = games_of(&test.store, held).await;
    let mut holder = hold_seat_lock(url(&test), held).await;
    sqlx::query("UPDATE ratings SET games = games + 100 WHERE game = $1 AND bot_version_id = $2")
        .bind(TEST_DUEL)
        .bind(held)
        .execute(&mut holder)
        .await
        .unwrap();
    let report = report_by_strength(&lease, |id| id);
    let store = test.store.clone();
    let (match_id, generation) = (lease.match_id, lease.lease_generation);
    let reporting = tokio::spawn(async move {
        store
            .report_game(&runner, match_id, generation, &report.games[0])
            .await
    });
    wait_for_seat_lock_waiter(
        url(&test),
        held,
        "the report never waited for the held seat lock",
    )
    .await;
    sqlx::raw_sql("COMMIT").execute(&mut holder).await.unwrap();
    let recorded = reporting.await.unwrap().unwrap();
    assert_eq!(recorded.outcome, ReportOutcome::Recorded);
    let after: Vec<i64> = before.iter().map(|games| games + 101).collect();
    assert_eq!(
        games_of(&test.store, held).await,
        after,
        "the game applied on the standings as they moved"
    );
    let (written, moved, gave_up) = tries(&test.store).counts();
    (written - counted.0, moved - counted.1, gave_up - counted.2)
}

/// A report whose standings another process changed between its read and
/// its write writes nothing that time, reads again and is written in one
/// statement on the standings as they are.
#[tokio::test]
async fn a_report_whose_standings_moved_after_its_read_reads_again() {
    on_backend(Backend::Postgres, async {
        let (written, moved, gave_up) = report_while_standings_move(3).await;
        assert_eq!((written, moved, gave_up), (1, 1, 0));
    })
    .await;
}

/// With its tries used up, a report whose reads moved takes the
/// transaction, which writes it on the standings as they are.
#[tokio::test]
async fn a_report_out_of_tries_takes_the_transaction_and_rates_on_current_standings() {
    on_backend(Backend::Postgres, async {
        let (written, moved, gave_up) = report_while_standings_move(1).await;
        assert_eq!((written, moved, gave_up), (0, 1, 1));
    })
    .await;
}

/// A version that forfeits every game of a tournament with a forfeit
/// policy: its games go in one statement (each seat's tally kept there)
/// until the game that takes it past the tournament's maximum, which the
/// transaction records, suspending it at its tenth game as on SQLite.
#[tokio::test]
async fn the_game_that_suspends_a_version_takes_the_transaction() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
        let mut table = duel(&["a", "b"], 12);
        table.format.max_forfeit_rate = Some(crate::store::DEFAULT_MAX_FORFEIT_RATE);
        let tournament = test.store.create_tournament(&owner, &table).await.unwrap();
        let (runner, _) = test.store.register_runner("box").await.unwrap();
        while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
            let broken = lease.seats.iter().map(|seat| seat.bot_version_id).min();
            let mut report = report_by_strength(&lease, |id| id);
            for game in &mut report.games {
                for seat in &mut game.seats {
                    if Some(seat.bot_version_id) == broken {
                        seat.forfeit = Some(crate::store::Forfeit {
                            reason: cairn_engine::forfeit::ForfeitReason::Timeout,
                            detail: "too slow".into(),
                        });
                    }
                }
            }
            test.store.report_result(&runner, &report).await.unwrap();
        }
        let suspended: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT games, forfeits FROM tournament_suspensions WHERE tournament_id = $1",
        )
        .bind(tournament.id)
        .fetch_all(test.store.pool())
        .await
        .unwrap();
        assert_eq!(suspended, [(10, 10)]);
        let (written, _, _) = tries(&test.store).counts();
        assert!(written >= 8, "{written} games written in one statement");
        let tallied: Vec<i64> = sqlx::query_scalar(
            "SELECT games FROM forfeit_tallies WHERE tournament_id = $1 ORDER BY bot_version_id",
        )
        .bind(tournament.id)
        .fetch_all(test.store.pool())
        .await
        .unwrap();
        let recorded = count(&test.store, "results").await;
        assert_eq!(tallied, [recorded, recorded], "every seat tallied once");
    })
    .await;
}
