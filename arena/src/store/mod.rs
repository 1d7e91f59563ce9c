//! The arena's store, on an SQLite file or a PostgreSQL database: the only
//! code that touches SQL.
//!
//! # Layout
//! - [`clock`]: the time source (manual in tests).
//! - `accounts`: owners and runners and their bearer tokens.
//! - `bots`: bots, versions and their artifacts.
//! - `tournaments`: creating tournaments from a plan, progress.
//! - `leases`: runners leasing matches, heartbeats, expiry.
//! - `faults`: matches given back (host faults) and failed builds.
//! - `quotas`: who may register, and per-owner quotas.
//! - `pagination`: reading lists a bounded page at a time.
//! - `plan_chunks`: writing a tournament's plan in short chunks, resumable.
//! - `results`: reports written once, with their rating updates;
//!   `results_postgres`: their write beside other arena processes.
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
//! until its connection is next used).
//! On SQLite it is `BEGIN IMMEDIATE` behind an in-process lock: writers
//! queue instead of failing to upgrade a read lock. The lock holds the one
//! writer connection itself, out of any pool: taking it is no round trip
//! to SQLite's thread, and giving it back no ping (sqlx pings every pooled
//! connection it takes back). A report's write opens with its first read
//! and commits with its batch ([`WriteTransaction::begin_sql`],
//! [`WriteTransaction::commit_sql`]): two round trips under the lock.
//! On PostgreSQL several arena processes write at once and nothing rests
//! on a lock in one process: a write takes an advisory lock in the
//! database, exclusive for the rare writes (accounts, bots, tournaments,
//! planning, give-backs), so they see and write the database alone as on
//! SQLite, shared for the hot
//! three (leases, heartbeats, reports), which instead lock the rows they
//! change: a lease takes its match `FOR UPDATE SKIP LOCKED` (two processes
//! never take one match), a heartbeat or a report locks its match row (a
//! game is recorded once), and a report takes an advisory lock per seat's
//! bot version on its leaderboard, so the rating updates of a bot version
//! apply one at a time whichever process got them, and its leaderboard's
//! lock for its write and commit only, so a board's results take their ids
//! in the order they become visible (see `results_postgres`).

pub mod clock;

/// A match's status as listings show it (SQL over `matches m`): given up
/// matches are `cancelled` (with their tournament) or `failed` (every
/// attempt hit a host fault), not `done`.
macro_rules! shown_match_status {
    () => {
        "CASE WHEN m.failure IS NULL THEN m.status WHEN m.failure = 'cancelled' THEN 'cancelled' ELSE 'failed' END"
    };
}

mod accounts;
mod bots;
mod cancel;
mod deal_secret;
mod faults;
mod fitted;
mod invalidate;
mod leaderboard;
mod leases;
mod pagination;
mod plan_chunks;
mod quotas;
mod results;
mod results_postgres;
mod rounds;
mod runner_review;
mod runner_trust;
mod snapshots;
mod sql;
mod suspensions;
mod tournament_table;
mod tournaments;
mod validation;
mod variants;
pub mod web_reads;

#[cfg(test)]
mod tests;

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use cairn_engine::{GameDescriptor, GameOptions, SetupError};
use sha2::{Digest, Sha256};
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Any, AnyConnection, AnyPool, ConnectOptions, Connection, Transaction};
use tokio::sync::{watch, Mutex, OwnedMutexGuard};

