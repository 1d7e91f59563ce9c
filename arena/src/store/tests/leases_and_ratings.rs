//! The store's leases, ratings and listings, on both backends.

use super::*;
use std::collections::HashMap;

both_backends! {
async fn ratings_updated_incrementally_equal_ratings_recomputed_from_history() {
    let Scenario { test, owner, runner, .. } =
        Scenario::duel(&["a", "b", "c", "d"], 4, "box-1").await;
    let mut table = duel(&["a", "b", "c", "d"], 6);
    (table.game, table.seats_per_game) = (TEST_TABLE.into(), 3);
    test.store.create_tournament(&owner, &table).await.unwrap();
    play_everything(&test.store, &runner).await;
    for (game, model) in [
        (TEST_DUEL, RatingModel::Glicko2),
        (TEST_DUEL, RatingModel::Elo),
        (TEST_TABLE, RatingModel::WengLin),
    ] {
        let query = LeaderboardQuery {
            game: game.into(),
            options: GameOptions::new(),
            model: Some(model),
        };
        let incremental = test.store.leaderboard(&query).await.unwrap();
        let names: Vec<&str> = incremental
            .iter()
            .map(|row| row.bot_name.as_str())
            .collect();
        assert_eq!(
            names,
            ["d", "c", "b", "a"],
            "{model:?}: the strongest (latest registered) bot leads"
        );
        test.store
            .recompute_ratings(game, &GameOptions::new())
            .await
            .unwrap();
        assert_eq!(
            test.store.leaderboard(&query).await.unwrap(),
            incremental,
            "{model:?}"
        );
    }
    let duel_board = test
        .store
        .leaderboard(&LeaderboardQuery {
            game: TEST_DUEL.into(),
            options: GameOptions::new(),
            model: None,
        })
        .await
        .unwrap();
    assert_eq!(duel_board[0].model, RatingModel::Glicko2);
    assert_eq!(
        (
            duel_board[0].standing.games,
            duel_board[0].standing.wins,
            duel_board[3].standing.losses
        ),
        (12, 12, 12)
    );
    assert!(duel_board.iter().all(|row| !row.provisional));
}
}

