//! The shared conformance test for every seat count, with and without Bruce:
//! 10,000 seeded random games each, with meaningful leak checks.

use crate::game::EndReason;
use crate::lords_of_scotland::LordsOfScotland;
use crate::testing::assert_conforms;

fn conforms(n_seats: usize, options: &[&str]) {
    let report = assert_conforms::<LordsOfScotland>(options, n_seats);
    assert!(report
        .outcomes
        .iter()
        .all(|outcome| outcome.reason == EndReason::Finished));
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

/// Every seat count, with and without Bruce: states rebuilt from one seat's
/// observation look the same to it, offer the same actions, vary in what it
/// cannot see, and play on.
#[test]
fn determinization_of_every_seat_count() {
    for n_seats in 2..=5 {
        for words in [&[][..], &["bruce=true"]] {
            let report =
                crate::testing::assert_determinizes::<LordsOfScotland>(words, n_seats, 30, 7);
            assert!(
                report.checks_that_varied > report.checks / 2,
                "{n_seats} seats {words:?}: {report:?}"
            );
        }
    }
}
