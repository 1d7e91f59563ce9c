//! Round-robin planning, pure and deterministic from the tournament seed.
//!
//! A *table* is a set of entries that play together; each table is played
//! as one match per seating of [`cairn_engine::seating::balanced_seatings`]
//! (`n (n - 1)` of them at `n` seats), and every seating plays the same
//! seeded deals, so luck of the deal cancels out and every entry has every
//! seat, and every other entry right behind it, equally often at that table.
//! - Two seats: one table per pair of entries (the seatings are the deal
//!   with seats swapped).
//! - Three to five seats: tables of that size, drawn greedily (seeded) until
//!   every entry has met every other at some table.

use std::collections::BTreeSet;

use cairn_engine::seating::{balanced_seatings, seatings_per_table};
use cairn_engine::Rng;

/// The fewest and most seats at a table.
pub const MIN_SEATS: usize = 2;
pub const MAX_SEATS: usize = 5;
/// The most games a tournament may plan, to keep a typo from queueing millions.
pub const MAX_PLANNED_GAMES: usize = 100_000;

/// Why a tournament cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("a table has {MIN_SEATS} to {MAX_SEATS} seats, not {0}")]
    SeatCount(usize),
    #[error("a tournament at tables of {seats} needs at least {seats} bots, got {entries}")]
    TooFewEntries { entries: usize, seats: usize },
    #[error("games per pairing must be a positive multiple of {seatings} at {seats} seats (the seatings that give every bot every seat and every neighbour equally often), not {games}")]
    GamesPerPairing {
        games: usize,
        seats: usize,
        seatings: usize,
    },
    #[error("a swiss tournament needs at least one round (--rounds N)")]
    Rounds,
    #[error("a knockout is played at tables of 2, not {0}")]
    KnockoutSeats(usize),
    #[error("a ladder is played at tables of 2, not {0}")]
    LadderSeats(usize),
    #[error("a ladder needs a positive interval width in Elo points (--width N)")]
    LadderWidth,
    #[error("a gauntlet needs one or more challengers (--challenger BOT), each entered once, and a field of other bots")]
    Challengers,
    #[error("the tournament would plan {planned} games, more than the {limit} allowed")]
    TooManyGames { planned: usize, limit: usize },
}

/// One match to play: who sits where (entry indices by seat) and the seeds
/// of its games, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedMatch {
    pub seats: Vec<usize>,
    pub game_seeds: Vec<u64>,
}

/// Plans a round robin of `n_entries` at tables of `seats` seats.
pub fn plan_round_robin(
    n_entries: usize,
    seats: usize,
    games_per_pairing: usize,
    seed: u64,
) -> Result<Vec<PlannedMatch>, PlanError> {
    if !(MIN_SEATS..=MAX_SEATS).contains(&seats) {
        return Err(PlanError::SeatCount(seats));
    }
    if n_entries < seats {
        return Err(PlanError::TooFewEntries {
            entries: n_entries,
            seats,
        });
    }
    check_games_per_pairing(games_per_pairing, seats)?;
    let mut rng = Rng::seeded(seed);
    let tables = if seats == 2 {
        all_pairs(n_entries)
    } else {
        covering_tables(n_entries, seats, &mut rng)
    };
    let planned = tables.len().saturating_mul(games_per_pairing);
    if planned > MAX_PLANNED_GAMES {
        return Err(PlanError::TooManyGames {
            planned,
            limit: MAX_PLANNED_GAMES,
        });
    }
    let matches = seatings_of_tables(&tables, games_per_pairing, &mut rng);
    Ok(in_rounds(&tables, matches, n_entries))
}

/// Games per pairing must cover the balanced seatings of a table a whole
/// number of times.
pub(crate) fn check_games_per_pairing(games: usize, seats: usize) -> Result<(), PlanError> {
    let seatings = seatings_per_table(seats);
    if games == 0 || games % seatings != 0 {
        return Err(PlanError::GamesPerPairing {
            games,
            seats,
            seatings,
        });
    }
    Ok(())
}

