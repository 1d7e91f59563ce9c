//! A report's write on PostgreSQL, where reports reach several arena
//! processes at once: in one statement that commits by itself where it
//! can ([`super::at_once`]), else in a transaction of three statements and
//! the commit, as follows.
//!
//! 1. The seats' locks, then the match's row: one advisory lock per bot
//!    version on the board (taken in the order of their keys, so two
//!    reports never wait for each other in a cycle), then the match's row
//!    `FOR UPDATE`, reading its lease and the seats' standings `FOR UPDATE`.
//!    Rating updates that share a bot version apply one at a time, in every
//!    process; those that share none commute (a game's update reads and
//!    writes its seats' standings only), so they run at once.
//! 2. Only if a seat had no standing in that read: the standings again. A
//!    statement reads what committed before it started, except the rows it
//!    locks, which it reads as last committed; a standing first written by
//!    a report that committed while this one waited for its locks is no
//!    such row, and the next statement sees it.
//! 3. The write, under the board's lock, held to the commit: the result
//!    (its id taken under the lock, so a board's results become visible in
//!    the order of their ids, which the fitted column's reads rely on, and
//!    ratings recomputed in id order apply each bot's games in the order
//!    they were applied), its seats, the standings and their history, the
//!    match done when this was its last game, and the notification. The
//!    statement first checks, under the match's lock, that the game is not
//!    recorded yet and counts the match's games that are not; when it is
//!    recorded, it writes nothing.
//!
//! The board's lock is held for the write and the commit only, so reports
//! of one board queue for two round trips each, not for the whole report.
//! Deadlock-free: locks are taken in the order seats, match, board; no
//! transaction holding a board or a match waits for a seat (a match's
//! reports take its seats first, heartbeats and leases take no seat or
//! board), and the board's holder waits for nothing.

use std::collections::HashMap;

use sqlx::AnyConnection;

use super::{invalidate, BOARD_LOCK_SPACE};
use crate::error::ArenaError;
use crate::ratings::{RatedSeat, RatingModel, Standing};
use crate::store::leaderboard::{
    bind_histories, bind_seats_standings_filter, bind_standings, load_standings, numbered_rows,
    rating_writes_from, seats_standings_filter, stored_standing_columns_of, upsert_standings_sql,
    AnyQuery, RatingWrites, StoredStanding, STORED_STANDING_COLUMNS,
};
use crate::store::leases::LeaseState;
use crate::store::recording::{
    bind_result_seats, result_seats_insert_sql, unrecorded_games_sql, NewResult, Recording,
};
use crate::store::WriteTransaction;

/// Records `result` (see the module's steps).
pub(in crate::store) async fn record(
    tx: &mut WriteTransaction,
    result: &NewResult<'_>,
) -> Result<Recording, ArenaError> {
    if let Some(recording) = super::at_once::record(tx, result).await? {
        return Ok(recording);
    }
    if let crate::store::backend::Open::Postgres(open) = tx.open_mut() {
        open.begin_unsent().await?;
    }
    let (state, mut stored) =
        lock_seats_and_match(tx, result.board, result.match_id, &result.rated).await?;
    if !result.lease_holds(&state) {
        // A report of this game that committed first (its match now done,
        // say) is answered as such; else the lease is lost.
        let crate::store::Flag(recorded) =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM results WHERE game_id = $1)")
                .bind(result.game_id)
                .fetch_one(&mut **tx)
                .await?;
        if recorded {
            return Ok(Recording::AlreadyRecorded {
                match_done: state.status == "done",
            });
        }
        return Err(crate::store::cancel::lease_lost(tx, result.match_id).await?);
    }
    if stored.len() < n_standings(&result.rated) {
        stored = load_standings(tx, result.board.0, result.board.1, &result.rated).await?;
    }
    let writes = rating_writes_from(&stored, &result.rated);
    let touched = result.touches();
    let notification = tx.notifier().map(|me| invalidate::payload(me, &touched));
    let notifies = notification.is_some();
    let written = insert_rated_result(tx, result, &writes, notification).await?;
    if written.recorded == 0 {
        return Ok(Recording::AlreadyRecorded {
            match_done: state.status == "done",
        });
    }
    if notifies && written.notified == 1 {
        tx.notified(touched);
    }
    Ok(Recording::Recorded {
        finishes_match: written.finished == 1,
        saved: writes.saved,
        forfeits_checked: false,
    })
}

/// How many standings rating `seats` reads: one per model and bot version.
pub(super) fn n_standings(seats: &[RatedSeat]) -> usize {
    let mut bots: Vec<i64> = seats.iter().map(|seat| seat.bot_version_id).collect();
    bots.sort_unstable();
    bots.dedup();
    RatingModel::for_seats(seats.len()).len() * bots.len()
}

