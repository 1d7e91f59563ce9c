//! The conformance run for every seat count and solo: 10,000 seeded random
//! games each.

use crate::bullfrogs::Bullfrogs;
use crate::testing::assert_conforms;

fn conformance(words: &[&str], n_seats: usize) {
    assert_conforms::<Bullfrogs>(words, n_seats);
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
