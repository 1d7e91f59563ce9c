//! Pairings, repeats, seat balance, byes and the knockout tie-break.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

fn spec(format: Format, n_entries: usize, seats: usize) -> FormatSpec {
    FormatSpec {
        format,
        n_entries,
        seats,
        games_per_pairing: cairn_engine::seating::seatings_per_table(seats) * 2,
        seed: 7,
    }
}

/// Plays a round: in every game each seat scores `score(seed, entry)` and
/// the seats rank by score (higher is better), equal scores tie.
fn play_scored(
    matches: &[PlannedMatch],
    round: usize,
    score: &dyn Fn(u64, usize) -> i64,
) -> Vec<PlayedMatch> {
    matches
        .iter()
        .map(|planned| PlayedMatch {
            round,
            finished: true,
            seats: planned.seats.clone(),
            games: planned
                .game_seeds
                .iter()
                .map(|&seed| {
                    let scores: Vec<i64> = planned.seats.iter().map(|&e| score(seed, e)).collect();
                    PlayedGame {
                        seed,
                        ranks: scores
                            .iter()
                            .map(|mine| 1 + scores.iter().filter(|&t| t > mine).count() as u32)
                            .collect(),
                        scores,
                    }
                })
                .collect(),
        })
        .collect()
}

/// Plays a round where the seats rank by `strength` of their entry.
fn play(
    matches: &[PlannedMatch],
    round: usize,
    strength: &dyn Fn(usize) -> i64,
) -> Vec<PlayedMatch> {
    play_scored(matches, round, &|_, entry| strength(entry))
}

/// Runs a whole tournament, every round played by `strength`.
fn run(spec: &FormatSpec, strength: &dyn Fn(usize) -> i64) -> Vec<PlayedMatch> {
    let mut history = play(&first_round(spec).unwrap(), 0, strength);
    let mut round = 1;
    while let Next::Round(matches) = next_round(spec, &history).unwrap() {
        history.extend(play(&matches, round, strength));
        round += 1;
        assert!(round < 100, "the format never finishes");
    }
    history
}

fn tables_of_round(history: &[PlayedMatch], round: usize) -> BTreeSet<Vec<usize>> {
    history
        .iter()
        .filter(|m| m.round == round)
        .map(|m| {
            let mut table = m.seats.clone();
            table.sort_unstable();
            table
        })
        .collect()
}

/// Every entry sits every seat equally often.
fn assert_seats_balanced(history: &[PlayedMatch]) {
    let mut seat_counts: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for played in history {
        for (seat, &entry) in played.seats.iter().enumerate() {
            let counts = seat_counts
                .entry(entry)
                .or_insert_with(|| vec![0; played.seats.len()]);
            counts[seat] += 1;
        }
    }
    for (entry, counts) in seat_counts {
        assert!(
            counts.iter().all(|&count| count == counts[0]),
            "entry {entry} sits {counts:?}"
        );
    }
}

#[test]
fn a_seat_scores_the_share_of_the_seats_it_ranked_above_a_tie_counting_half() {
    assert_eq!(seat_points(&[1, 2], 0), 1.0);
    assert_eq!(seat_points(&[1, 1], 1), 0.5);
    assert_eq!(seat_points(&[2, 1, 1, 4], 1), 2.5 / 3.0);
    assert_eq!(seat_points(&[2, 1, 1, 4], 3), 0.0);
}

#[test]
fn a_swiss_of_eight_plays_its_rounds_with_no_repeat_and_every_seat_balanced() {
    let spec = spec(Format::Swiss { rounds: 3 }, 8, 2);
    let history = run(&spec, &|entry| entry as i64);
    assert_eq!(history.len(), expected_matches(&spec).unwrap());
    assert_eq!(history.len(), 3 * 4 * 2);
    let mut met = BTreeSet::new();
    for round in 0..3 {
        let tables = tables_of_round(&history, round);
        assert_eq!(tables.len(), 4, "round {round}: {tables:?}");
        for table in tables {
            assert!(met.insert(table.clone()), "{table:?} met twice");
        }
    }
    assert_seats_balanced(&history);
}

