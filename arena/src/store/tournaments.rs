//! Tournaments: checked against the engine, planned (see [`crate::plan`]),
//! and written with every match, seat and game in one transaction.

use cairn_engine::GameOptions;

use super::accounts::Owner;
use super::Store;
use crate::error::ArenaError;
use crate::plan::plan_round_robin;
use crate::store::{BotVersion, Page, PageOf, SeatResult};

/// What a tournament is asked to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTournament {
    pub game: String,
    pub options: GameOptions,
    /// `name` (latest version) or `name@N`.
    pub bots: Vec<String>,
    pub seats_per_game: usize,
    pub games_per_pairing: usize,
    pub seed: u64,
}

/// A bot version entered in a tournament.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Entry {
    pub bot_version_id: i64,
    pub bot_name: String,
    pub version: i64,
}

/// A tournament as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tournament {
    pub id: i64,
    pub owner: String,
    pub game: String,
    pub options: GameOptions,
    /// The options as `k=v,k=v` (sorted): the leaderboard's variant key.
    pub variant: String,
    pub seats_per_game: usize,
    pub games_per_pairing: usize,
    pub seed: u64,
    pub entries: Vec<Entry>,
    pub created_at: i64,
}

/// How far a tournament has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TournamentProgress {
    pub tournament_id: i64,
    pub matches_total: i64,
    pub matches_queued: i64,
    pub matches_leased: i64,
    /// Done, including the failed ones.
    pub matches_done: i64,
    /// Given up after too many host faults (never rated).
    pub matches_failed: i64,
    pub games_total: i64,
    pub games_done: i64,
    /// Its owner cancelled it.
    pub cancelled: bool,
}

impl TournamentProgress {
    pub fn finished(&self) -> bool {
        self.matches_done == self.matches_total
    }
}

/// One match of a tournament, with its seating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchSummary {
    pub id: i64,
    pub tournament_id: i64,
    pub match_index: i64,
    /// queued, leased, done or failed.
    pub status: String,
    /// Why it was given up, when it failed.
    pub failure: Option<String>,
    /// Entries by seat.
    pub seats: Vec<Entry>,
    /// The games, in order.
    pub games: Vec<GameSummary>,
}

/// One game of a match, with its result once recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    pub game_id: i64,
    pub seed: u64,
    /// By seat; empty until recorded.
    pub result: Vec<SeatResult>,
}

/// The variant key of a set of options.
pub fn variant_key(options: &GameOptions) -> String {
    options
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(sqlx::FromRow)]
struct TournamentRow {
    id: i64,
    owner: String,
    game: String,
    options: String,
    variant: String,
    seats_per_game: i64,
    games_per_pairing: i64,
    seed: i64,
    created_at: i64,
}

