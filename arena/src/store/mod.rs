//! The arena's store, on an SQLite file or a PostgreSQL database: the only
//! code that touches SQL.
//!
//! # Layout
//! - `open`: [`Store::open`], a [`Location`] and [`StoreOptions`].
//! - `backend`: the one seam between SQLite and PostgreSQL; nothing else
//!   here knows which it runs on.
//! - `transaction`: the write transaction every write runs in.
//! - [`clock`]: the time source; `accounts`: owners, runners, their tokens.
//! - `bots`: bots, versions and their artifacts.
//! - `tournaments`: creating tournaments from a plan, progress.
//! - `leases`: runners leasing matches, heartbeats, expiry.
//! - `faults`: matches given back (host faults) and failed builds.
//! - `quotas`: who may register, per-owner quotas; `pagination`: bounded pages.
//! - `plan_chunks`: writing a tournament's plan in short chunks, resumable.
//! - `results`: reports checked and recorded once, logged by `report_log`;
//!   `recording`: a result (a reported or a build-failed game) as one value,
//!   written by its backend's executor; `game_reads` reads results back.
//! - `rounds`: a format's reads and its next round, after each match.
//! - `leaderboard`: ratings read back, and recomputed from history.
//! - [`web_reads`]: read-only queries for the web pages.
//! - `fitted`: the fitted column of a leaderboard, one cached fit per board.
//! - `snapshots`: versioned snapshots of the hottest reads (first pages of
//!   matches, leaderboards), dropped by the writes that touch them.
//!
//! Every write runs in one transaction, so a refused call changes nothing,
//! through `Store::write` (or `Store::write_concurrently`), which ends
//! it on every path before the call returns: committed, or rolled back
//! and the rollback awaited (a transaction merely dropped keeps its locks
//! until its connection is next used); how it begins, locks and commits is
//! its backend's.

pub mod clock;

/// A match's status as listings show it (SQL over `matches m`): given up ones are
/// `cancelled` (with their tournament) or `failed` (every attempt hit a host fault).
macro_rules! shown_match_status {
    () => {
        "CASE WHEN m.failure IS NULL THEN m.status WHEN m.failure = 'cancelled' THEN 'cancelled' ELSE 'failed' END"
    };
}

mod accounts;
mod backend;
mod bots;
mod cancel;
mod deal_secret;
mod faults;
mod fitted;
mod game_reads;
mod leaderboard;
mod leases;
mod match_listing;
mod open;
mod pagination;
mod plan_chunks;
mod quotas;
mod recording;
mod report_log;
mod results;
mod rounds;
mod runner_review;
mod runner_tokens;
mod runner_trust;
mod snapshots;
mod sprt_tally;
mod sql;
mod suspensions;
mod tournament_table;
mod tournaments;
mod transaction;
mod validation;
mod variants;
pub mod web_reads;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use sqlx::{AnyConnection, AnyPool};
use tokio::sync::watch;

