//! A game's result as one value, [`NewResult`]: its row, its seats, the
//! seats it rates, and where it goes (game, match, board, the steps its
//! tournament takes after a game). Its backend's executor
//! (`super::backend::record`) writes it with the standings and rating
//! history it gives and its match done when it is the last game; then
//! [`write_result`] runs the steps every recorded game takes. A reported
//! game ([`super::results`]) and a game a failed build ends
//! ([`super::faults`]) go through here alike.

use super::accounts::Runner;
use super::leases::LeaseState;
use super::snapshots::{Touch, Touched};
use super::WriteTransaction;
use crate::error::ArenaError;
use crate::ratings::{RatedSeat, RatingModel, Standing};
use crate::report::{GameReport, SeatResult};

/// What a tournament does after each of its games, as columns of a
/// statement joining it as `t` (read into [`ResultSteps`]).
macro_rules! result_steps_columns {
    () => {
        "t.sprt_elo0 IS NOT NULL AS has_sprt, \
         t.sprt_elo0 IS NOT NULL OR t.format IN ('swiss', 'knockout', 'ladder') OR t.validates IS NOT NULL AS has_format_step, \
         t.max_forfeit_rate IS NOT NULL AS has_forfeit_policy"
    };
}
pub(super) use result_steps_columns;

/// The steps a tournament takes after each recorded game.
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub(crate) struct ResultSteps {
    /// It runs an SPRT, whose tally follows each game.
    #[sqlx(try_from = "super::Flag")]
    pub has_sprt: bool,
    /// Its format does anything once a match is done (plans a round,
    /// checks its SPRT): else that step is skipped, reads and all.
    #[sqlx(try_from = "super::Flag")]
    pub has_format_step: bool,
    /// It suspends a version past its forfeit rate, a check that follows
    /// each game (see `super::suspensions`).
    #[sqlx(try_from = "super::Flag")]
    pub has_forfeit_policy: bool,
}

/// The lease a result was reported under.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReportedUnder<'a> {
    pub runner: &'a Runner,
    pub generation: i64,
}

/// One game's result, about to be written.
#[derive(Debug)]
pub(super) struct NewResult<'a> {
    pub game_id: i64,
    pub match_id: i64,
    pub match_index: i64,
    pub tournament_id: i64,
    /// Its leaderboard: game and variant.
    pub board: (&'a str, &'a str),
    pub steps: ResultSteps,
    /// Its seats, replay and stderr tails.
    pub report: &'a GameReport,
    /// The runner that played it, if any did.
    pub runner_id: Option<i64>,
    pub now: i64,
    /// The seats it rates (none for a game that is never rated).
    pub rated: Vec<RatedSeat>,
    /// The lease it must still be under when written; `None` where the
    /// arena ends the match itself (its caller checked any lease).
    pub lease: Option<ReportedUnder<'a>>,
    /// Whether nothing but its own steps follows it in its transaction, so
    /// that the write may commit with its last statement where the
    /// backend can.
    pub ends_transaction: bool,
}

/// What a result's write did.
pub(super) enum Recording {
    /// Another report of the game was recorded first: nothing written.
    AlreadyRecorded { match_done: bool },
    /// Recorded with its rating updates (model, bot version, standing).
    Recorded {
        finishes_match: bool,
        saved: Vec<(RatingModel, i64, Standing)>,
        /// Whether the write also counted the game into its seats' forfeit
        /// tallies and found no seat to suspend, the forfeit policy's step
        /// done (see `super::suspensions::after_game`).
        forfeits_checked: bool,
    },
}

impl NewResult<'_> {
    /// Whether the lease it must be under (if any) holds in `state`.
    pub(super) fn lease_holds(&self, state: &LeaseState) -> bool {
        self.lease
            .is_none_or(|lease| state.held_by(lease.runner, lease.generation, self.now))
    }

    /// Whether a statement follows its write in its transaction when the
    /// write `finishes_match`.
    pub(super) fn steps_follow(&self, finishes_match: bool) -> bool {
        !self.ends_transaction
            || self.steps.has_sprt
            || self.steps.has_forfeit_policy
            || (finishes_match && self.steps.has_format_step)
    }

    /// What its write touches, in the order a report declares it (a
    /// statement that notifies it says exactly this).
    pub(super) fn touches(&self) -> Touched {
        Touched::Only(vec![
            Touch::Match {
                tournament_id: self.tournament_id,
                match_index: self.match_index,
            },
            Touch::Board {
                game: self.board.0.to_string(),
                variant: self.board.1.to_string(),
            },
        ])
    }
}

