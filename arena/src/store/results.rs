//! Results, written once. A runner reports a whole match under the lease it
//! was given; the report is checked against the plan, stored with every
//! seat's score, rank and forfeit, and rated, all in one transaction.

use cairn_engine::forfeit::ForfeitReason;
use sqlx::SqliteConnection;

use super::accounts::Runner;
use super::Store;
use crate::error::ArenaError;
use crate::ratings::RatedSeat;

/// The largest replay kept per game.
pub const MAX_REPLAY_BYTES: usize = 4 * 1024 * 1024;

/// A runner's report of a whole match.
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
    /// The same lease already reported: nothing changed.
    AlreadyRecorded,
}

impl Store {
    /// Records a match's results, once. A repeat under the same lease is
    /// answered `AlreadyRecorded`; a report under a lost lease is refused.
    pub async fn report_result(
        &self,
        runner: &Runner,
        report: &MatchReport,
    ) -> Result<ReportOutcome, ArenaError> {
        let now = self.now_ms();
        let mut tx = self.begin_write().await?;
        let state = self.lease_state(&mut tx, report.match_id).await?;
        if state.status == "done"
            && state.lease_generation == report.lease_generation
            && state.lease_holder == Some(runner.id)
        {
            return Ok(ReportOutcome::AlreadyRecorded);
        }
        if !state.held_by(runner, report.lease_generation, now) {
            return Err(ArenaError::LeaseLost {
                match_id: report.match_id,
            });
        }
        let planned = planned_games(&mut tx, report.match_id).await?;
        check_report(report, &planned)?;
        let (game, variant): (String, String) =
            sqlx::query_as("SELECT t.game, t.variant FROM tournaments t JOIN matches m ON m.tournament_id = t.id WHERE m.id = ?")
                .bind(report.match_id)
                .fetch_one(&mut *tx)
                .await?;
        for game_report in &report.games {
            let game_id = planned.games[game_report.game_index as usize];
            let result_id = insert_result(&mut tx, runner, game_id, game_report, now).await?;
            let rated: Vec<RatedSeat> = game_report
                .seats
                .iter()
                .map(|seat| RatedSeat {
                    bot_version_id: seat.bot_version_id,
                    rank: seat.rank,
                    forfeited: seat.forfeit.is_some(),
                })
                .collect();
            super::leaderboard::rate_result(&mut tx, &game, &variant, result_id, &rated).await?;
        }
        sqlx::query("UPDATE matches SET status = 'done', finished_at = ? WHERE id = ?")
            .bind(now)
            .bind(report.match_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.notify_change();
        Ok(ReportOutcome::Recorded)
    }

    /// The replay a runner stored for a game.
    pub async fn replay(&self, game_id: i64) -> Result<Vec<u8>, ArenaError> {
        let replay: Option<Option<Vec<u8>>> =
            sqlx::query_scalar("SELECT replay FROM results WHERE game_id = ?")
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
            "SELECT bot_version_id, score, rank, forfeit_reason, forfeit_detail FROM result_seats WHERE game_id = ? ORDER BY seat",
        )
        .bind(game_id)
        .fetch_all(self.pool())
        .await?;
        if rows.is_empty() {
            return Err(ArenaError::not_found("result of game", game_id));
        }
        rows.into_iter().map(SeatRow::into_result).collect()
    }
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
        let forfeit = match self.forfeit_reason {
            None => None,
            Some(name) => Some(Forfeit {
                reason: ForfeitReason::from_name(&name).ok_or_else(|| {
                    ArenaError::Internal(format!("stored forfeit reason `{name}` is unknown"))
                })?,
                detail: self.forfeit_detail.unwrap_or_default(),
            }),
        };
        Ok(SeatResult {
            bot_version_id: self.bot_version_id,
            score: self.score,
            rank: self.rank as u32,
            forfeit,
        })
    }
}

