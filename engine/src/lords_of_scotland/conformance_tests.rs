//! The shared conformance test for every seat count, with and without Bruce:
//! 10,000 seeded random games each, with meaningful leak checks.

use super::LordsOfScotland;
use crate::game::{parse_options, EndReason};
use crate::testing::{check_conformance, Conformance};

fn conforms(n_seats: usize, options: &[&str]) {
    let options = parse_options(options.iter().copied()).unwrap();
    let report = check_conformance::<LordsOfScotland>(&options, n_seats, &Conformance::default());
    assert_eq!(report.games, 10_000);
    assert!(report.leak_checks > 0 && report.leak_checks_with_hidden_change > 0, "{report:?}");
    assert!(report.illegal_refused > 0);
    assert!(report.outcomes.iter().all(|outcome| outcome.reason == EndReason::Finished));
}

#[test]
fn two_players_conform() {
    conforms(2, &[]);
}

#[test]
fn two_players_with_bruce_conform() {
    conforms(2, &["bruce=true"]);
}

#[test]
fn three_players_conform() {
    conforms(3, &[]);
}

#[test]
fn three_players_with_bruce_conform() {
    conforms(3, &["bruce=true"]);
}

#[test]
fn four_players_conform() {
    conforms(4, &[]);
}

#[test]
fn four_players_with_bruce_conform() {
    conforms(4, &["bruce=true"]);
}

#[test]
fn five_players_conform() {
    conforms(5, &[]);
}

#[test]
fn five_players_with_bruce_conform() {
    conforms(5, &["bruce=true"]);
}