#[test]
fn swiss_tables_follow_the_score_groups() {
    let spec = spec(Format::Swiss { rounds: 2 }, 8, 2);
    let strength = |entry: usize| entry as i64;
    let history = play(&first_round(&spec).unwrap(), 0, &strength);
    // Round one seats neighbours in the seeding: 0-1, 2-3, 4-5, 6-7.
    let first: BTreeSet<Vec<usize>> = [vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]
        .into_iter()
        .collect();
    assert_eq!(tables_of_round(&history, 0), first);
    // Winners (1, 3, 5, 7) meet winners, losers losers.
    let Next::Round(second) = next_round(&spec, &history).unwrap() else {
        panic!("a second round is due");
    };
    let second = play(&second, 1, &strength);
    for table in tables_of_round(&second, 1) {
        assert_eq!(table[0] % 2, table[1] % 2, "{table:?} mixes score groups");
    }
}

#[test]
fn a_swiss_repeats_a_pairing_only_when_it_cannot_be_avoided() {
    // Four entries, four rounds: only three rounds can avoid repeats.
    let spec = spec(Format::Swiss { rounds: 4 }, 4, 2);
    let history = run(&spec, &|entry| (entry % 2) as i64);
    let mut seen = BTreeSet::new();
    for round in 0..3 {
        for table in tables_of_round(&history, round) {
            assert!(seen.insert(table), "a repeat in round {round}");
        }
    }
    assert_eq!(tables_of_round(&history, 3).len(), 2);
}

#[test]
fn an_odd_swiss_gives_each_bye_to_a_different_entry_and_scores_it_a_point() {
    let spec = spec(Format::Swiss { rounds: 5 }, 5, 2);
    let history = run(&spec, &|entry| entry as i64);
    assert_eq!(history.len(), expected_matches(&spec).unwrap());
    let mut byes = BTreeSet::new();
    for round in 0..5 {
        let seated: BTreeSet<usize> = history
            .iter()
            .filter(|m| m.round == round)
            .flat_map(|m| m.seats.clone())
            .collect();
        let out: Vec<usize> = (0..5).filter(|e| !seated.contains(e)).collect();
        assert_eq!(out.len(), 1);
        assert!(byes.insert(out[0]), "entry {} had two byes", out[0]);
    }
    // The weakest entry (0) lost every game it played: its points are its bye.
    let table = standings(&spec, &history);
    let weakest = table.iter().find(|row| row.entry == 0).unwrap();
    assert_eq!(weakest.score, 1.0);
    assert_eq!(table[0].entry, 4);
}

#[test]
fn a_swiss_at_tables_of_three_seats_everyone_and_balances_seats() {
    let spec = spec(Format::Swiss { rounds: 3 }, 9, 3);
    let history = run(&spec, &|entry| entry as i64);
    // Three rounds of three tables, six seatings each.
    assert_eq!(history.len(), 3 * 3 * 6);
    for round in 0..3 {
        let tables = tables_of_round(&history, round);
        let seated: BTreeSet<usize> = tables.iter().flatten().copied().collect();
        assert_eq!(seated.len(), 9, "round {round} seats everyone once");
    }
    assert_seats_balanced(&history);
}

#[test]
fn the_bracket_places_seeds_so_the_best_two_meet_only_in_the_final() {
    assert_eq!(
        knockout::bracket(8),
        [0, 7, 3, 4, 1, 6, 2, 5].map(Some).to_vec()
    );
    // Five entries: the three best seeds have byes.
    let slots = knockout::bracket(5);
    assert_eq!(slots.len(), 8);
    let byes: Vec<usize> = slots
        .chunks(2)
        .filter(|pair| pair.contains(&None))
        .filter_map(|pair| pair[0].or(pair[1]))
        .collect();
    assert_eq!(byes, [0, 1, 2]);
}

