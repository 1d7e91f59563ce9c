//! Results, written once per game. A runner reports each game of a match
//! under the lease it was given; the report is checked against the plan and
//! re-refereed ([`crate::verify`]) before the write transaction opens, then
//! stored with every seat's score, rank and forfeit, and rated, in one
//! transaction. The match is done when its last game is recorded.

use cairn_engine::forfeit::{EndedBy, ForfeitReason};
use cairn_engine::GameOptions;
use sqlx::AnyConnection;

use super::accounts::Runner;
use super::leases::LeaseState;
use super::{BoardPatch, Store, Touch};
use crate::error::ArenaError;
use crate::ratings::RatedSeat;
use crate::verify::PlannedGame;

pub use crate::verify::MAX_REPLAY_BYTES;

/// A runner's report of a whole match (a convenience: each game is
/// reported and recorded on its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchReport {
    pub match_id: i64,
    pub lease_generation: i64,
    pub games: Vec<GameReport>,
}

/// One finished game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameReport {
    pub game_index: i64,
    /// By seat.
    pub seats: Vec<SeatResult>,
    /// The replay as the runner wrote it (JSON bytes), kept as is.
    pub replay: Vec<u8>,
    pub ended_by: EndedBy,
    /// By seat, the end of its bot's stderr during the game (may be short
    /// or empty: a seat without one keeps none).
    pub stderr_tails: Vec<String>,
}

/// One seat's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatResult {
    pub bot_version_id: i64,
    pub score: i64,
    /// 1 is best; tied seats share a rank.
    pub rank: u32,
    pub forfeit: Option<Forfeit>,
}

/// Why a seat lost by forfeit. The store keeps the reason's text form
/// ([`ForfeitReason::as_str`]) and reads it back through the enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forfeit {
    pub reason: ForfeitReason,
    pub detail: String,
}

/// What became of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportOutcome {
    Recorded,
    /// The game was already recorded: nothing changed.
    AlreadyRecorded,
}

/// What became of one game's report, and whether its match is now done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameReportOutcome {
    pub outcome: ReportOutcome,
    pub match_done: bool,
}

/// A game of a match as planned, with its tournament's game and variant.
#[derive(Debug, Clone)]
pub(crate) struct PlannedResult {
    pub planned: PlannedGame,
    pub game_id: i64,
    pub variant: String,
    pub already_recorded: bool,
    pub tournament_id: i64,
    pub match_index: i64,
    /// Whether the tournament runs an SPRT (whose tally a result changes).
    pub has_sprt: bool,
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
        let planned = self.planned_result(match_id, report.game_index).await?;
        if planned.already_recorded {
            return Ok(GameReportOutcome {
                outcome: ReportOutcome::AlreadyRecorded,
                match_done: planned.lease.status == "done",
            });
        }
        // Refused early, before re-refereeing (the transaction checks again).
        if !planned
            .lease
            .held_by(runner, lease_generation, self.now_ms())
        {
            let mut connection = self.pool().acquire().await?;
            return Err(super::cancel::lease_lost(&mut connection, match_id).await?);
        }
        (self.verifier)(&planned.planned, report)?;
        let now = self.now_ms();
        let recorded = self
            .write_concurrently(async |tx| {
                // The match's row, then its board: another process's report
                // of the same game waits here, and then finds it recorded.
                tx.lock_match(match_id).await?;
                tx.lock_board(&planned.planned.game, &planned.variant)
                    .await?;
                let state = report_state(tx, match_id, planned.game_id).await?;
                if state.recorded {
                    tx.touches_nothing_cached();
                    return Ok(GameReportOutcome {
                        outcome: ReportOutcome::AlreadyRecorded,
                        match_done: state.lease.status == "done",
                    });
                }
                if !state.lease.held_by(runner, lease_generation, now) {
                    return Err(super::cancel::lease_lost(tx, match_id).await?);
                }
                let result_id =
                    insert_result(tx, Some(runner.id), planned.game_id, report, now).await?;
                if planned.has_sprt {
                    super::formats::tally_recorded_game(tx, planned.game_id).await?;
                }
                let rated = rated_seats(&report.seats);
                let standings = super::leaderboard::rate_result(
                    tx,
                    &planned.planned.game,
                    &planned.variant,
                    result_id,
                    &rated,
                )
                .await?;
                // This game was the last one missing.
                let match_done = state.missing <= 1;
                if match_done {
                    finish_match(tx, match_id, now).await?;
                }
                tx.touches(Touch::Match {
                    tournament_id: planned.tournament_id,
                    match_index: planned.match_index,
                });
                tx.patches_board(BoardPatch {
                    game: planned.planned.game.clone(),
                    variant: planned.variant.clone(),
                    standings,
                });
                Ok(GameReportOutcome {
                    outcome: ReportOutcome::Recorded,
                    match_done,
                })
            })
            .await?;
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

