//! A recorded game read back: its replay, its seats' results, and its
//! details for `cairn replay` and the web pages.

use cairn_proto::record::seat_label;

use super::results::seat_result;
use super::{ArenaError, SeatResult, Store};

impl Store {
    /// The replay a runner stored for a finished game; `None` when the game
    /// was never played (a seat forfeited before it began: its build
    /// failed, or it could not start).
    pub async fn replay(&self, game_id: i64) -> Result<Option<Vec<u8>>, ArenaError> {
        let replay: Option<Option<Vec<u8>>> =
            sqlx::query_scalar("SELECT replay FROM results WHERE game_id = $1")
                .bind(game_id)
                .fetch_optional(self.pool())
                .await?;
        replay.ok_or_else(|| ArenaError::not_found("result of game", game_id))
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
            return Err(self.why_no_result(game_id).await?);
        }
        rows.into_iter().map(SeatRow::into_result).collect()
    }

    /// Why game `game_id` has no result: there is no such game, its match
    /// was given up, or it is still to be played.
    async fn why_no_result(&self, game_id: i64) -> Result<ArenaError, ArenaError> {
        let row: Option<(String, Option<String>)> = sqlx::query_as(
            "SELECT m.status, m.failure FROM games g JOIN matches m ON m.id = g.match_id WHERE g.id = $1",
        )
        .bind(game_id)
        .fetch_optional(self.pool())
        .await?;
        let Some((status, failure)) = row else {
            return Ok(ArenaError::not_found("game", game_id));
        };
        let why = match failure.as_deref() {
            Some(super::cancel::CANCELLED) => {
                "it was never played: its tournament was cancelled".to_string()
            }
            Some(failure) => format!("it was never played: its match failed ({failure})"),
            None if status == "leased" => "it is being played".to_string(),
            None => "it is not played yet".to_string(),
        };
        Ok(ArenaError::FailedPrecondition(format!(
            "game {game_id} has no result: {why}"
        )))
    }

    /// A finished game's index in its match, its seats' stderr tails (by
    /// seat, empty when none was kept) and its seats' bots (`name@version`).
    pub async fn game_details(
        &self,
        game_id: i64,
    ) -> Result<(i64, Vec<String>, Vec<String>), ArenaError> {
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
        let bots: Vec<(String, i64)> = sqlx::query_as(
            "SELECT b.name, v.version FROM games g JOIN seats s ON s.match_id = g.match_id \
             JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id \
             WHERE g.id = $1 ORDER BY s.seat",
        )
        .bind(game_id)
        .fetch_all(self.pool())
        .await?;
        Ok((
            index,
            tails.into_iter().map(Option::unwrap_or_default).collect(),
            bots.iter()
                .map(|(name, version)| seat_label(name, *version))
                .collect(),
        ))
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
        seat_result(
            self.bot_version_id,
            self.score,
            self.rank,
            self.forfeit_reason,
            self.forfeit_detail,
        )
    }
}
