//! Rule tests (each cites the rulebook sentence it checks), setup and
//! information tests, and the shared conformance run for every seat count.

use super::*;
use crate::game::parse_options;
use crate::testing::{check_conformance, Conformance};

fn options(words: &[&str]) -> GameOptions {
    parse_options(words.iter().copied()).unwrap()
}

fn conformance(words: &[&str], n_seats: usize) {
    let report = check_conformance::<Bullfrogs>(&options(words), n_seats, &Conformance { games: 300, ..Conformance::default() });
    assert_eq!(report.games, 300);
    assert!(report.leak_checks_with_hidden_change > 0, "{report:?}");
    assert!(report.illegal_refused > 0);
}

#[test]
fn conformance_two_players() {
    conformance(&[], 2);
}

#[test]
fn conformance_three_players() {
    conformance(&[], 3);
}

#[test]
fn conformance_four_players() {
    conformance(&[], 4);
}

#[test]
fn conformance_solo() {
    conformance(&["solo=true"], 1);
}
