//! Tournament formats behind one seam, pure (no SQL, no clock): a format
//! says which matches come first ([`first_round`]) and, when every match
//! planned so far is finished, which come next from the results so far
//! ([`next_round`]). A round robin and a gauntlet plan everything in their
//! first round; a Swiss tournament and a knockout plan one round at a time.
//!
//! Every format seats a *table* the way a round robin does
//! ([`crate::plan`]): one match per balanced seating, every seating on the
//! same seeded deals, so each entry has each seat and each neighbour equally
//! often at every table and luck of the deal cancels out. A knockout tie is such a table of
//! two: a mini-match on mirrored deals.
//!
//! Points: a seat scores, per game, the share of the other seats it ranked
//! above, a tie counting half (two seats: a win 1, a draw ½, a loss 0).
//!
//! # Layout
//! - [`swiss`]: score groups, no repeat while avoidable, byes.
//! - [`knockout`]: the seeded bracket, byes, the tie-break.
//! - [`ladder`]: the continuous ladder's choice of opponents.
//! - `arena/src/format/tests.rs`: pairings, repeats, seat balance, byes,
//!   the tie-break.

use cairn_engine::seating::seatings_per_table;
use cairn_engine::Rng;

use crate::plan::{
    plan_round_robin, seatings_of_tables, PlanError, PlannedMatch, MAX_PLANNED_GAMES, MAX_SEATS,
    MIN_SEATS,
};

pub mod knockout;
pub mod ladder;
pub mod swiss;

/// How a tournament decides its matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// Every entry meets every other (all planned at once).
    RoundRobin,
    /// Each challenger (entry indices) meets the field, the other entries;
    /// challengers do not meet each other.
    Gauntlet { challengers: Vec<usize> },
    /// `rounds` rounds, each seating entries of near scores together.
    Swiss { rounds: usize },
    /// A seeded single-elimination bracket (entry order is the seeding).
    Knockout,
    /// The continuous ladder: rounds until every entry's 95% interval is at
    /// most `width` Elo points wide; new versions keep joining.
    Ladder { width: u32 },
}

impl Format {
    /// The name the CLI and the API use.
    pub fn name(&self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet { .. } => "gauntlet",
            Format::Swiss { .. } => "swiss",
            Format::Knockout => "knockout",
            Format::Ladder { .. } => "ladder",
        }
    }
}

/// A tournament as its format sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatSpec {
    pub format: Format,
    pub n_entries: usize,
    pub seats: usize,
    pub games_per_pairing: usize,
    pub seed: u64,
}

/// One recorded game: ranks and scores by seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedGame {
    pub seed: u64,
    pub ranks: Vec<u32>,
    pub scores: Vec<i64>,
}

/// A planned match with the games recorded so far (none for a match that
/// failed or is not played yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMatch {
    pub round: usize,
    /// Entry indices by seat.
    pub seats: Vec<usize>,
    pub games: Vec<PlayedGame>,
    /// Over: played out or given up (not queued, in play or cancelled).
    pub finished: bool,
}

/// What a format does once every planned match is finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Round(Vec<PlannedMatch>),
    Finished,
}

/// A seat's points in one game: the share of the other seats it ranked
/// above, a tie counting half.
pub fn seat_points(ranks: &[u32], seat: usize) -> f64 {
    let Some(&own) = ranks.get(seat) else {
        return 0.0;
    };
    if ranks.len() < 2 {
        return 0.0;
    }
    let above: f64 = ranks
        .iter()
        .enumerate()
        .filter(|&(other, _)| other != seat)
        .map(|(_, &rank)| match rank.cmp(&own) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        })
        .sum();
    above / (ranks.len() - 1) as f64
}

/// Refuses a spec no format can play.
pub fn check(spec: &FormatSpec) -> Result<(), PlanError> {
    let FormatSpec {
        n_entries, seats, ..
    } = *spec;
    let solo = seats == 1 && spec.format == Format::RoundRobin;
    if !(MIN_SEATS..=MAX_SEATS).contains(&seats) && !solo {
        return Err(PlanError::SeatCount(seats));
    }
    crate::plan::check_games_per_pairing(spec.games_per_pairing, seats)?;
    match &spec.format {
        Format::RoundRobin => {}
        Format::Gauntlet { challengers } => check_gauntlet(challengers, n_entries, seats)?,
        Format::Swiss { rounds } => {
            if *rounds == 0 {
                return Err(PlanError::Rounds);
            }
            if n_entries < seats {
                return Err(PlanError::TooFewEntries {
                    entries: n_entries,
                    seats,
                });
            }
        }
        Format::Ladder { width } => {
            if seats != 2 {
                return Err(PlanError::LadderSeats(seats));
            }
            if *width == 0 {
                return Err(PlanError::LadderWidth);
            }
            if n_entries < 2 {
                return Err(PlanError::TooFewEntries {
                    entries: n_entries,
                    seats,
                });
            }
        }
        Format::Knockout => {
            if seats != 2 {
                return Err(PlanError::KnockoutSeats(seats));
            }
            if n_entries < 2 {
                return Err(PlanError::TooFewEntries {
                    entries: n_entries,
                    seats,
                });
            }
        }
    }
    let planned = expected_matches(spec)?.saturating_mul(games_per_match(spec));
    if planned > MAX_PLANNED_GAMES {
        return Err(PlanError::TooManyGames {
            planned,
            limit: MAX_PLANNED_GAMES,
        });
    }
    Ok(())
}