/// The matches of `tables` (as [`seatings_of_tables`] makes them, each
/// table's rotations in a row) reordered so that matches played at the
/// same time rarely seat the same bot: the tables are grouped into rounds
/// of tables with no entry in common (greedily, in plan order), and each
/// round is played rotation by rotation, as a Berger table orders a chess
/// round robin. Runners lease matches in order, so the matches they play at
/// once seat different bots: their reports do not queue on one bot's
/// ratings, and every bot's game count stays even while the tournament
/// runs. Only the order changes: every table keeps its seats and deals.
fn in_rounds(
    tables: &[Vec<usize>],
    matches: Vec<PlannedMatch>,
    n_entries: usize,
) -> Vec<PlannedMatch> {
    let rotations = matches.len() / tables.len().max(1);
    let mut ordered = Vec::with_capacity(matches.len());
    let mut matches = matches.into_iter();
    // Each table's rotations, taken in turn.
    let mut by_table: Vec<std::vec::IntoIter<PlannedMatch>> = tables
        .iter()
        .map(|_| {
            matches
                .by_ref()
                .take(rotations)
                .collect::<Vec<_>>()
                .into_iter()
        })
        .collect();
    let mut remaining: Vec<usize> = (0..tables.len()).collect();
    while !remaining.is_empty() {
        let mut seated = vec![false; n_entries];
        let (round, later): (Vec<usize>, Vec<usize>) = remaining.into_iter().partition(|&table| {
            let free = tables[table].iter().all(|&entry| !seated[entry]);
            if free {
                for &entry in &tables[table] {
                    seated[entry] = true;
                }
            }
            free
        });
        for _ in 0..rotations {
            for &table in &round {
                ordered.extend(by_table[table].next());
            }
        }
        remaining = later;
    }
    ordered
}

/// Every table as one match per balanced seating, all seatings of a table
/// on the same freshly drawn deals (`games_per_pairing / seatings` of them).
pub(crate) fn seatings_of_tables(
    tables: &[Vec<usize>],
    games_per_pairing: usize,
    rng: &mut Rng,
) -> Vec<PlannedMatch> {
    let mut matches = Vec::new();
    for table in tables {
        let seatings = balanced_seatings(table.len());
        let deals = games_per_pairing / seatings.len();
        let game_seeds: Vec<u64> = (0..deals).map(|_| rng.next_u64()).collect();
        for seating in seatings {
            matches.push(PlannedMatch {
                seats: seating.iter().map(|&bot| table[bot]).collect(),
                game_seeds: game_seeds.clone(),
            });
        }
    }
    matches
}

pub(crate) fn all_pairs(n_entries: usize) -> Vec<Vec<usize>> {
    (0..n_entries)
        .flat_map(|a| (a + 1..n_entries).map(move |b| vec![a, b]))
        .collect()
}

/// Tables of `seats` entries until every pair has met. Each table starts
/// from a pair that has not met yet and adds whoever meets the most new
/// opponents, preferring entries that have sat at fewer tables; the seeded
/// shuffle decides remaining ties so the draw is not biased by entry order.
fn covering_tables(n_entries: usize, seats: usize, rng: &mut Rng) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..n_entries).collect();
    shuffle(&mut order, rng);
    let mut unmet: BTreeSet<(usize, usize)> = all_pairs(n_entries)
        .into_iter()
        .map(|pair| (pair[0], pair[1]))
        .collect();
    let mut tables_sat = vec![0_usize; n_entries];
    let mut tables = Vec::new();
    while let Some(&(first, second)) = unmet.iter().min_by_key(|(a, b)| {
        (
            tables_sat[*a] + tables_sat[*b],
            position(&order, *a),
            position(&order, *b),
        )
    }) {
        let mut table = vec![first, second];
        while table.len() < seats {
            let next = best_addition(&table, &order, &unmet, &tables_sat);
            table.push(next);
        }
        for (i, &a) in table.iter().enumerate() {
            tables_sat[a] += 1;
            for &b in &table[i + 1..] {
                unmet.remove(&(a.min(b), a.max(b)));
            }
        }
        table.sort_unstable();
        tables.push(table);
    }
    tables
}

fn best_addition(
    table: &[usize],
    order: &[usize],
    unmet: &BTreeSet<(usize, usize)>,
    tables_sat: &[usize],
) -> usize {
    let new_meetings = |candidate: usize| {
        table
            .iter()
            .filter(|&&member| unmet.contains(&(member.min(candidate), member.max(candidate))))
            .count()
    };
    order
        .iter()
        .copied()
        .filter(|candidate| !table.contains(candidate))
        .max_by_key(|&candidate| {
            (
                new_meetings(candidate),
                std::cmp::Reverse(tables_sat[candidate]),
                std::cmp::Reverse(position(order, candidate)),
            )
        })
        .unwrap_or(order[0])
}

fn position(order: &[usize], entry: usize) -> usize {
    order
        .iter()
        .position(|&other| other == entry)
        .unwrap_or(usize::MAX)
}

pub(crate) fn shuffle(items: &mut [usize], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

#[cfg(test)]
mod tests;
