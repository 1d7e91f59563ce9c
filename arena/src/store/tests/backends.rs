//! What differs between the backends, and what several processes on one
//! PostgreSQL database must agree on.

use super::*;

/// Six runners, registered in turn with `first` and `second` (two arena
/// processes on one database), lease from their own store until nothing
/// is left and report every game to both stores at once, at least one of
/// which records it; each task gives the matches it played.
pub(crate) async fn runners_reporting_to_both(
    first: &Store,
    second: &Store,
) -> Vec<tokio::task::JoinHandle<Vec<i64>>> {
    let mut tasks = Vec::new();
    for index in 0..6 {
        let stores = [first.clone(), second.clone()];
        let (runner, _) = stores[index % 2]
            .register_runner(&format!("box-{index}"))
            .await
            .unwrap();
        tasks.push(tokio::spawn(async move {
            let mut played = Vec::new();
            let mine = &stores[index % 2];
            while let Some(lease) = mine.lease_match(&runner, LEASE_MS).await.unwrap() {
                let report = report_by_strength(&lease, |id| id);
                let (first, other) = tokio::join!(
                    stores[0].report_result(&runner, &report),
                    stores[1].report_result(&runner, &report)
                );
                let outcomes = [first.unwrap(), other.unwrap()];
                assert!(outcomes.contains(&ReportOutcome::Recorded), "{outcomes:?}");
                played.push(lease.match_id);
            }
            played
        }));
    }
    tasks
}

/// PostgreSQL only (two stores on one SQLite file are not two arena
/// processes).
/// Two stores on one database, as two arena processes: their runners race
/// for leases, and every report reaches both stores at once. Every match is
/// leased once, every game recorded once, and the ratings updated as the
/// reports arrived equal the ratings replayed serially in result order.
#[tokio::test]
async fn two_stores_on_one_database_never_share_a_match_and_rate_exactly() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let second = test.second_process().await;
        let names = ["a", "b", "c", "d", "e"];
        let owner = owner_with_bots(&test.store, "ada", &names).await;
        let tournament = test
            .store
            .create_tournament(&owner, &duel(&names, 2))
            .await
            .unwrap();
        let tasks = runners_reporting_to_both(&test.store, &second).await;
        let (played, planned) = played_and_planned(&test.store, tournament.id, tasks).await;
        assert_eq!(played, planned, "every match leased once, none twice");
        assert_eq!(count(&test.store, "results").await, 20, "every game once");
        let models = RatingModel::for_seats(2).len() as i64;
        assert_eq!(count(&test.store, "rating_history").await, 20 * 2 * models);
        let rows = assert_live_ratings_equal_a_serial_replay(&test, &second).await;
        assert!(rows.iter().all(|&rows| rows == names.len()), "{rows:?}");
    })
    .await;
}

/// PostgreSQL only: runners of two processes race for the leases of three
/// tournaments, one of them tiny, so that the fair tournament's queued
/// matches are often all being leased by others (the lease then takes the
/// oldest queued match anywhere). Every match is leased once, none twice.
#[tokio::test]
async fn racing_fair_leases_of_two_processes_take_every_match_of_every_tournament_once() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let second = test.second_process().await;
        let names = ["a", "b", "c", "d", "e"];
        let owner = owner_with_bots(&test.store, "ada", &names).await;
        for (seed, bots) in [(1, &names[..2]), (2, &names[..]), (3, &names[..4])] {
            let mut table = duel(bots, 2);
            table.seed = seed;
            test.store.create_tournament(&owner, &table).await.unwrap();
        }
        let mut tasks = Vec::new();
        for index in 0..8 {
            let store = [test.store.clone(), second.clone()][index % 2].clone();
            let (runner, _) = store
                .register_runner(&format!("box-{index}"))
                .await
                .unwrap();
            tasks.push(tokio::spawn(async move {
                let mut leased = Vec::new();
                while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
                    leased.push(lease.match_id);
                }
                leased
            }));
        }
        let mut leased = Vec::new();
        for task in tasks {
            leased.extend(task.await.unwrap());
        }
        let n_leased = leased.len();
        leased.sort_unstable();
        leased.dedup();
        assert_eq!(leased.len(), n_leased, "no match leased twice");
        assert_eq!(
            n_leased as i64,
            count(&test.store, "matches").await,
            "every match leased"
        );
    })
    .await;
}