/// The seats' lock keys on their board, in the order they are taken: the
/// bot versions' ids (wrapping past 2^31, where two merely share a lock),
/// sorted, each once. None when the table is not rated.
pub(super) fn seat_lock_keys(seats: &[RatedSeat]) -> Vec<i32> {
    if RatingModel::for_seats(seats.len()).is_empty() {
        return Vec::new();
    }
    let mut keys: Vec<i32> = seats
        .iter()
        .map(|seat| seat.bot_version_id as i32)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The seats' locks on a board as CTEs `l0`, `l1`..., each taken after
/// the one before (a materialized CTE that reads it) and the first after
/// `after` (a CTE), once, in the order of their `n_keys` keys, numbered
/// from `first`, on the board whose key is `board` (a value); and the
/// condition (`AND ...`, a one-time filter) that puts a statement's reads
/// after them all.
pub(super) fn seat_lock_ctes(
    n_keys: usize,
    board: &str,
    first: usize,
    after: Option<&str>,
) -> (Vec<String>, String) {
    let parts = (0..n_keys)
        .map(|index| {
            let from = match (index, after) {
                (0, None) => String::new(),
                (0, Some(cte)) => format!(" FROM {cte}"),
                _ => format!(" FROM l{}", index - 1),
            };
            format!(
                "l{index} AS MATERIALIZED (SELECT pg_advisory_xact_lock(hashtext({board}), ${}){from})",
                first + index
            )
        })
        .collect();
    let gate = match (n_keys, after) {
        (0, None) => String::new(),
        (0, Some(cte)) => format!(" AND EXISTS (SELECT 1 FROM {cte})"),
        (n, _) => format!(" AND EXISTS (SELECT 1 FROM l{})", n - 1),
    };
    (parts, gate)
}

/// Step 1: the seats' locks on `board`, the match's row locked, its
/// lease, and the seats' standings as last committed (those found).
async fn lock_seats_and_match(
    tx: &mut AnyConnection,
    (game, variant): (&str, &str),
    match_id: i64,
    seats: &[RatedSeat],
) -> Result<(LeaseState, HashMap<(RatingModel, i64), Standing>), ArenaError> {
    let keys = seat_lock_keys(seats);
    let (mut parts, gate) = seat_lock_ctes(keys.len(), "$2", 3, None);
    let first_filter_value = if keys.is_empty() { 2 } else { 3 + keys.len() };
    parts.push(format!(
        "m AS (SELECT status, lease_generation, lease_holder, lease_expires_at FROM matches WHERE id = $1{gate} FOR UPDATE)"
    ));
    parts.push(format!(
        "s AS (SELECT {STORED_STANDING_COLUMNS} FROM ratings WHERE {}{gate} FOR UPDATE)",
        seats_standings_filter("ratings", first_filter_value, seats.len())
    ));
    let sql = format!(
        "WITH {} SELECT m.status, m.lease_generation, m.lease_holder, m.lease_expires_at, {} \
         FROM m LEFT JOIN s ON TRUE",
        parts.join(", "),
        stored_standing_columns_of("s")
    );
    let mut query = sqlx::query_as::<_, LockedRow>(sqlx::AssertSqlSafe(sql)).bind(match_id);
    if !keys.is_empty() {
        query = query.bind(board_key((game, variant)));
        for key in keys {
            query = query.bind(key);
        }
    }
    let rows = bind_seats_standings_filter(query, game, variant, seats)
        .fetch_all(&mut *tx)
        .await?;
    let mut rows = rows.into_iter();
    let Some(first) = rows.next() else {
        return Err(ArenaError::not_found("match", match_id));
    };
    let state = first.lease.clone();
    let stored = std::iter::once(first)
        .chain(rows)
        .filter_map(|row| row.standing)
        .filter_map(StoredStanding::keyed)
        .collect();
    Ok((state, stored))
}

/// A row of [`lock_seats_and_match`]: the lease, and a standing unless
/// none was found.
struct LockedRow {
    lease: LeaseState,
    standing: Option<StoredStanding>,
}

impl<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> for LockedRow {
    fn from_row(row: &'r sqlx::any::AnyRow) -> Result<Self, sqlx::Error> {
        Ok(LockedRow {
            lease: LeaseState::from_row(row)?,
            standing: StoredStanding::joined(row)?,
        })
    }
}

/// What step 3 wrote: 1 or 0 of each.
#[derive(sqlx::FromRow)]
pub(super) struct Written {
    pub recorded: i64,
    pub finished: i64,
    pub notified: i64,
}

/// Step 3, in one statement: the board's lock, then (unless the game is
/// recorded) the result, its seats, the standings and their history, the
/// match's row (done when this game was its last), and the notification
/// (`notification`, its payload).
async fn insert_rated_result(
    tx: &mut AnyConnection,
    result: &NewResult<'_>,
    writes: &RatingWrites,
    notification: Option<String>,
) -> Result<Written, ArenaError> {
    let write = ResultWrite::new(result, writes, notification.is_some());
    let mut parts = vec![
        format!(
            "b AS MATERIALIZED (SELECT pg_advisory_xact_lock({BOARD_LOCK_SPACE}, hashtext($5)))"
        ),
        format!(
            "go AS MATERIALIZED (SELECT NOT EXISTS (SELECT 1 FROM results WHERE game_id = $1) AS fresh, \
             ({}) AS missing FROM b)",
            unrecorded_games_sql("$6")
        ),
    ];
    parts.extend(write.parts(
        "SELECT $1, $2, $3, $4 FROM go WHERE go.fresh",
        "(SELECT missing FROM go) = 1",
    ));
    let sql = write.statement(&parts, "");
    let query = write.bind(
        sqlx::query(sqlx::AssertSqlSafe(sql)),
        result,
        writes,
        notification,
    );
    let row = query.fetch_one(&mut *tx).await?;
    Ok(<Written as sqlx::FromRow<'_, sqlx::any::AnyRow>>::from_row(
        &row,
    )?)
}

