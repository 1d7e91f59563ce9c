//! The store on a PostgreSQL database, beside other arena processes.
//!
//! Several arena processes write at once and nothing rests on a lock in
//! one process: a write takes an advisory lock in the database, exclusive
//! for the rare writes (accounts, bots, tournaments, planning, give-backs),
//! so they see and write the database alone as on SQLite, shared for the
//! hot three (leases, heartbeats, reports), which instead lock the rows
//! they change: a lease takes its match `FOR UPDATE SKIP LOCKED` (two
//! processes never take one match), a heartbeat or a report locks its match
//! row (a game is recorded once), and a report takes an advisory lock per
//! seat's bot version on its leaderboard, so the rating updates of a bot
//! version apply one at a time whichever process got them, and its
//! leaderboard's lock for its write and commit only, so a board's results
//! take their ids in the order they become visible (see [`results`]).
//! Each write tells the other processes what it touched ([`invalidate`]).

mod at_once;
#[cfg(test)]
pub(crate) use at_once::Tries;
pub(in crate::store) mod invalidate;
pub(super) mod results;

use std::str::FromStr;
use std::sync::{Arc, Weak};
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, Connection, Transaction};
use tokio::sync::watch;

use super::READ_CONNECTIONS;
use crate::error::ArenaError;
use crate::store::accounts::Runner;
use crate::store::leases::{LeasedRow, FAIR_TOURNAMENT_CTES};
use crate::store::snapshots::{ReadCache, Touch, Touched};
use crate::store::WriteTransaction;

/// The PostgreSQL schema, the same in meaning as SQLite's after all its
/// migrations.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// Connections a store opens for writes: they run at once, kept apart by
/// row and advisory locks in the database.
const WRITE_CONNECTIONS: u32 = 8;

/// The advisory lock every write transaction takes (any number that no
/// other application on the database uses: "cairn" in ASCII).
const WRITE_LOCK_KEY: i64 = 0x63_6169_726e;

/// The first key of leaderboard locks (`pg_advisory_xact_lock(int, int)`,
/// the second the hash of the board's game and variant).
pub(super) const BOARD_LOCK_SPACE: i32 = 0x6361_6972;

/// The first key of tournament planning locks (the second: the
/// tournament's id, wrapping past 2^31, where two tournaments merely share
/// a lock).
const PLANNING_LOCK_SPACE: i32 = 0x636_1697;

/// A PostgreSQL store's write path.
#[derive(Debug, Clone)]
pub(crate) struct Postgres {
    /// Write transactions run here (a few connections).
    pub(super) writer: AnyPool,
    /// Where the store connects (for the planning lock's own connection).
    url: Arc<str>,
    /// This store among the processes on the database (random): its
    /// listener skips its own writes' notifications.
    store_id: u64,
    /// How a report's write in one statement fares (see [`at_once`]).
    pub(super) at_once: Arc<at_once::Tries>,
}

/// A write transaction on a pooled connection (if dropped unended, sqlx
/// rolls it back when the connection is next used), with the store's id
/// its notifications carry.
#[derive(Debug)]
pub(crate) struct Open {
    pub(super) state: State,
    pub(super) store_id: u64,
    pub(super) at_once: Arc<at_once::Tries>,
}