impl Store {
    /// Checks, plans and stores a round-robin tournament created by `owner`.
    pub async fn create_tournament(
        &self,
        owner: &Owner,
        request: &NewTournament,
    ) -> Result<Tournament, ArenaError> {
        (self.game_check)(&request.game, &request.options, request.seats_per_game)?;
        let entries = self.resolve_entries(request).await?;
        let plan = plan_round_robin(
            entries.len(),
            request.seats_per_game,
            request.games_per_pairing,
            request.seed,
        )?;
        let new_games = plan
            .iter()
            .map(|planned| planned.game_seeds.len() as i64)
            .sum();
        self.check_tournament_quota(owner, new_games).await?;
        let options = serde_json::to_string(&request.options)
            .map_err(|error| ArenaError::Internal(error.to_string()))?;
        let mut tx = self.begin_write().await?;
        let tournament_id: i64 = sqlx::query_scalar(
            "INSERT INTO tournaments (owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at, planned_matches, planning_done) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING id",
        )
        .bind(owner.id)
        .bind(&request.game)
        .bind(options)
        .bind(variant_key(&request.options))
        .bind(request.seats_per_game as i64)
        .bind(request.games_per_pairing as i64)
        .bind(request.seed as i64)
        .bind(self.now_ms())
        .bind(plan.len() as i64)
        .fetch_one(&mut *tx)
        .await?;
        for (index, entry) in entries.iter().enumerate() {
            sqlx::query("INSERT INTO tournament_entries (tournament_id, entry_index, bot_version_id) VALUES (?, ?, ?)")
                .bind(tournament_id)
                .bind(index as i64)
                .bind(entry.id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        // The plan itself, in short transactions (resumed after a restart).
        self.write_plan(tournament_id).await?;
        self.tournament(tournament_id).await
    }

    /// The versions a request names: each once, not deleted, playing the game.
    async fn resolve_entries(
        &self,
        request: &NewTournament,
    ) -> Result<Vec<BotVersion>, ArenaError> {
        let mut entries: Vec<BotVersion> = Vec::with_capacity(request.bots.len());
        for reference in &request.bots {
            let version = self.resolve_bot_version(reference).await?;
            if entries.iter().any(|entry| entry.id == version.id) {
                return Err(ArenaError::invalid(format!(
                    "`{reference}` is entered twice"
                )));
            }
            if self.bot_is_deleted(&version.bot_name).await? {
                return Err(ArenaError::invalid(format!(
                    "bot `{}` has been deleted",
                    version.bot_name
                )));
            }
            if !version.manifest.plays(&request.game) {
                return Err(ArenaError::invalid(format!(
                    "bot `{reference}` does not list `{}` among its games",
                    request.game
                )));
            }
            entries.push(version);
        }
        Ok(entries)
    }

    /// A tournament by id.
    pub async fn tournament(&self, tournament_id: i64) -> Result<Tournament, ArenaError> {
        let row: Option<TournamentRow> = sqlx::query_as(
            "SELECT t.id, o.name AS owner, t.game, t.options, t.variant, t.seats_per_game, t.games_per_pairing, t.seed, t.created_at \
             FROM tournaments t JOIN owners o ON o.id = t.owner_id WHERE t.id = ?",
        )
        .bind(tournament_id)
        .fetch_optional(self.pool())
        .await?;
        let row = row.ok_or_else(|| ArenaError::not_found("tournament", tournament_id))?;
        let entries = sqlx::query_as(
            "SELECT e.bot_version_id, b.name AS bot_name, v.version FROM tournament_entries e \
             JOIN bot_versions v ON v.id = e.bot_version_id JOIN bots b ON b.id = v.bot_id \
             WHERE e.tournament_id = ? ORDER BY e.entry_index",
        )
        .bind(tournament_id)
        .fetch_all(self.pool())
        .await?;
        let options = serde_json::from_str(&row.options)
            .map_err(|error| ArenaError::Internal(format!("stored options unreadable: {error}")))?;
        Ok(Tournament {
            id: row.id,
            owner: row.owner,
            game: row.game,
            options,
            variant: row.variant,
            seats_per_game: row.seats_per_game as usize,
            games_per_pairing: row.games_per_pairing as usize,
            seed: row.seed as u64,
            entries,
            created_at: row.created_at,
        })
    }

    /// A page of tournament ids, newest first.
    pub async fn list_tournament_ids(&self, page: &Page<i64>) -> Result<PageOf<i64>, ArenaError> {
        let ids =
            sqlx::query_scalar("SELECT id FROM tournaments WHERE id < ? ORDER BY id DESC LIMIT ?")
                .bind(page.after.unwrap_or(i64::MAX))
                .bind(page.limit())
                .fetch_all(self.pool())
                .await?;
        Ok(page.finish(ids, |id| *id))
    }

    /// How far a tournament has got.
    pub async fn tournament_progress(
        &self,
        tournament_id: i64,
    ) -> Result<TournamentProgress, ArenaError> {
        let (planned_matches, planning_done, cancelled): (Option<i64>, bool, bool) =
            sqlx::query_as("SELECT planned_matches, planning_done, cancelled_at IS NOT NULL FROM tournaments WHERE id = ?")
                .bind(tournament_id)
                .fetch_optional(self.pool())
                .await?
                .ok_or_else(|| ArenaError::not_found("tournament", tournament_id))?;
        let (matches_total, matches_queued, matches_leased, matches_done, matches_failed): (i64, i64, i64, i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(SUM(status = 'queued'), 0), COALESCE(SUM(status = 'leased'), 0), COALESCE(SUM(status = 'done'), 0), COUNT(failure) \
             FROM matches WHERE tournament_id = ?",
        )
        .bind(tournament_id)
        .fetch_one(self.pool())
        .await?;
        // While the plan is being written, the total is the plan's.
        let matches_total = matches_total.max(planned_matches.unwrap_or(0));
        let matches_done = if planning_done {
            matches_done
        } else {
            matches_done.min(matches_total - 1)
        };
        let (games_total, games_done): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(g.id), COUNT(r.id) FROM games g JOIN matches m ON m.id = g.match_id \
             LEFT JOIN results r ON r.game_id = g.id WHERE m.tournament_id = ?",
        )
        .bind(tournament_id)
        .fetch_one(self.pool())
        .await?;
        Ok(TournamentProgress {
            tournament_id,
            matches_total,
            matches_queued,
            matches_leased,
            matches_done,
            matches_failed,
            games_total,
            games_done,
            cancelled,
        })
    }

    /// A page of a tournament's matches in plan order (the page is keyed
    /// by match index), each with its seats and its games' results: two
    /// queries a page, whatever the number of games.
    pub async fn list_matches(
        &self,
        tournament_id: i64,
        page: &Page<i64>,
    ) -> Result<PageOf<MatchSummary>, ArenaError> {
        let exists: bool =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM tournaments WHERE id = ?)")
                .bind(tournament_id)
                .fetch_one(self.pool())
                .await?;
        if !exists {
            return Err(ArenaError::not_found("tournament", tournament_id));
        }
        let after = page.after.unwrap_or(-1);
        let rows: Vec<MatchRow> = sqlx::query_as(
            "SELECT m.id, m.match_index, CASE WHEN m.failure IS NULL THEN m.status ELSE 'failed' END AS status, m.failure, \
             (SELECT json_group_array(json_array(s.seat, s.bot_version_id, b.name, v.version)) FROM seats s \
              JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id WHERE s.match_id = m.id) AS seats \
             FROM matches m WHERE m.tournament_id = ? AND m.match_index > ? ORDER BY m.match_index LIMIT ?",
        )
        .bind(tournament_id)
        .bind(after)
        .bind(page.limit())
        .fetch_all(self.pool())
        .await?;
        let mut page_of = page.finish(rows, |row| row.match_index);
        let last_index = page_of.items.last().map_or(after, |row| row.match_index);
        let games: Vec<GameRow> = sqlx::query_as(
            "SELECT g.match_id, g.id AS game_id, g.seed, rs.bot_version_id, rs.score, rs.rank, rs.forfeit_reason, rs.forfeit_detail \
             FROM matches m JOIN games g ON g.match_id = m.id LEFT JOIN result_seats rs ON rs.game_id = g.id \
             WHERE m.tournament_id = ? AND m.match_index > ? AND m.match_index <= ? \
             ORDER BY m.match_index, g.game_index, rs.seat",
        )
        .bind(tournament_id)
        .bind(after)
        .bind(last_index)
        .fetch_all(self.pool())
        .await?;
        let mut summaries = page_of
            .items
            .drain(..)
            .map(|row| row.into_summary(tournament_id))
            .collect::<Result<Vec<MatchSummary>, ArenaError>>()?;
        attach_games(&mut summaries, games)?;
        Ok(PageOf {
            items: summaries,
            next_page_token: page_of.next_page_token,
        })
    }

