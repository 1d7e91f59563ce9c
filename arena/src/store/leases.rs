//! Runners lease matches: a lease lasts until its expiry unless heartbeats
//! extend it; a match whose lease expired goes back to the queue and the
//! next lease bumps its generation, so the old holder's report is refused.

use cairn_engine::GameOptions;

use super::accounts::Runner;
use super::{Dialect, Store, Touch};
use crate::archive::Manifest;
use crate::error::ArenaError;

/// The longest lease (or extension) a runner may ask for.
pub const MAX_LEASE_MS: i64 = 60 * 60 * 1000;

/// How stale a runner's last sighting may grow before a call records it
/// again (`cairn runners` shows it this fresh).
pub const SIGHTING_MS: i64 = 5_000;

/// A match leased to a runner: everything needed to play it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub match_id: i64,
    pub lease_generation: i64,
    pub expires_at: i64,
    pub tournament_id: i64,
    pub game: String,
    pub options: GameOptions,
    pub seats: Vec<LeasedSeat>,
    pub games: Vec<LeasedGame>,
}

/// Who sits in one seat, and where to fetch their bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeasedSeat {
    pub bot_version_id: i64,
    pub bot_name: String,
    pub version: i64,
    pub content_hash: String,
    pub manifest: Manifest,
}

/// One game of the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeasedGame {
    pub game_id: i64,
    pub game_index: i64,
    pub seed: u64,
}

/// The lease columns of a match row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct LeaseState {
    pub status: String,
    pub lease_generation: i64,
    pub lease_holder: Option<i64>,
    pub lease_expires_at: Option<i64>,
}

impl LeaseState {
    /// Whether `runner` holds this lease, generation `generation`, at `now_ms`.
    pub fn held_by(&self, runner: &Runner, generation: i64, now_ms: i64) -> bool {
        self.status == "leased"
            && self.lease_generation == generation
            && self.lease_holder == Some(runner.id)
            && self.lease_expires_at.is_some_and(|expiry| expiry > now_ms)
    }
}

pub(crate) fn check_lease_duration(duration_ms: i64) -> Result<(), ArenaError> {
    if !(1..=MAX_LEASE_MS).contains(&duration_ms) {
        return Err(ArenaError::invalid(format!(
            "a lease lasts 1 to {MAX_LEASE_MS} ms, not {duration_ms}"
        )));
    }
    Ok(())
}

