use super::*;
use crate::store::tests::{both_backends, duel, owner_with_bots, test_store};

both_backends! {
async fn a_create_repeated_with_its_key_returns_the_first_tournament() {
    let kept = test_store().await;
    let test = kept.store.clone();
    let ada = owner_with_bots(&test, "ada", &["a", "b"]).await;
    let bob = owner_with_bots(&test, "bob", &["c", "d"]).await;
    let asked = duel(&["a", "b"], 2);
    let first = test.create_tournament_once(&ada, &asked, Some("key-1")).await.unwrap();
    let again = test.create_tournament_once(&ada, &asked, Some("key-1")).await.unwrap();
    assert_eq!(first, again);
    // Whatever the repeat asks: the key names the first request.
    let other = duel(&["a", "b"], 4);
    let third = test.create_tournament_once(&ada, &other, Some("key-1")).await.unwrap();
    assert_eq!(third.id, first.id);
    // Another key, another owner's same key, or none: new tournaments.
    let fresh = test.create_tournament_once(&ada, &asked, Some("key-2")).await.unwrap();
    let bobs = test
        .create_tournament_once(&bob, &duel(&["c", "d"], 2), Some("key-1"))
        .await
        .unwrap();
    let unkeyed = test.create_tournament(&ada, &asked).await.unwrap();
    let unkeyed_again = test.create_tournament(&ada, &asked).await.unwrap();
    let ids = [first.id, fresh.id, bobs.id, unkeyed.id, unkeyed_again.id];
    let mut distinct = ids.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 5, "{ids:?}");
    let listed = test.list_tournament_ids(&Page::first()).await.unwrap();
    assert_eq!(listed.items.len(), 5);
}
}

both_backends! {
async fn an_idempotency_key_is_short_printable_ascii() {
    let kept = test_store().await;
    let test = kept.store.clone();
    let ada = owner_with_bots(&test, "ada", &["a", "b"]).await;
    let asked = duel(&["a", "b"], 2);
    for bad in ["", "with space", "é", &"k".repeat(129)] {
        let refused = test.create_tournament_once(&ada, &asked, Some(bad)).await.unwrap_err();
        assert!(matches!(refused, ArenaError::InvalidArgument(_)), "{refused}");
        assert!(refused.to_string().len() < 200);
    }
    assert!(test.create_tournament_once(&ada, &asked, Some(&"k".repeat(128))).await.is_ok());
}
}
