//! Formats in the store: what a format needs to know read back from the
//! tables, and the step that plans the next round. That step runs in the
//! transaction that finishes a match (the write of its last game), so the
//! last result of a round and the next round are written together: a
//! result reported twice is answered before it gets here, a restart finds
//! either both or neither, and the round is planned once (its matches are
//! only planned when every match so far is done, and then there are some).
//!
//! An SPRT gauntlet is checked at the same step, after every match: once it
//! decides, the verdict is stored and the queued matches are dropped (never
//! leased); the matches in play finish and are recorded, the verdict stays.
//! Its deal pairs are a tally kept as each game is recorded
//! (`sprt_tally`), so the check costs the same at the 100,000th
//! game as at the first.

use sqlx::AnyConnection;

use super::plan_chunks::{insert_games, insert_match};
use super::sprt_tally::check_sprt;
pub(crate) use super::sprt_tally::{stored_deal_pairs, tally_recorded_game};
use crate::error::ArenaError;
use crate::format::{
    first_round, next_round_without, Format, FormatSpec, Next, PlayedGame, PlayedMatch,
};
use crate::stats::{EloModel, Sprt};

/// A tournament's format as stored, with its SPRT when it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredFormat {
    pub spec: FormatSpec,
    pub sprt: Option<Sprt>,
    pub sprt_llr: Option<f64>,
    /// `h0` or `h1` once decided.
    pub sprt_verdict: Option<String>,
    /// The deal pairs kept game by game (`None` before the first check).
    pub sprt_pairs: Option<[u64; 5]>,
}

#[derive(sqlx::FromRow)]
struct FormatRow {
    seats_per_game: i64,
    games_per_pairing: i64,
    seed: i64,
    format: String,
    rounds: i64,
    ladder_width: i64,
    challengers: String,
    sprt_elo0: Option<f64>,
    sprt_elo1: Option<f64>,
    sprt_alpha: Option<f64>,
    sprt_beta: Option<f64>,
    sprt_model: Option<String>,
    sprt_llr: Option<f64>,
    sprt_verdict: Option<String>,
    sprt_pairs: Option<String>,
    entries: i64,
}

/// Reads a tournament's format.
pub(crate) async fn stored_format(
    connection: &mut AnyConnection,
    tournament_id: i64,
) -> Result<StoredFormat, ArenaError> {
    let row: FormatRow = sqlx::query_as(
        "SELECT seats_per_game, games_per_pairing, seed, format, rounds, ladder_width, challengers, sprt_elo0, sprt_elo1, sprt_alpha, sprt_beta, sprt_model, sprt_llr, sprt_verdict, sprt_pairs, \
         (SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = t.id) AS entries FROM tournaments t WHERE id = $1",
    )
    .bind(tournament_id)
    .fetch_optional(&mut *connection)
    .await?
    .ok_or_else(|| ArenaError::not_found("tournament", tournament_id))?;
    let unreadable = |what: &str| ArenaError::Internal(format!("stored {what} unreadable"));
    let format = match row.format.as_str() {
        "round-robin" => Format::RoundRobin,
        "gauntlet" => Format::Gauntlet {
            challengers: serde_json::from_str(&row.challengers)
                .map_err(|_| unreadable("challengers"))?,
        },
        "swiss" => Format::Swiss {
            rounds: row.rounds as usize,
        },
        "knockout" => Format::Knockout,
        "ladder" => Format::Ladder {
            width: u32::try_from(row.ladder_width).map_err(|_| unreadable("ladder width"))?,
        },
        _ => return Err(unreadable("format")),
    };
    let sprt = match (row.sprt_elo0, row.sprt_elo1, row.sprt_alpha, row.sprt_beta) {
        (Some(elo0), Some(elo1), Some(alpha), Some(beta)) => Some(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model: match row.sprt_model.as_deref() {
                None => EloModel::Logistic,
                Some(name) => EloModel::parse(name).map_err(|_| unreadable("sprt model"))?,
            },
        }),
        _ => None,
    };
    Ok(StoredFormat {
        spec: FormatSpec {
            format,
            n_entries: row.entries as usize,
            seats: row.seats_per_game as usize,
            games_per_pairing: row.games_per_pairing as usize,
            seed: row.seed as u64,
        },
        sprt,
        sprt_llr: row.sprt_llr,
        sprt_verdict: row.sprt_verdict,
        sprt_pairs: match row.sprt_pairs {
            Some(text) => Some(serde_json::from_str(&text).map_err(|_| unreadable("sprt pairs"))?),
            None => None,
        },
    })
}