/// Where a write transaction is.
#[derive(Debug)]
pub(crate) enum State {
    /// Not begun: a report's, whose write may commit by itself in one
    /// statement ([`at_once`]), else begins it ([`Open::begin_unsent`]).
    Unsent(PoolConnection<Any>),
    Begun(Transaction<'static, Any>),
    /// Its write committed by itself (or its begin failed): its
    /// connection went back to the pool, and no statement may follow.
    Ended,
}

impl Postgres {
    /// Connects to `url` and migrates the database: a few writer and reader
    /// connections.
    pub(super) async fn open(url: &str) -> Result<(Postgres, AnyPool), ArenaError> {
        let options = AnyConnectOptions::from_str(url).map_err(|error| {
            ArenaError::invalid(format!("--db {}: {error}", super::redact_password(url)))
        })?;
        // One connection first, so a server that is down or refuses us
        // says why instead of a pool timing out.
        let first = AnyConnection::connect_with(&options).await?;
        first.close().await?;
        // Notices ("relation already exists, skipping" from the migrator)
        // are not for the arena's operator.
        let pool_options = || {
            AnyPoolOptions::new()
                .acquire_timeout(Duration::from_secs(10))
                // Not a ping before every use (a round trip per statement
                // outside a transaction): sqlx already pings each
                // connection as it returns to the pool and drops a broken
                // one.
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
            .max_connections(WRITE_CONNECTIONS)
            .connect_with(options.clone())
            .await?;
        MIGRATOR.run(&writer).await?;
        let pool = pool_options()
            .max_connections(READ_CONNECTIONS)
            .connect_with(options)
            .await?;
        let mut id_bytes = [0_u8; 8];
        getrandom::fill(&mut id_bytes)
            .map_err(|error| ArenaError::Internal(format!("no randomness for an id: {error}")))?;
        let postgres = Postgres {
            writer,
            url: url.into(),
            store_id: u64::from_le_bytes(id_bytes),
            at_once: Arc::default(),
        };
        Ok((postgres, pool))
    }

    /// Listens for the other processes' writes, dropping what they touched
    /// from `reads` and waking `changes`' watchers.
    pub(super) async fn listen(
        &self,
        reads: Weak<ReadCache>,
        changes: Weak<watch::Sender<u64>>,
    ) -> Result<(), ArenaError> {
        invalidate::listen(&self.url, self.store_id, reads, changes).await
    }

    /// A transaction holding the write lock through `lock`, the exclusive
    /// (`pg_advisory_xact_lock`) or the shared advisory lock function.
    pub(super) async fn begin(&self, lock: &str) -> Result<Open, ArenaError> {
        let transaction = self.writer.begin_with(begin_sql(lock)).await?;
        Ok(self.open_as(State::Begun(transaction)))
    }

    /// A report's transaction, not begun yet (see [`State::Unsent`]): it
    /// holds a connection of the write pool.
    pub(super) async fn begin_unsent(&self) -> Result<Open, ArenaError> {
        let connection = self.writer.acquire().await?;
        Ok(self.open_as(State::Unsent(connection)))
    }

    fn open_as(&self, state: State) -> Open {
        Open {
            state,
            store_id: self.store_id,
            at_once: Arc::clone(&self.at_once),
        }
    }

    /// Holds tournament `tournament_id`'s planning lock until the returned
    /// connection is dropped: a connection of its own, outside the pools
    /// (the planner's chunks need theirs), whose session lock ends with it,
    /// also when planning fails half-way.
    pub(super) async fn planning_lock(
        &self,
        tournament_id: i64,
    ) -> Result<AnyConnection, ArenaError> {
        let mut connection = AnyConnection::connect(&self.url).await?;
        sqlx::query("SELECT pg_advisory_lock($1, $2)")
            .bind(PLANNING_LOCK_SPACE)
            .bind(tournament_id as i32)
            .execute(&mut connection)
            .await?;
        Ok(connection)
    }
}

/// The statement that begins a write transaction holding the write lock
/// through `lock` (see [`Postgres::begin`]): one round trip, the
/// transaction opens holding the lock (the key is a constant, so it is
/// written into the statement). If the lock fails, sqlx rolls the
/// half-open transaction back.
fn begin_sql(lock: &str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(format!("BEGIN; SELECT {lock}({WRITE_LOCK_KEY})"))
}

/// The shared write lock's function, which reports take.
const SHARED_WRITE_LOCK: &str = "pg_advisory_xact_lock_shared";

impl Open {
    /// Tells the other arena processes what the transaction touched:
    /// delivered only if the transaction commits, once it has (at once
    /// where it ended already).
    pub(super) async fn announce(&mut self, touched: &Touched) -> Result<(), sqlx::Error> {
        let query = sqlx::query("SELECT pg_notify($1, $2)")
            .bind(invalidate::CHANNEL)
            .bind(invalidate::payload(self.store_id, touched));
        match &mut self.state {
            State::Unsent(connection) => query.execute(&mut **connection).await?,
            State::Begun(transaction) => query.execute(&mut **transaction).await?,
            State::Ended => return Ok(()),
        };
        Ok(())
    }

