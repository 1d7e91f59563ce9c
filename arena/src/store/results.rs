//! Results, written once per game. A runner reports each game of a match
//! under the lease it was given; the report is checked against the plan and
//! re-refereed ([`crate::verify`]) before the write transaction opens, then
//! stored with every seat's score, rank and forfeit, and rated, in one
//! transaction. The match is done when its last game is recorded.

use cairn_engine::forfeit::ForfeitReason;
use cairn_engine::GameOptions;
use sqlx::AnyConnection;

use super::accounts::Runner;
use super::leases::LeaseState;
use super::snapshots::Touched;
use super::{token_hash, BoardPatch, Store, Touch, WriteTransaction};
use crate::error::ArenaError;
use crate::ratings::{RatedSeat, RatingModel, Standing};
use crate::verify::PlannedGame;

pub use crate::report::{
    Forfeit, GameReport, GameReportOutcome, MatchReport, ReportOutcome, SeatResult,
};
pub use crate::verify::MAX_REPLAY_BYTES;

/// A game of a match as planned, with its tournament's game and variant.
#[derive(Debug, Clone)]
pub(crate) struct PlannedResult {
    pub planned: PlannedGame,
    pub game_id: i64,
    pub variant: String,
    pub already_recorded: bool,
    pub tournament_id: i64,
    pub match_index: i64,
    /// Whether the tournament runs an SPRT, whose tally follows each game.
    pub has_sprt: bool,
    /// Whether its format does anything once a match is done (plans a
    /// round, checks its SPRT): else that step is skipped, reads and all.
    pub has_format_step: bool,
    /// Whether the tournament suspends a version past its forfeit rate,
    /// a check that follows each game (see `super::suspensions`).
    pub has_forfeit_policy: bool,
    /// False for a validation game: recorded, never rated.
    pub rated: bool,
    /// The match's lease when the plan was read.
    pub lease: LeaseState,
}

impl Store {
    /// Records one game of a leased match, once: a game already recorded is
    /// answered `AlreadyRecorded`; a report under a lost lease, or one that
    /// does not follow from its replay, is refused and writes nothing.
    pub async fn report_game(
        &self,
        runner: &Runner,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        // One read before the write transaction: the game's plan and its
        // match's lease.
        let (planned, _) = self
            .planned_and_runner(match_id, report.game_index, None)
            .await?;
        self.record_game(runner, planned, match_id, lease_generation, report)
            .await
    }

    /// [`Store::report_game`] for the runner whose token a call carried,
    /// checked in the read of the game's plan (one round trip fewer than
    /// [`Store::runner_by_token`] first): `Unauthenticated` for a token of
    /// no runner, or of a revoked one, whatever the report says.
    pub async fn report_game_with_token(
        &self,
        token: &str,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        let hash = token_hash(token);
        let found = self
            .planned_and_runner(match_id, report.game_index, Some(&hash))
            .await;
        let (planned, runner) = match found {
            Ok((planned, Some(runner))) => (planned, runner),
            Ok((_, None)) => return Err(ArenaError::Unauthenticated("runner")),
            // No such game: the caller hears that only with a runner's token.
            Err(error) => {
                self.runner_by_token(token).await?;
                return Err(error);
            }
        };
        self.record_game(&runner, planned, match_id, lease_generation, report)
            .await
    }

    /// Records a game of `match_id` as `planned`, for `runner`, then
    /// reviews the runner when the game holds a forfeit only it saw.
    async fn record_game(
        &self,
        runner: &Runner,
        planned: PlannedResult,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        let outcome = self
            .record_game_once(runner, planned, match_id, lease_generation, report)
            .await
            .inspect_err(|error| super::report_log::refusal(runner, match_id, report, error))?;
        if outcome.outcome == ReportOutcome::Recorded {
            super::report_log::recorded(&self.metrics, runner, match_id, report);
            self.review_after_report(runner, report).await?;
        }
        Ok(outcome)
    }