/// The plan a report is checked against.
struct PlannedGames {
    /// Game ids by game index.
    games: Vec<i64>,
    /// Bot version ids by seat.
    seats: Vec<i64>,
}

async fn planned_games(
    tx: &mut SqliteConnection,
    match_id: i64,
) -> Result<PlannedGames, ArenaError> {
    let games = sqlx::query_scalar("SELECT id FROM games WHERE match_id = ? ORDER BY game_index")
        .bind(match_id)
        .fetch_all(&mut *tx)
        .await?;
    let seats =
        sqlx::query_scalar("SELECT bot_version_id FROM seats WHERE match_id = ? ORDER BY seat")
            .bind(match_id)
            .fetch_all(&mut *tx)
            .await?;
    Ok(PlannedGames { games, seats })
}

fn check_report(report: &MatchReport, planned: &PlannedGames) -> Result<(), ArenaError> {
    if report.games.len() != planned.games.len() {
        return Err(ArenaError::invalid(format!(
            "match {} has {} games, the report has {}",
            report.match_id,
            planned.games.len(),
            report.games.len()
        )));
    }
    let mut indices: Vec<i64> = report.games.iter().map(|game| game.game_index).collect();
    indices.sort_unstable();
    if indices
        .iter()
        .enumerate()
        .any(|(expected, &index)| index != expected as i64)
    {
        return Err(ArenaError::invalid(format!(
            "the report must hold game indices 0 to {} once each",
            planned.games.len() - 1
        )));
    }
    report
        .games
        .iter()
        .try_for_each(|game| check_game_report(game, planned))
}

fn check_game_report(game: &GameReport, planned: &PlannedGames) -> Result<(), ArenaError> {
    let n_seats = planned.seats.len();
    let index = game.game_index;
    if game.seats.len() != n_seats {
        return Err(ArenaError::invalid(format!(
            "game {index} has {n_seats} seats, the report has {}",
            game.seats.len()
        )));
    }
    if game.replay.len() > MAX_REPLAY_BYTES {
        return Err(ArenaError::TooLarge(format!(
            "the replay of game {index} is {} bytes, more than the {MAX_REPLAY_BYTES} allowed",
            game.replay.len()
        )));
    }
    for (seat, (result, &expected)) in game.seats.iter().zip(&planned.seats).enumerate() {
        if result.bot_version_id != expected {
            return Err(ArenaError::invalid(format!(
                "game {index} seat {seat} is bot version {expected}, not {}",
                result.bot_version_id
            )));
        }
        if result.rank == 0 || result.rank as usize > n_seats {
            return Err(ArenaError::invalid(format!(
                "game {index} seat {seat} has rank {}, not 1 to {n_seats}",
                result.rank
            )));
        }
    }
    Ok(())
}

async fn insert_result(
    tx: &mut SqliteConnection,
    runner: &Runner,
    game_id: i64,
    game: &GameReport,
    now: i64,
) -> Result<i64, ArenaError> {
    let replay = (!game.replay.is_empty()).then_some(&game.replay);
    let result_id: i64 = sqlx::query_scalar("INSERT INTO results (game_id, runner_id, replay, recorded_at) VALUES (?, ?, ?, ?) RETURNING id")
        .bind(game_id)
        .bind(runner.id)
        .bind(replay)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
    for (seat, result) in game.seats.iter().enumerate() {
        sqlx::query(
            "INSERT INTO result_seats (game_id, seat, bot_version_id, score, rank, forfeit_reason, forfeit_detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(game_id)
        .bind(seat as i64)
        .bind(result.bot_version_id)
        .bind(result.score)
        .bind(i64::from(result.rank))
        .bind(result.forfeit.as_ref().map(|forfeit| forfeit.reason.as_str()))
        .bind(result.forfeit.as_ref().map(|forfeit| forfeit.detail.as_str()))
        .execute(&mut *tx)
        .await?;
    }
    Ok(result_id)
}