    /// Begins the transaction, holding the shared write lock, if it was
    /// not begun yet.
    pub(super) async fn begin_unsent(&mut self) -> Result<(), ArenaError> {
        if !matches!(self.state, State::Unsent(_)) {
            return Ok(());
        }
        let State::Unsent(connection) = std::mem::replace(&mut self.state, State::Ended) else {
            unreachable!("checked just above");
        };
        let transaction = Transaction::begin(
            connection,
            Some(sqlx::SqlSafeStr::into_sql_str(begin_sql(SHARED_WRITE_LOCK))),
        )
        .await?;
        self.state = State::Begun(transaction);
        Ok(())
    }

    /// Rolls back, waiting for it (nothing to roll back where the
    /// transaction never began or its write committed by itself).
    pub(super) async fn roll_back(self) -> Result<(), sqlx::Error> {
        match self.state {
            State::Begun(transaction) => transaction.rollback().await,
            State::Unsent(_) | State::Ended => Ok(()),
        }
    }

    /// Commits (nothing to commit where the transaction never began or its
    /// write committed by itself).
    pub(super) async fn commit(self) -> Result<(), ArenaError> {
        match self.state {
            State::Begun(transaction) => Ok(transaction.commit().await?),
            State::Unsent(_) | State::Ended => Ok(()),
        }
    }

    pub(super) fn connection(&self) -> &AnyConnection {
        match &self.state {
            State::Unsent(connection) => connection,
            State::Begun(transaction) => transaction,
            State::Ended => panic!("a statement after its transaction ended"),
        }
    }

    pub(super) fn connection_mut(&mut self) -> &mut AnyConnection {
        match &mut self.state {
            State::Unsent(connection) => connection,
            State::Begun(transaction) => transaction,
            State::Ended => panic!("a statement after its transaction ended"),
        }
    }
}

/// A page of a tournament's matches with their seats (see
/// `Backend::matches_with_seats_sql`).
pub(super) const MATCHES_WITH_SEATS: &str = concat!("SELECT m.id, m.match_index, ", shown_match_status!(), " AS status, m.failure, \
     COALESCE((SELECT json_agg(json_build_array(s.seat, s.bot_version_id, b.name, v.version) ORDER BY s.seat) FROM seats s \
      JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id WHERE s.match_id = m.id)::text, '[]') AS seats \
     FROM matches m WHERE m.tournament_id = $1 AND m.match_index > $2 ORDER BY m.match_index LIMIT $3");

/// The lease on PostgreSQL, in one statement beside other processes'
/// leases: the oldest queued match of the fair tournament
/// ([`FAIR_TOURNAMENT_CTES`]; if every one of its queued matches is being
/// leased, the oldest queued match) and the oldest expired match are each
/// locked `FOR UPDATE SKIP LOCKED` (two processes never take one match, and
/// neither waits for the other), the older is leased unless the runner
/// was revoked (a revocation holds the exclusive write lock, so it
/// committed before this transaction began or starts after it ends), and
/// the other processes are notified of the match it touched.
pub(super) async fn lease(
    tx: &mut WriteTransaction,
    runner: &Runner,
    now: i64,
    duration_ms: i64,
) -> Result<Option<LeasedRow>, ArenaError> {
    let me = tx.notifier().unwrap_or_default();
    let row: PostgresLease = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "WITH RECURSIVE {FAIR_TOURNAMENT_CTES}, \
         me AS (SELECT id FROM runners WHERE id = $1 AND revoked_at IS NULL), \
         f AS (SELECT id FROM matches WHERE status = 'queued' AND tournament_id = (SELECT t FROM fair) \
               ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED), \
         g AS (SELECT id FROM matches WHERE status = 'queued' AND NOT EXISTS (SELECT 1 FROM f) \
               ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED), \
         e AS (SELECT id FROM matches WHERE status = 'leased' AND lease_expires_at <= $3 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED), \
         u AS (UPDATE matches SET status = 'leased', lease_generation = lease_generation + 1, \
               lease_holder = $1, lease_expires_at = $2 \
               WHERE id = (SELECT MIN(id) FROM (SELECT id FROM f UNION ALL SELECT id FROM g UNION ALL SELECT id FROM e) AS c) \
               AND EXISTS (SELECT 1 FROM me) \
               RETURNING id AS match_id, tournament_id, match_index, lease_generation, lease_expires_at), \
         n AS (SELECT pg_notify($4, {}) FROM u) \
         SELECT (SELECT COUNT(*) FROM me) AS live, (SELECT COUNT(*) FROM n) AS notified, \
         (SELECT COUNT(*) FROM e WHERE e.id = u.match_id) AS reclaimed, u.match_id, u.tournament_id, u.match_index, u.lease_generation, u.lease_expires_at \
         FROM (SELECT 1) AS one LEFT JOIN u ON TRUE",
        invalidate::match_payload_sql("$5", "tournament_id", "match_index"),
    )))
    .bind(runner.id)
    .bind(now + duration_ms)
    .bind(now)
    .bind(invalidate::CHANNEL)
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
        reclaimed: row.reclaimed == 1,
    }))
}

