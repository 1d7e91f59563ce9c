//! Faults are charged to whoever made them. A host fault (the runner could
//! not fetch, unpack, sandbox or play) is not a bot's: the runner gives the
//! match back, the arena counts the attempt and queues it again, and after
//! the maximum number of attempts gives it up (failed: never rated). A
//! failed build is the bot's: its version is marked broken with the log's
//! tail, and every unfinished match seating it ends with `build_failed`
//! forfeits (see [`build_failed_score`] for the ruling). Neither outcome
//! rests on one runner's word while another could be asked
//! (see [`super::runner_trust`]).

use cairn_engine::forfeit::{
    build_failed_score, capped, EndedBy, ForfeitReason, MAX_FORFEIT_DETAIL_BYTES,
};
use sqlx::AnyConnection;

use super::accounts::Runner;
use super::recording::{result_steps_columns, write_result, NewResult, ResultSteps};
use super::results::{Forfeit, GameReport, SeatResult};
use super::runner_trust::{has_build, record_build_failure, record_give_back};
use super::{Store, WriteTransaction};
use crate::error::ArenaError;

/// Attempts a match gets before it is given up, unless configured.
pub const DEFAULT_MAX_ATTEMPTS: i64 = 3;
/// The longest build log tail or give-back reason kept (bytes).
pub const MAX_FAULT_TEXT_BYTES: usize = 4096;

/// What became of a match given back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GiveBack {
    /// Attempts made so far, this one included.
    pub attempts: i64,
    /// True when the match was given up (failed) rather than queued again.
    pub failed: bool,
}

/// The last `max` bytes of `text`, at a character boundary.
fn tail(text: &str, max: usize) -> String {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
}

impl Store {
    /// A runner gives back a match it holds because of a fault on its side.
    pub async fn give_back_match(
        &self,
        runner: &Runner,
        match_id: i64,
        generation: i64,
        reason: &str,
    ) -> Result<GiveBack, ArenaError> {
        let now = self.now_ms();
        let (attempts, failed) = self.write(async |tx| {
            let state = self.lease_state(tx, match_id).await?;
            if !state.held_by(runner, generation, now) {
                return Err(super::cancel::lease_lost(tx, match_id).await?);
            }
            let attempts: i64 = sqlx::query_scalar(
                "UPDATE matches SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts",
            )
            .bind(match_id)
            .fetch_one(&mut **tx)
            .await?;
            let opinions = record_give_back(tx, runner, match_id, now).await?;
            let failed = attempts >= self.max_attempts && opinions.stands();
            if failed {
                let failure = format!(
                    "given up after {attempts} attempts{}; last: {}",
                    opinions.note(runner),
                    tail(reason, MAX_FAULT_TEXT_BYTES)
                );
                sqlx::query("UPDATE matches SET status = 'done', failure = $1, finished_at = $2, lease_expires_at = NULL WHERE id = $3")
                    .bind(failure)
                    .bind(now)
                    .bind(match_id)
                    .execute(&mut **tx)
                    .await?;
                super::rounds::after_match_done(tx, match_id).await?;
            } else {
                requeue(tx, match_id).await?;
            }
            Ok((attempts, failed))
        }).await?;
        self.metrics.lease_given_back();
        self.notify_change();
        self.review_runner(runner).await?;
        Ok(GiveBack { attempts, failed })
    }

    /// A runner could not build a seat's bot of a match it holds: the
    /// version is marked broken with `log`'s tail, this match and every
    /// queued match seating the version end with `build_failed` forfeits.
    /// Returns how many matches ended.
    pub async fn report_build_failure(
        &self,
        runner: &Runner,
        match_id: i64,
        generation: i64,
        bot_version_id: i64,
        log: &str,
    ) -> Result<usize, ArenaError> {
        let now = self.now_ms();
        let broken = self.write(async |tx| {
            let state = self.lease_state(tx, match_id).await?;
            if !state.held_by(runner, generation, now) {
                return Err(super::cancel::lease_lost(tx, match_id).await?);
            }
            let super::Flag(seated) = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM seats WHERE match_id = $1 AND bot_version_id = $2)",
            )
            .bind(match_id)
            .bind(bot_version_id)
            .fetch_one(&mut **tx)
            .await?;
            if !seated {
                return Err(ArenaError::invalid(format!(
                    "bot version {bot_version_id} has no seat in match {match_id}"
                )));
            }
            if !has_build(tx, bot_version_id).await? {
                return Err(ArenaError::invalid(format!(
                    "bot version {bot_version_id} has no build command: it has no build to fail"
                )));
            }
            let opinions = record_build_failure(tx, runner, bot_version_id, now).await?;
            if !opinions.stands() {
                // Another runner builds it before anyone is charged.
                requeue(tx, match_id).await?;
                return Ok(None);
            }
            // The lone runner's word first, so the log's last lines stay last.
            let note = match opinions.note(runner).trim() {
                "" => String::new(),
                note => format!("{note}\n"),
            };
            let log = format!("{note}{}", tail(log, MAX_FAULT_TEXT_BYTES.saturating_sub(note.len())));
            sqlx::query("UPDATE bot_versions SET broken_at = COALESCE(broken_at, $1), build_log = $2 WHERE id = $3")
                .bind(now)
                .bind(log)
                .bind(bot_version_id)
                .execute(&mut **tx)
                .await?;
            end_with_build_failures(tx, Some(runner.id), match_id, now).await
                .map(Some)
        }).await?;
        self.notify_change();
        self.metrics.build_failed();
        let Some(ended_first) = broken else {
            return Ok(0);
        };
        self.count_ended(ended_first);
        // The version's other queued matches, one short transaction each.
        let queued: Vec<i64> = sqlx::query_scalar(
            "SELECT DISTINCT m.id FROM matches m JOIN seats s ON s.match_id = m.id \
             WHERE s.bot_version_id = $1 AND m.status = 'queued' ORDER BY m.id",
        )
        .bind(bot_version_id)
        .fetch_all(self.pool())
        .await?;
        let mut ended = 1;
        for other in queued {
            let ended_here = self
                .write(async |tx| {
                    let status: String =
                        sqlx::query_scalar("SELECT status FROM matches WHERE id = $1")
                            .bind(other)
                            .fetch_one(&mut **tx)
                            .await?;
                    if status != "queued" {
                        return Ok(None);
                    }
                    end_with_build_failures(tx, None, other, self.now_ms())
                        .await
                        .map(Some)
                })
                .await?;
            if let Some(ended_here) = ended_here {
                self.count_ended(ended_here);
                ended += 1;
            }
        }
        self.notify_change();
        Ok(ended)
    }
}