fn check_gauntlet(challengers: &[usize], n_entries: usize, seats: usize) -> Result<(), PlanError> {
    let mut sorted = challengers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if challengers.is_empty()
        || sorted.len() != challengers.len()
        || sorted.iter().any(|&c| c >= n_entries)
    {
        return Err(PlanError::Challengers);
    }
    let field = n_entries - challengers.len();
    if field + 1 < seats || field == 0 {
        return Err(PlanError::TooFewEntries {
            entries: n_entries,
            seats,
        });
    }
    Ok(())
}

/// The games of one match: a table's deals, played once from each of its
/// balanced seatings.
pub fn games_per_match(spec: &FormatSpec) -> usize {
    spec.games_per_pairing / seatings_per_table(spec.seats)
}

/// How many matches the whole tournament plays when nothing stops it early.
pub fn expected_matches(spec: &FormatSpec) -> Result<usize, PlanError> {
    Ok(match &spec.format {
        // A ladder's length depends on its results: its first round.
        Format::RoundRobin | Format::Gauntlet { .. } | Format::Ladder { .. } => {
            first_round(spec)?.len()
        }
        Format::Swiss { rounds } => {
            rounds * (spec.n_entries / spec.seats) * seatings_per_table(spec.seats)
        }
        // Every tie sends one entry home.
        Format::Knockout => spec.n_entries.saturating_sub(1) * 2,
    })
}

/// The matches planned when the tournament is created (round 0).
pub fn first_round(spec: &FormatSpec) -> Result<Vec<PlannedMatch>, PlanError> {
    match &spec.format {
        Format::RoundRobin if spec.seats == 1 => Ok(plan_solo(spec)),
        Format::RoundRobin => plan_round_robin(
            spec.n_entries,
            spec.seats,
            spec.games_per_pairing,
            spec.seed,
        ),
        Format::Gauntlet { challengers } => {
            check_gauntlet(challengers, spec.n_entries, spec.seats)?;
            let tables = gauntlet_tables(challengers, spec.n_entries, spec.seats);
            let mut rng = round_rng(spec.seed, 0);
            Ok(seatings_of_tables(
                &tables,
                spec.games_per_pairing,
                &mut rng,
            ))
        }
        Format::Swiss { .. } | Format::Knockout | Format::Ladder { .. } => {
            match next_round(spec, &[])? {
                Next::Round(matches) => Ok(matches),
                Next::Finished => Ok(Vec::new()),
            }
        }
    }
}

/// The next round once every match of `history` (all matches planned so
/// far, with what they recorded) is finished.
pub fn next_round(spec: &FormatSpec, history: &[PlayedMatch]) -> Result<Next, PlanError> {
    next_round_without(spec, history, &[])
}

/// [`next_round`] with some entries withdrawn (their bot deleted): a
/// ladder seats them no more; the other formats play their field out.
pub fn next_round_without(
    spec: &FormatSpec,
    history: &[PlayedMatch],
    withdrawn: &[usize],
) -> Result<Next, PlanError> {
    let rounds_planned = history.iter().map(|m| m.round + 1).max().unwrap_or(0);
    let tables = match &spec.format {
        Format::RoundRobin | Format::Gauntlet { .. } => return Ok(Next::Finished),
        Format::Swiss { rounds } => {
            if rounds_planned >= *rounds {
                return Ok(Next::Finished);
            }
            swiss::tables(spec, history, rounds_planned)
        }
        Format::Ladder { width } => {
            match ladder::tables(spec.n_entries, history, f64::from(*width), withdrawn) {
                Some(tables) => tables,
                None => return Ok(Next::Finished),
            }
        }
        Format::Knockout => match knockout::next_ties(spec.n_entries, history, rounds_planned) {
            Some(ties) => ties,
            None => return Ok(Next::Finished),
        },
    };
    let mut rng = round_rng(spec.seed, rounds_planned);
    Ok(Next::Round(seatings_of_tables(
        &tables,
        spec.games_per_pairing,
        &mut rng,
    )))
}

