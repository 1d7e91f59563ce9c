//! Validation through the store: a version plays its validation matches
//! before it is ready, they are never rated or listed, and its first
//! forfeit fails it with the game and the reason.

use super::super::tests::{both_backends, duel, test_store, LEASE_MS};
use super::super::*;
use crate::testkit::{bot_archive, report_by_strength};

/// Leases and reports every waiting match, the first seat forfeiting in
/// each when `forfeit`; returns how many matches were played.
async fn play_validation(store: &Store, forfeit: bool) -> usize {
    let (runner, _) = store.register_runner("r1").await.unwrap();
    let mut played = 0;
    while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
        let mut report = report_by_strength(&lease, |_| 1);
        if forfeit {
            for game in &mut report.games {
                game.seats[0].forfeit = Some(Forfeit {
                    reason: cairn_engine::forfeit::ForfeitReason::ProtocolError,
                    detail: "`hello there` is not a message".into(),
                });
                game.stderr_tails = vec!["my debug print".into()];
            }
        }
        store.report_result(&runner, &report).await.unwrap();
        played += 1;
    }
    played
}

/// `store` validating new versions; the validation tables are real games,
/// whose made-up reports here pass (`verify.rs` re-referees real ones, as
/// the end-to-end tests show).
fn validating(store: &Store) -> Store {
    store
        .clone()
        .with_validation(Validation::On)
        .with_verifier(|_, _| Ok(()))
}

async fn ratings_rows(store: &Store) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM ratings")
        .fetch_one(store.pool())
        .await
        .unwrap()
}

both_backends! {
async fn a_version_is_ready_only_after_its_validation_games_which_are_never_rated() {
    let test = test_store().await;
    let store = validating(&test.store);
    let (owner, _) = store.register_owner("ada").await.unwrap();
    for bot in ["a", "b"] {
        let added = store.submit_bot_version(&owner, &bot_archive(bot, 1)).await.unwrap();
        assert_eq!(added.version.validation, ValidationState::Validating);
    }
    let refused = store.create_tournament(&owner, &duel(&["a", "b"], 2)).await.unwrap_err();
    assert!(refused.to_string().contains("still validating"), "{refused}");
    let tables = validation_tables(None).len();
    assert_eq!(play_validation(&store, false).await, 2 * tables);
    for bot in ["a", "b"] {
        let version = store.resolve_bot_version(bot).await.unwrap();
        assert_eq!(version.validation, ValidationState::Ready);
    }
    assert_eq!(ratings_rows(&store).await, 0);
    let listed = store.list_tournament_ids(&Page::from_request(0, "").unwrap()).await.unwrap();
    assert!(listed.items.is_empty(), "{:?}", listed.items);
    store.create_tournament(&owner, &duel(&["a", "b"], 2)).await.unwrap();
}

async fn a_forfeit_in_validation_fails_the_version_and_drops_its_other_tables() {
    let test = test_store().await;
    let store = validating(&test.store);
    let (owner, _) = store.register_owner("eve").await.unwrap();
    store.submit_bot_version(&owner, &bot_archive("noisy", 1)).await.unwrap();
    // The first table's forfeit fails it; the tables not yet leased go.
    assert_eq!(play_validation(&store, true).await, 1);
    let version = store.resolve_bot_version("noisy").await.unwrap();
    let ValidationState::Failed(failure) = version.validation else {
        panic!("{:?}", version.validation);
    };
    assert_eq!(failure.reason, "protocol_error");
    assert!(failure.detail.contains("hello there"), "{failure:?}");
    assert_eq!(failure.stderr_tail, "my debug print");
    assert!(failure.game_id.is_some());
    assert_eq!(ratings_rows(&store).await, 0);
    let refused = store.create_tournament(&owner, &duel(&["noisy"], 2)).await.unwrap_err();
    assert!(refused.to_string().contains("failed its validation"), "{refused}");
}

async fn an_owner_cannot_cancel_the_validation_of_their_version() {
    let test = test_store().await;
    let store = validating(&test.store);
    let (owner, _) = store.register_owner("eve").await.unwrap();
    store.submit_bot_version(&owner, &bot_archive("skipper", 1)).await.unwrap();
    let validation: i64 = sqlx::query_scalar("SELECT MIN(id) FROM tournaments")
        .fetch_one(store.pool())
        .await
        .unwrap();
    let refused = store.cancel_tournament(&owner, validation).await.unwrap_err();
    assert!(refused.to_string().contains("cannot be cancelled"), "{refused}");
    let version = store.resolve_bot_version("skipper").await.unwrap();
    assert_eq!(version.validation, ValidationState::Validating);
}
}
