//! The store on an SQLite file, in this process alone.
//!
//! Writes run `BEGIN IMMEDIATE` behind an in-process lock: writers queue
//! instead of failing to upgrade a read lock. The lock holds the one
//! writer connection itself, out of any pool: taking it is no round trip
//! to SQLite's thread, and giving it back no ping (sqlx pings every pooled
//! connection it takes back). A report's write opens with its first read
//! and commits with its batch ([`super::Open::begin_sql`],
//! [`super::Open::commit_sql`]): two round trips under the lock.

pub(super) mod backup;

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{AnyConnection, AnyPool, ConnectOptions, Connection};
use tokio::sync::{Mutex, OwnedMutexGuard};

use std::collections::HashMap;

use super::READ_CONNECTIONS;
use crate::error::ArenaError;
use crate::ratings::{RatingModel, Standing};
use crate::store::accounts::Runner;
use crate::store::leases::{LeaseState, LeasedRow, FAIR_TOURNAMENT_CTES};
use crate::store::recording::{
    bind_result_seats, match_done_sql, result_seats_sql, unrecorded_games_sql, NewResult,
    Recording, RESULT_INSERT,
};
use crate::store::snapshots::Touch;
use crate::store::WriteTransaction;

/// The SQLite migrations in `migrations/sqlite/` at the workspace root,
/// embedded (their checksums are those of the files before PostgreSQL
/// existed: a database an older binary created still opens).
pub(in crate::store) static MIGRATOR: sqlx::migrate::Migrator =
    sqlx::migrate!("../migrations/sqlite");

/// Every connection's settings: WAL, normal sync, foreign keys, and a busy
/// timeout (10 s) for the rare writer outside the write lock.
const PRAGMAS: &str = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
     PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;";

/// An SQLite store's write path.
#[derive(Debug, Clone)]
pub(crate) struct Sqlite {
    /// Only opens the writer connection the write lock holds, so writers
    /// never queue behind readers for a connection.
    pub(super) writer: AnyPool,
    /// Writers queue here, in the process, rather than in SQLite's busy
    /// handler, which sleeps in growing steps and wrecks latency; it holds
    /// the writer connection between transactions (opened with the store;
    /// none after a transaction whose end failed: the next opens another).
    write_lock: Arc<Mutex<Option<AnyConnection>>>,
    /// The connection the runners' reports read their game's plan on,
    /// outside the read pool: no ping when it comes back, and its thread
    /// (SQLite's, for this connection) is started where the store opens,
    /// and again on the server's writer thread ([`Sqlite::reopen_write_path`]),
    /// so it runs placed as the writes are, not as the public calls'
    /// threads (`cairn serve --api-nice`). `None` after a read on it failed
    /// (the next opens another).
    runner_reads: Arc<Mutex<Option<AnyConnection>>>,
}

/// A write transaction on the writer connection, out of the write lock it
/// goes back to when the transaction ends well. Dropped unended (its
/// future dropped), the connection closes, which rolls the transaction
/// back, and the next writer opens another.
#[derive(Debug)]
pub(crate) struct Open {
    pub(super) connection: AnyConnection,
    lock: OwnedMutexGuard<Option<AnyConnection>>,
    state: State,
}

/// Where a transaction's `BEGIN` and `COMMIT` are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not sent: the next statement must open with it.
    NotBegun,
    /// Sent with a statement (which may have failed before it ran).
    Begun,
    /// `COMMIT` sent with the last statement: nothing may follow.
    CommitSent,
}

impl Sqlite {
    /// Opens (creating it if missing) and migrates the file at `path`: one
    /// writer connection and a few readers.
    pub(super) async fn open(path: &Path) -> Result<(Sqlite, AnyPool), ArenaError> {
        let options = SqliteConnectOptions::from_str("sqlite://")?
            .filename(path)
            .create_if_missing(true);
        // The Any driver connects from a URL, which carries the file and
        // the create flag but no pragmas: each connection sets them as it
        // opens.
        let options = AnyConnectOptions::from_url(&options.to_url_lossy())?;
        let pool_options = || {
            AnyPoolOptions::new()
                // No ping before every use: a ping is a round trip to the
                // connection's thread and finds nothing (the file is in
                // this process).
                .test_before_acquire(false)
                .after_connect(|connection, _| Box::pin(set_pragmas(connection)))
        };
        let writer = pool_options()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        MIGRATOR.run(&writer).await?;
        let pool = pool_options()
            .max_connections(READ_CONNECTIONS)
            .connect_with(options)
            .await?;
        // The connection threads for the writes and the runners' reads
        // start here, at the opener's priority (see `runner_reads`).
        let writer_connection = writer.acquire().await?.detach();
        let runner_reads = pool.acquire().await?.detach();
        let sqlite = Sqlite {
            writer,
            write_lock: Arc::new(Mutex::new(Some(writer_connection))),
            runner_reads: Arc::new(Mutex::new(Some(runner_reads))),
        };
        Ok((sqlite, pool))
    }