#[test]
fn a_knockout_of_five_plays_four_ties_and_the_strongest_wins() {
    let spec = spec(Format::Knockout, 5, 2);
    // Strength opposite to seeding: the last seed is the best.
    let history = run(&spec, &|entry| entry as i64);
    assert_eq!(history.len(), 4 * 2);
    assert_eq!(history.len(), expected_matches(&spec).unwrap());
    assert_eq!(knockout::champion(5, &history), Some(4));
    // Round one is the one tie without a bye: seeds 4 and 5 (entries 3, 4).
    assert_eq!(
        tables_of_round(&history, 0),
        [vec![3, 4]].into_iter().collect()
    );
    assert_seats_balanced(&history);
}

#[test]
fn a_drawn_tie_goes_to_the_higher_game_score_then_the_better_seed() {
    let spec = spec(Format::Knockout, 2, 2);
    let first = first_round(&spec).unwrap();
    // Every game drawn; entry 1 scored more.
    let drawn = |scores: [i64; 2]| -> Vec<PlayedMatch> {
        first
            .iter()
            .map(|planned| PlayedMatch {
                round: 0,
                finished: true,
                seats: planned.seats.clone(),
                games: planned
                    .game_seeds
                    .iter()
                    .map(|&seed| PlayedGame {
                        seed,
                        ranks: vec![1, 1],
                        scores: planned.seats.iter().map(|&e| scores[e]).collect(),
                    })
                    .collect(),
            })
            .collect()
    };
    assert_eq!(knockout::champion(2, &drawn([3, 5])), Some(1));
    assert_eq!(knockout::champion(2, &drawn([5, 5])), Some(0));
    assert_eq!(next_round(&spec, &drawn([5, 5])).unwrap(), Next::Finished);
}

#[test]
fn a_gauntlet_seats_each_challenger_with_every_field_entry_and_never_two_challengers() {
    let two = spec(
        Format::Gauntlet {
            challengers: vec![0, 4],
        },
        5,
        2,
    );
    let plan = first_round(&two).unwrap();
    assert_eq!(plan.len(), 2 * 3 * 2);
    let tables: BTreeSet<Vec<usize>> = plan
        .iter()
        .map(|m| {
            let mut t = m.seats.clone();
            t.sort_unstable();
            t
        })
        .collect();
    assert!(!tables.contains(&vec![0, 4]));
    assert_eq!(tables.len(), 6);
    let four = spec(
        Format::Gauntlet {
            challengers: vec![2],
        },
        6,
        4,
    );
    let plan = first_round(&four).unwrap();
    let met: BTreeSet<usize> = plan.iter().flat_map(|m| m.seats.clone()).collect();
    assert_eq!(met.len(), 6, "every field entry meets the challenger");
    assert!(plan.iter().all(|m| m.seats.contains(&2)));
    assert_eq!(
        next_round(&four, &play(&plan, 0, &|e| e as i64)).unwrap(),
        Next::Finished
    );
}

#[test]
fn formats_refuse_what_they_cannot_play() {
    let refused = |format: Format, n: usize, seats: usize| check(&spec(format, n, seats)).is_err();
    assert!(refused(Format::Knockout, 4, 3));
    assert!(refused(Format::Knockout, 1, 2));
    assert!(refused(Format::Swiss { rounds: 0 }, 4, 2));
    assert!(refused(
        Format::Gauntlet {
            challengers: vec![]
        },
        4,
        2
    ));
    assert!(refused(
        Format::Gauntlet {
            challengers: vec![0, 0]
        },
        4,
        2
    ));
    assert!(refused(
        Format::Gauntlet {
            challengers: vec![9]
        },
        4,
        2
    ));
    assert!(refused(
        Format::Gauntlet {
            challengers: vec![0, 1]
        },
        2,
        2
    ));
    assert!(!refused(Format::Swiss { rounds: 3 }, 5, 2));
    let huge = FormatSpec {
        games_per_pairing: 10_000,
        ..spec(Format::Swiss { rounds: 50 }, 40, 2)
    };
    assert!(check(&huge).is_err());
}