/// The writes of a result's statement (both its ways: step 3, and
/// [`super::at_once`]'s), each reading the result's row `r` (none when it
/// wrote nothing): its values `$1` game, `$2` runner, `$3` replay, `$4`
/// now, `$5` the board's key, `$6` the match, then the seats, standings,
/// histories and notification from `$7` to [`ResultWrite::next`].
pub(super) struct ResultWrite {
    n_seats: usize,
    n_saved: usize,
    n_history: usize,
    notifies: bool,
    /// The first value number after the writes'.
    pub next: usize,
}

impl ResultWrite {
    pub(super) fn new(
        result: &NewResult<'_>,
        writes: &RatingWrites,
        notifies: bool,
    ) -> ResultWrite {
        let (n_seats, n_saved, n_history) = (
            result.report.seats.len(),
            writes.saved.len(),
            writes.history.len(),
        );
        let notifying = if notifies { 2 } else { 0 };
        ResultWrite {
            n_seats,
            n_saved,
            n_history,
            notifies,
            next: 7 + n_seats * 8 + n_saved * 12 + n_history * 7 + notifying,
        }
    }

    /// The writes' CTEs: the result's row inserted from `source` (a
    /// `SELECT` of `$1` to `$4`), the rest after it, the match done if
    /// `finishes` (SQL) holds. Every recorded result updates its match's
    /// row, so that a statement that locks the row sees every result of
    /// the match recorded since it read (see [`super::at_once`]).
    pub(super) fn parts(&self, source: &str, finishes: &str) -> Vec<String> {
        let mut parts = vec![format!(
            "r AS (INSERT INTO results (game_id, runner_id, replay, recorded_at) {source} \
             ON CONFLICT (game_id) DO NOTHING RETURNING id)"
        )];
        let mut next = 7;
        if self.n_seats > 0 {
            // The seats' values as `sv`, which a forfeit tally reads too.
            parts.push(format!(
                "sv AS (SELECT * FROM (VALUES {}) AS v(game_id, seat, bot_version_id, score, rank, \
                 forfeit_reason, forfeit_detail, stderr_tail))",
                numbered_rows(self.n_seats, 8, next)
            ));
            parts.push(format!(
                "s AS ({})",
                result_seats_insert_sql("SELECT * FROM sv WHERE EXISTS (SELECT 1 FROM r)")
            ));
            next += self.n_seats * 8;
        }
        if self.n_saved > 0 {
            parts.push(format!(
                "k AS ({})",
                upsert_standings_sql(&format!(
                    "SELECT * FROM (VALUES {}) AS v WHERE EXISTS (SELECT 1 FROM r)",
                    numbered_rows(self.n_saved, 12, next)
                ))
            ));
            next += self.n_saved * 12;
        }
        if self.n_history > 0 {
            parts.push(format!(
                "h AS (INSERT INTO rating_history (result_id, game, variant, model, bot_version_id, rating_before, rating_after, uncertainty) \
                 SELECT r.id, v.* FROM r, (VALUES {}) AS v)",
                numbered_rows(self.n_history, 7, next)
            ));
            next += self.n_history * 7;
        }
        parts.push(format!(
            "d AS (UPDATE matches SET status = CASE WHEN {finishes} THEN 'done' ELSE status END, \
             finished_at = CASE WHEN {finishes} THEN $4 ELSE finished_at END \
             WHERE id = $6 AND EXISTS (SELECT 1 FROM r) RETURNING status)"
        ));
        if self.notifies {
            parts.push(format!(
                "n AS (SELECT pg_notify(${next}, ${}) FROM r)",
                next + 1
            ));
        }
        parts
    }

