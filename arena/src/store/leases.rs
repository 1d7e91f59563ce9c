//! Runners lease matches: a lease lasts until its expiry unless heartbeats
//! extend it; a match whose lease expired goes back to the queue and the
//! next lease bumps its generation, so the old holder's report is refused.

use cairn_engine::GameOptions;

use super::accounts::Runner;
use super::snapshots::Touched;
use super::{Dialect, Store, Touch, WriteTransaction};
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
    /// The seed to deal from: the planned seed's deal seed
    /// ([`crate::deal::DealSecret::deal_seed`]), never the listed one.
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
        let leased = self
            .write_concurrently(async |tx| match self.dialect {
                Dialect::Sqlite => {
                    self.saw_runner_inside(tx, runner, now).await?;
                    lease_on_sqlite(tx, runner, now, duration_ms).await
                }
                Dialect::Postgres => lease_on_postgres(tx, runner, now, duration_ms).await,
            })
            .await?;
        match leased {
            Some(leased) => self.lease_details(leased).await.map(Some),
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
        if self.dialect == Dialect::Postgres
            && !self.runners.seen_within(runner.id, now, SIGHTING_MS)
            && saw_runner(&self.writer, runner, now).await?
        {
            self.runners.saw(runner.id, now);
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
        if self.dialect == Dialect::Sqlite
            && !self.runners.seen_within(runner.id, now, SIGHTING_MS)
            && saw_runner(tx, runner, now).await?
        {
            self.runners.saw(runner.id, now);
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

    /// What a runner needs to play leased match `match_id`, in two reads
    /// on one connection: its seats with their bots and its tournament's
    /// game, then its games. `leased` is what the lease wrote.
    async fn lease_details(&self, leased: LeasedRow) -> Result<Lease, ArenaError> {
        let match_id = leased.match_id;
        let mut connection = self.pool().acquire().await?;
        let seats: Vec<SeatDetails> = sqlx::query_as(
            "SELECT t.game, t.options, v.id AS bot_version_id, b.name AS bot_name, v.version, v.content_hash, v.manifest \
             FROM seats s JOIN matches m ON m.id = s.match_id JOIN tournaments t ON t.id = m.tournament_id \
             JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id \
             WHERE s.match_id = $1 ORDER BY s.seat",
        )
        .bind(match_id)
        .fetch_all(&mut *connection)
        .await?;
        let games: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT id, game_index, seed FROM games WHERE match_id = $1 ORDER BY game_index",
        )
        .bind(match_id)
        .fetch_all(&mut *connection)
        .await?;
        drop(connection);
        let (game, options) = match seats.first() {
            Some(first) => (first.game.clone(), stored_json(&first.options, "options")?),
            None => {
                return Err(ArenaError::Internal(format!(
                    "match {match_id} has no seats"
                )))
            }
        };
        let seats = seats
            .into_iter()
            .map(|seat| {
                Ok(LeasedSeat {
                    bot_version_id: seat.bot_version_id,
                    bot_name: seat.bot_name,
                    version: seat.version,
                    content_hash: seat.content_hash,
                    manifest: stored_json(&seat.manifest, "manifest")?,
                })
            })
            .collect::<Result<_, ArenaError>>()?;
        // The deal seeds, not the planned ones the listings show (see
        // `crate::deal`): only the runner holding the lease learns them.
        let games = games
            .into_iter()
            .map(|(game_id, game_index, seed)| LeasedGame {
                game_id,
                game_index,
                seed: self.deal_seed(leased.tournament_id, seed as u64),
            })
            .collect();
        Ok(Lease {
            match_id,
            lease_generation: leased.lease_generation,
            expires_at: leased.lease_expires_at,
            tournament_id: leased.tournament_id,
            game,
            options,
            seats,
            games,
        })
    }
}

/// The lease on SQLite, whose transaction holds the database: the oldest
/// queued or expired match. Two indexed lookups rather than one OR, which
/// would scan every finished match of every tournament.
async fn lease_on_sqlite(
    tx: &mut WriteTransaction,
    runner: &Runner,
    now: i64,
    duration_ms: i64,
) -> Result<Option<LeasedRow>, ArenaError> {
    let queued: Option<i64> =
        sqlx::query_scalar("SELECT id FROM matches WHERE status = 'queued' ORDER BY id LIMIT 1")
            .fetch_optional(&mut **tx)
            .await?;
    let expired: Option<i64> = sqlx::query_scalar(
        "SELECT id FROM matches WHERE status = 'leased' AND lease_expires_at <= $1 ORDER BY id LIMIT 1",
    )
    .bind(now)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(match_id) = queued.into_iter().chain(expired).min() else {
        tx.touches_nothing_cached();
        return Ok(None);
    };
    let leased: LeasedRow = sqlx::query_as(LEASE_UPDATE)
        .bind(runner.id)
        .bind(now + duration_ms)
        .bind(match_id)
        .fetch_one(&mut **tx)
        .await?;
    tx.touches(Touch::Match {
        tournament_id: leased.tournament_id,
        match_index: leased.match_index,
    });
    Ok(Some(leased))
}

/// Writes a lease to match `$3` for runner `$1`, expiring at `$2`.
const LEASE_UPDATE: &str =
    "UPDATE matches SET status = 'leased', lease_generation = lease_generation + 1, \
     lease_holder = $1, lease_expires_at = $2 WHERE id = $3 \
     RETURNING id AS match_id, tournament_id, match_index, lease_generation, lease_expires_at";

/// The lease on PostgreSQL, in one statement beside other processes'
/// leases: the oldest queued and the oldest expired match are each locked
/// `FOR UPDATE SKIP LOCKED` (two processes never take one match, and
/// neither waits for the other), the older is leased unless the runner
/// was revoked (a revocation holds the exclusive write lock, so it
/// committed before this transaction began or starts after it ends), and
/// the other processes are notified of the match it touched.
async fn lease_on_postgres(
    tx: &mut WriteTransaction,
    runner: &Runner,
    now: i64,
    duration_ms: i64,
) -> Result<Option<LeasedRow>, ArenaError> {
    let me = tx.notifier().unwrap_or_default();
    let row: PostgresLease = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "WITH me AS (SELECT id FROM runners WHERE id = $1 AND revoked_at IS NULL), \
         q AS (SELECT id FROM matches WHERE status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED), \
         e AS (SELECT id FROM matches WHERE status = 'leased' AND lease_expires_at <= $3 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED), \
         u AS (UPDATE matches SET status = 'leased', lease_generation = lease_generation + 1, \
               lease_holder = $1, lease_expires_at = $2 \
               WHERE id = (SELECT MIN(id) FROM (SELECT id FROM q UNION ALL SELECT id FROM e) AS c) \
               AND EXISTS (SELECT 1 FROM me) \
               RETURNING id AS match_id, tournament_id, match_index, lease_generation, lease_expires_at), \
         n AS (SELECT pg_notify($4, {}) FROM u) \
         SELECT (SELECT COUNT(*) FROM me) AS live, (SELECT COUNT(*) FROM n) AS notified, \
         u.match_id, u.tournament_id, u.match_index, u.lease_generation, u.lease_expires_at \
         FROM (SELECT 1) AS one LEFT JOIN u ON TRUE",
        super::invalidate::match_payload_sql("$5", "tournament_id", "match_index"),
    )))
    .bind(runner.id)
    .bind(now + duration_ms)
    .bind(now)
    .bind(super::invalidate::CHANNEL)
    .bind(me.to_string())
    .fetch_one(&mut **tx)
    .await?;
    if row.live == 0 {
        return Err(ArenaError::Unauthenticated("runner"));
    }
    let (
        Some(match_id),
        Some(tournament_id),
        Some(match_index),
        Some(lease_generation),
        Some(lease_expires_at),
    ) = (
        row.match_id,
        row.tournament_id,
        row.match_index,
        row.lease_generation,
        row.lease_expires_at,
    )
    else {
        tx.touches_nothing_cached();
        return Ok(None);
    };
    let touch = Touch::Match {
        tournament_id,
        match_index,
    };
    tx.touches(touch.clone());
    if row.notified == 1 {
        tx.notified(Touched::Only(vec![touch]));
    }
    Ok(Some(LeasedRow {
        match_id,
        tournament_id,
        match_index,
        lease_generation,
        lease_expires_at,
    }))
}

