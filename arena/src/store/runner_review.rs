//! Runners watched against each other (issue 30): forfeits a replay cannot
//! prove (a timeout, a crash, an exit, a start that failed: only the runner
//! saw them) and give-backs are tallied per runner; one whose rate is an
//! outlier against the other runners' — on the same bots, for forfeits — by
//! a chi-square test of the 2×2 table, as fishtest flags workers, is
//! quarantined: revoked, with the figures as the reason `cairn runners
//! list` shows.

use cairn_engine::forfeit::ForfeitReason;

use super::accounts::Runner;
use super::Store;
use crate::error::ArenaError;

/// Chi-square with one degree of freedom at p = 0.001: a false alarm in a
/// thousand honest runners' reviews.
pub const CHI_SQUARE_LIMIT: f64 = 10.83;
/// Counts below which no rate is judged (too few to tell).
pub const MIN_COUNTED: i64 = 30;

/// Whether the replay cannot prove a forfeit for `reason`.
pub fn unprovable(reason: ForfeitReason) -> bool {
    !matches!(
        reason,
        ForfeitReason::IllegalAction | ForfeitReason::BuildFailed
    )
}

/// Events out of trials, for one runner or for the others together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub events: i64,
    pub trials: i64,
}

impl Tally {
    fn rate(self) -> f64 {
        self.events as f64 / self.trials.max(1) as f64
    }
}

/// Pearson's chi-square of the 2×2 table (mine and others' events and
/// non-events); 0 when a row or column is empty.
pub fn chi_square(mine: Tally, others: Tally) -> f64 {
    let [a, b] = [mine.events, mine.trials - mine.events].map(|n| n as f64);
    let [c, d] = [others.events, others.trials - others.events].map(|n| n as f64);
    let n = a + b + c + d;
    let margins = (a + b) * (c + d) * (a + c) * (b + d);
    match margins > 0.0 {
        true => n * (a * d - b * c).powi(2) / margins,
        false => 0.0,
    }
}

/// Why `mine` is an outlier above `others`, `None` when it is not.
pub fn outlier(what: &str, mine: Tally, others: Tally) -> Option<String> {
    if mine.trials < MIN_COUNTED || others.trials < MIN_COUNTED || mine.rate() <= others.rate() {
        return None;
    }
    let chi = chi_square(mine, others);
    (chi > CHI_SQUARE_LIMIT).then(|| {
        format!(
            "{what} {}/{} ({:.1}%) against {}/{} ({:.1}%) by the other runners: \
             chi-square {chi:.1} > {CHI_SQUARE_LIMIT}",
            mine.events,
            mine.trials,
            100.0 * mine.rate(),
            others.events,
            others.trials,
            100.0 * others.rate()
        )
    })
}

/// How often at most a runner is reviewed after its reports.
pub const REVIEW_EVERY_MS: i64 = 10_000;

/// When each runner was last reviewed after a report (reviews read every
/// result of its bots: not one per game).
#[derive(Debug, Default)]
pub(crate) struct ReviewTimes(std::sync::Mutex<std::collections::HashMap<i64, i64>>);

impl ReviewTimes {
    /// Whether `runner_id` is due at `now`, marking it reviewed if so.
    fn due(&self, runner_id: i64, now: i64) -> bool {
        let mut times = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        let last = times.entry(runner_id).or_insert(i64::MIN);
        let due = now.saturating_sub(*last) >= REVIEW_EVERY_MS;
        if due {
            *last = now;
        }
        due
    }
}

impl Store {
    /// Reviews `runner` after a recorded game that holds a forfeit only it
    /// saw, at most every [`REVIEW_EVERY_MS`].
    pub(crate) async fn review_after_report(
        &self,
        runner: &Runner,
        report: &super::results::GameReport,
    ) -> Result<(), ArenaError> {
        let unseen = report
            .seats
            .iter()
            .any(|seat| seat.forfeit.as_ref().is_some_and(|f| unprovable(f.reason)));
        if unseen && self.reviews.due(runner.id, self.now_ms()) {
            self.review_runner(runner).await?;
        }
        Ok(())
    }

