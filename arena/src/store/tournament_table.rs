//! Reads a tournament's own results table and crosstable (issue 36): the
//! pairs of seats at each recorded game are counted in SQL, by entry, so
//! the answer is a few rows whatever the number of games; the rows are
//! made by the pure [`crate::results_table`].

use crate::results_table::{results_table, CrossCell, ShareCount, TableRow};
use crate::ArenaError;

/// Every ordered pair of seats at a recorded game of tournament `$1`, as
/// entry indexes, with the first seat's half points against the second.
macro_rules! pairs {
    () => {
        "WITH pair AS (SELECT a.game_id, a.seat, ea.entry_index AS me, eb.entry_index AS them, \
     CASE WHEN a.rank < b.rank THEN 2 WHEN a.rank = b.rank THEN 1 ELSE 0 END AS half \
     FROM matches m JOIN games g ON g.match_id = m.id \
     JOIN result_seats a ON a.game_id = g.id \
     JOIN result_seats b ON b.game_id = g.id AND b.seat <> a.seat \
     JOIN tournament_entries ea ON ea.tournament_id = m.tournament_id AND ea.bot_version_id = a.bot_version_id \
     JOIN tournament_entries eb ON eb.tournament_id = m.tournament_id AND eb.bot_version_id = b.bot_version_id \
     WHERE m.tournament_id = $1) "
    };
}

/// A tournament's results table and crosstable.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsTable {
    /// Best first.
    pub rows: Vec<TableRow>,
    /// Every ordered pair of entries that met (by entry index).
    pub crosstable: Vec<CrossCell>,
}

impl super::Store {
    /// Tournament `tournament_id`'s results table from the games recorded
    /// so far (every format; a crosstable cell per pair of entries that met).
    pub async fn results_table(
        &self,
        tournament_id: i64,
        n_entries: usize,
    ) -> Result<ResultsTable, ArenaError> {
        let mut connection = self.pool().acquire().await?;
        let cells: Vec<(i64, i64, i64, i64, i64)> = sqlx::query_as(concat!(
            pairs!(),
            "SELECT me, them, CAST(SUM(CASE WHEN half = 2 THEN 1 ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN half = 1 THEN 1 ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN half = 0 THEN 1 ELSE 0 END) AS BIGINT) \
             FROM pair GROUP BY me, them ORDER BY me, them"
        ))
        .bind(tournament_id)
        .fetch_all(&mut *connection)
        .await?;
        let shares: Vec<(i64, i64, i64, i64)> = sqlx::query_as(concat!(
            pairs!(),
            "SELECT me, halves, opponents, CAST(COUNT(*) AS BIGINT) FROM \
             (SELECT game_id, seat, me, CAST(SUM(half) AS BIGINT) AS halves, CAST(COUNT(*) AS BIGINT) AS opponents \
              FROM pair GROUP BY game_id, seat, me) AS per_game \
             GROUP BY me, halves, opponents ORDER BY me, halves, opponents"
        ))
        .bind(tournament_id)
        .fetch_all(&mut *connection)
        .await?;
        let count = |value: i64| u64::try_from(value).unwrap_or(0);
        let index = |value: i64| usize::try_from(value).unwrap_or(usize::MAX);
        let crosstable: Vec<CrossCell> = cells
            .into_iter()
            .map(|(me, them, wins, draws, losses)| CrossCell {
                row: index(me),
                column: index(them),
                wins: count(wins),
                draws: count(draws),
                losses: count(losses),
            })
            .collect();
        let shares: Vec<ShareCount> = shares
            .into_iter()
            .map(|(me, halves, opponents, games)| ShareCount {
                entry: index(me),
                halves: count(halves),
                opponents: count(opponents),
                games: count(games),
            })
            .collect();
        Ok(ResultsTable {
            rows: results_table(n_entries, &crosstable, &shares),
            crosstable,
        })
    }
}

#[cfg(test)]
mod tests;