/// A solo tournament (one seat, against the game itself): every entry
/// plays the same `games_per_pairing` seeded deals, one match each, so
/// scores compare deal by deal.
fn plan_solo(spec: &FormatSpec) -> Vec<PlannedMatch> {
    let mut rng = round_rng(spec.seed, 0);
    let game_seeds: Vec<u64> = (0..spec.games_per_pairing)
        .map(|_| rng.next_u64())
        .collect();
    (0..spec.n_entries)
        .map(|entry| PlannedMatch {
            seats: vec![entry],
            game_seeds: game_seeds.clone(),
        })
        .collect()
}

/// Each challenger at a table with the field: two seats, one table per
/// field entry; more, the field cut in groups (the last filled from the
/// start again) so every field entry meets every challenger.
fn gauntlet_tables(challengers: &[usize], n_entries: usize, seats: usize) -> Vec<Vec<usize>> {
    let field: Vec<usize> = (0..n_entries)
        .filter(|entry| !challengers.contains(entry))
        .collect();
    let others = seats - 1;
    let mut tables = Vec::new();
    for &challenger in challengers {
        for start in (0..field.len()).step_by(others) {
            let mut table = vec![challenger];
            table.extend((0..others).map(|offset| field[(start + offset) % field.len()]));
            tables.push(table);
        }
    }
    tables
}

/// The deals of each round come from the tournament seed and the round.
fn round_rng(seed: u64, round: usize) -> Rng {
    Rng::seeded(seed ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// One entry's standing.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub entry: usize,
    /// Ladder: the fitted rating and its 95% interval (`None`: no game).
    pub rating: Option<Result<crate::fit::Estimate, crate::fit::Unidentified>>,
    /// The format's score: Swiss points (per round the mean points at its
    /// table, a bye 1), else the points of every game.
    pub score: f64,
    pub games: usize,
}

/// Entries by score, best first (ties by entry order, the seeding).
pub fn standings(spec: &FormatSpec, history: &[PlayedMatch]) -> Vec<Standing> {
    let rounds_planned = history.iter().map(|m| m.round + 1).max().unwrap_or(0);
    let swiss = matches!(spec.format, Format::Swiss { .. });
    let scores = if swiss {
        swiss::scores(spec.n_entries, history, rounds_planned)
    } else {
        let mut points = vec![0.0; spec.n_entries];
        for played in history {
            for game in &played.games {
                for (seat, &entry) in played.seats.iter().enumerate() {
                    if let Some(total) = points.get_mut(entry) {
                        *total += seat_points(&game.ranks, seat);
                    }
                }
            }
        }
        points
    };
    let mut games = vec![0_usize; spec.n_entries];
    for played in history {
        for &entry in &played.seats {
            if let Some(count) = games.get_mut(entry) {
                *count += played.games.len();
            }
        }
    }
    let ratings = match spec.format {
        Format::Ladder { .. } => ladder::ratings(spec.n_entries, history),
        _ => vec![None; spec.n_entries],
    };
    let mut rows: Vec<Standing> = (0..spec.n_entries)
        .map(|entry| Standing {
            entry,
            rating: ratings[entry],
            score: scores[entry],
            games: games[entry],
        })
        .collect();
    // A ladder ranks by fitted rating (unbeaten first, winless last).
    let key = |row: &Standing| match row.rating {
        Some(Ok(estimate)) => estimate.rating,
        Some(Err(crate::fit::Unidentified::Unbeaten)) => f64::INFINITY,
        Some(Err(crate::fit::Unidentified::Winless)) => f64::NEG_INFINITY,
        _ => f64::MIN,
    };
    let ladder = matches!(spec.format, Format::Ladder { .. });
    rows.sort_by(|a, b| {
        let by_rating = if ladder {
            key(b).total_cmp(&key(a))
        } else {
            std::cmp::Ordering::Equal
        };
        by_rating
            .then(b.score.total_cmp(&a.score))
            .then(a.entry.cmp(&b.entry))
    });
    rows
}

/// A challenger's deal pairs against the field at two seats: how many
/// pairs (the two games of one deal, seats swapped) gave it 0, ½, 1, 1½ or 2
/// points. A deal with one game recorded so far is not counted yet.
pub fn deal_pairs(challenger: usize, history: &[PlayedMatch]) -> [u64; 5] {
    let mut by_deal: std::collections::BTreeMap<(usize, u64), Vec<f64>> = Default::default();
    for played in history.iter().filter(|m| m.seats.len() == 2) {
        let Some(seat) = played.seats.iter().position(|&e| e == challenger) else {
            continue;
        };
        let opponent = played.seats[1 - seat];
        for game in &played.games {
            by_deal
                .entry((opponent, game.seed))
                .or_default()
                .push(seat_points(&game.ranks, seat));
        }
    }
    let mut pairs = [0_u64; 5];
    for points in by_deal.values().filter(|points| points.len() == 2) {
        let half_points = ((points[0] + points[1]) * 2.0).round() as usize;
        pairs[half_points.min(4)] += 1;
    }
    pairs
}

#[cfg(test)]
mod tests;
