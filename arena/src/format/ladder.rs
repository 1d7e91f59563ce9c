//! The continuous ladder (two seats): entries keep joining (every new
//! version of a bot that plays the game), and each round seats every entry
//! whose 95% interval is still wider than the ladder's width against the
//! opponent its next games say most about, until every interval is narrow
//! enough. Intervals come from the same fit as the leaderboard
//! ([`crate::fit`]: Bradley-Terry, a bootstrap over deals).
//!
//! RULING (ours): the opponent is the one with the most Fisher information
//! per game, `p(1-p)` with `p` the expected score from the two fitted
//! ratings (a coin flip, the most informative game, when either is not
//! rated yet), discounted by `1 / (1 + (w/W)^2)` for an opponent whose own
//! interval is `w` wide against the target `W` (a game against a loosely
//! rated opponent says little about the entry: two newcomers playing only
//! each other would never be placed against the rest); ties go to the
//! opponent with the narrower interval, then to the one met least, then to
//! entry order. An entry not rated because it won (lost)
//! every game meets the highest (lowest) rated opponent. An entry stops
//! being scheduled after [`MAX_GAMES_PER_ENTRY`] games even if its interval
//! is still wide (a bot that beats everyone can never be bounded above).

use crate::fit::{fit, Anchor, DealKey, Estimate, FitConfig, FitGame, FitSeat, Unidentified};

use super::PlayedMatch;

/// The most games the ladder schedules for one entry.
pub const MAX_GAMES_PER_ENTRY: usize = 400;

/// Each entry's fitted rating (mean 1500) with its interval, or why it has
/// none (`None`: no game yet).
pub fn ratings(
    n_entries: usize,
    history: &[PlayedMatch],
) -> Vec<Option<Result<Estimate, Unidentified>>> {
    let games: Vec<FitGame> = history
        .iter()
        .filter(|m| m.seats.len() == 2)
        .flat_map(|m| {
            m.games
                .iter()
                .filter(|g| g.ranks.len() == 2)
                .map(|g| FitGame {
                    deal: DealKey {
                        tournament_id: m.round as i64,
                        seed: g.seed as i64,
                    },
                    seats: m
                        .seats
                        .iter()
                        .zip(&g.ranks)
                        .map(|(&entry, &rank)| FitSeat {
                            bot_version_id: entry as i64,
                            rank,
                        })
                        .collect(),
                })
        })
        .collect();
    let mut out = vec![None; n_entries];
    if games.is_empty() {
        return out;
    }
    let fitted = fit(&games, &FitConfig::default());
    if let Ok(ratings) = fitted.ratings(Anchor::Mean(crate::fit::DEFAULT_MEAN)) {
        for rating in ratings {
            if let Some(slot) = usize::try_from(rating.bot_version_id)
                .ok()
                .and_then(|entry| out.get_mut(entry))
            {
                *slot = Some(rating.estimate);
            }
        }
    }
    out
}

/// The width of an entry's interval; infinite when it has none.
pub fn interval_width(rating: &Option<Result<Estimate, Unidentified>>) -> f64 {
    match rating {
        Some(Ok(estimate)) if (estimate.high - estimate.low).is_finite() => {
            estimate.high - estimate.low
        }
        _ => f64::INFINITY,
    }
}

/// The next round's tables, or `None` when every entry is settled. A
/// `withdrawn` entry (its bot deleted) is neither scheduled nor chosen as
/// an opponent; its games still count in the others' fits.
pub(super) fn tables(
    n_entries: usize,
    history: &[PlayedMatch],
    width: f64,
    withdrawn: &[usize],
) -> Option<Vec<Vec<usize>>> {
    if n_entries < 2 {
        return None;
    }
    let ratings = ratings(n_entries, history);
    let mut games = vec![0_usize; n_entries];
    let mut met = vec![vec![0_usize; n_entries]; n_entries];
    for played in history.iter().filter(|m| m.seats.len() == 2) {
        let (a, b) = (played.seats[0], played.seats[1]);
        if a < n_entries && b < n_entries {
            games[a] += played.games.len();
            games[b] += played.games.len();
            met[a][b] += 1;
            met[b][a] += 1;
        }
    }
    let widths: Vec<f64> = ratings.iter().map(interval_width).collect();
    let mut wide: Vec<usize> = (0..n_entries)
        .filter(|&e| widths[e] > width && games[e] < MAX_GAMES_PER_ENTRY)
        .collect();
    wide.sort_by(|&a, &b| widths[b].total_cmp(&widths[a]).then(a.cmp(&b)));
    let mut seated = vec![false; n_entries];
    for &entry in withdrawn {
        if let Some(slot) = seated.get_mut(entry) {
            *slot = true;
        }
    }
    let mut tables = Vec::new();
    for entry in wide {
        if seated[entry] {
            continue;
        }
        let candidates = (0..n_entries).filter(|&o| o != entry && !seated[o]);
        let Some(opponent) = candidates.max_by(|&x, &y| {
            preference(entry, x, width, &ratings, &widths, &met)
                .partial_cmp(&preference(entry, y, width, &ratings, &widths, &met))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(y.cmp(&x))
        }) else {
            continue;
        };
        seated[entry] = true;
        seated[opponent] = true;
        tables.push(vec![entry.min(opponent), entry.max(opponent)]);
    }
    (!tables.is_empty()).then_some(tables)
}

/// How much `entry` wants `opponent` (larger is better), as the ruling says.
fn preference(
    entry: usize,
    opponent: usize,
    target: f64,
    ratings: &[Option<Result<Estimate, Unidentified>>],
    widths: &[f64],
    met: &[Vec<usize>],
) -> (f64, f64, f64) {
    let rating = |e: usize| match ratings[e] {
        Some(Ok(estimate)) => Some(estimate.rating),
        _ => None,
    };
    // A game against an opponent whose own rating is still loose says
    // little about this entry: the information is discounted by the
    // opponent's width relative to the ladder's target (none when unknown).
    let known = 1.0 / (1.0 + (widths[opponent] / target).powi(2));
    let information = match (ratings[entry], rating(opponent)) {
        (Some(Err(Unidentified::Unbeaten)), Some(theirs)) => theirs,
        (Some(Err(Unidentified::Winless)), Some(theirs)) => -theirs,
        (Some(Err(Unidentified::Unbeaten | Unidentified::Winless)), None) => f64::NEG_INFINITY,
        _ => match (rating(entry), rating(opponent)) {
            (Some(mine), Some(theirs)) => {
                let p = 1.0 / (1.0 + 10f64.powf((theirs - mine) / 400.0));
                p * (1.0 - p) * known
            }
            _ => 0.25 * known,
        },
    };
    let narrow = -widths[opponent].min(1e12);
    (information, narrow, -(met[entry][opponent] as f64))
}