    /// Reviews `runner`'s tallies; quarantines it when one is an outlier.
    /// Returns the reason when it was quarantined now.
    pub async fn review_runner(&self, runner: &Runner) -> Result<Option<String>, ArenaError> {
        let forfeits = self.forfeit_tallies(runner).await?;
        let give_backs = self.give_back_tallies(runner).await?;
        let reason = outlier(
            "unprovable forfeits on the same bots:",
            forfeits.0,
            forfeits.1,
        )
        .or_else(|| outlier("give-backs per match:", give_backs.0, give_backs.1));
        let Some(reason) = reason else {
            return Ok(None);
        };
        tracing::warn!(runner = %runner.name, "runner quarantined: {reason}");
        self.revoke_runner(&runner.name).await?;
        sqlx::query("UPDATE runners SET quarantine_reason = $1 WHERE id = $2")
            .bind(&reason)
            .bind(runner.id)
            .execute(self.pool())
            .await?;
        Ok(Some(reason))
    }

    /// Unprovable forfeits out of seat-games: `runner`'s, and the other
    /// runners' on the bot versions `runner` played.
    async fn forfeit_tallies(&self, runner: &Runner) -> Result<(Tally, Tally), ArenaError> {
        let unprovable: Vec<String> = ForfeitReason::ALL
            .iter()
            .filter(|reason| unprovable(**reason))
            .map(|reason| format!("'{}'", reason.as_str()))
            .collect();
        // Built only from the engine's fixed reason names.
        let query = format!(
            "SELECT CAST(CASE WHEN r.runner_id = $1 THEN 1 ELSE 0 END AS BIGINT) AS mine, \
             CAST(SUM(CASE WHEN s.forfeit_reason IN ({}) THEN 1 ELSE 0 END) AS BIGINT), COUNT(*) \
             FROM results r JOIN result_seats s ON s.game_id = r.game_id \
             WHERE r.runner_id IS NOT NULL AND s.bot_version_id IN \
             (SELECT s2.bot_version_id FROM results r2 \
              JOIN result_seats s2 ON s2.game_id = r2.game_id WHERE r2.runner_id = $1) \
             GROUP BY CASE WHEN r.runner_id = $1 THEN 1 ELSE 0 END",
            unprovable.join(", ")
        );
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(query))
            .bind(runner.id)
            .fetch_all(self.pool())
            .await?;
        Ok(split(&rows))
    }

    /// Give-backs out of matches taken (given back or reported).
    async fn give_back_tallies(&self, runner: &Runner) -> Result<(Tally, Tally), ArenaError> {
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT mine, CAST(SUM(given) AS BIGINT), CAST(SUM(given) + SUM(done) AS BIGINT) FROM ( \
               SELECT CAST(CASE WHEN runner_id = $1 THEN 1 ELSE 0 END AS BIGINT) AS mine, \
                      COUNT(*) AS given, 0 AS done FROM give_backs GROUP BY 1 \
               UNION ALL \
               SELECT CAST(CASE WHEN runner_id = $1 THEN 1 ELSE 0 END AS BIGINT) AS mine, \
                      0 AS given, COUNT(DISTINCT g.match_id) AS done \
               FROM results r JOIN games g ON g.id = r.game_id \
               WHERE runner_id IS NOT NULL GROUP BY 1 \
             ) t GROUP BY mine",
        )
        .bind(runner.id)
        .fetch_all(self.pool())
        .await?;
        Ok(split(&rows))
    }
}

/// Rows `(mine, events, trials)` as `runner`'s tally and the others'.
fn split(rows: &[(i64, i64, i64)]) -> (Tally, Tally) {
    let tally = |mine: i64| {
        rows.iter().find(|row| row.0 == mine).map_or(
            Tally {
                events: 0,
                trials: 0,
            },
            |row| Tally {
                events: row.1,
                trials: row.2,
            },
        )
    };
    (tally(1), tally(0))
}

#[cfg(test)]
#[path = "runner_review_tests.rs"]
mod tests;
