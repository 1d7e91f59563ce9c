use super::*;
use crate::store::tests::{both_backends, duel, Scenario, LEASE_MS};
use crate::store::Page;

both_backends! {
async fn a_runner_fetches_only_the_bots_of_the_matches_it_holds() {
    let Scenario { test: kept, runner: holder, .. } =
        Scenario::duel(&["a", "b"], 2, "box-1").await;
    let test = kept.store.clone();
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
    let Scenario { test: kept, runner: holder, .. } =
        Scenario::duel(&["a", "b"], 2, "box-1").await;
    let test = kept.store.clone();
    let lease = test.lease_match(&holder, LEASE_MS).await.unwrap().unwrap();
    kept.clock.advance_ms(LEASE_MS + 1);
    let refused = test
        .artifact_for_runner(&holder, &lease.seats[0].content_hash)
        .await
        .unwrap_err();
    assert!(matches!(refused, ArenaError::PermissionDenied(_)), "{refused}");
}
}

both_backends! {
async fn one_runners_give_backs_alone_never_give_a_match_up_while_another_is_active() {
    let Scenario { test: kept, tournament, runner: forger, .. } =
        Scenario::duel(&["a", "b"], 2, "forger").await;
    let test = kept.store.clone().with_max_attempts(2);
    let (honest, _) = test.register_runner("honest").await.unwrap();
    let first = test.lease_match(&forger, LEASE_MS).await.unwrap().unwrap();
    // The honest runner is active: it holds the other match.
    let other = test.lease_match(&honest, LEASE_MS).await.unwrap().unwrap();
    assert_ne!(other.match_id, first.match_id);
    let mut lease = first.clone();
    for _ in 0..4 {
        let given = test
            .give_back_match(&forger, lease.match_id, lease.lease_generation, "made up")
            .await
            .unwrap();
        assert!(!given.failed, "one runner gave it up: {given:?}");
        lease = test.lease_match(&forger, LEASE_MS).await.unwrap().unwrap();
        assert_eq!(lease.match_id, first.match_id);
    }
    test.give_back_match(&forger, lease.match_id, lease.lease_generation, "made up")
        .await
        .unwrap();
    // The second runner's give-back confirms it.
    let second = test.lease_match(&honest, LEASE_MS).await.unwrap().unwrap();
    assert_eq!(second.match_id, first.match_id);
    let given = test
        .give_back_match(&honest, second.match_id, second.lease_generation, "disk full")
        .await
        .unwrap();
    assert!(given.failed, "{given:?}");
    let matches = test.list_matches(tournament.id, &Page::first()).await.unwrap().items;
    let failed = matches.iter().find(|m| m.id == first.match_id).unwrap();
    assert_eq!(failed.status, "failed");
    assert!(!failed.failure.as_deref().unwrap().contains("alone"), "{failed:?}");
}
}

both_backends! {
async fn a_lone_runner_still_gives_a_match_up_and_says_it_was_alone() {
    let Scenario { test: kept, tournament, runner: lone, .. } =
        Scenario::duel(&["a", "b"], 2, "lone").await;
    let test = kept.store.clone().with_max_attempts(1);
    // Registered, revoked, or silent for long: none of these can confirm.
    let (revoked, _) = test.register_runner("revoked").await.unwrap();
    let (_silent, _) = test.register_runner("silent").await.unwrap();
    let held = test.lease_match(&revoked, LEASE_MS).await.unwrap().unwrap();
    test.revoke_runner("revoked").await.unwrap();
    kept.clock.advance_ms(LEASE_MS + 1);
    let lease = test.lease_match(&lone, LEASE_MS).await.unwrap().unwrap();
    assert_eq!(lease.match_id, held.match_id);
    let given = test
        .give_back_match(&lone, lease.match_id, lease.lease_generation, "no space left")
        .await
        .unwrap();
    assert!(given.failed, "{given:?}");
    let matches = test.list_matches(tournament.id, &Page::first()).await.unwrap().items;
    let failure = matches
        .iter()
        .find(|m| m.id == lease.match_id)
        .and_then(|m| m.failure.clone())
        .unwrap();
    assert!(failure.contains("runner `lone` alone"), "{failure}");
}
}

both_backends! {
async fn a_build_failure_of_a_version_without_a_build_is_refused_and_changes_nothing() {
    let Scenario { test: kept, runner, .. } =
        Scenario::duel(&["a", "b"], 2, "forger").await;
    let test = kept.store.clone();
    let lease = test.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
    let victim = lease.seats[0].bot_version_id;
    let refused = test
        .report_build_failure(&runner, lease.match_id, lease.lease_generation, victim, "lies")
        .await
        .unwrap_err();
    assert!(matches!(refused, ArenaError::InvalidArgument(_)), "{refused}");
    assert!(refused.to_string().contains("no build command"), "{refused}");
    assert_eq!(broken_versions(&test).await, 0);
    // The lease is untouched: the runner can still report the match.
    test.heartbeat(&runner, lease.match_id, lease.lease_generation, LEASE_MS)
        .await
        .unwrap();
}
}

both_backends! {
async fn a_build_failure_breaks_a_version_only_when_a_second_runner_confirms_it() {
    let Scenario { test: kept, runner: forger, .. } =
        Scenario::built(&["a", "b"], &duel(&["a", "b"], 2), "forger").await;
    let test = kept.store.clone();
    let (honest, _) = test.register_runner("honest").await.unwrap();
    let first = test.lease_match(&forger, LEASE_MS).await.unwrap().unwrap();
    let other = test.lease_match(&honest, LEASE_MS).await.unwrap().unwrap();
    let victim = first.seats[0].bot_version_id;
    let ended = test
        .report_build_failure(&forger, first.match_id, first.lease_generation, victim, "lies")
        .await
        .unwrap();
    assert_eq!(ended, 0, "one runner's word ended matches");
    assert_eq!(broken_versions(&test).await, 0);
    // The same runner saying it again is still one runner.
    let again = test.lease_match(&forger, LEASE_MS).await.unwrap().unwrap();
    assert_eq!(again.match_id, first.match_id);
    let ended = test
        .report_build_failure(&forger, again.match_id, again.lease_generation, victim, "lies")
        .await
        .unwrap();
    assert_eq!((ended, broken_versions(&test).await), (0, 0));
    // The second runner fails to build it too: now it is broken.
    let ended = test
        .report_build_failure(&honest, other.match_id, other.lease_generation, victim, "error")
        .await
        .unwrap();
    assert!(ended >= 1, "{ended}");
    assert_eq!(broken_versions(&test).await, 1);
}
}

both_backends! {
async fn a_lone_runners_build_failure_breaks_the_version_and_says_so() {
    let Scenario { test: kept, runner: lone, .. } =
        Scenario::built(&["a", "b"], &duel(&["a", "b"], 2), "lone").await;
    let test = kept.store.clone();
    let lease = test.lease_match(&lone, LEASE_MS).await.unwrap().unwrap();
    let victim = lease.seats[0].bot_version_id;
    let ended = test
        .report_build_failure(&lone, lease.match_id, lease.lease_generation, victim, "the end")
        .await
        .unwrap();
    assert!(ended >= 1);
    let log: String = sqlx::query_scalar("SELECT build_log FROM bot_versions WHERE id = $1")
        .bind(victim)
        .fetch_one(test.pool())
        .await
        .unwrap();
    assert!(log.contains("runner `lone` alone") && log.ends_with("the end"), "{log}");
}
}

async fn broken_versions(store: &Store) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM bot_versions WHERE broken_at IS NOT NULL")
        .fetch_one(store.pool())
        .await
        .unwrap()
}