    /// The statement of `parts`, reading back what it wrote ([`Written`])
    /// after the columns `first` (each followed by a comma).
    pub(super) fn statement(&self, parts: &[String], first: &str) -> String {
        // A CTE that only reads runs only when read: the final select counts it.
        let notified = if self.notifies {
            "(SELECT COUNT(*) FROM n)"
        } else {
            "CAST(0 AS BIGINT)"
        };
        format!(
            "WITH {} SELECT {first}(SELECT COUNT(*) FROM r) AS recorded, \
             (SELECT COUNT(*) FROM d WHERE d.status = 'done') AS finished, {notified} AS notified",
            parts.join(", ")
        )
    }

    /// Binds `$1` to [`ResultWrite::next`] (exclusive).
    pub(super) fn bind<'q>(
        &self,
        query: AnyQuery<'q>,
        result: &'q NewResult<'_>,
        writes: &'q RatingWrites,
        notification: Option<String>,
    ) -> AnyQuery<'q> {
        let (board_game, variant) = result.board;
        let replay = &result.report.replay;
        let query = query
            .bind(result.game_id)
            .bind(result.runner_id)
            .bind((!replay.is_empty()).then_some(replay))
            .bind(result.now)
            .bind(board_key(result.board))
            .bind(result.match_id);
        let query = bind_result_seats(query, result.game_id, result.report);
        let query = bind_standings(query, board_game, variant, &writes.saved);
        let mut query = bind_histories(query, board_game, variant, &writes.history);
        if let Some(payload) = notification {
            query = query.bind(invalidate::CHANNEL).bind(payload);
        }
        query
    }
}

/// A board's key in its locks (game and variant).
pub(super) fn board_key((game, variant): (&str, &str)) -> String {
    format!("{game}\u{1f}{variant}")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::seat_locks::{hold_seat_lock, wait_for_seat_lock_waiter};
    use crate::store::tests::{duel, on_backend, owner_with_bots, test_store, Backend, LEASE_MS};
    use crate::store::{Lease, Location, ReportOutcome};
    use crate::testkit::report_by_strength;

    fn seated(lease: &Lease, bot_version_id: i64) -> bool {
        lease
            .seats
            .iter()
            .any(|seat| seat.bot_version_id == bot_version_id)
    }

    /// PostgreSQL only: a report waits for a report that rates one of its
    /// seats' bot versions, and for no other report of the board.
    #[tokio::test]
    async fn a_report_waits_only_for_reports_that_share_a_bot_version() {
        on_backend(Backend::Postgres, async {
            let test = test_store().await;
            let Location::Postgres(url) = &test.location else {
                panic!("a PostgreSQL test on another backend");
            };
            let names = ["a", "b", "c", "d"];
            let owner = owner_with_bots(&test.store, "ada", &names).await;
            test.store
                .create_tournament(&owner, &duel(&names, 2))
                .await
                .unwrap();
            let (runner, _) = test.store.register_runner("box").await.unwrap();
            let mut leases = Vec::new();
            while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
                leases.push(lease);
            }
            let held = leases[0].seats[0].bot_version_id;
            let sharing = leases.iter().find(|lease| seated(lease, held)).unwrap();
            let apart = leases.iter().find(|lease| !seated(lease, held)).unwrap();
            let lock = hold_seat_lock(url, held).await;

            let report = report_by_strength(apart, |id| id);
            let recorded = tokio::time::timeout(
                Duration::from_secs(30),
                test.store.report_game(
                    &runner,
                    apart.match_id,
                    apart.lease_generation,
                    &report.games[0],
                ),
            )
            .await
            .expect("a report of other bot versions does not wait for the held one")
            .unwrap();
            assert_eq!(recorded.outcome, ReportOutcome::Recorded);

            let report = report_by_strength(sharing, |id| id);
            let (store, waiting_runner) = (test.store.clone(), runner.clone());
            let (match_id, generation) = (sharing.match_id, sharing.lease_generation);
            let waiting = tokio::spawn(async move {
                store
                    .report_game(&waiting_runner, match_id, generation, &report.games[0])
                    .await
            });
            // The report is seen waiting for the held lock in the database.
            wait_for_seat_lock_waiter(
                url,
                held,
                "the report sharing the held bot version never waited for it",
            )
            .await;
            assert!(!waiting.is_finished());
            drop(lock);
            let recorded = waiting.await.unwrap().unwrap();
            assert_eq!(recorded.outcome, ReportOutcome::Recorded);
        })
        .await;
    }
}
