//! A tournament's own results table (pure): per entry its games, its wins,
//! draws and losses against each other seat it sat with, its points, its
//! score and its Elo within the tournament with a 95% interval; and, for a
//! round robin, the crosstable. Computed from counts the store aggregates
//! in SQL ([`crate::store::Store::results_table`]), so a 100,000-game round
//! robin is a few rows; the Elo is [`crate::stats::EloEstimate`] over the
//! entry's per-game scores, the formula `cairn play` prints.
//!
//! A game gives a seat the share of the other seats it ranked above, a tie
//! counting half (1, ½ or 0 at two seats); its points are the sum of those
//! shares. Wins, draws and losses count each other seat at the table once
//! (at two seats, one per game).

use crate::stats::{EloEstimate, Outcomes};

/// One entry against one other: the row entry's results when it sat at a
/// table with the column entry (entry indexes of the tournament).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CrossCell {
    pub row: usize,
    pub column: usize,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// How many of an entry's games gave it `halves` half points out of
/// `2 * opponents` (its share of the table: `halves / (2 * opponents)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShareCount {
    pub entry: usize,
    pub halves: u64,
    pub opponents: u64,
    pub games: u64,
}

/// One line of the results table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    pub entry: usize,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub points: f64,
    /// The score, and the Elo against the field with its 95% interval
    /// (infinite for a perfect or a null score); `None` before any game.
    pub estimate: Option<EloEstimate>,
}

/// The table, best first: by points, then score; an entry yet to play
/// after those that played; then entry order (equal rows stay in a
/// deterministic order).
pub fn results_table(
    n_entries: usize,
    cross: &[CrossCell],
    shares: &[ShareCount],
) -> Vec<TableRow> {
    let mut rows: Vec<TableRow> = (0..n_entries)
        .map(|entry| table_row(entry, cross, shares))
        .collect();
    rows.sort_by(|a, b| {
        let score = |row: &TableRow| row.estimate.map_or(0.0, |e| e.score);
        b.points
            .total_cmp(&a.points)
            .then(score(b).total_cmp(&score(a)))
            .then(b.estimate.is_some().cmp(&a.estimate.is_some()))
            .then(a.entry.cmp(&b.entry))
    });
    rows
}

fn table_row(entry: usize, cross: &[CrossCell], shares: &[ShareCount]) -> TableRow {
    let mine = cross.iter().filter(|cell| cell.row == entry);
    let (wins, draws, losses) = mine.fold((0, 0, 0), |(w, d, l), cell| {
        (w + cell.wins, d + cell.draws, l + cell.losses)
    });
    let mut outcomes = Outcomes {
        bins: Vec::new(),
        games_per_outcome: 1,
    };
    let mut games = 0;
    let mut points = 0.0;
    for share in shares.iter().filter(|share| share.entry == entry) {
        let score = share.halves as f64 / (2 * share.opponents.max(1)) as f64;
        outcomes.bins.push((score, share.games as f64));
        games += share.games;
        points += score * share.games as f64;
    }
    TableRow {
        entry,
        games,
        wins,
        draws,
        losses,
        points,
        estimate: EloEstimate::of(&outcomes),
    }
}

#[cfg(test)]
mod tests;