/// What [`lease_on_postgres`] read and wrote.
#[derive(sqlx::FromRow)]
struct PostgresLease {
    live: i64,
    notified: i64,
    match_id: Option<i64>,
    tournament_id: Option<i64>,
    match_index: Option<i64>,
    lease_generation: Option<i64>,
    lease_expires_at: Option<i64>,
}

/// A stored JSON column (options, manifest) read back.
fn stored_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, ArenaError> {
    serde_json::from_str(text)
        .map_err(|error| ArenaError::Internal(format!("stored {what} unreadable: {error}")))
}

/// What a lease wrote to its match's row.
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub(crate) struct LeasedRow {
    match_id: i64,
    tournament_id: i64,
    match_index: i64,
    lease_generation: i64,
    lease_expires_at: i64,
}

/// A seat of a leased match, with its tournament's game.
#[derive(sqlx::FromRow)]
struct SeatDetails {
    game: String,
    options: String,
    bot_version_id: i64,
    bot_name: String,
    version: i64,
    content_hash: String,
    manifest: String,
}

/// Records that `runner` called at `now`, when its last sighting is older
/// than [`SIGHTING_MS`] (or in the future: a clock set back). Every runner
/// sharing a token shares its row, and every lease and heartbeat would
/// otherwise write it. On SQLite, where writes take turns anyway, it is
/// written in the call's transaction; on PostgreSQL in a statement of its
/// own before it, so no lease or heartbeat holds (or waits for) the row's
/// lock, and a sighting still fresh changes and locks nothing. Whether it
/// wrote: then the row says `now` at least, and this process skips the
/// statement until the sighting is stale again.
async fn saw_runner<'c>(
    executor: impl sqlx::Executor<'c, Database = sqlx::Any>,
    runner: &Runner,
    now: i64,
) -> Result<bool, ArenaError> {
    let written = sqlx::query(
        "UPDATE runners SET last_seen_at = $1 WHERE id = $2 \
         AND (last_seen_at IS NULL OR last_seen_at <= $3 OR last_seen_at > $1)",
    )
    .bind(now)
    .bind(runner.id)
    .bind(now - SIGHTING_MS)
    .execute(executor)
    .await?;
    Ok(written.rows_affected() > 0)
}