    /// A write transaction holding the write lock and the writer
    /// connection, its `BEGIN` not sent yet: its first statement must open
    /// with [`Open::begin_sql`].
    pub(super) async fn begin_unsent(&self) -> Result<Open, ArenaError> {
        let mut lock = Arc::clone(&self.write_lock).lock_owned().await;
        let connection = match lock.take() {
            Some(connection) => connection,
            None => self.writer.acquire().await?.detach(),
        };
        Ok(Open {
            connection,
            lock,
            state: State::NotBegun,
        })
    }

    /// A write transaction holding the write lock, begun.
    pub(super) async fn begin(&self) -> Result<Open, ArenaError> {
        let mut open = self.begin_unsent().await?;
        let begin = open.begin_sql();
        if let Err(error) = sqlx::raw_sql(begin).execute(&mut open.connection).await {
            let error = ArenaError::from(error);
            if let Err(rollback_error) = open.roll_back().await {
                tracing::warn!(%rollback_error, %error, "rolling back a refused write");
            }
            return Err(error);
        }
        Ok(open)
    }

    /// Runs `read` on the connection for the runners' reads. A failed read
    /// drops it (the next read opens another).
    pub(super) async fn runner_read<T>(
        &self,
        pool: &AnyPool,
        read: impl AsyncFnOnce(&mut AnyConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T, ArenaError> {
        let mut held = self.runner_reads.lock().await;
        let mut connection = match held.take() {
            Some(connection) => connection,
            None => fresh_connection(pool).await?,
        };
        let answer = read(&mut connection).await?;
        *held = Some(connection);
        Ok(answer)
    }

    /// Replaces the write connection and the runners' read connection with
    /// new ones opened from the calling thread: SQLite runs each
    /// connection on a thread of its own, started by the thread that opens
    /// it and placed as that one is (priority, CPU set).
    pub(super) async fn reopen_write_path(&self, pool: &AnyPool) -> Result<(), ArenaError> {
        for (held, pool) in [(&self.write_lock, &self.writer), (&self.runner_reads, pool)] {
            let mut held = held.lock().await;
            let fresh = fresh_connection(pool).await?;
            if let Some(old) = held.replace(fresh) {
                let _ = old.close().await;
            }
        }
        Ok(())
    }

    /// Closes the connections held out of the pools, then the writer's.
    pub(super) async fn close(&self) {
        for held in [&self.write_lock, &self.runner_reads] {
            if let Some(connection) = held.lock().await.take() {
                let _ = connection.close().await;
            }
        }
        self.writer.close().await;
    }
}

impl Open {
    /// `BEGIN IMMEDIATE` if not sent yet (taken as sent from here on).
    pub(super) fn begin_sql(&mut self) -> &'static str {
        if self.state != State::NotBegun {
            return "";
        }
        self.state = State::Begun;
        "BEGIN IMMEDIATE;\n"
    }

    /// `COMMIT`, to end the last statement with: nothing may follow.
    pub(super) fn commit_sql(&mut self) -> &'static str {
        self.state = State::CommitSent;
        ";\nCOMMIT"
    }

    /// Rolls back, giving the connection back to the lock; a connection
    /// whose rollback fails is dropped: closing it ends its transaction,
    /// and the next writer opens another. (A `BEGIN` that failed itself
    /// leaves nothing to roll back, and its connection goes the same way.)
    pub(super) async fn roll_back(self) -> Result<(), sqlx::Error> {
        let Open {
            mut connection,
            mut lock,
            state,
        } = self;
        if state == State::NotBegun {
            *lock = Some(connection);
            return Ok(());
        }
        sqlx::raw_sql("ROLLBACK").execute(&mut connection).await?;
        *lock = Some(connection);
        Ok(())
    }