/// PostgreSQL only (two stores on one SQLite file are not two arena
/// processes): a runner revoked through one store is refused a lease by
/// the other at once, though the other trusted its token a moment ago and
/// may not have heard of the revocation yet.
#[tokio::test]
async fn a_runner_revoked_by_another_process_is_refused_its_next_lease() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let other = test.second_process().await;
        let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
        test.store
            .create_tournament(&owner, &duel(&["a", "b"], 4))
            .await
            .unwrap();
        let (_, token) = test.store.register_runner("box-1").await.unwrap();
        let runner = test.store.runner_by_token(&token).await.unwrap();
        let lease = test.store.lease_match(&runner, LEASE_MS).await.unwrap();
        assert!(lease.is_some());
        assert_eq!(other.revoke_runner("box-1").await.unwrap(), 1);
        assert!(matches!(
            test.store.lease_match(&runner, LEASE_MS).await,
            Err(ArenaError::Unauthenticated(_))
        ));
        assert!(matches!(
            other.runner_by_token(&token).await,
            Err(ArenaError::Unauthenticated(_))
        ));
    })
    .await;
}

/// PostgreSQL only: the notification a lease writes in SQL reads back as
/// the one the store writes for the same touched match.
#[tokio::test]
async fn a_match_touch_notified_in_sql_reads_back_as_written() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let sql = format!(
            "SELECT {} FROM (SELECT CAST(7 AS BIGINT) AS t, CAST(3 AS BIGINT) AS i) AS m",
            super::backend::invalidate::match_payload_sql("$1", "m.t", "m.i")
        );
        let payload: String = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind("42")
            .fetch_one(test.store.pool())
            .await
            .unwrap();
        let touched = Touched::Only(vec![Touch::Match {
            tournament_id: 7,
            match_index: 3,
        }]);
        assert_eq!(
            super::backend::invalidate::parse(&payload),
            super::backend::invalidate::parse(&super::backend::invalidate::payload(42, &touched))
        );
        assert_eq!(
            super::backend::invalidate::parse(&payload),
            (Some(42), touched)
        );
    })
    .await;
}

/// PostgreSQL only (two stores on one SQLite file are not two arena
/// processes): a result recorded through one store wakes the other's
/// watchers and is in the other's next leaderboard read, though that board
/// was a snapshot.
#[tokio::test]
async fn a_result_recorded_by_another_process_reaches_this_ones_snapshots() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let other = test.second_process().await;
        let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
        test.store
            .create_tournament(&owner, &duel(&["a", "b"], 2))
            .await
            .unwrap();
        let query = LeaderboardQuery {
            game: TEST_DUEL.into(),
            options: GameOptions::new(),
            model: None,
        };
        assert!(test.store.leaderboard(&query).await.unwrap().is_empty());
        let mut changes = test.store.subscribe_changes();
        changes.borrow_and_update();
        let (runner, _) = other.register_runner("box-1").await.unwrap();
        let lease = other.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
        other
            .report_result(&runner, &report_by_strength(&lease, |id| id))
            .await
            .unwrap();
        let board = other.leaderboard(&query).await.unwrap();
        assert_eq!(board.len(), 2);
        // Every write of the other store wakes this one's watchers, its
        // lease too (as a lease wakes them in one process): the wake the
        // result's notification brings leaves this store's snapshot current.
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            tokio::time::timeout_at(deadline, changes.changed())
                .await
                .expect("the other store's result is heard")
                .unwrap();
            if test.store.leaderboard(&query).await.unwrap() == board {
                break;
            }
        }
    })
    .await;
}

