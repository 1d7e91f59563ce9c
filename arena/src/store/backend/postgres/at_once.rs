//! A report's write in one statement sent outside a transaction, which
//! PostgreSQL commits as it ends: the board's lock is held for the write
//! and the commit only, never over a round trip to a (busy, throttled)
//! arena process, where the write of [`super::results`] holds it from its
//! step 3 to the `COMMIT` its process sends.
//!
//! 1. A read, locking nothing: the match's lease, its games not recorded
//!    yet and whether this one is, the seats' standings, and the
//!    *version* of what it read: the match row's `xmin` and each
//!    standing's (the transaction that wrote the row version read).
//! 2. The statement: the shared write lock, the seats' locks, the match's
//!    row and the standings `FOR UPDATE` (which read the newest version
//!    of a row, not the statement's snapshot), then, only if their version
//!    is the one read in 1, the board's lock and the writes of
//!    [`super::results::ResultWrite`]; else it writes nothing and the
//!    report goes round again. Every recorded result updates its match's
//!    row, so a result of the match recorded since 1 moves the version
//!    too, and the count of its games not recorded (which decides "done")
//!    still holds when the version does.
//!
//! The report takes [`super::results`]'s transaction instead when the read
//! says anything but "write it": the lease not held, the game recorded, a
//! seat without a standing (a standing first inserted by another report
//! after this statement's snapshot would be invisible to it), or a step
//! that follows the write in its transaction (an SPRT's tally, a forfeit
//! policy, a format's step once the match is done), and after
//! its store's limit of tries ([`TRIES`]) whose version moved: that transaction, which
//! locks before it reads, cannot fail that way.
//!
//! The invariant the board's lock keeps holds: a result's id is taken
//! under it and its commit ends the statement, before the lock is let go,
//! so a board's results become visible in the order of their ids; and
//! locks are taken in the order of the transaction's (write lock, seats,
//! match, board), so the two ways never wait for each other in a cycle.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use sqlx::AnyConnection;

use super::results::{n_standings, seat_lock_ctes, seat_lock_keys, ResultWrite, Written};
use super::{invalidate, State, BOARD_LOCK_SPACE, SHARED_WRITE_LOCK, WRITE_LOCK_KEY};
use crate::error::ArenaError;
use crate::ratings::{RatingModel, Standing};
use crate::store::backend::Open;
use crate::store::leaderboard::{
    bind_seats_standings_filter, rating_writes_from, seats_standings_filter,
    stored_standing_columns_of, AnyQuery, RatingWrites, StoredStanding, STORED_STANDING_COLUMNS,
};
use crate::store::leases::LeaseState;
use crate::store::recording::{unrecorded_games_sql, NewResult, Recording};
use crate::store::suspensions::exceeds;
use crate::store::WriteTransaction;

/// How many statements a report tries before it takes the transaction.
const TRIES: u32 = 3;

/// The tries of a store's reports: its limit, and how often a statement
/// wrote, found its reads moved, or a report took the transaction after
/// that many.
#[derive(Debug)]
pub(crate) struct Tries {
    limit: AtomicU32,
    written: AtomicU64,
    moved: AtomicU64,
    gave_up: AtomicU64,
}

impl Default for Tries {
    fn default() -> Tries {
        Tries {
            limit: AtomicU32::new(TRIES),
            written: AtomicU64::new(0),
            moved: AtomicU64::new(0),
            gave_up: AtomicU64::new(0),
        }
    }
}

impl Tries {
    /// Sets how many statements a report tries (0: none, every report
    /// takes the transaction).
    #[cfg(test)]
    pub(crate) fn set_limit(&self, limit: u32) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    /// Statements that wrote, statements whose reads had moved, and
    /// reports that took the transaction after the limit of them.
    #[cfg(test)]
    pub(crate) fn counts(&self) -> (u64, u64, u64) {
        (
            self.written.load(Ordering::Relaxed),
            self.moved.load(Ordering::Relaxed),
            self.gave_up.load(Ordering::Relaxed),
        )
    }
}

/// The version of what a statement read as `m` (the match), `st` (the
/// standings) and `ft` (the forfeit tallies), each row with its `xmin` as
/// `x`: one string (SQL).
const VERSION_SQL: &str = "CAST((SELECT x FROM m) AS TEXT) || '/' || COALESCE((SELECT string_agg(\
     st.model || ':' || CAST(st.bot_version_id AS TEXT) || ':' || CAST(st.x AS TEXT), ',' \
     ORDER BY st.model, st.bot_version_id) FROM st), '') || '/' || COALESCE((SELECT string_agg(\
     CAST(ft.bot_version_id AS TEXT) || ':' || CAST(ft.x AS TEXT), ',' ORDER BY ft.bot_version_id) \
     FROM ft), '')";