    /// Commits (unless the last statement did), giving the connection back.
    pub(super) async fn commit(self) -> Result<(), ArenaError> {
        let Open {
            mut connection,
            mut lock,
            state,
        } = self;
        if state == State::Begun {
            // Whatever SQLite left open closes with the connection.
            sqlx::raw_sql("COMMIT").execute(&mut connection).await?;
        }
        *lock = Some(connection);
        Ok(())
    }
}

/// A new connection to the file of `pool`, outside the pool (as a detached
/// one): its thread starts from the calling thread.
async fn fresh_connection(pool: &AnyPool) -> Result<AnyConnection, ArenaError> {
    let mut connection = AnyConnection::connect_with(&pool.connect_options()).await?;
    set_pragmas(&mut connection).await?;
    Ok(connection)
}

/// Sets [`PRAGMAS`] on a connection as it opens.
async fn set_pragmas(connection: &mut AnyConnection) -> Result<(), sqlx::Error> {
    sqlx::raw_sql(PRAGMAS).execute(connection).await?;
    Ok(())
}

/// A page of a tournament's matches with their seats (see
/// `Backend::matches_with_seats_sql`).
pub(super) const MATCHES_WITH_SEATS: &str = concat!("SELECT m.id, m.match_index, ", shown_match_status!(), " AS status, m.failure, \
     (SELECT json_group_array(json_array(s.seat, s.bot_version_id, b.name, v.version)) FROM seats s \
      JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id WHERE s.match_id = m.id) AS seats \
     FROM matches m WHERE m.tournament_id = $1 AND m.match_index > $2 ORDER BY m.match_index LIMIT $3");

/// The lease on SQLite, whose transaction holds the database: the older of
/// the oldest expired match and the oldest queued match of the fair
/// tournament ([`FAIR_TOURNAMENT_CTES`]). Two indexed lookups rather than
/// one OR, which would scan every finished match of every tournament.
pub(super) async fn lease(
    tx: &mut WriteTransaction,
    runner: &Runner,
    now: i64,
    duration_ms: i64,
) -> Result<Option<LeasedRow>, ArenaError> {
    let queued: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "WITH RECURSIVE {FAIR_TOURNAMENT_CTES} SELECT id FROM matches \
         WHERE status = 'queued' AND tournament_id = (SELECT t FROM fair) ORDER BY id LIMIT 1"
    )))
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
    let mut leased: LeasedRow = sqlx::query_as(LEASE_UPDATE)
        .bind(runner.id)
        .bind(now + duration_ms)
        .bind(match_id)
        .fetch_one(&mut **tx)
        .await?;
    leased.reclaimed = expired == Some(match_id);
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

/// A report's write on SQLite, whose transaction holds the database: one
/// read that opens the transaction (the match's lease and progress, the
/// seats' standings), then one batch of statements (the result, its
/// ratings, the match done when this game finishes it) that commits it
/// unless a format's step follows. Every statement is a round trip to
/// SQLite's thread, and under many readers each round trip waits for a
/// core.
pub(super) async fn record(
    tx: &mut WriteTransaction,
    result: &NewResult<'_>,
) -> Result<Recording, ArenaError> {
    let (state, progress, stored) = progress_and_standings(tx, result).await?;
    if progress.recorded {
        return Ok(Recording::AlreadyRecorded {
            match_done: state.status == "done",
        });
    }
    if !result.lease_holds(&state) {
        return Err(crate::store::cancel::lease_lost(tx, result.match_id).await?);
    }
    let writes = crate::store::leaderboard::rating_writes_from(&stored, &result.rated);
    // This game was the last one missing: the match is done (counted under
    // the write lock, so no need to count again).
    let finishes_match = progress.missing == 1;
    let commits = !result.steps_follow(finishes_match);
    write_result_batch(tx, result, &writes, finishes_match, commits).await?;
    Ok(Recording::Recorded {
        finishes_match,
        saved: writes.saved,
        forfeits_checked: false,
    })
}