#[test]
fn deal_pairs_count_a_challengers_points_over_both_games_of_a_deal() {
    let spec = spec(
        Format::Gauntlet {
            challengers: vec![0],
        },
        3,
        2,
    );
    let plan = first_round(&spec).unwrap();
    // The challenger beats entry 1 and loses to entry 2 on every deal.
    let history = play(&plan, 0, &|entry| [5, 0, 9][entry]);
    assert_eq!(deal_pairs(0, &history), [2, 0, 0, 0, 2]);
    // A deal with one game recorded is not a pair yet.
    assert_eq!(deal_pairs(0, &history[..1]), [0; 5]);
}

#[test]
fn the_same_spec_plans_the_same_rounds() {
    let spec = spec(Format::Swiss { rounds: 3 }, 6, 2);
    assert_eq!(run(&spec, &|e| e as i64), run(&spec, &|e| e as i64));
}

#[test]
fn a_solo_round_robin_gives_every_entry_the_same_deals_alone() {
    let solo = FormatSpec {
        games_per_pairing: 5,
        ..spec(Format::RoundRobin, 3, 1)
    };
    check(&solo).unwrap();
    let plan = first_round(&solo).unwrap();
    assert_eq!(plan.len(), 3);
    assert!(plan
        .iter()
        .all(|m| m.seats.len() == 1 && m.game_seeds == plan[0].game_seeds));
    assert_eq!(plan[0].game_seeds.len(), 5);
    // One seat is for round robins only.
    assert!(check(&spec(Format::Swiss { rounds: 2 }, 3, 1)).is_err());
    assert!(check(&spec(Format::RoundRobin, 3, 0)).is_err());
}

/// Plays a round where luck (from the deal's seed) outweighs strength
/// often enough that every entry wins and loses.
fn play_noisy(matches: &[PlannedMatch], round: usize) -> Vec<PlayedMatch> {
    play_scored(matches, round, &|seed, entry| {
        let luck = (seed ^ (entry as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).rotate_left(17) % 7;
        (luck + entry as u64) as i64
    })
}

#[test]
fn a_ladder_plays_rounds_until_every_interval_is_narrow_enough() {
    let spec = FormatSpec {
        games_per_pairing: 8,
        ..spec(Format::Ladder { width: 700 }, 4, 2)
    };
    let first = first_round(&spec).unwrap();
    // Nobody has a rating yet: everyone plays, nobody twice.
    assert_eq!(first.len(), 2 * 2);
    let mut history = play_noisy(&first, 0);
    let mut round = 1;
    while let Next::Round(matches) = next_round(&spec, &history).unwrap() {
        let seated: Vec<usize> = matches
            .iter()
            .step_by(2)
            .flat_map(|m| m.seats.clone())
            .collect();
        let unique: BTreeSet<usize> = seated.iter().copied().collect();
        assert_eq!(
            unique.len(),
            seated.len(),
            "an entry seated twice in round {round}"
        );
        history.extend(play_noisy(&matches, round));
        round += 1;
        assert!(round < 200, "the ladder never settles");
    }
    let ratings = ladder::ratings(4, &history);
    for (entry, rating) in ratings.iter().enumerate() {
        assert!(
            ladder::interval_width(rating) <= 700.0,
            "entry {entry} stopped at {rating:?}"
        );
    }
    assert_seats_balanced(&history);
    let table = standings(&spec, &history);
    assert!(table.iter().all(|row| row.rating.is_some()));
}

#[test]
fn a_ladder_newcomer_plays_until_settled_while_settled_entries_wait() {
    let spec = FormatSpec {
        games_per_pairing: 8,
        ..spec(Format::Ladder { width: 700 }, 4, 2)
    };
    let mut history = play_noisy(&first_round(&spec).unwrap(), 0);
    while let Next::Round(matches) = next_round(&spec, &history).unwrap() {
        let round = history.iter().map(|m| m.round + 1).max().unwrap();
        history.extend(play_noisy(&matches, round));
    }
    // A fifth version joins: only it is unsettled, so every table seats it.
    let joined = FormatSpec {
        n_entries: 5,
        ..spec
    };
    let Next::Round(matches) = next_round(&joined, &history).unwrap() else {
        panic!("the newcomer is scheduled");
    };
    assert!(matches.iter().all(|m| m.seats.contains(&4)), "{matches:?}");
}