impl Store {
    /// Leases the oldest queued (or expired) match to `runner` for
    /// `duration_ms`; `None` when nothing is waiting.
    pub async fn lease_match(
        &self,
        runner: &Runner,
        duration_ms: i64,
    ) -> Result<Option<Lease>, ArenaError> {
        check_lease_duration(duration_ms)?;
        let now = self.now_ms();
        self.saw_runner_outside(runner, now).await?;
        // Two indexed lookups rather than one OR, which would scan every
        // finished match of every tournament. On PostgreSQL each locks the
        // row it finds and skips rows another lease holds: two processes
        // never take one match, and neither waits for the other.
        let locking = match self.dialect {
            Dialect::Sqlite => "",
            Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        let leased = self
            .write_concurrently(async |tx| {
                self.saw_runner_inside(tx, runner, now).await?;
                let queued: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT id FROM matches WHERE status = 'queued' ORDER BY id LIMIT 1{locking}"
                )))
                .fetch_optional(&mut **tx)
                .await?;
                let expired: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT id FROM matches WHERE status = 'leased' AND lease_expires_at <= $1 ORDER BY id LIMIT 1{locking}"
                )))
                .bind(now)
                .fetch_optional(&mut **tx)
                .await?;
                let next = queued.into_iter().chain(expired).min();
                let Some(match_id) = next else {
                    tx.touches_nothing_cached();
                    return Ok(None);
                };
                let (tournament_id, match_index): (i64, i64) = sqlx::query_as(
                    "UPDATE matches SET status = 'leased', lease_generation = lease_generation + 1, lease_holder = $1, lease_expires_at = $2 WHERE id = $3 \
                     RETURNING tournament_id, match_index",
                )
                .bind(runner.id)
                .bind(now + duration_ms)
                .bind(match_id)
                .fetch_one(&mut **tx)
                .await?;
                tx.touches(Touch::Match {
                    tournament_id,
                    match_index,
                });
                Ok(Some(match_id))
            })
            .await?;
        match leased {
            Some(match_id) => self.lease_details(match_id).await.map(Some),
            None => Ok(None),
        }
    }

    /// Extends a lease `runner` still holds; refuses a lost one.
    pub async fn heartbeat(
        &self,
        runner: &Runner,
        match_id: i64,
        generation: i64,
        duration_ms: i64,
    ) -> Result<i64, ArenaError> {
        check_lease_duration(duration_ms)?;
        let now = self.now_ms();
        self.saw_runner_outside(runner, now).await?;
        self.write_concurrently(async |tx| {
            self.saw_runner_inside(tx, runner, now).await?;
            let state = tx.lock_match(match_id).await?;
            if !state.held_by(runner, generation, now) {
                return Err(super::cancel::lease_lost(tx, match_id).await?);
            }
            let expires_at = now + duration_ms;
            sqlx::query("UPDATE matches SET lease_expires_at = $1 WHERE id = $2")
                .bind(expires_at)
                .bind(match_id)
                .execute(&mut **tx)
                .await?;
            // A lease's expiry is in no snapshot.
            tx.touches_nothing_cached();
            Ok(expires_at)
        })
        .await
    }

    /// Records that `runner` called at `now`, on PostgreSQL, before the
    /// call's transaction (see [`saw_runner`]).
    async fn saw_runner_outside(&self, runner: &Runner, now: i64) -> Result<(), ArenaError> {
        if self.dialect == Dialect::Postgres {
            saw_runner(&self.writer, runner, now).await?;
        }
        Ok(())
    }

    /// Records that `runner` called at `now`, on SQLite, in the call's
    /// transaction (see [`saw_runner`]).
    async fn saw_runner_inside(
        &self,
        tx: &mut sqlx::AnyConnection,
        runner: &Runner,
        now: i64,
    ) -> Result<(), ArenaError> {
        if self.dialect == Dialect::Sqlite {
            saw_runner(tx, runner, now).await?;
        }
        Ok(())
    }

    pub(crate) async fn lease_state(
        &self,
        tx: &mut sqlx::AnyConnection,
        match_id: i64,
    ) -> Result<LeaseState, ArenaError> {
        sqlx::query_as("SELECT status, lease_generation, lease_holder, lease_expires_at FROM matches WHERE id = $1")
            .bind(match_id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| ArenaError::not_found("match", match_id))
    }

    async fn lease_details(&self, match_id: i64) -> Result<Lease, ArenaError> {
        let (tournament_id, lease_generation, expires_at): (i64, i64, i64) = sqlx::query_as(
            "SELECT tournament_id, lease_generation, lease_expires_at FROM matches WHERE id = $1",
        )
        .bind(match_id)
        .fetch_one(self.pool())
        .await?;
        let tournament = self.tournament(tournament_id).await?;
        let mut seats = Vec::new();
        for entry in self.match_seats(match_id).await? {
            let version = self.bot_version(entry.bot_version_id).await?;
            seats.push(LeasedSeat {
                bot_version_id: version.id,
                bot_name: version.bot_name,
                version: version.version,
                content_hash: version.content_hash,
                manifest: version.manifest,
            });
        }
        let games: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT id, game_index, seed FROM games WHERE match_id = $1 ORDER BY game_index",
        )
        .bind(match_id)
        .fetch_all(self.pool())
        .await?;
        let games = games
            .into_iter()
            .map(|(game_id, game_index, seed)| LeasedGame {
                game_id,
                game_index,
                seed: seed as u64,
            })
            .collect();
        Ok(Lease {
            match_id,
            lease_generation,
            expires_at,
            tournament_id,
            game: tournament.game,
            options: tournament.options,
            seats,
            games,
        })
    }
}

/// Records that `runner` called at `now`, when its last sighting is older
/// than [`SIGHTING_MS`] (or in the future: a clock set back). Every runner
/// sharing a token shares its row, and every lease and heartbeat would
/// otherwise write it. On SQLite, where writes take turns anyway, it is
/// written in the call's transaction; on PostgreSQL in a statement of its
/// own before it, so no lease or heartbeat holds (or waits for) the row's
/// lock, and a sighting still fresh changes and locks nothing.
async fn saw_runner<'c>(
    executor: impl sqlx::Executor<'c, Database = sqlx::Any>,
    runner: &Runner,
    now: i64,
) -> Result<(), ArenaError> {
    sqlx::query(
        "UPDATE runners SET last_seen_at = $1 WHERE id = $2 \
         AND (last_seen_at IS NULL OR last_seen_at <= $3 OR last_seen_at > $1)",
    )
    .bind(now)
    .bind(runner.id)
    .bind(now - SIGHTING_MS)
    .execute(executor)
    .await?;
    Ok(())
}
