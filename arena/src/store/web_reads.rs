//! What the web pages read: read-only queries shaped
//! for one page each, so a page costs a few statements whatever its size.
//! Lists are capped; nothing here writes.

use cairn_engine::GameOptions;
use serde::Serialize;

use super::Store;
use crate::error::ArenaError;
use crate::metrics::{Gauges, MAX_TOURNAMENT_SERIES, RUNNERS_SEEN_WITHIN};

/// At most this many rows in any list a page shows.
pub const PAGE_ROWS: i64 = 500;
/// The games a tournament page lists at a time.
pub const GAMES_PER_PAGE: i64 = 100;

/// A game and variant some tournament was played in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedVariant {
    pub game: String,
    pub variant: String,
    pub options: GameOptions,
}

/// A tournament as the tournaments page lists it, with its progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct TournamentLine {
    pub id: i64,
    pub owner: String,
    pub game: String,
    pub variant: String,
    pub seats_per_game: i64,
    pub created_at: i64,
    pub entries: i64,
    pub matches_total: i64,
    /// Played to the end (not given up).
    pub matches_done: i64,
    /// Given up after host faults.
    pub matches_failed: i64,
    /// When its owner cancelled it (its unplayed matches were dropped).
    pub cancelled_at: Option<i64>,
    pub games_total: i64,
    pub games_done: i64,
}

/// One game of a tournament, with its seats' results once recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameLine {
    pub game_id: i64,
    pub match_id: i64,
    pub match_index: i64,
    /// The round it was planned in (from 0): a Swiss's or a knockout's rounds.
    pub round: i64,
    pub game_index: i64,
    /// `TOURNAMENT/MATCH/GAME`.
    pub name: String,
    pub status: String,
    pub seats: Vec<SeatLine>,
}

/// A seat of a game: who sat there and, once recorded, how it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct SeatLine {
    pub seat: i64,
    pub bot_name: String,
    pub version: i64,
    pub score: Option<i64>,
    pub rank: Option<i64>,
    pub forfeit_reason: Option<String>,
    pub forfeit_detail: Option<String>,
}

/// A bot's page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BotPage {
    pub name: String,
    pub owner: String,
    pub created_at: i64,
    pub deleted: bool,
    pub versions: Vec<VersionLine>,
    /// Its most recent games, newest first.
    pub games: Vec<BotGameLine>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct VersionLine {
    pub version: i64,
    pub content_hash: String,
    pub size_bytes: i64,
    pub created_at: i64,
    /// validating, ready or failed (see `validation.rs`).
    pub validation: String,
    /// When it failed: the failure as stored (JSON text).
    pub validation_failure: Option<String>,
}

/// One game a bot played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct BotGameLine {
    pub game_id: i64,
    pub tournament_id: i64,
    pub game: String,
    pub variant: String,
    pub version: i64,
    pub seat: i64,
    pub score: i64,
    pub rank: i64,
    pub forfeit_reason: Option<String>,
    pub forfeit_detail: Option<String>,
    pub recorded_at: i64,
}

/// A recorded game: its tournament, variant and seats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameHeader {
    pub game_id: i64,
    /// `TOURNAMENT/MATCH/GAME`.
    pub name: String,
    pub tournament_id: i64,
    pub game: String,
    pub variant: String,
    pub seats: Vec<SeatLine>,
    /// Per seat, the last bytes its bot wrote on stderr during the game
    /// (empty when none was kept).
    pub stderr_tails: Vec<String>,
}

#[derive(sqlx::FromRow)]
struct GameSeatRow {
    game_id: i64,
    match_id: i64,
    match_index: i64,
    round: i64,
    game_index: i64,
    status: String,
    #[sqlx(flatten)]
    seat: SeatLine,
}

/// A tournament and its progress counts, to be followed by a filter (a
/// macro so `concat!` makes each query one literal).
macro_rules! tournament_line {
    () => {
        "SELECT t.id, o.name AS owner, t.game, t.variant, t.seats_per_game, t.created_at, \
     (SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = t.id) AS entries, \
     (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id) AS matches_total, \
     (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id AND m.status = 'done' AND m.failure IS NULL) AS matches_done, \
     (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id AND m.failure IS NOT NULL AND m.failure <> 'cancelled') AS matches_failed, \
     t.cancelled_at, \
     (SELECT COUNT(*) FROM games g JOIN matches m ON m.id = g.match_id WHERE m.tournament_id = t.id) AS games_total, \
     (SELECT COUNT(*) FROM results r JOIN games g ON g.id = r.game_id JOIN matches m ON m.id = g.match_id \
      WHERE m.tournament_id = t.id) AS games_done \
     FROM tournaments t JOIN owners o ON o.id = t.owner_id"
    };
}

