//! The deal secret in a real store, on both backends: leases carry deal
//! seeds that are not the listed ones, reports verify against them, and
//! every process on one database deals alike.

use std::collections::HashMap;

use super::*;
use crate::error::ArenaError;
use crate::store::tests::{both_backends, owner_with_bots, test_store, LEASE_MS};
use crate::store::{engine_game_check, NewTournament, Page, ReportOutcome};
use crate::testkit::played_game_report;
use crate::verify::{verify_game, PlannedGame};

/// A real two-seat game, two deals per table, so reports are re-refereed
/// by the engine.
fn schotten_totten(bots: &[&str]) -> NewTournament {
    NewTournament {
        game: "schotten-totten".into(),
        options: Default::default(),
        bots: bots.iter().map(|bot| bot.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing: 4,
        seed: 7,
        format: Default::default(),
    }
}

/// The planned seeds `ListMatches` shows anyone, by game id.
async fn listed_seeds(store: &Store, tournament_id: i64) -> HashMap<i64, u64> {
    store
        .list_matches(tournament_id, &Page::first())
        .await
        .unwrap()
        .items
        .iter()
        .flat_map(|summary| summary.games.iter().map(|game| (game.game_id, game.seed)))
        .collect()
}

/// `store` checking games and re-refereeing reports with the engine.
fn refereed(store: &Store) -> Store {
    store
        .clone()
        .with_game_check(engine_game_check)
        .with_verifier(verify_game)
}

both_backends! {
async fn a_lease_carries_deal_seeds_not_the_listed_ones_and_its_report_verifies() {
    let test = test_store().await;
    let store = refereed(&test.store);
    let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
    let tournament = store
        .create_tournament(&owner, &schotten_totten(&["a", "b"]))
        .await
        .unwrap();
    let listed = listed_seeds(&store, tournament.id).await;
    let (runner, _) = store.register_runner("r1").await.unwrap();
    let mut leased = 0;
    while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
        for game in &lease.games {
            let planned_seed = listed[&game.game_id];
            assert_ne!(game.seed, planned_seed, "the lease deals the listed seed");
            assert_eq!(game.seed, store.deal_seed(tournament.id, planned_seed));
            let planned = crate::testkit::planned_from_lease(&lease, game);
            // A runner (or a bot's table) that played the listed seed is
            // refused, with nothing written.
            let on_listed = played_game_report(&PlannedGame {
                seed: planned_seed,
                ..planned.clone()
            });
            let refused = store
                .report_game(&runner, lease.match_id, lease.lease_generation, &on_listed)
                .await;
            assert!(
                matches!(refused, Err(ArenaError::InvalidArgument(ref message)) if message.contains("seed")),
                "{refused:?}"
            );
            let honest = played_game_report(&planned);
            let recorded = store
                .report_game(&runner, lease.match_id, lease.lease_generation, &honest)
                .await
                .unwrap();
            assert_eq!(recorded.outcome, ReportOutcome::Recorded);
            leased += 1;
        }
    }
    assert_eq!(leased, 4, "every planned game was leased and recorded");
    // The plan still lists what the owner's seed planned.
    assert_eq!(listed_seeds(&store, tournament.id).await, listed);
}
}

both_backends! {
async fn every_store_on_one_database_deals_under_one_secret_and_no_other_does() {
    let test = test_store().await;
    let second = test.second_process().await;
    assert_eq!(second.deal_secret, test.store.deal_secret);
    // A logged store shows no secret.
    let shown = format!("{:?}", test.store);
    assert!(!shown.contains(&test.store.deal_secret.to_hex()));
    assert!(shown.contains("DealSecret(..)"), "{shown}");
    assert_eq!(second.deal_seed(1, 7), test.store.deal_seed(1, 7));
    let elsewhere = test_store().await;
    assert_ne!(elsewhere.store.deal_secret, test.store.deal_secret);
    assert_ne!(elsewhere.store.deal_seed(1, 7), test.store.deal_seed(1, 7));
    // A fixed secret is the same everywhere (the demo's).
    let demo = |store: &Store| store.clone().with_deal_secret(DealSecret::DEMO).deal_seed(1, 7);
    assert_eq!(demo(&test.store), demo(&elsewhere.store));
}
}

both_backends! {
async fn two_stores_making_the_first_secret_at_once_keep_the_first_written() {
    let test = test_store().await;
    let second = test.second_process().await;
    sqlx::query("DELETE FROM deal_secret")
        .execute(test.store.backend.writer())
        .await
        .unwrap();
    let (first, other) = tokio::join!(
        load_or_make(test.store.backend.writer()),
        load_or_make(second.backend.writer())
    );
    let (first, other) = (first.unwrap(), other.unwrap());
    assert_eq!(first, other);
    assert_ne!(first, test.store.deal_secret, "a new secret was made");
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM deal_secret")
        .fetch_one(test.store.backend.writer())
        .await
        .unwrap();
    assert_eq!(rows, 1);
}
}

both_backends! {
async fn solo_boards_deal_every_entry_the_same_unlisted_deals() {
    let test = test_store().await;
    let store = refereed(&test.store);
    let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
    let solo = NewTournament {
        game: "bullfrogs".into(),
        options: [("solo".to_string(), "true".to_string())].into(),
        seats_per_game: 1,
        games_per_pairing: 2,
        ..schotten_totten(&["a", "b"])
    };
    let tournament = store.create_tournament(&owner, &solo).await.unwrap();
    let listed = listed_seeds(&store, tournament.id).await;
    let (runner, _) = store.register_runner("r1").await.unwrap();
    let mut deals = Vec::new();
    while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
        let dealt: Vec<u64> = lease.games.iter().map(|game| game.seed).collect();
        for game in &lease.games {
            assert_ne!(game.seed, listed[&game.game_id], "a solo deal is listed");
            let planned = store
                .planned_result(lease.match_id, game.game_index)
                .await
                .unwrap()
                .planned;
            assert_eq!(planned.seed, game.seed, "verified on the leased deal");
            store
                .report_game(
                    &runner,
                    lease.match_id,
                    lease.lease_generation,
                    &played_game_report(&planned),
                )
                .await
                .unwrap();
        }
        deals.push(dealt);
    }
    assert_eq!(deals.len(), 2);
    assert_eq!(deals[0], deals[1], "every entry plays the same deals");
}
}
