//! The one seam between SQLite and PostgreSQL: every operation that
//! differs between them is here, in [`sqlite`] or in [`postgres`]; the rest
//! of the store speaks the SQL they share and never asks which it holds.
//!
//! What differs: opening and migrating, how a write transaction begins,
//! locks and commits ([`Open`]), the lease, a report's write, the planning
//! lock, the JSON aggregation of a match's seats, where the runners' reads
//! run, and whether runner tokens may be cached.

/// A lease's state read back (as `LeaseState`) by match id `$1`.
macro_rules! lease_state_sql {
    () => {
        "SELECT status, lease_generation, lease_holder, lease_expires_at FROM matches WHERE id = $1"
    };
}

mod postgres;
mod sqlite;

pub use self::sqlite::backup::{backup, BackupSummary};

#[cfg(test)]
pub(in crate::store) use self::postgres::invalidate;
#[cfg(test)]
pub(in crate::store) use self::sqlite::MIGRATOR as SQLITE_MIGRATOR;

use std::path::{Path, PathBuf};
use std::sync::Weak;

use sqlx::{AnyConnection, AnyPool};
use tokio::sync::watch;

use super::leases::LeasedRow;
use super::recording::{NewResult, Recording};
use super::snapshots::{ReadCache, Touched};
use super::{Runner, WriteTransaction};
use crate::error::ArenaError;

/// Read connections (the writes have their own).
const READ_CONNECTIONS: u32 = 6;

/// Where a store lives: an SQLite file or a PostgreSQL URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

impl Location {
    /// Reads what `--db` says: `postgres://` or `postgresql://` is a
    /// PostgreSQL URL, `sqlite:PATH` (or `sqlite://PATH`) and anything else
    /// a file path.
    pub fn parse(db: &str) -> Result<Location, ArenaError> {
        if db.starts_with("postgres://") || db.starts_with("postgresql://") {
            return Ok(Location::Postgres(db.to_string()));
        }
        let path = db
            .strip_prefix("sqlite://")
            .or_else(|| db.strip_prefix("sqlite:"))
            .unwrap_or(db);
        if path.is_empty() {
            return Err(ArenaError::invalid("--db: an empty path"));
        }
        if path.contains("://") {
            return Err(ArenaError::invalid(
                "--db: a file path, sqlite:PATH, or postgres://USER@HOST:PORT/DATABASE",
            ));
        }
        Ok(Location::Sqlite(path.into()))
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => write!(f, "{}", redact_password(url)),
        }
    }
}

/// A bare path is an SQLite file.
impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Location {
        Location::Sqlite(path)
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Location {
        Location::Sqlite(path.to_path_buf())
    }
}

impl From<&PathBuf> for Location {
    fn from(path: &PathBuf) -> Location {
        Location::Sqlite(path.clone())
    }
}

impl From<&Location> for Location {
    fn from(location: &Location) -> Location {
        location.clone()
    }
}

/// `url` with its password (if any) replaced by `***`, for logs.
fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some((credentials, host)) = rest.split_once('@') else {
        return url.to_string();
    };
    match credentials.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

/// The database a store writes to, and what it takes to write there.
#[derive(Debug, Clone)]
pub(crate) enum Backend {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// An open write transaction's connection, as its backend holds it.
#[derive(Debug)]
pub(crate) enum Open {
    Sqlite(sqlite::Open),
    Postgres(postgres::Open),
}

impl Backend {
    /// Opens (and migrates) the store at `location`: its write path and
    /// its pool of readers.
    pub(super) async fn open(location: &Location) -> Result<(Backend, AnyPool), ArenaError> {
        sqlx::any::install_default_drivers();
        Ok(match location {
            Location::Sqlite(path) => {
                let (sqlite, pool) = sqlite::Sqlite::open(path).await?;
                (Backend::Sqlite(sqlite), pool)
            }
            Location::Postgres(url) => {
                let (postgres, pool) = postgres::Postgres::open(url).await?;
                (Backend::Postgres(postgres), pool)
            }
        })
    }

    /// Where one-off writes outside a transaction go.
    pub(crate) fn writer(&self) -> &AnyPool {
        match self {
            Backend::Sqlite(sqlite) => &sqlite.writer,
            Backend::Postgres(postgres) => &postgres.writer,
        }
    }