/// Every match of a tournament with the games recorded so far.
pub(crate) async fn history(
    connection: &mut AnyConnection,
    tournament_id: i64,
) -> Result<Vec<PlayedMatch>, ArenaError> {
    let seats: Vec<(i64, i64, super::Flag, i64)> = sqlx::query_as(
        "SELECT m.id, m.round, m.status = 'done' AND m.failure IS DISTINCT FROM $1, e.entry_index FROM matches m JOIN seats s ON s.match_id = m.id \
         JOIN tournament_entries e ON e.tournament_id = m.tournament_id AND e.bot_version_id = s.bot_version_id \
         WHERE m.tournament_id = $2 ORDER BY m.id, s.seat",
    )
    .bind(super::cancel::CANCELLED)
    .bind(tournament_id)
    .fetch_all(&mut *connection)
    .await?;
    let mut matches: Vec<(i64, PlayedMatch)> = Vec::new();
    for (match_id, round, finished, entry) in seats {
        if matches.last().is_none_or(|(id, _)| *id != match_id) {
            matches.push((
                match_id,
                PlayedMatch {
                    round: round as usize,
                    seats: Vec::new(),
                    games: Vec::new(),
                    finished: finished.into(),
                },
            ));
        }
        if let Some((_, played)) = matches.last_mut() {
            played.seats.push(entry as usize);
        }
    }
    let games: Vec<(i64, i64, i64, i64, i64)> = sqlx::query_as(
        "SELECT g.match_id, g.id, g.seed, rs.rank, rs.score FROM matches m JOIN games g ON g.match_id = m.id \
         JOIN result_seats rs ON rs.game_id = g.id WHERE m.tournament_id = $1 ORDER BY g.match_id, g.id, rs.seat",
    )
    .bind(tournament_id)
    .fetch_all(&mut *connection)
    .await?;
    let mut position = 0;
    let mut last_game = None;
    for (match_id, game_id, seed, rank, score) in games {
        while matches.get(position).is_some_and(|(id, _)| *id != match_id) {
            position += 1;
        }
        let Some((_, played)) = matches.get_mut(position) else {
            return Err(ArenaError::Internal("a result outside its match".into()));
        };
        if last_game != Some(game_id) {
            last_game = Some(game_id);
            played.games.push(PlayedGame {
                seed: seed as u64,
                ranks: Vec::new(),
                scores: Vec::new(),
            });
        }
        if let Some(game) = played.games.last_mut() {
            game.ranks.push(u32::try_from(rank).unwrap_or(u32::MAX));
            game.scores.push(score);
        }
    }
    Ok(matches.into_iter().map(|(_, played)| played).collect())
}

/// The step after a match is done, in the transaction that finished it:
/// the SPRT's check, then the next round once every match is done.
pub(crate) async fn after_match_done(
    tx: &mut AnyConnection,
    match_id: i64,
) -> Result<(), ArenaError> {
    let (tournament_id, validates): (i64, Option<i64>) = sqlx::query_as(
        "SELECT m.tournament_id, t.validates FROM matches m JOIN tournaments t ON t.id = m.tournament_id WHERE m.id = $1",
    )
    .bind(match_id)
    .fetch_one(&mut *tx)
    .await?;
    if let Some(version_id) = validates {
        return super::validation::after_match_done(tx, tournament_id, version_id).await;
    }
    let stored = stored_format(tx, tournament_id).await?;
    let plans_rounds = matches!(
        stored.spec.format,
        Format::Swiss { .. } | Format::Knockout | Format::Ladder { .. }
    );
    let open_sprt = stored.sprt.filter(|_| stored.sprt_verdict.is_none());
    if !plans_rounds && open_sprt.is_none() {
        return Ok(());
    }
    if open_sprt.is_some() {
        return check_sprt(tx, tournament_id, &stored).await;
    }
    if !plans_rounds {
        return Ok(());
    }
    advance(tx, tournament_id, &stored).await
}