both_backends! {
/// sqlx's SQLite driver binds `$N` by its number, as PostgreSQL does: a
/// placeholder used twice or out of order gets the right value.
async fn numbered_placeholders_bind_by_number_on_both_backends() {
    let test = test_store().await;
    let (difference, first, again): (i64, i64, i64) = sqlx::query_as("SELECT $2 - $1, $1, $2")
        .bind(10_i64)
        .bind(3_i64)
        .fetch_one(test.store.pool())
        .await
        .unwrap();
    assert_eq!((difference, first, again), (-7, 10, 3));
}
}

/// PostgreSQL only: a lease that another arena process is taking is
/// skipped, not waited for; when that process dies mid-transaction, its
/// half-taken lease is undone and the match is leased again.
#[tokio::test]
async fn a_lease_half_taken_by_a_killed_process_is_undone() {
    on_backend(Backend::Postgres, async {
        let Scenario { test, runner, .. } = Scenario::duel(&["a", "b", "c"], 2, "box-1").await;
        let Location::Postgres(url) = &test.location else {
            unreachable!("on PostgreSQL");
        };
        let mut dying = <sqlx::AnyConnection as sqlx::Connection>::connect(url)
            .await
            .unwrap();
        sqlx::raw_sql("BEGIN").execute(&mut dying).await.unwrap();
        let (taken, pid): (i64, i32) = sqlx::query_as(
            "UPDATE matches SET status = 'leased', lease_holder = NULL, lease_expires_at = 1 \
             WHERE id = (SELECT MIN(id) FROM matches) RETURNING id, pg_backend_pid()",
        )
        .fetch_one(&mut dying)
        .await
        .unwrap();
        let skipped = test
            .store
            .lease_match(&runner, LEASE_MS)
            .await
            .unwrap()
            .unwrap();
        assert_ne!(
            skipped.match_id, taken,
            "a locked match is skipped, not waited for"
        );
        let killed: super::Flag = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
            .bind(pid)
            .fetch_one(test.store.pool())
            .await
            .unwrap();
        assert!(killed.0);
        drop(dying);
        let mut leased = Vec::new();
        while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
            leased.push(lease.match_id);
        }
        assert!(
            leased.contains(&taken),
            "{leased:?} holds the undone lease's match"
        );
        assert_eq!(leased.len() as i64, count(&test.store, "matches").await - 1);
    })
    .await;
}

/// Every row a report writes is there and points where it should: seats,
/// ratings and their history under the game's own result, matches done.
#[tokio::test]
async fn a_report_writes_its_result_seats_ratings_history_and_match_done_together() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        on_backend(backend, async {
            let names = ["a", "b", "c"];
            let Scenario { test, tournament, runner, .. } =
                Scenario::duel(&names, 4, "box-1").await;
            while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
                let report = report_by_strength(&lease, |id| id);
                test.store.report_result(&runner, &report).await.unwrap();
            }
            let results = count(&test.store, "results").await;
            assert_eq!(results, 12);
            assert_eq!(count(&test.store, "result_seats").await, 2 * results);
            let models = RatingModel::for_seats(2).len() as i64;
            let history_of_own_seats: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM rating_history h JOIN results r ON r.id = h.result_id \
                 JOIN result_seats s ON s.game_id = r.game_id AND s.bot_version_id = h.bot_version_id",
            )
            .fetch_one(test.store.pool())
            .await
            .unwrap();
            assert_eq!(history_of_own_seats, 2 * models * results);
            assert_eq!(count(&test.store, "rating_history").await, history_of_own_seats);
            let unfinished: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM matches WHERE tournament_id = $1 \
                 AND (status <> 'done' OR finished_at IS NULL)",
            )
            .bind(tournament.id)
            .fetch_one(test.store.pool())
            .await
            .unwrap();
            assert_eq!(unfinished, 0);
            // Each bot's last change is its live rating, under every model.
            for model in RatingModel::for_seats(2) {
                let query = LeaderboardQuery {
                    game: TEST_DUEL.into(),
                    options: GameOptions::new(),
                    model: Some(*model),
                };
                for row in test.store.read_leaderboard(&query).await.unwrap() {
                    let last: f64 = sqlx::query_scalar(
                        "SELECT rating_after FROM rating_history WHERE model = $1 \
                         AND bot_version_id = $2 ORDER BY result_id DESC LIMIT 1",
                    )
                    .bind(model.id())
                    .bind(row.bot_version_id)
                    .fetch_one(test.store.pool())
                    .await
                    .unwrap();
                    assert_eq!(last, row.standing.rating.value, "{model:?} {}", row.bot_name);
                }
            }
        })
        .await;
    }
}