    /// Records a game of `match_id` as `planned`, for `runner`.
    async fn record_game_once(
        &self,
        runner: &Runner,
        planned: PlannedResult,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        if planned.already_recorded {
            return Ok(GameReportOutcome {
                outcome: ReportOutcome::AlreadyRecorded,
                match_done: planned.lease.status == "done",
            });
        }
        // Refused early, before re-refereeing (the write checks again).
        if !planned
            .lease
            .held_by(runner, lease_generation, self.now_ms())
        {
            let mut connection = self.pool().acquire().await?;
            return Err(super::cancel::lease_lost(&mut connection, match_id).await?);
        }
        (self.verifier)(&planned.planned, report)?;
        // Readers of the board's fit take it as busy until the report ends.
        let _under_way = self
            .reads
            .report_under_way(&planned.planned.game, &planned.variant);
        let game = PendingGame {
            runner,
            lease_generation,
            match_id,
            report,
            now: self.now_ms(),
            // A validation game is recorded like any other, never rated.
            rated: if planned.rated {
                rated_seats(&report.seats)
            } else {
                Vec::new()
            },
        };
        let body = async |tx: &mut WriteTransaction| {
            let recording = super::backend::record(tx, &planned, &game).await?;
            let (finishes_match, saved) = match recording {
                Recording::AlreadyRecorded { match_done } => {
                    tx.touches_nothing_cached();
                    return Ok(GameReportOutcome {
                        outcome: ReportOutcome::AlreadyRecorded,
                        match_done,
                    });
                }
                Recording::Recorded {
                    finishes_match,
                    saved,
                } => (finishes_match, saved),
            };
            // Under the board's lock (taken by the write), as is the
            // format's step: a tournament is on one board.
            if planned.has_sprt {
                super::rounds::tally_recorded_game(tx, planned.game_id).await?;
            }
            if planned.has_forfeit_policy {
                super::suspensions::after_game(
                    tx,
                    planned.tournament_id,
                    planned.game_id,
                    game.now,
                )
                .await?;
            }
            if finishes_match && planned.has_format_step {
                super::rounds::after_match_done(tx, match_id).await?;
            }
            // What `report_touches` says, in its order.
            tx.touches(Touch::Match {
                tournament_id: planned.tournament_id,
                match_index: planned.match_index,
            });
            tx.patches_board(BoardPatch {
                game: planned.planned.game.clone(),
                variant: planned.variant.clone(),
                standings: saved,
            });
            Ok(GameReportOutcome {
                outcome: ReportOutcome::Recorded,
                match_done: finishes_match,
            })
        };
        let recorded = self.write_report(body).await?;
        if recorded.outcome == ReportOutcome::Recorded {
            self.notify_change();
        }
        Ok(recorded)
    }

    /// Reports every game of a match in order, each on its own; stops at
    /// the first refusal. `Recorded` if any game was newly recorded.
    pub async fn report_result(
        &self,
        runner: &Runner,
        report: &MatchReport,
    ) -> Result<ReportOutcome, ArenaError> {
        let mut outcome = ReportOutcome::AlreadyRecorded;
        for game in &report.games {
            let recorded = self
                .report_game(runner, report.match_id, report.lease_generation, game)
                .await?;
            if recorded.outcome == ReportOutcome::Recorded {
                outcome = ReportOutcome::Recorded;
            }
        }
        Ok(outcome)
    }

    /// The plan of one game of a match.
    #[cfg(test)]
    pub(crate) async fn planned_result(
        &self,
        match_id: i64,
        game_index: i64,
    ) -> Result<PlannedResult, ArenaError> {
        Ok(self.planned_and_runner(match_id, game_index, None).await?.0)
    }