/// Records `result` in one statement if it can (see the module): `None`
/// when it takes the transaction, which is then still to begin.
pub(in crate::store) async fn record(
    tx: &mut WriteTransaction,
    result: &NewResult<'_>,
) -> Result<Option<Recording>, ArenaError> {
    let Open::Postgres(open) = tx.open_mut() else {
        return Ok(None);
    };
    let State::Unsent(connection) = &mut open.state else {
        return Ok(None);
    };
    let (store_id, tries) = (open.store_id, std::sync::Arc::clone(&open.at_once));
    let touched = result.touches();
    let payload = invalidate::payload(store_id, &touched);
    for _ in 0..tries.limit.load(Ordering::Relaxed) {
        let Some(read) = read(connection, result).await? else {
            return Ok(None);
        };
        let writes = rating_writes_from(&read.stored, &result.rated);
        let finishes = read.missing == 1;
        let write = ResultWrite::new(result, &writes, true);
        let sql = statement(&write, result, finishes);
        let query = bind_statement(&write, sql, result, &writes, payload.clone(), &read.version);
        let row = query.fetch_one(&mut **connection).await?;
        let current: i64 = sqlx::Row::try_get(&row, "current")?;
        let written = <Written as sqlx::FromRow<'_, sqlx::any::AnyRow>>::from_row(&row)?;
        if current == 0 || written.recorded == 0 {
            // Its reads moved (or a report of the game got in first, which
            // the transaction answers): nothing written.
            tries.moved.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        open.state = State::Ended;
        tries.written.fetch_add(1, Ordering::Relaxed);
        if written.notified == 1 {
            tx.notified(touched);
        }
        return Ok(Some(Recording::Recorded {
            finishes_match: written.finished == 1,
            saved: writes.saved,
            forfeits_checked: result.steps.has_forfeit_policy,
        }));
    }
    tries.gave_up.fetch_add(1, Ordering::Relaxed);
    tracing::debug!(
        game_id = result.game_id,
        "a report's reads kept moving: it takes the transaction"
    );
    Ok(None)
}

/// What step 1 read, when it says "write it".
struct Read {
    missing: i64,
    stored: HashMap<(RatingModel, i64), Standing>,
    version: String,
}

/// Step 1: `None` unless the lease holds, the game is not recorded, every
/// seat has its standings (and its forfeit tally, where one is kept), no
/// seat would be suspended by it and nothing else follows the write.
async fn read(
    connection: &mut AnyConnection,
    result: &NewResult<'_>,
) -> Result<Option<Read>, ArenaError> {
    let tallied = tallied_versions(result);
    let sql = format!(
        "WITH m AS (SELECT status, lease_generation, lease_holder, lease_expires_at, xmin AS x, \
         ({}) AS missing, (SELECT COUNT(*) FROM results WHERE game_id = $2) AS recorded \
         FROM matches WHERE id = $1), \
         st AS (SELECT {STORED_STANDING_COLUMNS}, xmin AS x FROM ratings WHERE {}), \
         ft AS (SELECT f.bot_version_id, f.games, f.forfeits, f.xmin AS x, \
                (SELECT COUNT(*) FROM tournament_suspensions su WHERE su.tournament_id = f.tournament_id \
                 AND su.bot_version_id = f.bot_version_id) AS suspended \
                FROM forfeit_tallies f WHERE {}) \
         SELECT m.status, m.lease_generation, m.lease_holder, m.lease_expires_at, m.missing, \
         m.recorded, {VERSION_SQL} AS version, \
         (SELECT max_forfeit_rate FROM tournaments WHERE id = $3) AS max_rate, \
         (SELECT string_agg(CAST(ft.bot_version_id AS TEXT) || ':' || CAST(ft.games AS TEXT) || ':' \
          || CAST(ft.forfeits AS TEXT) || ':' || CAST(ft.suspended AS TEXT), ',') FROM ft) AS tallies, \
         {} FROM m LEFT JOIN st ON TRUE",
        unrecorded_games_sql("$1"),
        seats_standings_filter("ratings", 4 + tallied.len(), result.rated.len()),
        tallies_filter("f", "$3", 4, tallied.len()),
        stored_standing_columns_of("st"),
    );
    let mut query = sqlx::query_as::<_, ReadRow>(sqlx::AssertSqlSafe(sql))
        .bind(result.match_id)
        .bind(result.game_id)
        .bind(result.tournament_id);
    for bot_version_id in &tallied {
        query = query.bind(*bot_version_id);
    }
    let (game, variant) = result.board;
    let rows = bind_seats_standings_filter(query, game, variant, &result.rated)
        .fetch_all(&mut *connection)
        .await?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let (missing, version) = (first.missing, first.version.clone());
    let fits = first.recorded == 0
        && result.lease_holds(&first.lease)
        && !steps_follow(result, missing == 1)
        && tallies_fit(result, &tallied, first.max_rate, first.tallies.as_deref());
    let stored: HashMap<_, _> = rows
        .into_iter()
        .filter_map(|row| row.standing)
        .filter_map(StoredStanding::keyed)
        .collect();
    if !fits || stored.len() < n_standings(&result.rated) {
        return Ok(None);
    }
    Ok(Some(Read {
        missing,
        stored,
        version,
    }))
}

/// Whether a step follows the write that the statement does not take:
/// all but the forfeit tally ([`NewResult::steps_follow`]'s others).
fn steps_follow(result: &NewResult<'_>, finishes_match: bool) -> bool {
    !result.ends_transaction
        || result.steps.has_sprt
        || (finishes_match && result.steps.has_format_step)
}

/// The bot versions whose forfeit tallies the result adds to, sorted, each
/// once: its seats', where its tournament keeps a forfeit policy.
fn tallied_versions(result: &NewResult<'_>) -> Vec<i64> {
    if !result.steps.has_forfeit_policy {
        return Vec::new();
    }
    let mut versions: Vec<i64> = result
        .report
        .seats
        .iter()
        .map(|seat| seat.bot_version_id)
        .collect();
    versions.sort_unstable();
    versions.dedup();
    versions
}

/// The condition on `forfeit_tallies` rows (as `table`) of tournament
/// `tournament` (a value) and `n` bot versions numbered from `first`
/// (none: no row).
fn tallies_filter(table: &str, tournament: &str, first: usize, n: usize) -> String {
    if n == 0 {
        return format!("FALSE AND {table}.tournament_id = {tournament}");
    }
    let versions: Vec<String> = (first..first + n)
        .map(|number| format!("${number}"))
        .collect();
    format!(
        "{table}.tournament_id = {tournament} AND {table}.bot_version_id IN ({})",
        versions.join(", ")
    )
}

/// Whether the statement may add the result to its seats' forfeit tallies
/// (`tallies` as read: `version:games:forfeits:suspended`, comma-separated):
/// each seat has its tally (one inserted since the statement's snapshot
/// would be invisible to it) and the result suspends none (a suspension
/// drops matches: the transaction's [`crate::store::suspensions`] does it),
/// and the seats' locks (none for a game never rated) keep the tallies.
fn tallies_fit(
    result: &NewResult<'_>,
    tallied: &[i64],
    max_rate: Option<f64>,
    tallies: Option<&str>,
) -> bool {
    if tallied.is_empty() {
        return true;
    }
    let (Some(max_rate), false) = (max_rate, seat_lock_keys(&result.rated).is_empty()) else {
        return false;
    };
    let read: HashMap<i64, [i64; 3]> = tallies
        .unwrap_or_default()
        .split(',')
        .filter_map(|tally| {
            let numbers: Vec<i64> = tally.split(':').filter_map(|n| n.parse().ok()).collect();
            let [version, games, forfeits, suspended] = numbers[..] else {
                return None;
            };
            Some((version, [games, forfeits, suspended]))
        })
        .collect();
    tallied.iter().all(|version| {
        let Some([games, forfeits, suspended]) = read.get(version) else {
            return false;
        };
        let seats = result
            .report
            .seats
            .iter()
            .filter(|seat| seat.bot_version_id == *version);
        let (more_games, more_forfeits) = seats.fold((0, 0), |(games, forfeits), seat| {
            (games + 1, forfeits + i64::from(seat.forfeit.is_some()))
        });
        *suspended > 0 || !exceeds(games + more_games, forfeits + more_forfeits, max_rate)
    })
}

/// A row of [`read`].
struct ReadRow {
    lease: LeaseState,
    missing: i64,
    recorded: i64,
    version: String,
    max_rate: Option<f64>,
    tallies: Option<String>,
    standing: Option<StoredStanding>,
}

impl<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> for ReadRow {
    fn from_row(row: &'r sqlx::any::AnyRow) -> Result<Self, sqlx::Error> {
        use sqlx::Row;
        Ok(ReadRow {
            lease: LeaseState::from_row(row)?,
            missing: row.try_get("missing")?,
            recorded: row.try_get("recorded")?,
            version: row.try_get("version")?,
            max_rate: row.try_get("max_rate")?,
            tallies: row.try_get("tallies")?,
            standing: StoredStanding::joined(row)?,
        })
    }
}

/// Step 2's SQL: `write`'s values first, then the seats' lock keys, the
/// standings' filter, the version read, the tournament and the tallied
/// bot versions.
fn statement(write: &ResultWrite, result: &NewResult<'_>, finishes: bool) -> String {
    let n_keys = seat_lock_keys(&result.rated).len();
    let mut parts = vec![format!(
        "w AS MATERIALIZED (SELECT {SHARED_WRITE_LOCK}({WRITE_LOCK_KEY}))"
    )];
    let (locks, gate) = seat_lock_ctes(n_keys, "$5", write.next, Some("w"));
    parts.extend(locks);
    let filter_from = write.next + n_keys;
    let version = filter_from + filter_values(result);
    let tournament = format!("${}", version + 1);
    let tallied = tallied_versions(result);
    parts.push(format!(
        "m AS MATERIALIZED (SELECT xmin AS x FROM matches WHERE id = $6{gate} FOR UPDATE)"
    ));
    parts.push(format!(
        "st AS MATERIALIZED (SELECT model, bot_version_id, xmin AS x FROM ratings WHERE {}{gate} FOR UPDATE)",
        seats_standings_filter("ratings", filter_from, result.rated.len())
    ));
    parts.push(format!(
        "ft AS MATERIALIZED (SELECT bot_version_id, xmin AS x FROM forfeit_tallies f WHERE {}{gate} FOR UPDATE)",
        tallies_filter("f", &tournament, version + 2, tallied.len())
    ));
    parts.push(format!(
        "ok AS MATERIALIZED (SELECT {VERSION_SQL} = ${version} AS current)"
    ));
    parts.push(format!(
        "b AS MATERIALIZED (SELECT pg_advisory_xact_lock({BOARD_LOCK_SPACE}, hashtext($5)) FROM ok WHERE ok.current)"
    ));
    let finishes = if finishes { "TRUE" } else { "FALSE" };
    parts.extend(write.parts("SELECT $1, $2, $3, $4 FROM b", finishes));
    if !tallied.is_empty() {
        // What `suspensions::after_game` counts, from the seats' values.
        parts.push(format!(
            "fu AS (INSERT INTO forfeit_tallies (tournament_id, bot_version_id, games, forfeits) \
             SELECT {tournament}, sv.bot_version_id, COUNT(*), SUM(CASE WHEN sv.forfeit_reason IS NULL THEN 0 ELSE 1 END) \
             FROM sv WHERE EXISTS (SELECT 1 FROM r) GROUP BY sv.bot_version_id \
             ON CONFLICT (tournament_id, bot_version_id) DO UPDATE \
             SET games = forfeit_tallies.games + excluded.games, forfeits = forfeit_tallies.forfeits + excluded.forfeits)"
        ));
    }
    // The version's check, read back beside what was written.
    write.statement(
        &parts,
        "(SELECT COUNT(*) FROM ok WHERE ok.current) AS current, ",
    )
}

/// Binds step 2's values (see [`statement`]).
fn bind_statement<'q>(
    write: &ResultWrite,
    sql: String,
    result: &'q NewResult<'_>,
    writes: &'q RatingWrites,
    payload: String,
    version: &'q str,
) -> AnyQuery<'q> {
    let mut query = write.bind(
        sqlx::query(sqlx::AssertSqlSafe(sql)),
        result,
        writes,
        Some(payload),
    );
    for key in seat_lock_keys(&result.rated) {
        query = query.bind(key);
    }
    let (game, variant) = result.board;
    let mut query = bind_seats_standings_filter(query, game, variant, &result.rated)
        .bind(version)
        .bind(result.tournament_id);
    for bot_version_id in tallied_versions(result) {
        query = query.bind(bot_version_id);
    }
    query
}

/// How many values the standings' filter of `result`'s seats binds.
fn filter_values(result: &NewResult<'_>) -> usize {
    let n_models = RatingModel::for_seats(result.rated.len()).len();
    if n_models == 0 || result.rated.is_empty() {
        return 0;
    }
    2 + n_models + result.rated.len()
}

#[cfg(test)]
#[path = "at_once_tests.rs"]
mod tests;
