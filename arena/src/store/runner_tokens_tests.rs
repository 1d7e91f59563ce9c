use super::*;
use crate::store::tests::{both_backends, test_store};

const FIRST: &str = "first-shared-token-0123456789";
const SECOND: &str = "second-shared-token-0123456789";

both_backends! {
async fn a_new_token_for_the_shared_runner_replaces_the_old_one() {
    let kept = test_store().await;
    let test = kept.store.clone();
    let made = test.keep_shared_runner(SHARED_RUNNER, Some(FIRST)).await.unwrap();
    assert_eq!(made, SharedRunner::Made(FIRST.to_string()));
    let runner = test.runner_by_token(FIRST).await.unwrap();
    assert_eq!(
        test.keep_shared_runner(SHARED_RUNNER, Some(FIRST)).await.unwrap(),
        SharedRunner::Kept
    );
    assert_eq!(
        test.keep_shared_runner(SHARED_RUNNER, Some(SECOND)).await.unwrap(),
        SharedRunner::Replaced
    );
    // The same runner (its history stays), only the new token opens it.
    assert_eq!(test.runner_by_token(SECOND).await.unwrap(), runner);
    let refused = test.runner_by_token(FIRST).await.unwrap_err();
    assert!(matches!(refused, ArenaError::Unauthenticated(_)), "{refused}");
    assert_eq!(test.list_runners().await.unwrap().len(), 1);
}
}

both_backends! {
async fn a_start_without_a_token_makes_the_shared_runner_once_and_then_keeps_it() {
    let kept = test_store().await;
    let test = kept.store.clone();
    let SharedRunner::Made(token) = test.keep_shared_runner(SHARED_RUNNER, None).await.unwrap()
    else {
        panic!("no runner was made");
    };
    for _ in 0..3 {
        assert_eq!(
            test.keep_shared_runner(SHARED_RUNNER, None).await.unwrap(),
            SharedRunner::Kept
        );
    }
    assert_eq!(test.list_runners().await.unwrap().len(), 1);
    assert!(test.runner_by_token(&token).await.is_ok());
}
}

both_backends! {
async fn a_revoked_runners_name_can_be_given_again_and_its_history_stays() {
    let kept = test_store().await;
    let test = kept.store.clone();
    let (old, old_token) = test.register_runner("box-1").await.unwrap();
    test.revoke_runner("box-1").await.unwrap();
    let (new, new_token) = test.register_runner("box-1").await.unwrap();
    assert_ne!(old.id, new.id);
    assert!(test.runner_by_token(&old_token).await.is_err());
    assert_eq!(test.runner_by_token(&new_token).await.unwrap(), new);
    let listed: Vec<(String, bool)> = test
        .list_runners()
        .await
        .unwrap()
        .into_iter()
        .map(|runner| (runner.name, runner.revoked_at.is_some()))
        .collect();
    let renamed = format!("box-1~revoked-{}", old.id);
    assert!(listed.contains(&("box-1".to_string(), false)), "{listed:?}");
    assert!(listed.contains(&(renamed, true)), "{listed:?}");
    // The shared runner too, revoked: a start with a token makes it again.
    test.keep_shared_runner(SHARED_RUNNER, Some(FIRST)).await.unwrap();
    test.revoke_runner(SHARED_RUNNER).await.unwrap();
    assert_eq!(
        test.keep_shared_runner(SHARED_RUNNER, Some(SECOND)).await.unwrap(),
        SharedRunner::Made(SECOND.to_string())
    );
    // A revoked token is never taken back, nor another runner's.
    let refused = test.keep_shared_runner(SHARED_RUNNER, Some(FIRST)).await.unwrap_err();
    assert!(refused.to_string().contains("a revoked runner"), "{refused}");
    let refused = test.keep_shared_runner(SHARED_RUNNER, Some(&new_token)).await.unwrap_err();
    assert!(refused.to_string().contains("`box-1`"), "{refused}");
    assert!(test.runner_by_token(SECOND).await.is_ok());
}
}

both_backends! {
async fn a_runner_is_seen_when_it_leases_and_when_it_heartbeats() {
    use crate::store::tests::{Scenario, LEASE_MS};
    let Scenario { test: kept, runner, .. } = Scenario::duel(&["a", "b"], 2, "box-1").await;
    let test = kept.store.clone();
    let seen = async || test.list_runners().await.unwrap()[0].last_seen_at;
    assert_eq!(seen().await, None);
    let lease = test.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    let leased_at = seen().await.expect("seen when it leased");
    kept.clock.advance_ms(crate::store::leases::SIGHTING_MS + 1);
    test.heartbeat(&runner, lease.match_id, lease.lease_generation, LEASE_MS)
        .await
        .unwrap();
    assert!(seen().await.expect("seen") > leased_at);
}
}
