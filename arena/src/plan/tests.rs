//! The balance properties a fair round robin must have.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use cairn_engine::seating::seatings_per_table;

/// Matches grouped by table (the sorted set of entries at it).
fn by_table(plan: &[PlannedMatch]) -> BTreeMap<Vec<usize>, Vec<&PlannedMatch>> {
    let mut tables: BTreeMap<Vec<usize>, Vec<&PlannedMatch>> = BTreeMap::new();
    for planned in plan {
        let mut members = planned.seats.clone();
        members.sort_unstable();
        tables.entry(members).or_default().push(planned);
    }
    tables
}

fn check_every_table_is_balanced(plan: &[PlannedMatch], seats: usize, games_per_pairing: usize) {
    for (members, matches) in by_table(plan) {
        assert_eq!(
            matches.len(),
            seatings_per_table(seats),
            "one match per balanced seating at {members:?}"
        );
        let deals = &matches[0].game_seeds;
        assert_eq!(deals.len() * matches.len(), games_per_pairing);
        for planned in &matches {
            assert_eq!(
                &planned.game_seeds, deals,
                "every seating plays the same deals"
            );
        }
        for &member in &members {
            let seats_taken: BTreeSet<usize> = matches
                .iter()
                .map(|m| m.seats.iter().position(|&e| e == member).unwrap())
                .collect();
            assert_eq!(
                seats_taken.len(),
                seats,
                "entry {member} sits in every seat once at {members:?}"
            );
        }
    }
}

fn pairs_met(plan: &[PlannedMatch]) -> BTreeSet<(usize, usize)> {
    let mut met = BTreeSet::new();
    for planned in plan {
        for &a in &planned.seats {
            for &b in &planned.seats {
                if a < b {
                    met.insert((a, b));
                }
            }
        }
    }
    met
}

#[test]
fn two_player_round_robin_plays_every_pair_with_seats_swapped_over_the_same_deals() {
    let plan = plan_round_robin(5, 2, 6, 42).unwrap();
    let tables = by_table(&plan);
    assert_eq!(tables.len(), 10, "every pair of 5 bots is one table");
    check_every_table_is_balanced(&plan, 2, 6);
    for matches in tables.values() {
        let mut swapped = matches[1].seats.clone();
        swapped.reverse();
        assert_eq!(matches[0].seats, swapped);
    }
    let total_games: usize = plan.iter().map(|m| m.game_seeds.len()).sum();
    assert_eq!(total_games, 10 * 6);
}

#[test]
fn every_bot_has_every_seat_equally_often_overall() {
    for (entries, seats) in [(4, 2), (5, 3), (6, 4), (7, 5), (9, 3)] {
        let plan = plan_round_robin(entries, seats, seatings_per_table(seats) * 2, 7).unwrap();
        let mut games_by_entry_and_seat = vec![vec![0; seats]; entries];
        for planned in &plan {
            for (seat, &entry) in planned.seats.iter().enumerate() {
                games_by_entry_and_seat[entry][seat] += planned.game_seeds.len();
            }
        }
        for (entry, counts) in games_by_entry_and_seat.iter().enumerate() {
            assert!(
                counts.iter().all(|&count| count == counts[0] && count > 0),
                "{entries}/{seats}: entry {entry} has {counts:?}"
            );
        }
    }
}

#[test]
fn multi_player_tables_let_every_bot_meet_every_other() {
    for seats in 3..=5 {
        for entries in seats..=10 {
            let games = seatings_per_table(seats);
            let plan = plan_round_robin(entries, seats, games, entries as u64).unwrap();
            assert_eq!(
                pairs_met(&plan).len(),
                entries * (entries - 1) / 2,
                "{entries} bots at tables of {seats}"
            );
            check_every_table_is_balanced(&plan, seats, games);
            for planned in &plan {
                let distinct: BTreeSet<_> = planned.seats.iter().collect();
                assert_eq!(distinct.len(), seats, "nobody sits twice at one table");
            }
        }
    }
}

#[test]
fn as_many_bots_as_seats_play_at_one_table() {
    let plan = plan_round_robin(4, 4, 24, 1).unwrap();
    assert_eq!(by_table(&plan).len(), 1);
    assert_eq!(plan.len(), 12);
}

#[test]
fn the_plan_is_fixed_by_the_seed() {
    assert_eq!(
        plan_round_robin(7, 3, 6, 99).unwrap(),
        plan_round_robin(7, 3, 6, 99).unwrap()
    );
    let seeds = |seed| {
        plan_round_robin(4, 2, 2, seed)
            .unwrap()
            .into_iter()
            .flat_map(|m| m.game_seeds)
            .collect::<Vec<_>>()
    };
    assert_ne!(seeds(1), seeds(2));
    let distinct_deals: BTreeSet<u64> = seeds(1).into_iter().collect();
    assert_eq!(distinct_deals.len(), 6, "each pair gets its own deal");
}

#[test]
fn impossible_tournaments_are_refused_with_the_reason() {
    assert_eq!(plan_round_robin(4, 6, 6, 0), Err(PlanError::SeatCount(6)));
    assert_eq!(plan_round_robin(4, 1, 2, 0), Err(PlanError::SeatCount(1)));
    assert_eq!(
        plan_round_robin(2, 3, 3, 0),
        Err(PlanError::TooFewEntries {
            entries: 2,
            seats: 3
        })
    );
    assert_eq!(
        plan_round_robin(4, 2, 3, 0),
        Err(PlanError::GamesPerPairing {
            games: 3,
            seats: 2,
            seatings: 2
        })
    );
    assert_eq!(
        plan_round_robin(4, 2, 0, 0),
        Err(PlanError::GamesPerPairing {
            games: 0,
            seats: 2,
            seatings: 2
        })
    );
    // Four seats: the twelve balanced seatings, whole.
    assert_eq!(
        plan_round_robin(4, 4, 8, 0),
        Err(PlanError::GamesPerPairing {
            games: 8,
            seats: 4,
            seatings: 12
        })
    );
    assert!(matches!(
        plan_round_robin(1000, 2, 2, 0),
        Err(PlanError::TooManyGames { .. })
    ));
}

#[test]
fn matches_next_to_each_other_seat_different_bots_and_the_plan_is_a_reordering() {
    for (entries, seats) in [(50, 2), (7, 2), (12, 3), (16, 4)] {
        let plan = plan_round_robin(entries, seats, seatings_per_table(seats) * 2, 5).unwrap();
        // A round of disjoint tables is played seating by seating: the
        // first several matches share no bot.
        let first_round = entries / seats;
        let mut seen = BTreeSet::new();
        for planned in &plan[..first_round] {
            for &entry in &planned.seats {
                assert!(seen.insert(entry), "{entries} bots at {seats}: {plan:?}");
            }
        }
        let adjacent_sharing = plan
            .windows(2)
            .filter(|pair| pair[0].seats.iter().any(|e| pair[1].seats.contains(e)))
            .count();
        assert!(
            adjacent_sharing * 4 < plan.len(),
            "{entries} bots at {seats}: {adjacent_sharing} of {} adjacent matches share a bot",
            plan.len()
        );
        check_every_table_is_balanced(&plan, seats, seatings_per_table(seats) * 2);
    }
}