/// Plans the next round once every match so far is done.
async fn advance(
    tx: &mut AnyConnection,
    tournament_id: i64,
    stored: &StoredFormat,
) -> Result<(), ArenaError> {
    let (unfinished, super::Flag(planning_done), super::Flag(cancelled)): (i64, super::Flag, super::Flag) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id AND m.status != 'done'), t.planning_done, \
         t.cancelled_at IS NOT NULL FROM tournaments t WHERE t.id = $1",
    )
    .bind(tournament_id)
    .fetch_one(&mut *tx)
    .await?;
    // A cancelled tournament plans nothing more.
    if unfinished > 0 || !planning_done || cancelled {
        return Ok(());
    }
    // The history is read once a round, when its last match ends.
    let history = &history(tx, tournament_id).await?;
    // RULING (ours): a deleted bot's versions, and a version whose build
    // failed, are withdrawn from ladders (an open-ended ladder would go on
    // scheduling them: forfeits up to its cap); a Swiss or a knockout plays
    // its field out (see `Store::delete_bot`).
    let withdrawn: Vec<usize> = if matches!(stored.spec.format, Format::Ladder { .. }) {
        let suspended = super::suspensions::suspended_entries(tx, tournament_id).await?;
        sqlx::query_scalar::<_, i64>(
            "SELECT e.entry_index FROM tournament_entries e JOIN bot_versions v ON v.id = e.bot_version_id \
             JOIN bots b ON b.id = v.bot_id WHERE e.tournament_id = $1 \
             AND (b.deleted_at IS NOT NULL OR v.broken_at IS NOT NULL)",
        )
        .bind(tournament_id)
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .filter_map(|entry| usize::try_from(entry).ok())
        .chain(suspended)
        .collect()
    } else {
        Vec::new()
    };
    match next_round_without(&stored.spec, history, &withdrawn)? {
        Next::Round(planned) => {
            let round = history.iter().map(|m| m.round + 1).max().unwrap_or(0);
            let entries: Vec<i64> = sqlx::query_scalar(
                "SELECT bot_version_id FROM tournament_entries WHERE tournament_id = $1 ORDER BY entry_index",
            )
            .bind(tournament_id)
            .fetch_all(&mut *tx)
            .await?;
            // Past every index so far: a suspension may have dropped some.
            let next_index: i64 = sqlx::query_scalar(
                "SELECT COALESCE(MAX(match_index) + 1, 0) FROM matches WHERE tournament_id = $1",
            )
            .bind(tournament_id)
            .fetch_one(&mut *tx)
            .await?;
            for (offset, planned) in planned.iter().enumerate() {
                let match_index = next_index as usize + offset;
                let written =
                    insert_match(tx, tournament_id, match_index, planned, &entries).await?;
                insert_games(tx, written.match_id, 0, &planned.game_seeds).await?;
                sqlx::query("UPDATE matches SET status = 'queued', round = $1 WHERE id = $2")
                    .bind(round as i64)
                    .bind(written.match_id)
                    .execute(&mut *tx)
                    .await?;
            }
            drop_suspended_from_round(tx, tournament_id).await?;
        }
        Next::Finished => {
            // The total is what was played, whatever was expected.
            sqlx::query("UPDATE tournaments SET planned_matches = $1 WHERE id = $2")
                .bind(history.len() as i64)
                .bind(tournament_id)
                .execute(&mut *tx)
                .await?;
        }
    }
    Ok(())
}

/// A Swiss pairs suspended versions again (it has no withdrawals): their
/// tables of the round just planned are dropped. RULING (ours): a round
/// left with no table ends the Swiss, which would otherwise plan the same
/// round again.
async fn drop_suspended_from_round(
    tx: &mut AnyConnection,
    tournament_id: i64,
) -> Result<(), ArenaError> {
    super::suspensions::drop_unplayed_matches_of(tx, tournament_id).await?;
    let unfinished: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM matches WHERE tournament_id = $1 AND status != 'done'",
    )
    .bind(tournament_id)
    .fetch_one(&mut *tx)
    .await?;
    if unfinished == 0 {
        sqlx::query(
            "UPDATE tournaments SET planned_matches = (SELECT COUNT(*) FROM matches WHERE tournament_id = $1) WHERE id = $2",
        )
        .bind(tournament_id)
        .bind(tournament_id)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

/// Drops the matches nobody has leased yet (queued, or still being
/// written by the planner): their games, seats and rows.
pub(crate) async fn drop_unplayed_matches(
    tx: &mut AnyConnection,
    tournament_id: i64,
) -> Result<(), ArenaError> {
    let unplayed = "SELECT id FROM matches WHERE tournament_id = $1 AND (status = 'queued' \
         OR (status = 'leased' AND lease_holder IS NULL AND lease_expires_at IS NULL))";
    for table in ["games", "seats"] {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE match_id IN ({unplayed})"
        )))
        .bind(tournament_id)
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DELETE FROM matches WHERE id IN ({unplayed})"
    )))
    .bind(tournament_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE tournaments SET planned_matches = (SELECT COUNT(*) FROM matches WHERE tournament_id = $1) WHERE id = $2",
    )
    .bind(tournament_id)
    .bind(tournament_id)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The first round of a stored tournament (what the planner writes).
