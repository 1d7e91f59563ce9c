//! A tournament's matches listed a page at a time, each with its seats
//! and its games' results.

use super::tournaments::{Entry, GameSummary, MatchSummary};
use super::{Page, PageOf, Store};
use crate::error::ArenaError;

impl Store {
    /// A page of a tournament's matches in plan order (the page is keyed
    /// by match index), each with its seats and its games' results: two
    /// queries a page, whatever the number of games.
    pub async fn list_matches(
        &self,
        tournament_id: i64,
        page: &Page<i64>,
    ) -> Result<PageOf<MatchSummary>, ArenaError> {
        let super::Flag(exists) =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM tournaments WHERE id = $1)")
                .bind(tournament_id)
                .fetch_one(self.pool())
                .await?;
        if !exists {
            return Err(ArenaError::not_found("tournament", tournament_id));
        }
        let after = page.after.unwrap_or(-1);
        let sql = self.backend.matches_with_seats_sql();
        let rows: Vec<MatchRow> = sqlx::query_as(sql)
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
             WHERE m.tournament_id = $1 AND m.match_index > $2 AND m.match_index <= $3 \
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