    /// The plan of one game of a match, and the unrevoked runner whose
    /// token hashes to `token_hash` (`None` without one): one statement.
    async fn planned_and_runner(
        &self,
        match_id: i64,
        game_index: i64,
        token_hash: Option<&str>,
    ) -> Result<(PlannedResult, Option<Runner>), ArenaError> {
        let row = sqlx::query_as(
            "SELECT rn.id AS runner_id, rn.name AS runner_name, g.id AS game_id, g.seed, t.game, t.options, t.variant, \
             EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id) AS already_recorded, t.id AS tournament_id, m.match_index, \
             t.sprt_elo0 IS NOT NULL AS has_sprt, \
             t.sprt_elo0 IS NOT NULL OR t.format IN ('swiss', 'knockout', 'ladder') OR t.validates IS NOT NULL AS has_format_step, \
             t.max_forfeit_rate IS NOT NULL AS has_forfeit_policy, t.validates IS NULL AS rated, m.status, m.lease_generation, m.lease_holder, m.lease_expires_at, \
             (SELECT string_agg(CAST(s.bot_version_id AS TEXT), ',' ORDER BY s.seat) FROM seats s WHERE s.match_id = m.id) AS seats, \
             (SELECT string_agg(b.name || '@' || CAST(v.version AS TEXT), ',' ORDER BY s.seat) FROM seats s \
              JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id WHERE s.match_id = m.id) AS seat_names \
             FROM games g JOIN matches m ON m.id = g.match_id JOIN tournaments t ON t.id = m.tournament_id \
             LEFT JOIN runners rn ON rn.token_hash = $3 AND rn.revoked_at IS NULL \
             WHERE g.match_id = $1 AND g.game_index = $2",
        )
        .bind(match_id)
        .bind(game_index)
        .bind(token_hash);
        let row: Option<PlannedRow> = self
            .runner_read(async |connection| row.fetch_optional(connection).await)
            .await?;
        let Some(PlannedRow {
            runner_id,
            runner_name,
            game_id,
            seed,
            game,
            options,
            variant,
            already_recorded,
            tournament_id,
            match_index,
            has_sprt,
            has_format_step,
            has_forfeit_policy,
            rated,
            lease,
            seats,
            seat_names,
        }) = row
        else {
            return Err(ArenaError::not_found(
                "game of match",
                format!("{match_id}/{game_index}"),
            ));
        };
        let options: GameOptions = serde_json::from_str(&options)
            .map_err(|error| ArenaError::Internal(format!("stored options unreadable: {error}")))?;
        // The seats in one column (the Any driver reads no arrays).
        let seats = seats
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .filter(|id| !id.is_empty())
            .map(|id| {
                id.parse().map_err(|error| {
                    ArenaError::Internal(format!("stored seat `{id}` unreadable: {error}"))
                })
            })
            .collect::<Result<Vec<i64>, ArenaError>>()?;
        // Names hold no comma (letters, digits, `-`, `_`, `.`); the SQL
        // writes each as `seat_label` does.
        let seat_names = seat_names
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        let runner = runner_id
            .zip(runner_name)
            .map(|(id, name)| Runner { id, name });
        let planned = PlannedResult {
            planned: PlannedGame {
                game,
                options,
                game_index,
                // Reports are re-refereed on the deal the lease carried.
                seed: self.deal_seed(tournament_id, seed as u64),
                seats,
                seat_names,
            },
            game_id,
            variant,
            already_recorded,
            tournament_id,
            match_index,
            has_sprt,
            has_format_step,
            has_forfeit_policy,
            rated,
            lease,
        };
        Ok((planned, runner))
    }
}

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

/// A game reported under a lease, about to be recorded.
pub(super) struct PendingGame<'a> {
    pub runner: &'a Runner,
    pub lease_generation: i64,
    pub match_id: i64,
    pub report: &'a GameReport,
    pub now: i64,
    pub rated: Vec<RatedSeat>,
}

/// What a report's write did.
pub(super) enum Recording {
    /// Another report of the game was recorded first: nothing written.
    AlreadyRecorded { match_done: bool },
    /// Recorded with its rating updates (model, bot version, standing).
    Recorded {
        finishes_match: bool,
        saved: Vec<(RatingModel, i64, Standing)>,
    },
}

/// What a recorded report declares it touched, in the order `report_game`
/// declares it (a statement that notifies it says exactly this).
pub(super) fn report_touches(planned: &PlannedResult) -> Touched {
    Touched::Only(vec![
        Touch::Match {
            tournament_id: planned.tournament_id,
            match_index: planned.match_index,
        },
        Touch::Board {
            game: planned.planned.game.clone(),
            variant: planned.variant.clone(),
        },
    ])
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

/// Marks the match done once every game has a result; says whether it is.
pub(crate) async fn finish_match_if_complete(
    tx: &mut AnyConnection,
    match_id: i64,
    now: i64,
) -> Result<bool, ArenaError> {
    let missing: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(unrecorded_games_sql("$1")))
        .bind(match_id)
        .fetch_one(&mut *tx)
        .await?;
    if missing > 0 {
        return Ok(false);
    }
    finish_match(tx, match_id, now).await?;
    Ok(true)
}