pub(crate) use self::accounts::token_hash;
pub use self::accounts::{check_runner_token, Owner, Runner, RunnerInfo, MIN_RUNNER_TOKEN_LEN};
use self::backend::Backend;
pub use self::backend::{backup, BackupSummary, Location};
pub(crate) use self::bots::check_submitted_archive;
pub use self::bots::{BotSummary, BotVersion, SubmittedVersion};
pub use self::clock::{Clock, ManualClock, SystemClock};
pub use self::faults::{GiveBack, DEFAULT_MAX_ATTEMPTS, MAX_FAULT_TEXT_BYTES};
pub use self::fitted::{
    FitSummary, FittedLeaderboard, FittedRow, LeaderboardInputs, FIT_WAIT, PROVISIONAL_DEALS,
};
pub use self::leaderboard::{LeaderboardQuery, LeaderboardRow};
pub use self::leases::{Lease, LeasedGame, LeasedSeat};
pub use self::open::{engine_game_check, GameCheck, StoreOptions};
pub use self::pagination::{Page, PageOf, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
pub use self::plan_chunks::PLAN_CHUNK_ROWS;
pub use self::quotas::{Quotas, Registration};
pub use self::results::{
    Forfeit, GameReport, GameReportOutcome, MatchReport, ReportOutcome, SeatResult,
    MAX_REPLAY_BYTES,
};
pub use self::rounds::{SoloRow, TournamentStandings};
pub use self::runner_tokens::{SharedRunner, SHARED_RUNNER};
pub use self::snapshots::MAX_GAMES_PER_PAGE;
use self::snapshots::{BoardPatch, ReadCache, Touch};
pub(crate) use self::sql::Flag;
pub use self::suspensions::{Suspension, DEFAULT_MAX_FORFEIT_RATE, MIN_GAMES_BEFORE_SUSPENSION};
pub use self::tournament_table::ResultsTable;
pub use self::tournaments::{
    variant_key, Entry, FormatRequest, GameSummary, MatchSummary, NewTournament, SprtStatus,
    Tournament, TournamentProgress,
};
pub(crate) use self::transaction::WriteTransaction;
pub use self::validation::{
    validation_tables, Validation, ValidationFailure, ValidationState, VALIDATION_SEEDS,
};
use crate::deal::DealSecret;
use crate::error::ArenaError;
use crate::metrics::Metrics;
use crate::verify::GameVerifier;

/// Where `cairn serve` keeps its database unless told otherwise.
pub const DEFAULT_DB_PATH: &str = "cairn-arena.db";

/// A tournament row's games per match in SQL, as
/// [`crate::format::games_per_match`]: its games per pairing over the
/// `n (n - 1)` balanced seatings of a table of `n` (a macro, for `concat!`).
macro_rules! games_per_match_sql {
    () => {
        "(games_per_pairing / CASE WHEN seats_per_game > 1 THEN seats_per_game * (seats_per_game - 1) ELSE 1 END)"
    };
}
pub(crate) use games_per_match_sql;

/// The arena's database: cheap to clone, shared by every request.
#[derive(Debug, Clone)]
pub struct Store {
    /// Readers: a small bounded pool.
    pool: AnyPool,
    /// Where writes go, and everything else that differs between SQLite
    /// and PostgreSQL.
    backend: Backend,
    clock: Arc<dyn Clock>,
    /// Finds a game's descriptor (the engine's table unless a test swaps it).
    game_check: GameCheck,
    /// Checks a reported game against its plan and its replay (the engine
    /// unless a test swaps it).
    verifier: GameVerifier,
    /// Attempts a match gets before it is given up as failed.
    max_attempts: i64,
    /// Whether new versions play validation games before they are ready.
    validation: Validation,
    /// Who may register an owner.
    registration: Registration,
    /// How much one owner may ask.
    quotas: Quotas,
    /// Bumped after every recorded result, so watchers wake on progress.
    changes: Arc<watch::Sender<u64>>,
    /// One rating fit per leaderboard, refitted off the request path.
    fits: Arc<fitted::FitCache>,
    /// Snapshots of the hottest reads, dropped by the writes that touch them.
    reads: Arc<ReadCache>,
    /// Runners' tokens and sightings, remembered for a moment.
    runners: Arc<accounts::RunnerCache>,
    /// When each runner was last reviewed against the others.
    reviews: Arc<runner_review::ReviewTimes>,
    /// What deal seeds are derived under (see [`crate::deal`]).
    deal_secret: DealSecret,
    /// This process's counters for Prometheus.
    metrics: Arc<Metrics>,
}

impl Store {
    /// This process's counters (see [`crate::metrics`]).
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// This process's counters, to keep beside the store.
    pub(crate) fn shared_metrics(&self) -> Arc<Metrics> {
        Arc::clone(&self.metrics)
    }

    pub fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Reopens the write path's connections from the calling thread, where
    /// the backend runs each on a thread of its own started by the thread
    /// that opens it (see `Sqlite::reopen_write_path`). The server calls
    /// this on its writer thread.
    pub(crate) async fn reopen_write_path(&self) -> Result<(), ArenaError> {
        self.backend.reopen_write_path(&self.pool).await
    }

    /// Closes every connection (after which the file may be removed).
    pub async fn close(&self) {
        self.pool.close().await;
        self.backend.close().await;
    }

    /// A receiver that changes whenever a result is recorded.
    pub fn subscribe_changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Runs `body` in a write transaction that holds the write lock from
    /// its first statement ([`Store::begin_write`]) and ends it before
    /// returning: committed when `body` succeeds, rolled back when it fails
    /// (see [`WriteTransaction::finish`]). Every write goes through here or
    /// [`Store::write_concurrently`].
    pub(crate) async fn write<T>(
        &self,
        body: impl AsyncFnOnce(&mut WriteTransaction) -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        let written = async { self.begin_write().await?.run(body).await };
        self.metrics.database(written.await)
    }

    /// [`Store::write`] for the hot paths, in a transaction of
    /// [`Store::begin_concurrent_write`].
    pub(crate) async fn write_concurrently<T>(
        &self,
        body: impl AsyncFnOnce(&mut WriteTransaction) -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        let written = async { self.begin_concurrent_write().await?.run(body).await };
        self.metrics.database(written.await)
    }

    /// A write transaction that holds the write lock from its first
    /// statement; its opener ends it with [`WriteTransaction::finish`].
    async fn begin_write(&self) -> Result<WriteTransaction, ArenaError> {
        Ok(self.write_transaction(self.backend.begin().await?))
    }

    /// A write transaction for the hot paths (leases, heartbeats,
    /// reports), which lock the rows they read to change (see
    /// `Backend::begin_concurrent`).
    async fn begin_concurrent_write(&self) -> Result<WriteTransaction, ArenaError> {
        Ok(self.write_transaction(self.backend.begin_concurrent().await?))
    }

    /// [`Store::write_concurrently`] for a report's write, whose body's
    /// first statement opens with [`WriteTransaction::begin_sql`].
    pub(crate) async fn write_report<T>(
        &self,
        body: impl AsyncFnOnce(&mut WriteTransaction) -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        let written = async {
            let open = self.backend.begin_report().await?;
            self.write_transaction(open).run(body).await
        };
        self.metrics.database(written.await)
    }

    fn write_transaction(&self, open: backend::Open) -> WriteTransaction {
        WriteTransaction::new(open, Arc::clone(&self.reads))
    }

    /// Holds tournament `tournament_id`'s planning lock until the returned
    /// connection is dropped, where other processes may plan it too.
    pub(crate) async fn planning_lock(
        &self,
        tournament_id: i64,
    ) -> Result<Option<AnyConnection>, ArenaError> {
        self.backend.planning_lock(tournament_id).await
    }

    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Runs `read` where the runners' reads run (see
    /// `Backend::runner_read`).
    pub(crate) async fn runner_read<T>(
        &self,
        read: impl AsyncFnOnce(&mut AnyConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T, ArenaError> {
        let read = self.backend.runner_read(&self.pool, read).await;
        self.metrics.database(read)
    }

    pub(crate) fn notify_change(&self) {
        self.changes.send_modify(|count| *count += 1);
    }
}
