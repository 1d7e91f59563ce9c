//! The conformance runs of every variant: 10,000 seeded random games each,
//! with meaningful leak checks.

use crate::schotten_totten::SchottenTotten;
use crate::testing::assert_conforms;

fn conformance(words: &[&str]) -> crate::testing::ConformanceReport {
    let report = assert_conforms::<SchottenTotten>(words, 2);
    assert!(
        report.leak_checks_with_hidden_change > report.leak_checks / 2,
        "{report:?}"
    );
    report
}

#[test]
fn conformance_base() {
    conformance(&[]);
}

#[test]
fn conformance_expert() {
    conformance(&["expert=true"]);
}

#[test]
fn conformance_tactics() {
    let report = conformance(&["tactics=true"]);
    assert!(report.illegal_refused > 10_000);
}

#[test]
fn conformance_tactics_expert() {
    conformance(&["tactics=true", "expert=true"]);
}

#[test]
fn conformance_multi_round_tactics() {
    let report = conformance(&["tactics=true", "rounds=3"]);
    // Three rounds: nobody can score more than 15 match points.
    assert!(report
        .outcomes
        .iter()
        .all(|o| o.scores.iter().all(|&s| s <= 15)));
    assert!(report
        .outcomes
        .iter()
        .any(|o| o.scores.iter().any(|&s| s > 5)));
}

/// Every variant: states rebuilt from one seat's observation look the same
/// to it, offer the same actions, vary in what it cannot see, and play on.
#[test]
fn determinization_of_every_variant() {
    for words in [
        &[][..],
        &["expert=true"],
        &["tactics=true"],
        &["tactics=true", "expert=true"],
        &["tactics=true", "rounds=3"],
    ] {
        let report = crate::testing::assert_determinizes::<SchottenTotten>(words, 2, 200, 3);
        assert!(
            report.checks_that_varied > report.checks / 2,
            "{words:?}: {report:?}"
        );
    }
}