pub(crate) async fn stored_first_round(
    connection: &mut AnyConnection,
    tournament_id: i64,
) -> Result<Vec<crate::plan::PlannedMatch>, ArenaError> {
    let stored = stored_format(connection, tournament_id).await?;
    Ok(first_round(&stored.spec)?)
}

/// Where a tournament's entries stand, and a knockout's bracket.
#[derive(Debug, Clone, PartialEq)]
pub struct TournamentStandings {
    pub standings: Vec<crate::format::Standing>,
    /// Knockout only: round by round.
    pub bracket: Vec<Vec<crate::format::knockout::Tie>>,
}

impl super::Store {
    /// The standings of a tournament from its results so far (none for a
    /// round robin: its leaderboard is the standings).
    pub async fn tournament_standings(
        &self,
        tournament_id: i64,
    ) -> Result<TournamentStandings, ArenaError> {
        let mut connection = self.pool().acquire().await?;
        let stored = stored_format(&mut connection, tournament_id).await?;
        if stored.spec.format == Format::RoundRobin {
            // A round robin (up to 100,000 games) is read on the
            // leaderboard; its status stays a cheap read.
            return Ok(TournamentStandings {
                standings: Vec::new(),
                bracket: Vec::new(),
            });
        }
        let history = history(&mut connection, tournament_id).await?;
        let bracket = match stored.spec.format {
            Format::Knockout => crate::format::knockout::ties(stored.spec.n_entries, &history),
            _ => Vec::new(),
        };
        Ok(TournamentStandings {
            standings: crate::format::standings(&stored.spec, &history),
            bracket,
        })
    }
}

#[cfg(test)]
mod cancel_tests;
#[cfg(test)]
mod sprt_tests;
#[cfg(test)]
mod tests;

/// One line of a solo leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct SoloRow {
    pub bot_version_id: i64,
    pub bot_name: String,
    pub version: i64,
    pub standing: crate::fit::solo::SoloStanding,
    /// The rulebook's rank title of the mean, when the game has titles.
    pub title: Option<&'static str>,
    /// This bot's mean minus the next row's over the deals both played,
    /// with its 95% interval paired by deal.
    pub ahead_of_next: Option<crate::fit::Estimate>,
}

impl super::Store {
    /// The solo leaderboard of a game and variant: every solo game (a table
    /// of one) ranked by mean score per deal, best first.
    pub async fn solo_leaderboard(
        &self,
        game: &str,
        variant: &str,
    ) -> Result<Vec<SoloRow>, ArenaError> {
        let rows: Vec<(i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT t.id, g.seed, rs.bot_version_id, rs.score FROM tournaments t JOIN matches m ON m.tournament_id = t.id \
             JOIN games g ON g.match_id = m.id JOIN result_seats rs ON rs.game_id = g.id \
             WHERE t.game = $1 AND t.variant = $2 AND t.seats_per_game = 1 AND t.validates IS NULL",
        )
        .bind(game)
        .bind(variant)
        .fetch_all(self.pool())
        .await?;
        self.solo_rows(game, rows).await
    }

    /// A solo tournament's own results, as its game's solo leaderboard
    /// ranks them; empty for a tournament of more seats.
    pub async fn tournament_solo(
        &self,
        tournament: &super::Tournament,
    ) -> Result<Vec<SoloRow>, ArenaError> {
        if tournament.seats_per_game != 1 {
            return Ok(Vec::new());
        }
        let rows: Vec<(i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT m.tournament_id, g.seed, rs.bot_version_id, rs.score FROM matches m \
             JOIN games g ON g.match_id = m.id JOIN result_seats rs ON rs.game_id = g.id \
             WHERE m.tournament_id = $1",
        )
        .bind(tournament.id)
        .fetch_all(self.pool())
        .await?;
        self.solo_rows(&tournament.game, rows).await
    }