    /// Keeps `reads` and `changes` current with other processes' writes
    /// (PostgreSQL; an SQLite file has one writing process).
    pub(super) async fn listen(
        &self,
        reads: Weak<ReadCache>,
        changes: Weak<watch::Sender<u64>>,
    ) -> Result<(), ArenaError> {
        match self {
            Backend::Sqlite(_) => Ok(()),
            Backend::Postgres(postgres) => postgres.listen(reads, changes).await,
        }
    }

    /// A write transaction that sees and writes the database alone.
    pub(super) async fn begin(&self) -> Result<Open, ArenaError> {
        match self {
            Backend::Sqlite(sqlite) => sqlite.begin().await.map(Open::Sqlite),
            // Every process's writers queue on this one lock, as SQLite's
            // `BEGIN IMMEDIATE` queues them on the file.
            Backend::Postgres(postgres) => postgres
                .begin("pg_advisory_xact_lock")
                .await
                .map(Open::Postgres),
        }
    }

    /// A write transaction for the hot paths (leases, heartbeats, reports):
    /// on PostgreSQL it runs beside the others of its kind, so it must lock
    /// the rows it reads to change ([`WriteTransaction::lock_match`], the
    /// report's board and bot locks).
    pub(super) async fn begin_concurrent(&self) -> Result<Open, ArenaError> {
        match self {
            Backend::Sqlite(sqlite) => sqlite.begin().await.map(Open::Sqlite),
            Backend::Postgres(postgres) => postgres
                .begin("pg_advisory_xact_lock_shared")
                .await
                .map(Open::Postgres),
        }
    }

    /// A report's write transaction: on SQLite its first read opens it
    /// ([`WriteTransaction::begin_sql`]), one round trip fewer; on
    /// PostgreSQL its write may commit by itself, else begins it (see
    /// `postgres::results::record`).
    pub(super) async fn begin_report(&self) -> Result<Open, ArenaError> {
        match self {
            Backend::Sqlite(sqlite) => sqlite.begin_unsent().await.map(Open::Sqlite),
            Backend::Postgres(postgres) => postgres.begin_unsent().await.map(Open::Postgres),
        }
    }

    /// Holds tournament `tournament_id`'s planning lock until the returned
    /// connection is dropped, where several processes may plan (none on
    /// SQLite: one process plans).
    pub(super) async fn planning_lock(
        &self,
        tournament_id: i64,
    ) -> Result<Option<AnyConnection>, ArenaError> {
        match self {
            Backend::Sqlite(_) => Ok(None),
            Backend::Postgres(postgres) => postgres.planning_lock(tournament_id).await.map(Some),
        }
    }

