use super::*;
use crate::store::results::Forfeit;
use crate::store::tests::{both_backends, Scenario, LEASE_MS};
use crate::testkit::report_by_strength;

#[test]
fn chi_square_of_equal_rates_is_zero_and_of_far_rates_is_large() {
    let same = chi_square(
        Tally {
            events: 5,
            trials: 100,
        },
        Tally {
            events: 10,
            trials: 200,
        },
    );
    assert!(same.abs() < 1e-9, "{same}");
    let far = chi_square(
        Tally {
            events: 40,
            trials: 100,
        },
        Tally {
            events: 10,
            trials: 200,
        },
    );
    assert!(far > 50.0, "{far}");
}

/// Simulated honest runners: forfeits at the same true rate. Flagged in
/// far fewer than 1% of reviews (the test's level is 0.1%).
#[test]
fn honest_runners_at_the_same_rate_are_rarely_flagged() {
    let mut state: u64 = 0x9e3779b97f4a7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut draw = |trials: i64, rate: f64| Tally {
        events: (0..trials).filter(|_| next() < rate).count() as i64,
        trials,
    };
    let reviews = 2_000;
    let flagged = (0..reviews)
        .filter(|_| {
            let mine = draw(200, 0.05);
            let others = draw(600, 0.05);
            outlier("forfeits", mine, others).is_some()
        })
        .count();
    assert!(
        flagged * 100 < reviews,
        "{flagged} of {reviews} honest runners flagged"
    );
    // A forger tripling the rate over as many games is caught most times.
    let caught = (0..200)
        .filter(|_| outlier("forfeits", draw(200, 0.15), draw(600, 0.05)).is_some())
        .count();
    assert!(caught > 150, "only {caught} of 200 forgers caught");
}

#[test]
fn too_few_games_are_never_judged() {
    let mine = Tally {
        events: 20,
        trials: MIN_COUNTED - 1,
    };
    let others = Tally {
        events: 0,
        trials: 1_000,
    };
    assert_eq!(outlier("forfeits", mine, others), None);
}

both_backends! {
async fn a_runner_that_makes_up_timeouts_of_the_winner_is_quarantined_with_its_figures() {
    let Scenario { test: kept, runner: honest, .. } =
        Scenario::duel(&["a", "b"], 120, "honest").await;
    let test = kept.store.clone();
    let (forger, _) = test.register_runner("forger").await.unwrap();
    // The honest runner plays a match cleanly.
    let lease = test.lease_match(&honest, LEASE_MS).await.unwrap().unwrap();
    test.report_result(&honest, &report_by_strength(&lease, |id| id))
        .await
        .unwrap();
    // The forger makes the stronger bot time out in every game it reports.
    let lease = test.lease_match(&forger, LEASE_MS).await.unwrap().unwrap();
    let strongest = (0..lease.seats.len())
        .max_by_key(|&seat| lease.seats[seat].bot_version_id)
        .unwrap();
    let mut report = report_by_strength(&lease, |id| -id);
    let mut refused = None;
    for game in &mut report.games {
        game.seats[strongest].forfeit = Some(Forfeit {
            reason: ForfeitReason::Timeout,
            detail: "made up".into(),
        });
        kept.clock.advance_ms(REVIEW_EVERY_MS);
        let held = test
            .heartbeat(&forger, lease.match_id, lease.lease_generation, LEASE_MS)
            .await;
        let reported = match held {
            Ok(_) => test
                .report_game(&forger, lease.match_id, lease.lease_generation, game)
                .await
                .map(|_| ()),
            Err(error) => Err(error),
        };
        if let Err(error) = reported {
            refused = Some(error);
            break;
        }
    }
    let refused = refused.expect("the forger's lease ends once it is quarantined");
    assert!(matches!(refused, ArenaError::LeaseLost { .. }), "{refused}");
    let runners = test.list_runners().await.unwrap();
    let forger_row = runners.iter().find(|r| r.name == "forger").unwrap();
    let reason = forger_row.quarantine_reason.clone().expect("quarantined");
    assert!(reason.contains("unprovable forfeits") && reason.contains("chi-square"), "{reason}");
    assert!(forger_row.revoked_at.is_some());
    let honest_row = runners.iter().find(|r| r.name == "honest").unwrap();
    assert_eq!(honest_row.quarantine_reason, None);
}
}