/// Writes `result` through its backend's executor, then (if it was
/// recorded) the steps its tournament takes after a game: the SPRT's
/// tally, the forfeit policy, and the format's step once its match is done.
pub(super) async fn write_result(
    tx: &mut WriteTransaction,
    result: &NewResult<'_>,
) -> Result<Recording, ArenaError> {
    let recording = super::backend::record(tx, result).await?;
    let Recording::Recorded {
        finishes_match,
        forfeits_checked,
        ..
    } = &recording
    else {
        return Ok(recording);
    };
    // Under the board's lock (taken by the write), as is the format's
    // step: a tournament is on one board.
    if result.steps.has_sprt {
        super::rounds::tally_recorded_game(tx, result.game_id).await?;
    }
    if result.steps.has_forfeit_policy && !forfeits_checked {
        super::suspensions::after_game(tx, result.tournament_id, result.game_id, result.now)
            .await?;
    }
    if *finishes_match && result.steps.has_format_step {
        super::rounds::after_match_done(tx, result.match_id).await?;
    }
    Ok(recording)
}

/// The rated seats of a game's `seats`.
pub(crate) fn rated_seats(seats: &[SeatResult]) -> Vec<RatedSeat> {
    seats
        .iter()
        .map(|seat| RatedSeat {
            bot_version_id: seat.bot_version_id,
            rank: seat.rank,
            forfeited: seat.forfeit.is_some(),
        })
        .collect()
}

/// The count of match `match_id`'s (SQL) games without a result. Each
/// game's result is looked up by its index in a scalar subquery, which
/// PostgreSQL's planner keeps as one (a `NOT EXISTS` may become an anti
/// join that hashes every result ever recorded, per report).
pub(super) fn unrecorded_games_sql(match_id: &str) -> String {
    format!(
        "SELECT COUNT(*) FROM games g WHERE g.match_id = {match_id} \
         AND (SELECT r.id FROM results r WHERE r.game_id = g.id) IS NULL"
    )
}

/// Marks match `match_id` done at `now` (SQL, both).
pub(super) fn match_done_sql(now: &str, match_id: &str) -> String {
    format!("UPDATE matches SET status = 'done', finished_at = {now} WHERE id = {match_id}")
}

/// A result's row: game `$1`, runner `$2`, replay `$3`, recorded at `$4`.
pub(super) const RESULT_INSERT: &str =
    "INSERT INTO results (game_id, runner_id, replay, recorded_at) VALUES ($1, $2, $3, $4)";

/// The insert of `rows` seat results, its values numbered from `first`.
pub(super) fn result_seats_sql(rows: usize, first: usize) -> String {
    result_seats_insert_sql(&format!(
        "VALUES {}",
        super::leaderboard::numbered_rows(rows, 8, first)
    ))
}

/// The insert of the seat results `source` (a `VALUES` list or a `SELECT`
/// of [`result_seats_sql`]'s 8 columns) yields.
pub(super) fn result_seats_insert_sql(source: &str) -> String {
    format!(
        "INSERT INTO result_seats (game_id, seat, bot_version_id, score, rank, forfeit_reason, forfeit_detail, stderr_tail) {source}"
    )
}

/// Binds the values of [`result_seats_sql`].
pub(super) fn bind_result_seats<'q>(
    mut query: super::leaderboard::AnyQuery<'q>,
    game_id: i64,
    game: &GameReport,
) -> super::leaderboard::AnyQuery<'q> {
    for (seat, result) in game.seats.iter().enumerate() {
        query = query
            .bind(game_id)
            .bind(seat as i64)
            .bind(result.bot_version_id)
            .bind(result.score)
            .bind(i64::from(result.rank))
            .bind(
                result
                    .forfeit
                    .as_ref()
                    .map(|forfeit| forfeit.reason.as_str()),
            )
            .bind(
                result
                    .forfeit
                    .as_ref()
                    .map(|forfeit| forfeit.detail.clone()),
            )
            .bind(
                game.stderr_tails
                    .get(seat)
                    .filter(|tail| !tail.is_empty())
                    .cloned(),
            );
    }
    query
}