    /// The plan of one game of a match, with its match's lease and
    /// whether the game is recorded: one statement, a row per seat.
    pub(crate) async fn planned_result(
        &self,
        match_id: i64,
        game_index: i64,
    ) -> Result<PlannedResult, ArenaError> {
        let rows: Vec<PlannedRow> = sqlx::query_as(
            "SELECT g.id AS game_id, g.seed, t.game, t.options, t.variant, \
             EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id) AS already_recorded, t.id AS tournament_id, m.match_index, \
             t.sprt_elo0 IS NOT NULL AS has_sprt, m.status, m.lease_generation, m.lease_holder, m.lease_expires_at, s.bot_version_id \
             FROM games g JOIN matches m ON m.id = g.match_id JOIN tournaments t ON t.id = m.tournament_id \
             JOIN seats s ON s.match_id = m.id \
             WHERE g.match_id = $1 AND g.game_index = $2 ORDER BY s.seat",
        )
        .bind(match_id)
        .bind(game_index)
        .fetch_all(self.pool())
        .await?;
        let seats = rows.iter().map(|row| row.bot_version_id).collect();
        let Some(row) = rows.into_iter().next() else {
            return Err(ArenaError::not_found(
                "game of match",
                format!("{match_id}/{game_index}"),
            ));
        };
        let options: GameOptions = serde_json::from_str(&row.options)
            .map_err(|error| ArenaError::Internal(format!("stored options unreadable: {error}")))?;
        Ok(PlannedResult {
            planned: PlannedGame {
                game: row.game,
                options,
                game_index,
                seed: row.seed as u64,
                seats,
            },
            game_id: row.game_id,
            variant: row.variant,
            already_recorded: row.already_recorded,
            tournament_id: row.tournament_id,
            match_index: row.match_index,
            has_sprt: row.has_sprt,
            lease: row.lease,
        })
    }

    /// The replay a runner stored for a game.
    pub async fn replay(&self, game_id: i64) -> Result<Vec<u8>, ArenaError> {
        let replay: Option<Option<Vec<u8>>> =
            sqlx::query_scalar("SELECT replay FROM results WHERE game_id = $1")
                .bind(game_id)
                .fetch_optional(self.pool())
                .await?;
        replay
            .flatten()
            .ok_or_else(|| ArenaError::not_found("replay of game", game_id))
    }

    /// A finished game's seats, by seat.
    pub async fn game_result(&self, game_id: i64) -> Result<Vec<SeatResult>, ArenaError> {
        let rows: Vec<SeatRow> = sqlx::query_as(
            "SELECT bot_version_id, score, rank, forfeit_reason, forfeit_detail FROM result_seats WHERE game_id = $1 ORDER BY seat",
        )
        .bind(game_id)
        .fetch_all(self.pool())
        .await?;
        if rows.is_empty() {
            return Err(ArenaError::not_found("result of game", game_id));
        }
        rows.into_iter().map(SeatRow::into_result).collect()
    }