#[tokio::test]
async fn without_a_test_check_games_are_checked_against_the_engine() {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(folder.path().join("arena.db"), StoreOptions::default())
        .await
        .unwrap();
    let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
    let mut request = duel(&["a", "b"], 2);
    request.game = "no-such-game".into();
    let refused = store.create_tournament(&owner, &request).await;
    assert!(
        matches!(refused, Err(ArenaError::Game(cairn_engine::SetupError::UnknownGame(ref game))) if game == "no-such-game"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_reopened_store_keeps_its_leases_and_requeues_them_when_they_expire() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("arena.db");
    let clock = ManualClock::starting_at(5_000);
    let open = || async {
        Store::open(
            &path,
            StoreOptions {
                clock: Arc::new(clock.clone()),
                game_check: test_game_check,
                verifier: test_verifier,
                ..StoreOptions::default()
            },
        )
        .await
        .unwrap()
    };
    let store = open().await;
    let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
    let tournament = store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (runner, token) = store.register_runner("box-1").await.unwrap();
    let lost = store.lease_match(&runner, 1_000).await.unwrap().unwrap();
    // No orderly close: the process is gone and another opens the file.
    drop(store);
    let store = open().await;
    let runner = store.runner_by_token(&token).await.unwrap();
    let progress = store.tournament_progress(tournament.id).await.unwrap();
    assert_eq!((progress.matches_leased, progress.matches_queued), (1, 1));
    clock.advance_ms(1_000);
    let mut leased = Vec::new();
    while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
        store
            .report_result(&runner, &report_by_strength(&lease, |id| id))
            .await
            .unwrap();
        leased.push(lease.match_id);
    }
    leased.sort_unstable();
    assert!(
        leased.contains(&lost.match_id) && leased.len() == 2,
        "{leased:?}"
    );
    let progress = store.tournament_progress(tournament.id).await.unwrap();
    assert_eq!((progress.games_done, progress.games_total), (2, 2));
}

both_backends! {
async fn each_variant_has_its_own_leaderboard() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    let (runner, _) = test.store.register_runner("box-1").await.unwrap();
    let mut fast = duel(&["a", "b"], 2);
    fast.options.insert("fast".into(), "true".into());
    test.store.create_tournament(&owner, &fast).await.unwrap();
    play_everything(&test.store, &runner).await;
    let board = |options: GameOptions| LeaderboardQuery {
        game: TEST_DUEL.into(),
        options,
        model: None,
    };
    assert_eq!(
        test.store
            .leaderboard(&board(fast.options.clone()))
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(test
        .store
        .leaderboard(&board(GameOptions::new()))
        .await
        .unwrap()
        .is_empty());
}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_runners_play_every_match_exactly_once() {
    let test = test_store().await;
    let names = ["a", "b", "c", "d", "e", "f"];
    let owner = owner_with_bots(&test.store, "ada", &names).await;
    let tournament = test
        .store
        .create_tournament(&owner, &duel(&names, 2))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for index in 0..4 {
        let store = test.store.clone();
        let (runner, _) = store
            .register_runner(&format!("box-{index}"))
            .await
            .unwrap();
        tasks.push(tokio::spawn(async move {
            let mut played = Vec::new();
            while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
                assert_eq!(
                    store
                        .report_result(&runner, &report_by_strength(&lease, |id| id))
                        .await
                        .unwrap(),
                    ReportOutcome::Recorded
                );
                played.push(lease.match_id);
            }
            played
        }));
    }
    let (played, planned) = played_and_planned(&test.store, tournament.id, tasks).await;
    assert_eq!(played, planned, "every match once, none twice");
    assert_eq!(count(&test.store, "results").await, 30);
}

both_backends! {
async fn a_revoked_runner_is_refused_at_once_and_its_leases_go_back_to_the_queue() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    test.store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (bad, bad_token) = test.store.register_runner("box-1").await.unwrap();
    let (good, good_token) = test.store.register_runner("box-2").await.unwrap();
    let lease = test
        .store
        .lease_match(&bad, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    // A lease belongs to the runner that took it.
    assert!(matches!(
        test.store
            .heartbeat(&good, lease.match_id, lease.lease_generation, LEASE_MS)
            .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    assert!(matches!(
        test.store
            .report_result(&good, &report_by_strength(&lease, |id| id))
            .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    assert_eq!(test.store.revoke_runner("box-1").await.unwrap(), 1);
    assert!(matches!(
        test.store.runner_by_token(&bad_token).await,
        Err(ArenaError::Unauthenticated(_))
    ));
    let listed = test.store.list_runners().await.unwrap();
    assert!(listed[0].revoked_at.is_some() && listed[1].revoked_at.is_none());
    // The match it held is leased again, by the other runner, at once.
    let retaken = test
        .store
        .lease_match(&good, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(retaken.match_id, lease.match_id);
    assert!(matches!(
        test.store
            .report_result(&bad, &report_by_strength(&lease, |id| id))
            .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    // A report checks its token in its first read: a revoked or unknown
    // token hears nothing else, not even that no such match exists.
    let game = &report_by_strength(&retaken, |id| id).games[0];
    let by_token = async |token: &str, match_id: i64| {
        test.store
            .report_game_with_token(token, match_id, retaken.lease_generation, game)
            .await
    };
    for (token, match_id) in [
        (bad_token.as_str(), retaken.match_id),
        (bad_token.as_str(), -1),
        ("no-such-token", retaken.match_id),
    ] {
        assert!(
            matches!(
                by_token(token, match_id).await,
                Err(ArenaError::Unauthenticated("runner"))
            ),
            "{token} {match_id}"
        );
    }
    assert!(matches!(
        by_token(&good_token, -1).await,
        Err(ArenaError::NotFound { .. })
    ));
    let recorded = by_token(&good_token, retaken.match_id).await.unwrap();
    assert_eq!(recorded.outcome, ReportOutcome::Recorded);
    let recorded_by: i64 = sqlx::query_scalar("SELECT runner_id FROM results")
        .fetch_one(test.store.pool())
        .await
        .unwrap();
    assert_eq!(recorded_by, good.id);
    assert!(matches!(
        test.store.revoke_runner("nobody").await,
        Err(ArenaError::NotFound { .. })
    ));
}
}

both_backends! {
async fn matches_are_listed_a_page_at_a_time_with_their_results() {
    let Scenario { test, tournament, runner, .. } =
        Scenario::duel(&["a", "b", "c", "d"], 4, "box-1").await;
    let lease = test
        .store
        .lease_match(&runner, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    test.store
        .report_result(&runner, &report_by_strength(&lease, |id| id))
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut page = Page {
        size: 5,
        after: None,
    };
    loop {
        let got = test.store.list_matches(tournament.id, &page).await.unwrap();
        assert!(got.items.len() <= 5);
        seen.extend(got.items);
        match got.next_page_token {
            Some(token) => page = Page::from_request(5, &token).unwrap(),
            None => break,
        }
    }
    let indices: Vec<i64> = seen.iter().map(|m| m.match_index).collect();
    assert_eq!(indices, (0..seen.len() as i64).collect::<Vec<_>>());
    assert_eq!(seen.len() as i64, count(&test.store, "matches").await);
    for summary in &seen {
        assert_eq!(summary.seats.len(), 2);
        let reported = summary.id == lease.match_id;
        assert!(summary
            .games
            .iter()
            .all(|game| game.result.len() == if reported { 2 } else { 0 }));
        assert_eq!(summary.games.len(), lease.games.len());
    }
    let mut bots = Vec::new();
    let mut page = Page::<String> {
        size: 3,
        after: None,
    };
    loop {
        let got = test.store.list_bots(&page).await.unwrap();
        bots.extend(got.items.into_iter().map(|bot| bot.name));
        match got.next_page_token {
            Some(token) => page = Page::from_request(3, &token).unwrap(),
            None => break,
        }
    }
    assert_eq!(bots, ["a", "b", "c", "d"]);
}
}

both_backends! {
/// Leases spread over the tournaments waiting: each goes to the tournament
/// with the fewest matches leased (the oldest on a tie), its oldest queued
/// match first, and a tournament with nothing queued is passed over.
async fn each_lease_goes_to_the_tournament_with_the_fewest_matches_leased() {
    let test = test_store().await;
    let names = ["a", "b", "c", "d"];
    let owner = owner_with_bots(&test.store, "ada", &names).await;
    let (runner, _) = test.store.register_runner("box").await.unwrap();
    // The oldest tournament has the fewest matches: it runs dry first.
    let mut tournaments = Vec::new();
    for (seed, bots) in [(1, &names[..2]), (2, &names[..]), (3, &names[..])] {
        let mut table = duel(bots, 2);
        table.seed = seed;
        let created = test.store.create_tournament(&owner, &table).await.unwrap();
        tournaments.push(created.id);
    }
    let mut leases = Vec::new();
    while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
        leases.push(lease);
    }
    let mut leased: HashMap<i64, Vec<i64>> = HashMap::new();
    for lease in &leases {
        leased.entry(lease.tournament_id).or_default().push(lease.match_id);
    }
    let in_first = leased[&tournaments[0]].len();
    let served: Vec<i64> = leases.iter().map(|lease| lease.tournament_id).collect();
    let mut expected = Vec::new();
    for round in 0..leases.len() {
        for (index, tournament) in tournaments.iter().enumerate() {
            if index > 0 || round < in_first {
                expected.push(*tournament);
            }
        }
    }
    expected.truncate(leases.len());
    assert_eq!(served, expected, "round by round, the dry tournament dropping out");
    for matches in leased.values() {
        assert!(matches.is_sorted(), "a tournament's matches go oldest first");
    }
    assert!(in_first >= 1 && leased[&tournaments[1]].len() > in_first);
}
}
