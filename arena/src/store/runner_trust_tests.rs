use super::*;
use crate::store::tests::{both_backends, duel, owner_with_bots, test_store, LEASE_MS};

both_backends! {
async fn a_runner_fetches_only_the_bots_of_the_matches_it_holds() {
    let kept = test_store().await;
    let test = kept.store.clone();
    let owner = owner_with_bots(&test, "ada", &["a", "b"]).await;
    test.create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (holder, _) = test.register_runner("box-1").await.unwrap();
    let (stranger, _) = test.register_runner("box-2").await.unwrap();
    let hash = {
        let lease = test.lease_match(&holder, LEASE_MS).await.unwrap().unwrap();
        lease.seats[0].content_hash.clone()
    };
    assert!(!test.artifact_for_runner(&holder, &hash).await.unwrap().is_empty());
    let refused = test.artifact_for_runner(&stranger, &hash).await.unwrap_err();
    assert!(matches!(refused, ArenaError::PermissionDenied(_)), "{refused}");
    assert!(refused.to_string().contains("`box-2` holds no match"), "{refused}");
    // A made-up hash is refused the same way, quoted by a bounded prefix.
    let long = "f".repeat(100_000);
    let refused = test.artifact_for_runner(&holder, &long).await.unwrap_err();
    assert!(refused.to_string().len() < 400, "{}", refused.to_string().len());
}
}

both_backends! {
async fn a_lease_that_expired_no_longer_opens_its_bots() {
    let kept = test_store().await;
    let test = kept.store.clone();
    let owner = owner_with_bots(&test, "ada", &["a", "b"]).await;
    test.create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (holder, _) = test.register_runner("box-1").await.unwrap();
    let lease = test.lease_match(&holder, LEASE_MS).await.unwrap().unwrap();
    kept.clock.advance_ms(LEASE_MS + 1);
    let refused = test
        .artifact_for_runner(&holder, &lease.seats[0].content_hash)
        .await
        .unwrap_err();
    assert!(matches!(refused, ArenaError::PermissionDenied(_)), "{refused}");
}
}