    /// A finished game's index in its match and its seats' stderr tails
    /// (by seat, empty when none was kept).
    pub async fn game_details(&self, game_id: i64) -> Result<(i64, Vec<String>), ArenaError> {
        let index: Option<i64> = sqlx::query_scalar("SELECT game_index FROM games WHERE id = $1")
            .bind(game_id)
            .fetch_optional(self.pool())
            .await?;
        let index = index.ok_or_else(|| ArenaError::not_found("game", game_id))?;
        let tails: Vec<Option<String>> = sqlx::query_scalar(
            "SELECT stderr_tail FROM result_seats WHERE game_id = $1 ORDER BY seat",
        )
        .bind(game_id)
        .fetch_all(self.pool())
        .await?;
        Ok((
            index,
            tails.into_iter().map(Option::unwrap_or_default).collect(),
        ))
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

/// A match's lease, whether game `game_id` is recorded and how many of
/// the match's games are not, read in the report's transaction.
async fn report_state(
    tx: &mut AnyConnection,
    match_id: i64,
    game_id: i64,
) -> Result<ReportState, ArenaError> {
    sqlx::query_as(
        "SELECT m.status, m.lease_generation, m.lease_holder, m.lease_expires_at, \
         EXISTS (SELECT 1 FROM results r WHERE r.game_id = $2) AS recorded, \
         (SELECT COUNT(*) FROM games g WHERE g.match_id = m.id AND NOT EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id)) AS missing \
         FROM matches m WHERE m.id = $1",
    )
    .bind(match_id)
    .bind(game_id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| ArenaError::not_found("match", match_id))
}

#[derive(sqlx::FromRow)]
struct ReportState {
    #[sqlx(flatten)]
    lease: LeaseState,
    #[sqlx(try_from = "super::Flag")]
    recorded: bool,
    missing: i64,
}

/// Marks the match done once every game has a result; says whether it is.
pub(crate) async fn finish_match_if_complete(
    tx: &mut AnyConnection,
    match_id: i64,
    now: i64,
) -> Result<bool, ArenaError> {
    let missing: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM games g WHERE g.match_id = $1 AND NOT EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id)",
    )
    .bind(match_id)
    .fetch_one(&mut *tx)
    .await?;
    if missing > 0 {
        return Ok(false);
    }
    finish_match(tx, match_id, now).await?;
    Ok(true)
}

/// Marks the match done (every game has a result) and takes its format's
/// next step.
async fn finish_match(tx: &mut AnyConnection, match_id: i64, now: i64) -> Result<(), ArenaError> {
    sqlx::query("UPDATE matches SET status = 'done', finished_at = $1 WHERE id = $2")
        .bind(now)
        .bind(match_id)
        .execute(&mut *tx)
        .await?;
    super::formats::after_match_done(tx, match_id).await
}

#[derive(sqlx::FromRow)]
struct PlannedRow {
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
    #[sqlx(flatten)]
    lease: LeaseState,
    bot_version_id: i64,
}

#[derive(sqlx::FromRow)]
struct SeatRow {
    bot_version_id: i64,
    score: i64,
    rank: i64,
    forfeit_reason: Option<String>,
    forfeit_detail: Option<String>,
}

impl SeatRow {
    fn into_result(self) -> Result<SeatResult, ArenaError> {
        seat_result(
            self.bot_version_id,
            self.score,
            self.rank,
            self.forfeit_reason,
            self.forfeit_detail,
        )
    }
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
    let result_id: i64 = sqlx::query_scalar("INSERT INTO results (game_id, runner_id, replay, recorded_at) VALUES ($1, $2, $3, $4) RETURNING id")
        .bind(game_id)
        .bind(runner_id)
        .bind(replay)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
    insert_result_seats(tx, game_id, game).await?;
    Ok(result_id)
}

/// Every seat's result of a game, in one statement.
async fn insert_result_seats(
    tx: &mut AnyConnection,
    game_id: i64,
    game: &GameReport,
) -> Result<(), ArenaError> {
    if game.seats.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "INSERT INTO result_seats (game_id, seat, bot_version_id, score, rank, forfeit_reason, forfeit_detail, stderr_tail) VALUES {}",
        super::leaderboard::numbered_rows(game.seats.len(), 8, 1)
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
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
    query.execute(&mut *tx).await?;
    Ok(())
}
