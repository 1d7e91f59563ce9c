//! Writing a tournament's plan without stalling the arena: the plan (pure
//! and seeded, [`crate::plan`]) is written in chunks of at most
//! [`PLAN_CHUNK_ROWS`] rows, each its own short write transaction, so a
//! heartbeat or a report waits for one chunk at most, never for the whole
//! plan. A half-written match is 'leased' to nobody until its last game is
//! written; a tournament whose planning a restart interrupted is finished
//! by [`Store::resume_planning`], which writes exactly what is missing.

use std::collections::HashMap;
use std::fmt::Write as _;

use sqlx::AnyConnection;

use super::Store;
use crate::error::ArenaError;
use crate::plan::PlannedMatch;

/// Rows (matches, seats, games) written per transaction.
pub const PLAN_CHUNK_ROWS: usize = 2_000;
/// Rows per INSERT statement.
const ROWS_PER_STATEMENT: usize = 250;

/// A match of the plan already (partly) written.
#[derive(Debug, Clone, Copy)]
pub(super) struct Written {
    pub(super) match_id: i64,
    games: usize,
}

impl Store {
    /// Finishes the planning of every tournament a restart interrupted;
    /// how many this call finished (another arena process may finish one
    /// first: this call then waits for it and counts it not).
    pub async fn resume_planning(&self) -> Result<usize, ArenaError> {
        let unfinished: Vec<i64> =
            sqlx::query_scalar("SELECT id FROM tournaments WHERE planning_done = 0 ORDER BY id")
                .fetch_all(self.pool())
                .await?;
        let mut finished = 0;
        for &tournament_id in &unfinished {
            if self.write_plan(tournament_id).await? {
                finished += 1;
            }
        }
        Ok(finished)
    }

    /// Writes what is missing of a tournament's plan, chunk by chunk;
    /// whether anything was (nothing when another process finished it).
    pub(crate) async fn write_plan(&self, tournament_id: i64) -> Result<bool, ArenaError> {
        // One planner per tournament across arena processes: the others
        // wait, then find the plan written.
        let _planning = self.planning_lock(tournament_id).await?;
        let super::Flag(done) =
            sqlx::query_scalar("SELECT planning_done FROM tournaments WHERE id = $1")
                .bind(tournament_id)
                .fetch_one(self.pool())
                .await?;
        if done {
            return Ok(false);
        }
        let plan = {
            let mut connection = self.pool().acquire().await?;
            super::rounds::stored_first_round(&mut connection, tournament_id).await?
        };
        let entries: Vec<i64> = sqlx::query_scalar(
            "SELECT bot_version_id FROM tournament_entries WHERE tournament_id = $1 ORDER BY entry_index",
        )
        .bind(tournament_id)
        .fetch_all(self.pool())
        .await?;
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT m.match_index, m.id, (SELECT COUNT(*) FROM games g WHERE g.match_id = m.id) FROM matches m WHERE m.tournament_id = $1",
        )
        .bind(tournament_id)
        .fetch_all(self.pool())
        .await?;
        let mut written: HashMap<usize, Written> = rows
            .into_iter()
            .map(|(index, match_id, games)| {
                (
                    index as usize,
                    Written {
                        match_id,
                        games: games as usize,
                    },
                )
            })
            .collect();
        // One chunk a transaction: `next` is the first match of the plan
        // not yet complete, `written` what is written of those after it.
        let mut next = 0;
        let mut first_chunk = true;
        loop {
            let finished = self
                .write(async |tx| {
                    if !first_chunk && sprt_decided(tx, tournament_id).await? {
                        // An SPRT gauntlet decided while its plan was being
                        // written: what is not written is dropped too.
                        finish_plan(tx, tournament_id).await?;
                        return Ok(true);
                    }
                    let mut budget = PLAN_CHUNK_ROWS;
                    while let Some(planned) = plan.get(next) {
                        let mut done = match written.remove(&next) {
                            Some(done) => done,
                            None => {
                                budget = budget.saturating_sub(1 + planned.seats.len());
                                insert_match(tx, tournament_id, next, planned, &entries).await?
                            }
                        };
                        while done.games < planned.game_seeds.len() {
                            if budget == 0 {
                                written.insert(next, done);
                                return Ok(false);
                            }
                            let take = budget.min(planned.game_seeds.len() - done.games);
                            insert_games(
                                tx,
                                done.match_id,
                                done.games,
                                &planned.game_seeds[done.games..done.games + take],
                            )
                            .await?;
                            done.games += take;
                            budget -= take;
                        }
                        // Complete: a runner may take it now.
                        sqlx::query(
                            "UPDATE matches SET status = 'queued' WHERE id = $1 AND status = 'leased' AND lease_holder IS NULL AND lease_expires_at IS NULL",
                        )
                        .bind(done.match_id)
                        .execute(&mut **tx)
                        .await?;
                        next += 1;
                    }
                    finish_plan(tx, tournament_id).await?;
                    Ok(true)
                })
                .await?;
            if finished {
                break;
            }
            first_chunk = false;
        }
        self.notify_change();
        Ok(true)
    }
}