/// Writes a game's result, its seats, the standings it gives and their
/// history, and the match done if `finishes_match`, as one batch of
/// statements (SQLite runs them in one call), which commits the
/// transaction if `commits`.
async fn write_result_batch(
    tx: &mut WriteTransaction,
    result: &NewResult<'_>,
    writes: &crate::store::leaderboard::RatingWrites,
    finishes_match: bool,
    commits: bool,
) -> Result<(), ArenaError> {
    use crate::store::leaderboard::{
        bind_histories, bind_standings, history_insert_sql, save_standings_sql,
    };
    // $1 game, $2 runner, $3 replay, $4 now, $5 match; then the seats',
    // standings' and history's values, numbered on.
    let (game_id, (board_game, variant), report) = (result.game_id, result.board, result.report);
    let mut statements = vec![RESULT_INSERT.to_string()];
    let mut next = 6;
    if !report.seats.is_empty() {
        statements.push(result_seats_sql(report.seats.len(), next));
        next += 8 * report.seats.len();
    }
    if !writes.saved.is_empty() {
        statements.push(save_standings_sql(writes.saved.len(), next));
        next += 12 * writes.saved.len();
    }
    if !writes.history.is_empty() {
        let result_id = "(SELECT id FROM results WHERE game_id = $1)";
        statements.push(history_insert_sql(
            writes.history.len(),
            next - 1,
            result_id,
        ));
    }
    if finishes_match {
        statements.push(match_done_sql("$4", "$5"));
    }
    let mut sql = statements.join(";\n");
    if commits {
        sql.push_str(tx.commit_sql());
    }
    let replay = &report.replay;
    let query = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(game_id)
        .bind(result.runner_id)
        .bind((!replay.is_empty()).then_some(replay))
        .bind(result.now)
        .bind(result.match_id);
    let query = bind_result_seats(query, game_id, report);
    let query = bind_standings(query, board_game, variant, &writes.saved);
    bind_histories(query, board_game, variant, &writes.history)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Whether a game of a match is recorded, and how many of the match's
/// games are not.
struct MatchProgress {
    recorded: bool,
    missing: i64,
}

/// `result`'s match's lease, whether its game is recorded and how many of
/// the match's games are not, with the stored standings of its rated
/// seats' bot versions on its board: one statement, read after the
/// transaction took the write lock.
async fn progress_and_standings(
    tx: &mut WriteTransaction,
    result: &NewResult<'_>,
) -> Result<
    (
        LeaseState,
        MatchProgress,
        HashMap<(RatingModel, i64), Standing>,
    ),
    ArenaError,
> {
    use crate::store::leaderboard::{bind_seats_standings_filter, seats_standings_filter};
    let (match_id, (game, variant), seats) = (result.match_id, result.board, &result.rated);
    // One row (the lease and progress) per stored standing, at least one.
    let sql = format!(
        "{}SELECT p.*, {} FROM (SELECT m.status, m.lease_generation, m.lease_holder, m.lease_expires_at, \
         EXISTS (SELECT 1 FROM results WHERE game_id = $1) AS recorded, ({}) AS missing \
         FROM matches m WHERE m.id = $2) AS p LEFT JOIN ratings r ON {}",
        tx.begin_sql(),
        crate::store::leaderboard::stored_standing_columns_of("r"),
        unrecorded_games_sql("$2"),
        seats_standings_filter("r", 3, seats.len()),
    );
    let query = sqlx::query_as::<_, ProgressRow>(sqlx::AssertSqlSafe(sql))
        .bind(result.game_id)
        .bind(match_id);
    let rows = bind_seats_standings_filter(query, game, variant, seats)
        .fetch_all(&mut **tx)
        .await?;
    let Some(first) = rows.first() else {
        return Err(ArenaError::not_found("match", match_id));
    };
    let (state, progress) = (
        first.lease.clone(),
        MatchProgress {
            recorded: first.recorded.0,
            missing: first.missing,
        },
    );
    let stored = rows
        .into_iter()
        .filter_map(|row| row.standing)
        .filter_map(crate::store::leaderboard::StoredStanding::keyed)
        .collect();
    Ok((state, progress, stored))
}

/// A row of [`progress_and_standings`]: the lease and progress, and a
/// stored standing unless none was found.
struct ProgressRow {
    lease: LeaseState,
    recorded: crate::store::Flag,
    missing: i64,
    standing: Option<crate::store::leaderboard::StoredStanding>,
}

impl<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> for ProgressRow {
    fn from_row(row: &'r sqlx::any::AnyRow) -> Result<Self, sqlx::Error> {
        use sqlx::Row;
        Ok(ProgressRow {
            lease: LeaseState::from_row(row)?,
            recorded: row.try_get("recorded")?,
            missing: row.try_get("missing")?,
            standing: crate::store::leaderboard::StoredStanding::joined(row)?,
        })
    }
}
