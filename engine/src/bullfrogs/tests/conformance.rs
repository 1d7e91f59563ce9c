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

/// Every seat count and solo: states rebuilt from one seat's observation
/// look the same to it, offer the same actions, vary in what it cannot see
/// (other hands, deck order, Isaac's dice), and play on.
#[test]
fn determinization_of_every_seat_count_and_solo() {
    for (words, n_seats) in [(&[][..], 2), (&[], 3), (&[], 4), (&["solo=true"], 1)] {
        let report = crate::testing::assert_determinizes::<Bullfrogs>(words, n_seats, 100, 3);
        assert!(
            report.checks_that_varied > report.checks / 4,
            "{n_seats} seats {words:?}: {report:?}"
        );
    }
}