pub use self::accounts::{check_runner_token, Owner, Runner, RunnerInfo, MIN_RUNNER_TOKEN_LEN};
pub(crate) use self::bots::check_submitted_archive;
pub use self::bots::{BotSummary, BotVersion, SubmittedVersion};
pub use self::clock::{Clock, ManualClock, SystemClock};
pub use self::faults::{GiveBack, DEFAULT_MAX_ATTEMPTS, MAX_FAULT_TEXT_BYTES};
pub use self::fitted::{FitSummary, FittedLeaderboard, FittedRow, LeaderboardInputs, FIT_WAIT};
pub use self::leaderboard::{LeaderboardQuery, LeaderboardRow};
pub use self::leases::{Lease, LeasedGame, LeasedSeat};
pub use self::pagination::{Page, PageOf, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
pub use self::plan_chunks::PLAN_CHUNK_ROWS;
pub use self::quotas::{Quotas, Registration};
pub use self::results::{
    Forfeit, GameReport, GameReportOutcome, MatchReport, ReportOutcome, SeatResult,
    MAX_REPLAY_BYTES,
};
pub use self::rounds::{SoloRow, TournamentStandings};
pub use self::snapshots::MAX_GAMES_PER_PAGE;
use self::snapshots::{BoardPatch, ReadCache, Touch, Touched};
pub(crate) use self::sql::Flag;
pub use self::suspensions::{Suspension, DEFAULT_MAX_FORFEIT_RATE, MIN_GAMES_BEFORE_SUSPENSION};
pub use self::tournament_table::ResultsTable;
pub use self::tournaments::{
    variant_key, Entry, FormatRequest, GameSummary, MatchSummary, NewTournament, SprtStatus,
    Tournament, TournamentProgress,
};
pub use self::validation::{
    validation_tables, Validation, ValidationFailure, ValidationState, VALIDATION_SEEDS,
};
use crate::deal::DealSecret;
use crate::error::ArenaError;
use crate::verify::{verify_game, GameVerifier};

/// Read connections (the writer has its own).
const READ_CONNECTIONS: u32 = 6;

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

/// The SQLite migrations in `migrations/sqlite/` at the workspace root,
/// embedded (their checksums are those of the files before PostgreSQL
/// existed: a database an older binary created still opens).
static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");

/// The PostgreSQL schema, the same in meaning as SQLite's after all its
/// migrations.
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// Connections a PostgreSQL store opens for writes: they run at once, kept
/// apart by row and advisory locks in the database.
const POSTGRES_WRITE_CONNECTIONS: u32 = 8;

/// Which SQL the store speaks; the few statements that differ ask it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

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

/// The arena's database: cheap to clone, shared by every request.
#[derive(Debug, Clone)]
pub struct Store {
    /// Readers: a small bounded pool.
    pool: AnyPool,
    /// Write transactions run here on PostgreSQL (a few connections); on
    /// SQLite this pool only opens the writer connection the write lock
    /// holds, so writers never queue behind readers for a connection.
    writer: AnyPool,
    dialect: Dialect,
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
    /// SQLite writers queue here, in the process, rather than in SQLite's
    /// busy handler, which sleeps in growing steps and wrecks latency; it
    /// holds the writer connection between transactions (opened with the
    /// store; none after a transaction whose end failed: the next opens
    /// another).
    /// PostgreSQL writers do not take it: they lock rows in the database.
    write_lock: Arc<Mutex<Option<AnyConnection>>>,
    /// On SQLite, the connection the runners' reports read their game's
    /// plan on, outside the read pool: no ping when it comes back, and its
    /// thread (SQLite's, for this connection) is started where the store
    /// opens, and again on the server's writer thread
    /// ([`Store::reopen_write_path`]), so it runs placed as the writes
    /// are, not as the public calls' threads (`cairn serve --api-nice`).
    /// `None` after a read on it failed (the next opens another).
    runner_reads: Arc<Mutex<Option<AnyConnection>>>,
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
    /// The largest runner message the service decodes.
    max_report_bytes: usize,
    /// This store among the processes on one PostgreSQL database (random):
    /// its listener skips its own writes' notifications.
    store_id: u64,
    /// Where a PostgreSQL store connects (none on SQLite).
    postgres_url: Option<Arc<str>>,
    /// What deal seeds are derived under (see [`crate::deal`]).
    deal_secret: DealSecret,
}

impl Store {
    /// Opens (creating if missing) the SQLite database at `path` and
    /// migrates it.
    pub async fn open(path: impl AsRef<Path>) -> Result<Store, ArenaError> {
        Store::open_with_clock(path, Arc::new(SystemClock)).await
    }

    /// Like [`Store::open`], reading the time from `clock`.
    pub async fn open_with_clock(
        path: impl AsRef<Path>,
        clock: Arc<dyn Clock>,
    ) -> Result<Store, ArenaError> {
        let location = Location::Sqlite(path.as_ref().to_path_buf());
        Store::open_location(&location, clock).await
    }

    /// Opens the store `db` names (see [`Location::parse`]) and migrates it.
    pub async fn connect(db: &str) -> Result<Store, ArenaError> {
        Store::open_location(&Location::parse(db)?, Arc::new(SystemClock)).await
    }

    /// Opens the store at `location` and migrates it.
    pub async fn open_location(
        location: &Location,
        clock: Arc<dyn Clock>,
    ) -> Result<Store, ArenaError> {
        sqlx::any::install_default_drivers();
        let (dialect, pool, writer) = match location {
            Location::Sqlite(path) => open_sqlite(path).await?,
            Location::Postgres(url) => open_postgres(url).await?,
        };
        let mut id_bytes = [0_u8; 8];
        getrandom::fill(&mut id_bytes)
            .map_err(|error| ArenaError::Internal(format!("no randomness for an id: {error}")))?;
        let deal_secret = deal_secret::load_or_make(&writer).await?;
        // SQLite's connection threads for the writes and the runners'
        // reads start here, at the opener's priority (see `runner_reads`).
        let (writer_connection, runner_reads) = match dialect {
            Dialect::Sqlite => (
                Some(writer.acquire().await?.detach()),
                Some(pool.acquire().await?.detach()),
            ),
            Dialect::Postgres => (None, None),
        };
        let (changes, _) = watch::channel(0);
        let store = Store {
            pool,
            writer,
            dialect,
            clock,
            game_check: engine_game_check,
            verifier: verify_game,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            validation: Validation::Off,
            registration: Registration::Open,
            quotas: Quotas::default(),
            write_lock: Arc::new(Mutex::new(writer_connection)),
            runner_reads: Arc::new(Mutex::new(runner_reads)),
            changes: Arc::new(changes),
            fits: Arc::default(),
            reads: Arc::default(),
            runners: Arc::default(),
            reviews: Arc::default(),
            max_report_bytes: crate::service::MAX_RUNNER_REQUEST_BYTES,
            store_id: u64::from_le_bytes(id_bytes),
            postgres_url: match location {
                Location::Postgres(url) => Some(url.as_str().into()),
                Location::Sqlite(_) => None,
            },
            deal_secret,
        };
        if let Location::Postgres(url) = location {
            let (reads, changes) = (Arc::downgrade(&store.reads), Arc::downgrade(&store.changes));
            invalidate::listen(url, store.store_id, reads, changes).await?;
        }
        store.canonicalise_stored_variants().await?;
        Ok(store)
    }

    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The same store, checking games with `game_check` instead of the engine.
    pub fn with_game_check(mut self, game_check: GameCheck) -> Store {
        self.game_check = game_check;
        self
    }

    /// The same store, checking reported games with `verifier` instead of
    /// the engine (for tests with made-up games).
    pub fn with_verifier(mut self, verifier: GameVerifier) -> Store {
        self.verifier = verifier;
        self
    }

    /// The same store, giving a match up after `max_attempts` give-backs.
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Store {
        self.max_attempts = i64::from(max_attempts.max(1));
        self
    }

    /// The same store with a registration policy.
    pub fn with_registration(mut self, registration: Registration) -> Store {
        self.registration = registration;
        self
    }

    pub fn registration(&self) -> &Registration {
        &self.registration
    }

    /// The same store, its service refusing runner messages over `bytes`
    /// (tests lower it, so a match too large for one message needs few
    /// games; at most the default, [`crate::service::MAX_RUNNER_REQUEST_BYTES`]).
    pub fn with_max_report_bytes(mut self, bytes: usize) -> Store {
        self.max_report_bytes = bytes.min(crate::service::MAX_RUNNER_REQUEST_BYTES);
        self
    }

    pub fn max_report_bytes(&self) -> usize {
        self.max_report_bytes
    }

    /// The same store with other per-owner quotas.
    pub fn with_quotas(mut self, quotas: Quotas) -> Store {
        self.quotas = quotas;
        self
    }

    /// On SQLite, replaces the write connection and the runners' read
    /// connection with new ones opened from the calling thread: SQLite runs
    /// each connection on a thread of its own, started by the thread that
    /// opens it and placed as that one is (priority, CPU set). The server
    /// calls this on its writer thread (see
    /// [`crate::service::ServeOptions::place_writer`]).
    pub(crate) async fn reopen_write_path(&self) -> Result<(), ArenaError> {
        if self.dialect != Dialect::Sqlite {
            return Ok(());
        }
        for (held, pool) in [
            (&self.write_lock, &self.writer),
            (&self.runner_reads, &self.pool),
        ] {
            let mut held = held.lock().await;
            let fresh = fresh_sqlite_connection(pool).await?;
            if let Some(old) = held.replace(fresh) {
                let _ = old.close().await;
            }
        }
        Ok(())
    }

    /// Closes every connection (after which the file may be removed).
    pub async fn close(&self) {
        self.pool.close().await;
        for held in [&self.write_lock, &self.runner_reads] {
            if let Some(connection) = held.lock().await.take() {
                let _ = connection.close().await;
            }
        }
        self.writer.close().await;
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
        self.begin_write().await?.run(body).await
    }

    /// [`Store::write`] for the hot paths, in a transaction of
    /// [`Store::begin_concurrent_write`].
    pub(crate) async fn write_concurrently<T>(
        &self,
        body: impl AsyncFnOnce(&mut WriteTransaction) -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        self.begin_concurrent_write().await?.run(body).await
    }

    /// A write transaction that holds the write lock from its first
    /// statement; its opener ends it with [`WriteTransaction::finish`].
    async fn begin_write(&self) -> Result<WriteTransaction, ArenaError> {
        match self.dialect {
            Dialect::Sqlite => {
                let mut tx = self.begin_sqlite_write().await?;
                let begin = tx.begin_sql();
                if let Err(error) = sqlx::raw_sql(begin).execute(&mut *tx).await {
                    return Err(tx.roll_back(error.into()).await);
                }
                Ok(tx)
            }
            // Every process's writers queue on this one lock, as SQLite's
            // `BEGIN IMMEDIATE` queues them on the file: the transaction
            // sees and writes the database alone.
            Dialect::Postgres => self.begin_postgres_write("pg_advisory_xact_lock").await,
        }
    }

    /// An SQLite write transaction holding the write lock and the writer
    /// connection, its `BEGIN` not sent yet: its first statement must
    /// open with [`WriteTransaction::begin_sql`].
    async fn begin_sqlite_write(&self) -> Result<WriteTransaction, ArenaError> {
        let mut lock = Arc::clone(&self.write_lock).lock_owned().await;
        let connection = match lock.take() {
            Some(connection) => connection,
            None => self.writer.acquire().await?.detach(),
        };
        Ok(self.write_transaction(Open::Sqlite {
            connection,
            lock,
            state: SqliteState::NotBegun,
        }))
    }

    /// [`Store::write_concurrently`] for an SQLite body that opens the
    /// transaction with its first statement
    /// ([`WriteTransaction::begin_sql`]): one round trip fewer.
    pub(crate) async fn write_sqlite_begun_by_body<T>(
        &self,
        body: impl AsyncFnOnce(&mut WriteTransaction) -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        self.begin_sqlite_write().await?.run(body).await
    }

    /// A write transaction for the hot paths (leases, heartbeats,
    /// reports): on SQLite the same as [`Store::begin_write`]; on
    /// PostgreSQL it runs beside the others of its kind, so it must lock
    /// the rows it reads to change ([`WriteTransaction::lock_match`],
    /// `results_postgres`'s board and bot locks).
    async fn begin_concurrent_write(&self) -> Result<WriteTransaction, ArenaError> {
        match self.dialect {
            Dialect::Sqlite => self.begin_write().await,
            Dialect::Postgres => {
                self.begin_postgres_write("pg_advisory_xact_lock_shared")
                    .await
            }
        }
    }

    /// A PostgreSQL transaction holding the write lock through `lock`,
    /// the exclusive or the shared advisory lock function.
    async fn begin_postgres_write(&self, lock: &str) -> Result<WriteTransaction, ArenaError> {
        // One round trip: the transaction opens holding the lock (the key
        // is a constant, so it is written into the statement). If the lock
        // fails, sqlx rolls the half-open transaction back.
        let begin = format!("BEGIN; SELECT {lock}({WRITE_LOCK_KEY})");
        let transaction = self.writer.begin_with(sqlx::AssertSqlSafe(begin)).await?;
        Ok(self.write_transaction(Open::Pooled(transaction)))
    }

    fn write_transaction(&self, open: Open) -> WriteTransaction {
        WriteTransaction {
            open,
            notify_as: self.notify_as(),
            touched: Touched::Everything,
            notified: None,
            board_patches: Vec::new(),
            reads: Arc::clone(&self.reads),
        }
    }

    /// On PostgreSQL, holds tournament `tournament_id`'s planning lock
    /// until the returned connection is dropped: a connection of its own,
    /// outside the pools (the planner's chunks need theirs), whose session
    /// lock ends with it, also when planning fails half-way. On SQLite
    /// nothing (one process plans).
    pub(crate) async fn planning_lock(
        &self,
        tournament_id: i64,
    ) -> Result<Option<AnyConnection>, ArenaError> {
        let Some(url) = &self.postgres_url else {
            return Ok(None);
        };
        let mut connection = AnyConnection::connect(url).await?;
        sqlx::query("SELECT pg_advisory_lock($1, $2)")
            .bind(PLANNING_LOCK_SPACE)
            .bind(tournament_id as i32)
            .execute(&mut connection)
            .await?;
        Ok(Some(connection))
    }

    fn notify_as(&self) -> Option<u64> {
        (self.dialect == Dialect::Postgres).then_some(self.store_id)
    }

    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Runs `read` on the connection for the runners' reads on SQLite
    /// (see `runner_reads`), on the read pool on PostgreSQL. A failed read
    /// drops the SQLite connection (the next read opens another).
    pub(crate) async fn runner_read<T>(
        &self,
        read: impl AsyncFnOnce(&mut AnyConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T, ArenaError> {
        if self.dialect == Dialect::Postgres {
            let mut connection = self.pool.acquire().await?;
            return Ok(read(&mut connection).await?);
        }
        let mut held = self.runner_reads.lock().await;
        let mut connection = match held.take() {
            Some(connection) => connection,
            None => fresh_sqlite_connection(&self.pool).await?,
        };
        let answer = read(&mut connection).await?;
        *held = Some(connection);
        Ok(answer)
    }

    /// `options` of `game` in their canonical form (an option equal to its
    /// default left out), or why the game or an option is refused: every
    /// variant the arena stores or looks up goes through here.
    pub fn canonical_options(
        &self,
        game: &str,
        options: &GameOptions,
    ) -> Result<GameOptions, ArenaError> {
        let descriptor = (self.game_check)(game)
            .ok_or_else(|| SetupError::UnknownGame(cairn_engine::descriptor::shown(game)))?;
        Ok(descriptor.canonical_options(options)?)
    }

    /// Canonical options, refusing a seat count the game does not take.
    pub fn check_game(
        &self,
        game: &str,
        options: &GameOptions,
        n_seats: usize,
    ) -> Result<GameOptions, ArenaError> {
        let descriptor = (self.game_check)(game)
            .ok_or_else(|| SetupError::UnknownGame(cairn_engine::descriptor::shown(game)))?;
        Ok(descriptor.check_setup(options, n_seats)?)
    }

    pub(crate) fn notify_change(&self) {
        self.changes.send_modify(|count| *count += 1);
    }
}

/// A write transaction holding the store's write lock until it ends.
#[derive(Debug)]
pub(crate) struct WriteTransaction {
    open: Open,
    /// On PostgreSQL, the store's id: the commit tells the other arena
    /// processes what it touched (see `invalidate`).
    notify_as: Option<u64>,
    /// What the commit drops from the read snapshots.
    touched: Touched,
    /// What a statement of the transaction already told the other arena
    /// processes (see [`WriteTransaction::notified`]).
    notified: Option<Touched>,
    /// The boards the commit patches rather than drops (when cached).
    board_patches: Vec<BoardPatch>,
    reads: Arc<ReadCache>,
}

/// The connection a write transaction runs on.
#[derive(Debug)]
enum Open {
    /// PostgreSQL: a pooled connection's transaction (if dropped unended,
    /// sqlx rolls it back when the connection is next used).
    Pooled(Transaction<'static, Any>),
    /// SQLite: the writer connection, out of the write lock it goes back
    /// to when the transaction ends well. Dropped unended (its future
    /// dropped), the connection closes, which rolls the transaction back,
    /// and the next writer opens another.
    Sqlite {
        connection: AnyConnection,
        lock: OwnedMutexGuard<Option<AnyConnection>>,
        state: SqliteState,
    },
}

/// Where an SQLite transaction's `BEGIN` and `COMMIT` are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SqliteState {
    /// Not sent: the next statement must open with it.
    NotBegun,
    /// Sent with a statement (which may have failed before it ran).
    Begun,
    /// `COMMIT` sent with the last statement: nothing may follow.
    CommitSent,
}

impl WriteTransaction {
    /// Declares that this transaction changes what `touch` names. A
    /// transaction that declares must declare every cached read it changes;
    /// one that declares nothing drops every snapshot.
    pub(crate) fn touches(&mut self, touch: Touch) {
        match &mut self.touched {
            Touched::Everything => self.touched = Touched::Only(vec![touch]),
            Touched::Only(touches) => touches.push(touch),
        }
    }

    /// Match `match_id`'s lease, its row locked until the transaction ends
    /// on PostgreSQL (SQLite's transaction already holds the whole
    /// database): a heartbeat, a report or a give-back of one match wait
    /// for each other. One statement: `FOR UPDATE` reads the row as the
    /// transaction that held it last left it.
    pub(crate) async fn lock_match(
        &mut self,
        match_id: i64,
    ) -> Result<leases::LeaseState, ArenaError> {
        let locking = if self.notify_as.is_some() {
            " FOR UPDATE"
        } else {
            ""
        };
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT status, lease_generation, lease_holder, lease_expires_at FROM matches WHERE id = $1{locking}"
        )))
        .bind(match_id)
        .fetch_optional(&mut **self)
        .await?
        .ok_or_else(|| ArenaError::not_found("match", match_id))
    }

    /// What the next statement must open with: `BEGIN IMMEDIATE` on an
    /// SQLite transaction not begun yet (taken as begun from here on),
    /// else nothing.
    pub(crate) fn begin_sql(&mut self) -> &'static str {
        match &mut self.open {
            Open::Sqlite { state, .. } if *state == SqliteState::NotBegun => {
                *state = SqliteState::Begun;
                "BEGIN IMMEDIATE;\n"
            }
            _ => "",
        }
    }

    /// What the transaction's last statement may end with to commit in the
    /// same round trip: `COMMIT` on SQLite (no statement may follow; the
    /// transaction's end then only drops the snapshots it touched), else
    /// nothing (PostgreSQL commits when the transaction ends).
    pub(crate) fn commit_sql(&mut self) -> &'static str {
        match &mut self.open {
            Open::Sqlite { state, .. } => {
                *state = SqliteState::CommitSent;
                ";\nCOMMIT"
            }
            Open::Pooled(_) => "",
        }
    }

    /// Declares that this transaction changes the standings `patch` holds
    /// on its board, and nothing else on it: a cached copy of the board
    /// is patched on commit rather than read again.
    pub(crate) fn patches_board(&mut self, patch: BoardPatch) {
        self.touches(Touch::Board {
            game: patch.game.clone(),
            variant: patch.variant.clone(),
        });
        self.board_patches.push(patch);
    }

    /// On PostgreSQL, the id this store's notifications carry (to fold a
    /// `pg_notify` into a statement); `None` on SQLite.
    pub(crate) fn notifier(&self) -> Option<u64> {
        self.notify_as
    }

    /// Records that a statement of this transaction sent `touched` as its
    /// notification (one round trip fewer than the commit's own): the
    /// commit sends none unless what the transaction touched by then is
    /// more than that.
    pub(crate) fn notified(&mut self, touched: Touched) {
        self.notified = Some(touched);
    }

    /// Declares that this transaction changes nothing a snapshot holds.
    pub(crate) fn touches_nothing_cached(&mut self) {
        if self.touched == Touched::Everything {
            self.touched = Touched::Only(Vec::new());
        }
    }

    /// Runs `body` in the transaction, then ends it as `body`'s outcome
    /// says ([`WriteTransaction::finish`]).
    async fn run<T>(
        mut self,
        body: impl AsyncFnOnce(&mut WriteTransaction) -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        let outcome = body(&mut self).await;
        self.finish(outcome).await
    }

    /// Ends the transaction as `outcome` says, and returns it: on `Ok`
    /// commits ([`WriteTransaction::commit`]; a failed commit is the
    /// outcome then), on `Err` rolls back and waits for the rollback.
    ///
    /// A transaction merely dropped is rolled back too, but later: sqlx
    /// queues the `ROLLBACK` and sends it when the connection is next
    /// used, and until then the transaction keeps its row and advisory
    /// locks (on PostgreSQL, a lease taken `FOR UPDATE SKIP LOCKED` skips
    /// a match whose lock a refused heartbeat still holds). So every
    /// transaction ends here, on every path.
    pub(crate) async fn finish<T>(self, outcome: Result<T, ArenaError>) -> Result<T, ArenaError> {
        match outcome {
            Ok(value) => self.commit().await.map(|()| value),
            Err(error) => Err(self.roll_back(error).await),
        }
    }

    /// Rolls back (waiting for it) a transaction refused with `error`,
    /// which it returns.
    async fn roll_back(self, error: ArenaError) -> ArenaError {
        let rolled_back = match self.open {
            Open::Pooled(transaction) => transaction.rollback().await,
            Open::Sqlite {
                state: SqliteState::NotBegun,
                connection,
                mut lock,
            } => {
                *lock = Some(connection);
                Ok(())
            }
            Open::Sqlite {
                mut connection,
                mut lock,
                ..
            } => {
                // A connection whose rollback fails is dropped: closing it
                // ends its transaction, and the next writer opens another.
                // (A `BEGIN` that failed itself leaves nothing to roll
                // back, and its connection goes the same way.)
                let rolled_back = sqlx::raw_sql("ROLLBACK").execute(&mut connection).await;
                if rolled_back.is_ok() {
                    *lock = Some(connection);
                }
                rolled_back.map(|_| ())
            }
        };
        if let Err(rollback_error) = rolled_back {
            // The connection is broken: the server ends the transaction
            // with it. The caller hears the first error.
            tracing::warn!(%rollback_error, %error, "rolling back a refused write");
        }
        error
    }

    /// Commits, then drops the snapshots the transaction touched (still
    /// under the write lock, before the writer's caller is answered).
    async fn commit(mut self) -> Result<(), ArenaError> {
        let touches_a_snapshot = self.touched != Touched::Only(Vec::new());
        let told = self.notified.as_ref() == Some(&self.touched);
        if let Some(me) = self.notify_as.filter(|_| touches_a_snapshot && !told) {
            // Delivered only if the transaction commits, once it has.
            let notified = sqlx::query("SELECT pg_notify($1, $2)")
                .bind(invalidate::CHANNEL)
                .bind(invalidate::payload(me, &self.touched))
                .execute(&mut *self)
                .await;
            if let Err(error) = notified {
                return Err(self.roll_back(error.into()).await);
            }
        }
        let (touched, board_patches, reads) = (self.touched, self.board_patches, self.reads);
        match self.open {
            Open::Pooled(transaction) => transaction.commit().await?,
            Open::Sqlite {
                connection,
                mut lock,
                state: SqliteState::CommitSent | SqliteState::NotBegun,
            } => *lock = Some(connection),
            Open::Sqlite {
                mut connection,
                mut lock,
                state: SqliteState::Begun,
            } => {
                if let Err(error) = sqlx::raw_sql("COMMIT").execute(&mut connection).await {
                    // Whatever SQLite left open closes with the connection.
                    return Err(error.into());
                }
                *lock = Some(connection);
            }
        }
        reads.invalidate_patching(&touched, &board_patches);
        Ok(())
    }
}