    /// Runs `read` where the runners' reads run: on SQLite a connection of
    /// their own (see `runner_reads`), on PostgreSQL the read pool.
    pub(super) async fn runner_read<T>(
        &self,
        pool: &AnyPool,
        read: impl AsyncFnOnce(&mut AnyConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T, ArenaError> {
        match self {
            Backend::Sqlite(sqlite) => sqlite.runner_read(pool, read).await,
            Backend::Postgres(_) => {
                let mut connection = pool.acquire().await?;
                Ok(read(&mut connection).await?)
            }
        }
    }

    /// Reopens SQLite's write path from the calling thread (see
    /// `Sqlite::reopen_write_path`); nothing on PostgreSQL.
    pub(super) async fn reopen_write_path(&self, pool: &AnyPool) -> Result<(), ArenaError> {
        match self {
            Backend::Sqlite(sqlite) => sqlite.reopen_write_path(pool).await,
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// Closes the write path's connections.
    pub(super) async fn close(&self) {
        match self {
            Backend::Sqlite(sqlite) => sqlite.close().await,
            Backend::Postgres(postgres) => postgres.writer.close().await,
        }
    }

    /// Whether a runner's token may be trusted from a cache: only
    /// PostgreSQL announces another process's revocation (`cairn runners
    /// revoke --db FILE` on an SQLite file announces nothing), so SQLite
    /// asks every time (a report asks in its first read).
    pub(super) fn caches_runner_tokens(&self) -> bool {
        matches!(self, Backend::Postgres(_))
    }

    /// Whether a runner's sighting is written in its call's transaction
    /// (SQLite, where that costs no round trip more) rather than before it
    /// (PostgreSQL, where the call's transaction runs beside others).
    pub(super) fn sights_runners_in_transaction(&self) -> bool {
        matches!(self, Backend::Sqlite(_))
    }

    /// A page of a tournament's matches, each with its seats as one JSON
    /// array of [seat, version id, bot, version] (the two databases' JSON
    /// functions differ): `$1` the tournament, `$2` after this match index,
    /// `$3` at most this many.
    pub(super) fn matches_with_seats_sql(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => sqlite::MATCHES_WITH_SEATS,
            Backend::Postgres(_) => postgres::MATCHES_WITH_SEATS,
        }
    }

    /// How the reports' writes in one statement fare (PostgreSQL).
    #[cfg(test)]
    pub(crate) fn report_tries(&self) -> Option<&postgres::Tries> {
        match self {
            Backend::Sqlite(_) => None,
            Backend::Postgres(postgres) => Some(&postgres.at_once),
        }
    }

    /// Whether other arena processes may share the database.
    #[cfg(test)]
    pub(crate) fn is_shared(&self) -> bool {
        matches!(self, Backend::Postgres(_))
    }
}

impl Open {
    /// What the next statement must open with: `BEGIN IMMEDIATE` on an
    /// SQLite transaction not begun yet (taken as begun from here on),
    /// else nothing.
    pub(super) fn begin_sql(&mut self) -> &'static str {
        match self {
            Open::Sqlite(open) => open.begin_sql(),
            Open::Postgres(_) => "",
        }
    }

    /// What the transaction's last statement may end with to commit in the
    /// same round trip: `COMMIT` on SQLite (no statement may follow), else
    /// nothing (PostgreSQL commits when the transaction ends).
    pub(super) fn commit_sql(&mut self) -> &'static str {
        match self {
            Open::Sqlite(open) => open.commit_sql(),
            Open::Postgres(_) => "",
        }
    }

    /// The id this store's notifications carry, where other processes
    /// listen (to fold a notification into a statement).
    pub(super) fn notifier(&self) -> Option<u64> {
        match self {
            Open::Sqlite(_) => None,
            Open::Postgres(open) => Some(open.store_id),
        }
    }

    /// Match `$1`'s lease, its row locked until the transaction ends where
    /// transactions run side by side (SQLite's already holds the whole
    /// database). `FOR UPDATE` reads the row as the transaction that held
    /// it last left it.
    pub(super) fn lock_match_sql(&self) -> &'static str {
        match self {
            Open::Sqlite(_) => lease_state_sql!(),
            Open::Postgres(_) => concat!(lease_state_sql!(), " FOR UPDATE"),
        }
    }

    /// Tells other processes what the transaction touched (nothing to tell
    /// on SQLite).
    pub(super) async fn announce(&mut self, touched: &Touched) -> Result<(), sqlx::Error> {
        match self {
            Open::Sqlite(_) => Ok(()),
            Open::Postgres(open) => open.announce(touched).await,
        }
    }

    /// Rolls back, waiting for it.
    pub(super) async fn roll_back(self) -> Result<(), sqlx::Error> {
        match self {
            Open::Sqlite(open) => open.roll_back().await,
            Open::Postgres(open) => open.roll_back().await,
        }
    }

    /// Commits.
    pub(super) async fn commit(self) -> Result<(), ArenaError> {
        match self {
            Open::Sqlite(open) => open.commit().await,
            Open::Postgres(open) => open.commit().await,
        }
    }

    pub(super) fn connection(&self) -> &AnyConnection {
        match self {
            Open::Sqlite(open) => &open.connection,
            Open::Postgres(open) => open.connection(),
        }
    }

    pub(super) fn connection_mut(&mut self) -> &mut AnyConnection {
        match self {
            Open::Sqlite(open) => &mut open.connection,
            Open::Postgres(open) => open.connection_mut(),
        }
    }
}

/// The lease of the oldest queued or expired match, for `runner`, in `tx`
/// (see each backend's).
pub(super) async fn lease(
    tx: &mut WriteTransaction,
    runner: &Runner,
    now: i64,
    duration_ms: i64,
) -> Result<Option<LeasedRow>, ArenaError> {
    match tx.open() {
        Open::Sqlite(_) => sqlite::lease(tx, runner, now, duration_ms).await,
        Open::Postgres(_) => postgres::lease(tx, runner, now, duration_ms).await,
    }
}

/// The executor of a result: writes `result`, the standings and rating
/// history it gives, and its match done when it was the last game, in `tx`
/// (see each backend's).
pub(super) async fn record(
    tx: &mut WriteTransaction,
    result: &NewResult<'_>,
) -> Result<Recording, ArenaError> {
    match tx.open() {
        Open::Sqlite(_) => sqlite::record(tx, result).await,
        Open::Postgres(_) => postgres::results::record(tx, result).await,
    }
}