/// Marks a match whose every game has a result done, and lets its format
/// plan what follows.
async fn finish_match(tx: &mut AnyConnection, match_id: i64, now: i64) -> Result<(), ArenaError> {
    mark_match_done(tx, match_id, now).await?;
    super::rounds::after_match_done(tx, match_id).await
}

/// Marks a match whose every game has a result done (its format's step
/// aside).
async fn mark_match_done(
    tx: &mut AnyConnection,
    match_id: i64,
    now: i64,
) -> Result<(), ArenaError> {
    sqlx::query(sqlx::AssertSqlSafe(match_done_sql("$1", "$2")))
        .bind(now)
        .bind(match_id)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Marks match `match_id` done at `now` (SQL, both).
pub(super) fn match_done_sql(now: &str, match_id: &str) -> String {
    format!("UPDATE matches SET status = 'done', finished_at = {now} WHERE id = {match_id}")
}

#[derive(sqlx::FromRow)]
struct PlannedRow {
    runner_id: Option<i64>,
    runner_name: Option<String>,
    game_id: i64,
    seed: i64,
    game: String,
    options: String,
    variant: String,
    #[sqlx(try_from = "super::Flag")]
    already_recorded: bool,
    tournament_id: i64,
    match_index: i64,
    #[sqlx(try_from = "super::Flag")]
    has_sprt: bool,
    #[sqlx(try_from = "super::Flag")]
    has_format_step: bool,
    #[sqlx(try_from = "super::Flag")]
    has_forfeit_policy: bool,
    #[sqlx(try_from = "super::Flag")]
    rated: bool,
    #[sqlx(flatten)]
    lease: LeaseState,
    seats: Option<String>,
    seat_names: Option<String>,
}

/// A stored seat result, its reason read back through the enum.
pub(crate) fn seat_result(
    bot_version_id: i64,
    score: i64,
    rank: i64,
    forfeit_reason: Option<String>,
    forfeit_detail: Option<String>,
) -> Result<SeatResult, ArenaError> {
    let forfeit = match forfeit_reason {
        None => None,
        Some(name) => Some(Forfeit {
            reason: ForfeitReason::from_name(&name).ok_or_else(|| {
                ArenaError::Internal(format!("stored forfeit reason `{name}` is unknown"))
            })?,
            detail: forfeit_detail.unwrap_or_default(),
        }),
    };
    Ok(SeatResult {
        bot_version_id,
        score,
        rank: rank as u32,
        forfeit,
    })
}

pub(crate) async fn insert_result(
    tx: &mut AnyConnection,
    runner_id: Option<i64>,
    game_id: i64,
    game: &GameReport,
    now: i64,
) -> Result<i64, ArenaError> {
    let replay = (!game.replay.is_empty()).then_some(&game.replay);
    let result_id: i64 = sqlx::query_scalar(concat!(result_insert!(), " RETURNING id"))
        .bind(game_id)
        .bind(runner_id)
        .bind(replay)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
    insert_result_seats(tx, game_id, game).await?;
    super::rounds::tally_recorded_game(tx, game_id).await?;
    Ok(result_id)
}

/// A result's row: game `$1`, runner `$2`, replay `$3`, recorded at `$4`
/// (a macro, so the insert that returns its id is the same text).
macro_rules! result_insert {
    () => {
        "INSERT INTO results (game_id, runner_id, replay, recorded_at) VALUES ($1, $2, $3, $4)"
    };
}
use result_insert;

pub(super) const RESULT_INSERT: &str = result_insert!();

/// Every seat's result of a game, in one statement.
async fn insert_result_seats(
    tx: &mut AnyConnection,
    game_id: i64,
    game: &GameReport,
) -> Result<(), ArenaError> {
    if game.seats.is_empty() {
        return Ok(());
    }
    let sql = result_seats_sql(game.seats.len(), 1);
    let query = sqlx::query(sqlx::AssertSqlSafe(sql));
    bind_result_seats(query, game_id, game)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

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