impl std::ops::Deref for WriteTransaction {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        match &self.open {
            Open::Pooled(transaction) => transaction,
            Open::Sqlite { connection, .. } => connection,
        }
    }
}

impl std::ops::DerefMut for WriteTransaction {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        match &mut self.open {
            Open::Pooled(transaction) => transaction,
            Open::Sqlite { connection, .. } => connection,
        }
    }
}

/// The advisory lock every PostgreSQL write transaction takes (any number
/// that no other application on the database uses: "cairn" in ASCII).
const WRITE_LOCK_KEY: i64 = 0x63_6169_726e;

/// The first key of leaderboard locks (`pg_advisory_xact_lock(int, int)`,
/// the second the hash of the board's game and variant).
pub(super) const BOARD_LOCK_SPACE: i32 = 0x6361_6972;

/// The first key of tournament planning locks (the second: the
/// tournament's id, wrapping past 2^31, where two tournaments merely share
/// a lock).
const PLANNING_LOCK_SPACE: i32 = 0x636_1697;

/// An SQLite file: one writer connection and a few readers.
async fn open_sqlite(path: &Path) -> Result<(Dialect, AnyPool, AnyPool), ArenaError> {
    let options = SqliteConnectOptions::from_str("sqlite://")?
        .filename(path)
        .create_if_missing(true);
    // The Any driver connects from a URL, which carries the file and the
    // create flag but no pragmas: each connection sets them as it opens.
    let options = AnyConnectOptions::from_url(&options.to_url_lossy())?;
    let pool_options = || {
        AnyPoolOptions::new()
            // No ping before every use: on SQLite a ping is a round trip
            // to the connection's thread and finds nothing (the file is
            // in this process).
            .test_before_acquire(false)
            .after_connect(|connection, _| Box::pin(set_sqlite_pragmas(connection)))
    };
    let writer = pool_options()
        .max_connections(1)
        .connect_with(options.clone())
        .await?;
    SQLITE_MIGRATOR.run(&writer).await?;
    let pool = pool_options()
        .max_connections(READ_CONNECTIONS)
        .connect_with(options)
        .await?;
    Ok((Dialect::Sqlite, pool, writer))
}