/// Marks a tournament's plan written, dropping what is not played yet of
/// a decided SPRT gauntlet, and the matches of versions suspended while
/// it was being written.
async fn finish_plan(tx: &mut AnyConnection, tournament_id: i64) -> Result<(), ArenaError> {
    if sprt_decided(tx, tournament_id).await? {
        super::rounds::drop_unplayed_matches(tx, tournament_id).await?;
    }
    sqlx::query("UPDATE tournaments SET planning_done = 1 WHERE id = $1")
        .bind(tournament_id)
        .execute(&mut *tx)
        .await?;
    super::suspensions::drop_unplayed_matches_of(tx, tournament_id).await?;
    Ok(())
}

async fn sprt_decided(tx: &mut AnyConnection, tournament_id: i64) -> Result<bool, ArenaError> {
    let super::Flag(decided) =
        sqlx::query_scalar("SELECT sprt_verdict IS NOT NULL FROM tournaments WHERE id = $1")
            .bind(tournament_id)
            .fetch_one(&mut *tx)
            .await?;
    Ok(decided)
}

/// A new match, 'leased' to nobody until its games are written.
pub(super) async fn insert_match(
    tx: &mut AnyConnection,
    tournament_id: i64,
    match_index: usize,
    planned: &PlannedMatch,
    entries: &[i64],
) -> Result<Written, ArenaError> {
    let match_id: i64 = sqlx::query_scalar(
        "INSERT INTO matches (tournament_id, match_index, status) VALUES ($1, $2, 'leased') RETURNING id",
    )
    .bind(tournament_id)
    .bind(match_index as i64)
    .fetch_one(&mut *tx)
    .await?;
    for (seat, &entry) in planned.seats.iter().enumerate() {
        let bot_version_id = entries
            .get(entry)
            .ok_or_else(|| ArenaError::Internal(format!("plan names entry {entry}")))?;
        sqlx::query("INSERT INTO seats (match_id, seat, bot_version_id) VALUES ($1, $2, $3)")
            .bind(match_id)
            .bind(seat as i64)
            .bind(bot_version_id)
            .execute(&mut *tx)
            .await?;
    }
    Ok(Written { match_id, games: 0 })
}

/// Games `first..` of a match, a few hundred rows per statement.
pub(super) async fn insert_games(
    tx: &mut AnyConnection,
    match_id: i64,
    first: usize,
    seeds: &[u64],
) -> Result<(), ArenaError> {
    for (chunk_index, chunk) in seeds.chunks(ROWS_PER_STATEMENT).enumerate() {
        // Numbered placeholders written here: sqlx's query builder writes
        // `?` for the Any driver, which PostgreSQL does not read.
        let mut sql = String::from("INSERT INTO games (match_id, game_index, seed) VALUES ");
        for row in 0..chunk.len() {
            let n = 3 * row;
            let separator = if row == 0 { "" } else { ", " };
            let _ = write!(sql, "{separator}(${}, ${}, ${})", n + 1, n + 2, n + 3);
        }
        let start = first + chunk_index * ROWS_PER_STATEMENT;
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (offset, &seed) in chunk.iter().enumerate() {
            query = query
                .bind(match_id)
                .bind((start + offset) as i64)
                .bind(seed as i64);
        }
        query.execute(&mut *tx).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