impl Store {
    /// Every game and variant a tournament was created for.
    pub async fn played_variants(&self) -> Result<Vec<PlayedVariant>, ArenaError> {
        let rows: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT game, variant, MIN(options) FROM tournaments WHERE validates IS NULL GROUP BY game, variant ORDER BY game, variant",
        )
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|(game, variant, options)| {
                let options = serde_json::from_str(&options).map_err(|error| {
                    ArenaError::Internal(format!("stored options unreadable: {error}"))
                })?;
                Ok(PlayedVariant {
                    game,
                    variant,
                    options,
                })
            })
            .collect()
    }

    /// The newest tournaments with their progress.
    pub async fn tournament_lines(&self) -> Result<Vec<TournamentLine>, ArenaError> {
        Ok(sqlx::query_as(concat!(
            tournament_line!(),
            " WHERE t.validates IS NULL ORDER BY t.id DESC LIMIT $1"
        ))
        .bind(PAGE_ROWS)
        .fetch_all(self.pool())
        .await?)
    }

    /// One tournament's line, or not found.
    pub async fn tournament_line(&self, tournament_id: i64) -> Result<TournamentLine, ArenaError> {
        let line: Option<TournamentLine> =
            sqlx::query_as(concat!(tournament_line!(), " WHERE t.id = $1"))
                .bind(tournament_id)
                .fetch_optional(self.pool())
                .await?;
        line.ok_or_else(|| ArenaError::not_found("tournament", tournament_id))
    }

    /// Page `page` (from 0) of a tournament's games in plan order,
    /// [`GAMES_PER_PAGE`] a page, each with its seats and results.
    pub async fn tournament_games(
        &self,
        tournament_id: i64,
        page: i64,
    ) -> Result<Vec<GameLine>, ArenaError> {
        let rows: Vec<GameSeatRow> = sqlx::query_as(
            concat!("SELECT g.id AS game_id, m.id AS match_id, m.match_index, m.round, g.game_index, ", shown_match_status!(), " AS status, \
             s.seat, b.name AS bot_name, v.version, rs.score, rs.rank, rs.forfeit_reason, rs.forfeit_detail \
             FROM games g JOIN matches m ON m.id = g.match_id \
             JOIN seats s ON s.match_id = m.id \
             JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id \
             LEFT JOIN result_seats rs ON rs.game_id = g.id AND rs.seat = s.seat \
             WHERE g.id IN (SELECT pg.id FROM games pg JOIN matches pm ON pm.id = pg.match_id \
               WHERE pm.tournament_id = $1 ORDER BY pm.match_index, pg.game_index LIMIT $2 OFFSET $3) \
             ORDER BY m.match_index, g.game_index, s.seat"),
        )
        .bind(tournament_id)
        .bind(GAMES_PER_PAGE)
        .bind(page.max(0).saturating_mul(GAMES_PER_PAGE))
        .fetch_all(self.pool())
        .await?;
        let mut games: Vec<GameLine> = Vec::new();
        for row in rows {
            match games.last_mut() {
                Some(last) if last.game_id == row.game_id => last.seats.push(row.seat),
                _ => games.push(GameLine {
                    game_id: row.game_id,
                    match_id: row.match_id,
                    match_index: row.match_index,
                    round: row.round,
                    game_index: row.game_index,
                    name: crate::game_name::GameName::of(
                        tournament_id,
                        row.match_index,
                        row.game_index,
                    )
                    .to_string(),
                    status: row.status,
                    seats: vec![row.seat],
                }),
            }
        }
        Ok(games)
    }

    /// The game id `name` (`TOURNAMENT/MATCH/GAME`) stands for, or not found.
    pub async fn game_id_by_name(
        &self,
        name: crate::game_name::GameName,
    ) -> Result<i64, ArenaError> {
        let id: Option<i64> = sqlx::query_scalar(
            "SELECT g.id FROM games g JOIN matches m ON m.id = g.match_id \
             WHERE m.tournament_id = $1 AND m.match_index = $2 AND g.game_index = $3",
        )
        .bind(name.tournament_id)
        .bind(name.match_number - 1)
        .bind(name.game_number - 1)
        .fetch_optional(self.pool())
        .await?;
        id.ok_or_else(|| ArenaError::not_found("game", name))
    }

    /// A bot's page by name, or not found.
    pub async fn bot_page(&self, name: &str) -> Result<BotPage, ArenaError> {
        let bot: Option<(i64, String, String, i64, Option<i64>)> = sqlx::query_as(
            "SELECT b.id, b.name, o.name, b.created_at, b.deleted_at FROM bots b JOIN owners o ON o.id = b.owner_id WHERE b.name = $1",
        )
        .bind(name)
        .fetch_optional(self.pool())
        .await?;
        let (bot_id, name, owner, created_at, deleted_at) =
            bot.ok_or_else(|| ArenaError::not_found("bot", name))?;
        let versions = sqlx::query_as(
            "SELECT v.version, v.content_hash, a.size_bytes, v.created_at, v.validation, v.validation_failure FROM bot_versions v \
             JOIN artifacts a ON a.content_hash = v.content_hash WHERE v.bot_id = $1 ORDER BY v.version",
        )
        .bind(bot_id)
        .fetch_all(self.pool())
        .await?;
        let games = sqlx::query_as(
            "SELECT rs.game_id, t.id AS tournament_id, t.game, t.variant, v.version, rs.seat, rs.score, rs.rank, \
             rs.forfeit_reason, rs.forfeit_detail, r.recorded_at \
             FROM result_seats rs JOIN bot_versions v ON v.id = rs.bot_version_id \
             JOIN results r ON r.game_id = rs.game_id JOIN games g ON g.id = rs.game_id \
             JOIN matches m ON m.id = g.match_id JOIN tournaments t ON t.id = m.tournament_id \
             WHERE v.bot_id = $1 ORDER BY r.id DESC LIMIT $2",
        )
        .bind(bot_id)
        .bind(PAGE_ROWS)
        .fetch_all(self.pool())
        .await?;
        Ok(BotPage {
            name,
            owner,
            created_at,
            deleted: deleted_at.is_some(),
            versions,
            games,
        })
    }

    /// A recorded game's tournament, variant and seats, or not found.
    pub async fn game_header(&self, game_id: i64) -> Result<GameHeader, ArenaError> {
        let head: Option<(i64, String, String, i64, i64)> = sqlx::query_as(
            "SELECT t.id, t.game, t.variant, m.match_index, g.game_index FROM results r JOIN games g ON g.id = r.game_id \
             JOIN matches m ON m.id = g.match_id JOIN tournaments t ON t.id = m.tournament_id WHERE r.game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(self.pool())
        .await?;
        let (tournament_id, game, variant, match_index, game_index) =
            head.ok_or_else(|| ArenaError::not_found("game", game_id))?;
        let seats = sqlx::query_as(
            "SELECT rs.seat, b.name AS bot_name, v.version, rs.score, rs.rank, rs.forfeit_reason, rs.forfeit_detail \
             FROM result_seats rs JOIN bot_versions v ON v.id = rs.bot_version_id JOIN bots b ON b.id = v.bot_id \
             WHERE rs.game_id = $1 ORDER BY rs.seat",
        )
        .bind(game_id)
        .fetch_all(self.pool())
        .await?;
        let (_, stderr_tails, _) = self.game_details(game_id).await?;
        Ok(GameHeader {
            game_id,
            name: crate::game_name::GameName::of(tournament_id, match_index, game_index)
                .to_string(),
            tournament_id,
            game,
            variant,
            seats,
            stderr_tails,
        })
    }
}

