//! A tournament sheds a broken bot: a version whose forfeit rate in the
//! tournament exceeds the tournament's `max_forfeit_rate` once it has
//! played [`MIN_GAMES_BEFORE_SUSPENSION`] games is suspended from it. Its
//! played games are kept (and rated, as played), the matches seating it
//! that no runner holds are dropped, and a ladder or a Swiss plans it no
//! more.
//!
//! Only forfeits the arena recorded count. A host's fault never becomes
//! one: a runner that could not start a bot gives the match back
//! (`MatchError::Host`), and a match given up after too many give-backs
//! has no results.
//!
//! RULING (ours): a knockout keeps a suspended version's ties (a bracket
//! needs every tie decided); its suspension is recorded and shown.

use sqlx::AnyConnection;

use super::Store;
use crate::error::ArenaError;

/// Games a version plays in a tournament before its forfeit rate counts.
pub const MIN_GAMES_BEFORE_SUSPENSION: i64 = 10;
/// The forfeit rate a tournament tolerates unless asked otherwise.
pub const DEFAULT_MAX_FORFEIT_RATE: f64 = 0.2;

/// A version suspended from a tournament.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
pub struct Suspension {
    pub bot_version_id: i64,
    pub bot_name: String,
    pub version: i64,
    /// Its games and forfeits in the tournament when it was suspended.
    pub games: i64,
    pub forfeits: i64,
    pub reason: String,
    pub suspended_at: i64,
}

/// Checks a forfeit rate asked of a tournament.
pub(crate) fn check_max_forfeit_rate(rate: f64) -> Result<(), ArenaError> {
    if !(0.0..=1.0).contains(&rate) {
        return Err(ArenaError::invalid(format!(
            "a maximum forfeit rate is between 0 and 1, not {rate}"
        )));
    }
    Ok(())
}

/// After game `game_id` of tournament `tournament_id` is recorded: suspends
/// each of its seats' versions whose forfeit rate now exceeds the
/// tournament's maximum, in the same transaction.
pub(crate) async fn after_game(
    tx: &mut AnyConnection,
    tournament_id: i64,
    game_id: i64,
    now: i64,
) -> Result<(), ArenaError> {
    // The game's seats counted into the tally (an upsert: atomic beside
    // PostgreSQL's concurrent reports).
    sqlx::query(
        "INSERT INTO forfeit_tallies (tournament_id, bot_version_id, games, forfeits) \
         SELECT $1, rs.bot_version_id, COUNT(*), SUM(CASE WHEN rs.forfeit_reason IS NULL THEN 0 ELSE 1 END) \
         FROM result_seats rs WHERE rs.game_id = $2 GROUP BY rs.bot_version_id \
         ON CONFLICT (tournament_id, bot_version_id) DO UPDATE \
         SET games = forfeit_tallies.games + excluded.games, forfeits = forfeit_tallies.forfeits + excluded.forfeits",
    )
    .bind(tournament_id)
    .bind(game_id)
    .execute(&mut *tx)
    .await?;
    // Per version seated in this game and not yet suspended: its games and
    // forfeits in the tournament, and the tournament's maximum.
    let counts: Vec<(i64, i64, i64, f64)> = sqlx::query_as(
        "SELECT f.bot_version_id, f.games, f.forfeits, t.max_forfeit_rate \
         FROM forfeit_tallies f JOIN tournaments t ON t.id = f.tournament_id \
         WHERE f.tournament_id = $1 AND t.max_forfeit_rate IS NOT NULL \
         AND f.bot_version_id IN (SELECT bot_version_id FROM result_seats WHERE game_id = $2) \
         AND NOT EXISTS (SELECT 1 FROM tournament_suspensions su \
              WHERE su.tournament_id = f.tournament_id AND su.bot_version_id = f.bot_version_id) \
         ORDER BY f.bot_version_id",
    )
    .bind(tournament_id)
    .bind(game_id)
    .fetch_all(&mut *tx)
    .await?;
    for (bot_version_id, games, forfeits, max_rate) in counts {
        if !exceeds(games, forfeits, max_rate) {
            continue;
        }
        let reason = format!(
            "forfeited {forfeits} of its {games} games ({:.0}%), above this tournament's maximum of {:.0}%",
            100.0 * forfeits as f64 / games as f64,
            100.0 * max_rate
        );
        tracing::info!(tournament_id, bot_version_id, %reason, "suspended from a tournament");
        sqlx::query(
            "INSERT INTO tournament_suspensions (tournament_id, bot_version_id, games, forfeits, reason, suspended_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tournament_id, bot_version_id) DO NOTHING",
        )
        .bind(tournament_id)
        .bind(bot_version_id)
        .bind(games)
        .bind(forfeits)
        .bind(reason)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        drop_unplayed_matches_of(tx, tournament_id).await?;
    }
    Ok(())
}

