//! Runners lease matches: a lease lasts until its expiry unless heartbeats
//! extend it; a match whose lease expired goes back to the queue and the
//! next lease bumps its generation, so the old holder's report is refused.

use cairn_engine::GameOptions;

use super::accounts::Runner;
use super::Store;
use crate::archive::Manifest;
use crate::error::ArenaError;

/// The longest lease (or extension) a runner may ask for.
pub const MAX_LEASE_MS: i64 = 60 * 60 * 1000;

/// The rule that picks the tournament a lease serves, as two common table
/// expressions of a `WITH RECURSIVE` (both backends): `fair(t)` is, of the
/// tournaments with a queued match, the one with the fewest matches leased
/// now, the oldest tournament on a tie. So runners spread evenly over the
/// tournaments waiting (and their leaderboards) rather than all feeding the
/// oldest; within a tournament, matches go oldest first. `queued(t)` lists
/// those tournaments, one index probe each (a loose scan of
/// `matches_by_status_and_tournament`), and each counts its leases on the
/// same index.
pub(super) const FAIR_TOURNAMENT_CTES: &str = "queued(t) AS (\
     SELECT MIN(tournament_id) FROM matches WHERE status = 'queued' \
     UNION ALL SELECT (SELECT MIN(m.tournament_id) FROM matches m \
     WHERE m.status = 'queued' AND m.tournament_id > queued.t) FROM queued WHERE queued.t IS NOT NULL), \
     fair(t) AS (SELECT queued.t FROM queued WHERE queued.t IS NOT NULL ORDER BY \
     (SELECT COUNT(*) FROM matches l WHERE l.status = 'leased' AND l.tournament_id = queued.t), queued.t LIMIT 1)";

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
    /// Leases a queued (or expired) match to `runner` for `duration_ms`:
    /// the oldest expired one or, if older, the oldest queued match of the
    /// tournament [`FAIR_TOURNAMENT_CTES`] picks; `None` when nothing is
    /// waiting.
    pub async fn lease_match(
        &self,
        runner: &Runner,
        duration_ms: i64,
    ) -> Result<Option<Lease>, ArenaError> {
        check_lease_duration(duration_ms)?;
        let now = self.now_ms();
        self.saw_runner_outside(runner, now).await?;
        let leased = self
            .write_concurrently(async |tx| {
                self.saw_runner_inside(tx, runner, now).await?;
                super::backend::lease(tx, runner, now, duration_ms).await
            })
            .await?;
        match leased {
            Some(leased) => {
                self.metrics.lease_granted(leased.reclaimed);
                self.lease_details(leased).await.map(Some)
            }
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

    /// Records that `runner` called at `now`, before the call's
    /// transaction where the backend sights runners there (see [`saw_runner`]).
    async fn saw_runner_outside(&self, runner: &Runner, now: i64) -> Result<(), ArenaError> {
        if !self.backend.sights_runners_in_transaction()
            && !self.runners.seen_within(runner.id, now, SIGHTING_MS)
            && saw_runner(self.backend.writer(), runner, now).await?
        {
            self.runners.saw(runner.id, now);
        }
        Ok(())
    }

    /// Records that `runner` called at `now`, in the call's transaction
    /// where the backend sights runners there (see [`saw_runner`]).
    async fn saw_runner_inside(
        &self,
        tx: &mut sqlx::AnyConnection,
        runner: &Runner,
        now: i64,
    ) -> Result<(), ArenaError> {
        if self.backend.sights_runners_in_transaction()
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

/// A stored JSON column (options, manifest) read back.
fn stored_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, ArenaError> {
    serde_json::from_str(text)
        .map_err(|error| ArenaError::Internal(format!("stored {what} unreadable: {error}")))
}

/// What a lease wrote to its match's row.
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub(crate) struct LeasedRow {
    pub(super) match_id: i64,
    pub(super) tournament_id: i64,
    pub(super) match_index: i64,
    pub(super) lease_generation: i64,
    pub(super) lease_expires_at: i64,
    /// Whether the match was leased under a lease that had expired.
    #[sqlx(skip)]
    pub(super) reclaimed: bool,
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