    pub(crate) async fn match_seats(&self, match_id: i64) -> Result<Vec<Entry>, ArenaError> {
        Ok(sqlx::query_as(
            "SELECT s.bot_version_id, b.name AS bot_name, v.version FROM seats s \
             JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id WHERE s.match_id = ? ORDER BY s.seat",
        )
        .bind(match_id)
        .fetch_all(self.pool())
        .await?)
    }
}

#[derive(sqlx::FromRow)]
struct MatchRow {
    id: i64,
    match_index: i64,
    status: String,
    failure: Option<String>,
    /// `[[seat, bot_version_id, bot_name, version], ...]` as JSON.
    seats: String,
}

impl MatchRow {
    fn into_summary(self, tournament_id: i64) -> Result<MatchSummary, ArenaError> {
        let mut seats: Vec<(i64, i64, String, i64)> = serde_json::from_str(&self.seats)
            .map_err(|error| ArenaError::Internal(format!("seats unreadable: {error}")))?;
        seats.sort_by_key(|seat| seat.0);
        Ok(MatchSummary {
            id: self.id,
            tournament_id,
            match_index: self.match_index,
            status: self.status,
            failure: self.failure,
            seats: seats
                .into_iter()
                .map(|(_, bot_version_id, bot_name, version)| Entry {
                    bot_version_id,
                    bot_name,
                    version,
                })
                .collect(),
            games: Vec::new(),
        })
    }
}

#[derive(sqlx::FromRow)]
struct GameRow {
    match_id: i64,
    game_id: i64,
    seed: i64,
    bot_version_id: Option<i64>,
    score: Option<i64>,
    rank: Option<i64>,
    forfeit_reason: Option<String>,
    forfeit_detail: Option<String>,
}

/// Puts each game row (one per seat once recorded) in its match, in order.
fn attach_games(summaries: &mut [MatchSummary], rows: Vec<GameRow>) -> Result<(), ArenaError> {
    let mut position = 0;
    for row in rows {
        while summaries
            .get(position)
            .is_some_and(|summary| summary.id != row.match_id)
        {
            position += 1;
        }
        let Some(summary) = summaries.get_mut(position) else {
            return Err(ArenaError::Internal("a game outside the page".into()));
        };
        if summary
            .games
            .last()
            .is_none_or(|game| game.game_id != row.game_id)
        {
            summary.games.push(GameSummary {
                game_id: row.game_id,
                seed: row.seed as u64,
                result: Vec::new(),
            });
        }
        if let (Some(bot_version_id), Some(score), Some(rank), Some(game)) = (
            row.bot_version_id,
            row.score,
            row.rank,
            summary.games.last_mut(),
        ) {
            game.result.push(super::results::seat_result(
                bot_version_id,
                score,
                rank,
                row.forfeit_reason,
                row.forfeit_detail,
            )?);
        }
    }
    Ok(())
}
