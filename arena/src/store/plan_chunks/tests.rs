use crate::plan::plan_round_robin;
use crate::store::tests::{both_backends, count, duel, owner_with_bots, test_store, LEASE_MS};
use crate::store::Page;

both_backends! {
async fn a_large_plan_is_written_in_chunks_exactly_as_planned() {
    let kept = test_store().await;
    let store = &kept.store;
    let owner = owner_with_bots(store, "ada", &["a", "b", "c"]).await;
    // 3 pairs x 2 seatings, 2,500 games each seating: chunks split matches.
    let tournament = store
        .create_tournament(&owner, &duel(&["a", "b", "c"], 5_000))
        .await
        .unwrap();
    assert_eq!(count(store, "matches").await, 6);
    assert_eq!(count(store, "games").await, 15_000);
    let plan = plan_round_robin(3, 2, 5_000, 7).unwrap();
    let matches = store
        .list_matches(
            tournament.id,
            &Page {
                size: 10,
                after: None,
            },
        )
        .await
        .unwrap()
        .items;
    for (summary, planned) in matches.iter().zip(&plan) {
        assert_eq!(summary.status, "queued");
        let seeds: Vec<u64> = summary.games.iter().map(|game| game.seed).collect();
        assert_eq!(seeds, planned.game_seeds);
    }
}
}

both_backends! {
async fn planning_cut_short_by_a_restart_is_resumed_exactly_and_half_matches_are_never_leased() {
    let kept = test_store().await;
    let store = &kept.store;
    let owner = owner_with_bots(store, "ada", &["a", "b"]).await;
    let tournament = store
        .create_tournament(&owner, &duel(&["a", "b"], 4_000))
        .await
        .unwrap();
    // Cut the plan as a crash between chunks would: the second match lost
    // its last 1,500 games and is still being written.
    let second: i64 =
        sqlx::query_scalar("SELECT id FROM matches WHERE tournament_id = $1 AND match_index = 1")
            .bind(tournament.id)
            .fetch_one(store.pool())
            .await
            .unwrap();
    sqlx::query("DELETE FROM games WHERE match_id = $1 AND game_index >= 500")
        .bind(second)
        .execute(store.pool())
        .await
        .unwrap();
    sqlx::query("UPDATE matches SET status = 'leased' WHERE id = $1")
        .bind(second)
        .execute(store.pool())
        .await
        .unwrap();
    sqlx::query("UPDATE tournaments SET planning_done = 0 WHERE id = $1")
        .bind(tournament.id)
        .execute(store.pool())
        .await
        .unwrap();
    assert!(!store
        .tournament_progress(tournament.id)
        .await
        .unwrap()
        .finished());
    let (runner, _) = store.register_runner("box-1").await.unwrap();
    let first = store.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    assert_ne!(first.match_id, second);
    assert!(store
        .lease_match(&runner, LEASE_MS)
        .await
        .unwrap()
        .is_none());
    if store.backend.is_shared() {
        // Two arena processes restarting at once: one plans, the other
        // waits for it (or starts after it) and finds nothing missing,
        // whichever reads the unfinished tournaments first.
        let other = kept.second_process().await;
        let (mine, theirs) = tokio::join!(store.resume_planning(), other.resume_planning());
        let mut finished = [mine.unwrap(), theirs.unwrap()];
        finished.sort_unstable();
        assert_eq!(finished, [0, 1]);
    } else {
        assert_eq!(store.resume_planning().await.unwrap(), 1);
    }
    assert_eq!(count(store, "games").await, 4_000);
    let resumed = store.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    assert_eq!(resumed.match_id, second);
    let plan = plan_round_robin(2, 2, 4_000, 7).unwrap();
    let seeds: Vec<u64> = resumed.games.iter().map(|game| game.seed).collect();
    let dealt: Vec<u64> = plan[1]
        .game_seeds
        .iter()
        .map(|&seed| store.deal_seed(tournament.id, seed))
        .collect();
    assert_eq!(seeds, dealt);
    assert_eq!(store.resume_planning().await.unwrap(), 0);
}
}