/// Whether `forfeits` of `games` exceed `max_rate`, with games enough to tell.
pub(crate) fn exceeds(games: i64, forfeits: i64, max_rate: f64) -> bool {
    games >= MIN_GAMES_BEFORE_SUSPENSION && forfeits as f64 > max_rate * games as f64
}

/// Drops every match of `tournament_id` seating a suspended version that no
/// runner holds yet (queued). A knockout keeps its ties (see the module).
pub(crate) async fn drop_unplayed_matches_of(
    tx: &mut AnyConnection,
    tournament_id: i64,
) -> Result<(), ArenaError> {
    let unplayed = "SELECT m.id FROM matches m JOIN tournaments t ON t.id = m.tournament_id \
         WHERE m.tournament_id = $1 AND m.status = 'queued' AND t.format <> 'knockout' \
         AND EXISTS (SELECT 1 FROM seats s JOIN tournament_suspensions su \
              ON su.bot_version_id = s.bot_version_id AND su.tournament_id = m.tournament_id \
              WHERE s.match_id = m.id)";
    let dropped: Vec<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(unplayed))
        .bind(tournament_id)
        .fetch_all(&mut *tx)
        .await?;
    if dropped.is_empty() {
        return Ok(());
    }
    for match_id in &dropped {
        for table in ["games", "seats", "matches"] {
            let column = if table == "matches" { "id" } else { "match_id" };
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DELETE FROM {table} WHERE {column} = $1"
            )))
            .bind(match_id)
            .execute(&mut *tx)
            .await?;
        }
    }
    // A format that plans every match at once counts what is left; one
    // that plans rounds sets its total when it finishes.
    sqlx::query(
        "UPDATE tournaments SET planned_matches = (SELECT COUNT(*) FROM matches WHERE tournament_id = $1) \
         WHERE id = $2 AND planning_done = 1 AND format IN ('round-robin', 'gauntlet')",
    )
    .bind(tournament_id)
    .bind(tournament_id)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The entries of `tournament_id` suspended from it, by entry index.
pub(crate) async fn suspended_entries(
    tx: &mut AnyConnection,
    tournament_id: i64,
) -> Result<Vec<usize>, ArenaError> {
    let entries: Vec<i64> = sqlx::query_scalar(
        "SELECT e.entry_index FROM tournament_entries e JOIN tournament_suspensions su \
         ON su.tournament_id = e.tournament_id AND su.bot_version_id = e.bot_version_id \
         WHERE e.tournament_id = $1 ORDER BY e.entry_index",
    )
    .bind(tournament_id)
    .fetch_all(&mut *tx)
    .await?;
    Ok(entries
        .into_iter()
        .filter_map(|entry| usize::try_from(entry).ok())
        .collect())
}

impl Store {
    /// The versions suspended from a tournament, in the order suspended.
    pub async fn tournament_suspensions(
        &self,
        tournament_id: i64,
    ) -> Result<Vec<Suspension>, ArenaError> {
        Ok(sqlx::query_as(
            "SELECT su.bot_version_id, b.name AS bot_name, v.version, su.games, su.forfeits, su.reason, su.suspended_at \
             FROM tournament_suspensions su JOIN bot_versions v ON v.id = su.bot_version_id \
             JOIN bots b ON b.id = v.bot_id WHERE su.tournament_id = $1 ORDER BY su.suspended_at, su.bot_version_id",
        )
        .bind(tournament_id)
        .fetch_all(self.pool())
        .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_not_suspended_before_its_tenth_game() {
        assert!(!exceeds(9, 9, 0.2));
        assert!(exceeds(10, 3, 0.2));
    }

    #[test]
    fn a_forfeit_rate_equal_to_the_maximum_is_tolerated() {
        assert!(!exceeds(10, 2, 0.2));
        assert!(!exceeds(20, 20, 1.0));
        assert!(exceeds(10, 1, 0.0));
    }

    #[test]
    fn a_maximum_forfeit_rate_outside_zero_to_one_is_refused() {
        assert!(check_max_forfeit_rate(-0.1).is_err());
        assert!(check_max_forfeit_rate(1.5).is_err());
        assert!(check_max_forfeit_rate(f64::NAN).is_err());
        assert!(check_max_forfeit_rate(0.2).is_ok());
    }
}