/// A new connection to the SQLite file of `pool`, outside the pool (as a
/// detached one): its thread starts from the calling thread.
async fn fresh_sqlite_connection(pool: &AnyPool) -> Result<AnyConnection, ArenaError> {
    let mut connection = AnyConnection::connect_with(&pool.connect_options()).await?;
    set_sqlite_pragmas(&mut connection).await?;
    Ok(connection)
}

/// Sets [`SQLITE_PRAGMAS`] on a connection as it opens.
async fn set_sqlite_pragmas(connection: &mut AnyConnection) -> Result<(), sqlx::Error> {
    sqlx::raw_sql(SQLITE_PRAGMAS).execute(connection).await?;
    Ok(())
}

/// Every SQLite connection's settings: WAL, normal sync, foreign keys, and a
/// busy timeout (10 s) for the rare writer outside the write lock.
const SQLITE_PRAGMAS: &str = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
     PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;";

/// A PostgreSQL database: a few writer and reader connections.
async fn open_postgres(url: &str) -> Result<(Dialect, AnyPool, AnyPool), ArenaError> {
    let options = AnyConnectOptions::from_str(url)
        .map_err(|error| ArenaError::invalid(format!("--db {}: {error}", redact_password(url))))?;
    // One connection first, so a server that is down or refuses us says
    // why instead of a pool timing out.
    let first = AnyConnection::connect_with(&options).await?;
    first.close().await?;
    // Notices ("relation already exists, skipping" from the migrator) are
    // not for the arena's operator.
    let pool_options = || {
        AnyPoolOptions::new()
            .acquire_timeout(Duration::from_secs(10))
            // Not a ping before every use (a round trip per statement
            // outside a transaction): sqlx already pings each connection
            // as it returns to the pool and drops a broken one.
            .test_before_acquire(false)
            .after_connect(|connection, _| {
                Box::pin(async move {
                    sqlx::raw_sql("SET client_min_messages = warning")
                        .execute(connection)
                        .await?;
                    Ok(())
                })
            })
    };
    let writer = pool_options()
        .max_connections(POSTGRES_WRITE_CONNECTIONS)
        .connect_with(options.clone())
        .await?;
    POSTGRES_MIGRATOR.run(&writer).await?;
    let pool = pool_options()
        .max_connections(READ_CONNECTIONS)
        .connect_with(options)
        .await?;
    Ok((Dialect::Postgres, pool, writer))
}

/// Finds a game's descriptor by id: its seats and options.
pub type GameCheck = fn(&str) -> Option<&'static GameDescriptor>;

/// The engine's table of games.
pub fn engine_game_check(game: &str) -> Option<&'static GameDescriptor> {
    cairn_engine::descriptor(game)
}

/// A fresh bearer token: 32 random bytes in hex.
pub(crate) fn new_token() -> Result<String, ArenaError> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|error| ArenaError::Internal(format!("no randomness for a token: {error}")))?;
    Ok(hex::encode(bytes))
}

/// What the database keeps of a token.
pub(crate) fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}