impl Store {
    /// Counts the games a match ended by a failed build recorded.
    fn count_ended(&self, ended: Ended) {
        for _ in 0..ended.games {
            let forfeits = std::iter::repeat_n(ForfeitReason::BuildFailed, ended.broken_seats);
            self.metrics.game_recorded(forfeits);
        }
    }
}

/// What ending a match with build failures recorded.
#[derive(Debug, Clone, Copy)]
struct Ended {
    games: usize,
    /// Seats that forfeited each of them.
    broken_seats: usize,
}

/// Puts a match back in the queue, its lease ended.
async fn requeue(tx: &mut AnyConnection, match_id: i64) -> Result<(), ArenaError> {
    sqlx::query("UPDATE matches SET status = 'queued', lease_holder = NULL, lease_expires_at = NULL WHERE id = $1")
        .bind(match_id)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Records every unreported game of a match as not played: broken seats
/// forfeit with `build_failed`, then the match is done (by the write of its
/// last game, as a reported game's).
async fn end_with_build_failures(
    tx: &mut WriteTransaction,
    runner_id: Option<i64>,
    match_id: i64,
    now: i64,
) -> Result<Ended, ArenaError> {
    let seats: Vec<(i64, Option<String>)> = sqlx::query_as(
        "SELECT s.bot_version_id, v.build_log FROM seats s JOIN bot_versions v ON v.id = s.bot_version_id \
         WHERE s.match_id = $1 ORDER BY s.seat",
    )
    .bind(match_id)
    .fetch_all(&mut **tx)
    .await?;
    let target: MatchTarget = sqlx::query_as(concat!(
        "SELECT t.id AS tournament_id, m.match_index, t.game, t.variant, ",
        result_steps_columns!(),
        " FROM tournaments t JOIN matches m ON m.tournament_id = t.id WHERE m.id = $1"
    ))
    .bind(match_id)
    .fetch_one(&mut **tx)
    .await?;
    let broken: Vec<bool> = seats.iter().map(|(_, log)| log.is_some()).collect();
    let score = build_failed_score(&target.game, &broken);
    let results: Vec<SeatResult> = seats
        .iter()
        .enumerate()
        .map(|(seat, (bot_version_id, log))| SeatResult {
            bot_version_id: *bot_version_id,
            score: i64::from(score.scores[seat]),
            rank: score.ranks[seat],
            forfeit: log.as_ref().map(|_| Forfeit {
                reason: ForfeitReason::BuildFailed,
                detail: capped(
                    "its build failed (`cairn bot show` has the log)".into(),
                    MAX_FORFEIT_DETAIL_BYTES,
                ),
            }),
        })
        .collect();
    let unreported: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT g.id, g.game_index FROM games g WHERE g.match_id = $1 \
         AND NOT EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id) ORDER BY g.game_index",
    )
    .bind(match_id)
    .fetch_all(&mut **tx)
    .await?;
    let ended = Ended {
        games: unreported.len(),
        broken_seats: broken.iter().filter(|&&broken| broken).count(),
    };
    for (game_id, game_index) in unreported {
        let report = GameReport {
            game_index,
            seats: results.clone(),
            replay: Vec::new(),
            stderr_tails: Vec::new(),
            ended_by: EndedBy::Forfeit,
        };
        let result = NewResult {
            game_id,
            match_id,
            match_index: target.match_index,
            tournament_id: target.tournament_id,
            board: (&target.game, &target.variant),
            steps: target.steps,
            report: &report,
            runner_id,
            now,
            // RULING (issue 36): a game no bot played is recorded
            // (standings, forfeit tallies) but never rated, for anyone: it
            // measures no strength, and a version that never played a full
            // game has no rating to show. The fit leaves these games out too.
            rated: Vec::new(),
            lease: None,
            ends_transaction: false,
        };
        write_result(tx, &result).await?;
    }
    Ok(ended)
}

/// The match a failed build ends, as its results need it.
#[derive(sqlx::FromRow)]
struct MatchTarget {
    tournament_id: i64,
    match_index: i64,
    game: String,
    variant: String,
    #[sqlx(flatten)]
    steps: ResultSteps,
}

#[cfg(test)]
mod tests;
