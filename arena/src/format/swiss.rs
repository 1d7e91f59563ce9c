//! Swiss rounds: entries ranked by score (ties by entry order, the
//! seeding) sit at tables with their neighbours in the ranking (Monrad
//! pairing, the score groups kept together), never with an entry they have
//! met while another seating avoids it; when the entries do not fill the
//! tables, the lowest ranked of those with the fewest byes sit out.
//!
//! RULING (ours, as FIDE's Swiss rules): a bye scores a full point, the
//! most a round can give. A table whose matches all failed (no game
//! recorded) gives each of its entries half a point.
//!
//! RULING (ours): a table counts once it is over (every match of it played
//! out or given up); a table still in play, or cancelled with its
//! tournament, counts nothing (not the half point of a failed table): the
//! standings of a round in play or of a cancelled tournament are those of
//! the tables finished. A bye counts at once.

use std::collections::BTreeSet;

use super::{seat_points, FormatSpec, PlayedMatch};

/// How many seatings the search for a seating without repeats may try
/// before it settles for the fewest repeats, greedily.
const SEARCH_BUDGET: usize = 20_000;

/// Each entry's Swiss score after `rounds` rounds.
pub fn scores(n_entries: usize, history: &[PlayedMatch], rounds: usize) -> Vec<f64> {
    let mut scores = vec![0.0; n_entries];
    for round in 0..rounds {
        let mut points = vec![0.0; n_entries];
        let mut games = vec![0_usize; n_entries];
        let mut seated = vec![false; n_entries];
        let mut over = vec![true; n_entries];
        for played in history.iter().filter(|m| m.round == round) {
            for (seat, &entry) in played.seats.iter().enumerate() {
                if entry >= n_entries {
                    continue;
                }
                seated[entry] = true;
                over[entry] &= played.finished;
                for game in &played.games {
                    points[entry] += seat_points(&game.ranks, seat);
                    games[entry] += 1;
                }
            }
        }
        for entry in 0..n_entries {
            scores[entry] += match (seated[entry], games[entry]) {
                (false, _) => 1.0,
                (true, _) if !over[entry] => 0.0,
                (true, 0) => 0.5,
                (true, n) => points[entry] / n as f64,
            };
        }
    }
    scores
}

/// Pairs of entries that have shared a table, each as (low, high).
pub fn met_pairs(history: &[PlayedMatch]) -> BTreeSet<(usize, usize)> {
    let mut met = BTreeSet::new();
    for played in history {
        for (i, &a) in played.seats.iter().enumerate() {
            for &b in &played.seats[i + 1..] {
                met.insert((a.min(b), a.max(b)));
            }
        }
    }
    met
}

/// The tables of round `round`.
pub(super) fn tables(spec: &FormatSpec, history: &[PlayedMatch], round: usize) -> Vec<Vec<usize>> {
    let n_entries = spec.n_entries;
    let scores = scores(n_entries, history, round);
    let mut ranking: Vec<usize> = (0..n_entries).collect();
    ranking.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let byes = byes_so_far(n_entries, history, round);
    let sitting_out = n_entries % spec.seats;
    let mut out: Vec<usize> = ranking.clone();
    // Fewest byes first, then the lowest ranked.
    out.sort_by_key(|&entry| {
        (
            byes[entry],
            std::cmp::Reverse(ranking.iter().position(|&e| e == entry)),
        )
    });
    out.truncate(sitting_out);
    let playing: Vec<usize> = ranking.into_iter().filter(|e| !out.contains(e)).collect();
    seat(&playing, spec.seats, &met_pairs(history))
}

fn byes_so_far(n_entries: usize, history: &[PlayedMatch], rounds: usize) -> Vec<usize> {
    let mut byes = vec![0; n_entries];
    for round in 0..rounds {
        let mut seated = vec![false; n_entries];
        for played in history.iter().filter(|m| m.round == round) {
            for &entry in played.seats.iter().filter(|&&e| e < n_entries) {
                seated[entry] = true;
            }
        }
        for (entry, sat) in seated.into_iter().enumerate() {
            if !sat {
                byes[entry] += 1;
            }
        }
    }
    byes
}

/// Tables of `seats` from `ranking` (best first; its length a multiple of
/// `seats`): without a repeat if the bounded search finds such a seating,
/// else greedily with the fewest repeats.
pub fn seat(ranking: &[usize], seats: usize, met: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    let mut budget = SEARCH_BUDGET;
    search(ranking, seats, met, &mut budget).unwrap_or_else(|| greedy(ranking, seats, met))
}

fn repeats(table: &[usize], candidate: usize, met: &BTreeSet<(usize, usize)>) -> usize {
    table
        .iter()
        .filter(|&&member| met.contains(&(member.min(candidate), member.max(candidate))))
        .count()
}

/// Depth first: the best-ranked entry left takes the best-ranked
/// companions that meet nobody again; backtracks when the rest cannot.
fn search(
    rest: &[usize],
    seats: usize,
    met: &BTreeSet<(usize, usize)>,
    budget: &mut usize,
) -> Option<Vec<Vec<usize>>> {
    let Some((&first, others)) = rest.split_first() else {
        return Some(Vec::new());
    };
    let need = seats - 1;
    if others.len() < need {
        return None;
    }
    let mut combination: Vec<usize> = (0..need).collect();
    loop {
        *budget = budget.checked_sub(1)?;
        let mut table = vec![first];
        let mut fresh = true;
        for &index in &combination {
            let candidate = others[index];
            if repeats(&table, candidate, met) > 0 {
                fresh = false;
                break;
            }
            table.push(candidate);
        }
        if fresh {
            let remaining: Vec<usize> = others
                .iter()
                .enumerate()
                .filter(|(index, _)| !combination.contains(index))
                .map(|(_, &entry)| entry)
                .collect();
            if let Some(mut tables) = search(&remaining, seats, met, budget) {
                tables.insert(0, table);
                return Some(tables);
            }
        }
        if !next_combination(&mut combination, others.len()) {
            return None;
        }
    }
}

/// The next `k`-combination of `0..n` in lexicographic order.
fn next_combination(combination: &mut [usize], n: usize) -> bool {
    let k = combination.len();
    for i in (0..k).rev() {
        if combination[i] < n - k + i {
            combination[i] += 1;
            for j in i + 1..k {
                combination[j] = combination[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

fn greedy(ranking: &[usize], seats: usize, met: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    let mut rest: Vec<usize> = ranking.to_vec();
    let mut tables = Vec::new();
    while rest.len() >= seats {
        let mut table = vec![rest.remove(0)];
        while table.len() < seats {
            let best = (0..rest.len())
                .min_by_key(|&index| (repeats(&table, rest[index], met), index))
                .unwrap_or(0);
            table.push(rest.remove(best));
        }
        tables.push(table);
    }
    tables
}