    /// Solo games, as (tournament, seed, bot version, score), ranked.
    async fn solo_rows(
        &self,
        game: &str,
        rows: Vec<(i64, i64, i64, i64)>,
    ) -> Result<Vec<SoloRow>, ArenaError> {
        use crate::fit::solo::{paired_difference, rank_title, solo_standings, SoloGame};
        use crate::fit::DealKey;
        let games: Vec<SoloGame> = rows
            .into_iter()
            .map(|(tournament_id, seed, bot_version_id, score)| SoloGame {
                deal: DealKey {
                    tournament_id,
                    seed,
                },
                bot_version_id,
                score,
            })
            .collect();
        let standings = solo_standings(&games);
        let solo_title = (self.game_check)(game).and_then(|descriptor| descriptor.solo_rank_title);
        let mut board = Vec::with_capacity(standings.len());
        for (index, standing) in standings.iter().enumerate() {
            let (bot_name, version): (String, i64) = sqlx::query_as(
                "SELECT b.name, v.version FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE v.id = $1",
            )
            .bind(standing.bot_version_id)
            .fetch_one(self.pool())
            .await?;
            let ahead_of_next = standings.get(index + 1).and_then(|next| {
                paired_difference(&games, standing.bot_version_id, next.bot_version_id)
            });
            board.push(SoloRow {
                bot_version_id: standing.bot_version_id,
                bot_name,
                version,
                standing: *standing,
                title: solo_title.map(|title| rank_title(title, standing.score.rating)),
                ahead_of_next,
            });
        }
        Ok(board)
    }

    /// Whether a game and its options can be played alone (a solo variant).
    pub fn plays_solo(&self, game: &str, options: &cairn_engine::GameOptions) -> bool {
        self.check_game(game, options, 1).is_ok()
    }
}

impl super::Store {
    /// Enters a ready bot version in every ladder of a game it plays, and
    /// plans its games if the ladder is idle. Returns the ladders joined.
    pub async fn enter_ladders(&self, bot_version_id: i64) -> Result<usize, ArenaError> {
        let joined = self
            .write(async |tx| enter_ladders_in(tx, bot_version_id).await)
            .await?;
        if joined > 0 {
            self.notify_change();
        }
        Ok(joined)
    }
}

/// [`super::Store::enter_ladders`] in a transaction (also the step that
/// readies a validated version).
pub(crate) async fn enter_ladders_in(
    tx: &mut AnyConnection,
    bot_version_id: i64,
) -> Result<usize, ArenaError> {
    let manifest: String = sqlx::query_scalar("SELECT manifest FROM bot_versions WHERE id = $1")
        .bind(bot_version_id)
        .fetch_one(&mut *tx)
        .await?;
    let manifest: crate::archive::Manifest = serde_json::from_str(&manifest)
        .map_err(|error| ArenaError::Internal(format!("stored manifest unreadable: {error}")))?;
    let ladders: Vec<(i64, String)> = sqlx::query_as(
        "SELECT id, game FROM tournaments t WHERE format = 'ladder' AND cancelled_at IS NULL AND validates IS NULL \
         AND NOT EXISTS (SELECT 1 FROM tournament_entries e WHERE e.tournament_id = t.id AND e.bot_version_id = $1) ORDER BY id",
    )
    .bind(bot_version_id)
    .fetch_all(&mut *tx)
    .await?;
    let mut joined = 0;
    for (tournament_id, game) in ladders {
        if !manifest.plays(&game) {
            continue;
        }
        sqlx::query(
            "INSERT INTO tournament_entries (tournament_id, entry_index, bot_version_id) \
             SELECT t.id, (SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = t.id), $1 \
             FROM tournaments t WHERE t.id = $2",
        )
        .bind(bot_version_id)
        .bind(tournament_id)
        .execute(&mut *tx)
        .await?;
        let stored = stored_format(tx, tournament_id).await?;
        advance(tx, tournament_id, &stored).await?;
        joined += 1;
    }
    Ok(joined)
}