impl Store {
    /// The gauges `/metrics` shows, read in one statement each over an
    /// index (`matches_by_status`) and the runners: matches waiting (in
    /// all, and for the tournaments with the most), runners seen lately.
    pub async fn metrics_gauges(&self) -> Result<Gauges, ArenaError> {
        let now = self.now_ms();
        let read = async {
            let mut connection = self.pool().acquire().await?;
            let waiting_by_tournament: Vec<(i64, i64)> = sqlx::query_as(
                "SELECT tournament_id, COUNT(*) AS waiting FROM matches \
                 WHERE status = 'queued' OR (status = 'leased' AND lease_expires_at <= $1) \
                 GROUP BY tournament_id ORDER BY waiting DESC, tournament_id LIMIT $2",
            )
            .bind(now)
            .bind(MAX_TOURNAMENT_SERIES as i64)
            .fetch_all(&mut *connection)
            .await?;
            let (matches_waiting, runners_seen): (i64, i64) = sqlx::query_as(
                "SELECT (SELECT COUNT(*) FROM matches \
                 WHERE status = 'queued' OR (status = 'leased' AND lease_expires_at <= $1)), \
                 (SELECT COUNT(*) FROM runners WHERE revoked_at IS NULL AND last_seen_at >= $2)",
            )
            .bind(now)
            .bind(now - RUNNERS_SEEN_WITHIN.as_millis() as i64)
            .fetch_one(&mut *connection)
            .await?;
            Ok(Gauges {
                matches_waiting,
                waiting_by_tournament,
                runners_seen,
            })
        };
        self.metrics().database(read.await)
    }
}