/// SQLite: the writer connection the write lock holds survives every way a
/// transaction ends. A body refused after its folded `BEGIN`, a batch that
/// fails before its folded `COMMIT`, and a transaction whose future is
/// dropped half-way each leave nothing written, and the next write works.
#[tokio::test]
async fn an_sqlite_write_that_fails_or_is_dropped_half_way_leaves_nothing_and_the_next_one_works() {
    let test = test_store().await;
    let owners = async || count(&test.store, "owners").await;
    let insert = |name: &str| {
        format!("INSERT INTO owners (name, token_hash, created_at) VALUES ('{name}', '{name}', 0)")
    };
    // Refused after the statement that opened the transaction.
    let refused = test
        .store
        .write_report(async |tx| {
            let sql = format!("{}{}", tx.begin_sql(), insert("refused"));
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **tx)
                .await?;
            Err::<(), _>(ArenaError::invalid("no"))
        })
        .await;
    assert!(matches!(refused, Err(ArenaError::InvalidArgument(_))));
    // A batch whose second statement fails never reaches its `COMMIT`.
    let failed = test
        .store
        .write_report(async |tx| {
            let sql = format!(
                "{}{}; INSERT INTO no_such_table VALUES (1){}",
                tx.begin_sql(),
                insert("failed"),
                tx.commit_sql()
            );
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **tx)
                .await?;
            Ok(())
        })
        .await;
    assert!(failed.is_err());
    // Dropped half-way, holding the write lock with a row written.
    let (written, wait) = tokio::sync::oneshot::channel();
    let hung = test.store.write(async |tx| {
        sqlx::raw_sql(sqlx::AssertSqlSafe(insert("dropped")))
            .execute(&mut **tx)
            .await?;
        let _ = written.send(());
        std::future::pending::<Result<(), ArenaError>>().await
    });
    tokio::select! {
        _ = hung => unreachable!("the write never ends"),
        _ = wait => {}
    }
    assert_eq!(owners().await, 0, "nothing of the three");
    // The next writes open, commit in their batch, and commit at the end.
    test.store
        .write_report(async |tx| {
            let sql = format!("{}{}{}", tx.begin_sql(), insert("folded"), tx.commit_sql());
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **tx)
                .await?;
            Ok(())
        })
        .await
        .unwrap();
    test.store.register_owner("ada").await.unwrap();
    assert_eq!(owners().await, 2);
}

/// Asserts that each duel model's live leaderboard equals the one `second`
/// recomputes from the history in result order; each board's row count.
pub(crate) async fn assert_live_ratings_equal_a_serial_replay(
    test: &TestStore,
    second: &Store,
) -> Vec<usize> {
    let mut rows = Vec::new();
    for model in RatingModel::for_seats(2) {
        let query = LeaderboardQuery {
            game: TEST_DUEL.into(),
            options: GameOptions::new(),
            model: Some(*model),
        };
        let live = test.store.leaderboard(&query).await.unwrap();
        rows.push(live.len());
        second
            .recompute_ratings(TEST_DUEL, &GameOptions::new())
            .await
            .unwrap();
        let fresh = test.second_process().await;
        assert_eq!(
            fresh.leaderboard(&query).await.unwrap(),
            live,
            "{model:?}: as replayed serially in result order"
        );
    }
    rows
}
