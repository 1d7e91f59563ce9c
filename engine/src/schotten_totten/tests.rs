//! Rule tests, each citing the rulebook sentence it checks, and the
//! conformance runs of every variant.

use super::*;
use crate::game::parse_options;
use crate::testing::{check_conformance, Conformance};

fn conformance(words: &[&str]) -> crate::testing::ConformanceReport {
    let options = parse_options(words.iter().copied()).unwrap();
    let report = check_conformance::<SchottenTotten>(&options, 2, &Conformance::default());
    assert_eq!(report.games, 10_000);
    assert!(report.leak_checks_with_hidden_change > report.leak_checks / 2, "{report:?}");
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
    assert!(report.outcomes.iter().all(|o| o.scores.iter().all(|&s| s <= 15)));
    assert!(report.outcomes.iter().any(|o| o.scores.iter().any(|&s| s > 5)));
}