/// What [`lease`] read and wrote.
#[derive(sqlx::FromRow)]
struct PostgresLease {
    live: i64,
    notified: i64,
    /// 1 when the match leased was under an expired lease.
    reclaimed: i64,
    match_id: Option<i64>,
    tournament_id: Option<i64>,
    match_index: Option<i64>,
    lease_generation: Option<i64>,
    lease_expires_at: Option<i64>,
}

/// Tests' hold on a report's seat lock (see [`results`]), from outside the
/// store, to race a report against it.
#[cfg(test)]
pub(super) mod seat_locks {
    use std::time::Duration;

    use cairn_engine::GameOptions;
    use sqlx::{AnyConnection, Connection};

    use super::results::board_key;
    use crate::store::variant_key;
    use crate::testkit::TEST_DUEL;

    /// The seat lock of `bot_version_id` on the test duel's board, held by
    /// a transaction on a connection of its own until it is dropped.
    pub(in crate::store) async fn hold_seat_lock(url: &str, bot_version_id: i64) -> AnyConnection {
        let mut connection = AnyConnection::connect(url).await.unwrap();
        sqlx::raw_sql("BEGIN")
            .execute(&mut connection)
            .await
            .unwrap();
        let variant = variant_key(&GameOptions::new());
        sqlx::query("SELECT COUNT(*) FROM (SELECT pg_advisory_xact_lock(hashtext($1), $2)) AS l")
            .bind(board_key((TEST_DUEL, &variant)))
            .bind(bot_version_id as i32)
            .execute(&mut connection)
            .await
            .unwrap();
        connection
    }

    /// Waits until a session waits for the seat lock of `bot_version_id`;
    /// panics with `never` after 30 s.
    pub(in crate::store) async fn wait_for_seat_lock_waiter(
        url: &str,
        bot_version_id: i64,
        never: &str,
    ) {
        let mut watcher = AnyConnection::connect(url).await.unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let waiters: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted \
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                 AND objsubid = 2 AND CAST(objid AS BIGINT) = $1",
            )
            .bind(bot_version_id)
            .fetch_one(&mut watcher)
            .await
            .unwrap();
            if waiters == 1 {
                return;
            }
            assert!(tokio::time::Instant::now() < deadline, "{never}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
