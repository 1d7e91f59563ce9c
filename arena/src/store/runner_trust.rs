//! No single runner decides what the arena cannot check (issue 30): a
//! runner reads only the bots of matches it holds; a match is given up, and
//! a version marked broken, only on the word of two runners.
//!
//! The lone runner: when no other runner is active (not revoked, seen in
//! the last [`ACTIVE_RUNNER_MS`]), no second opinion can come, and the
//! arena takes the reporting runner's word, saying so where the operator
//! and owners read the outcome (the match's failure, the version's build
//! log). A demo or a one-box arena thus still finishes its tournaments.

use sqlx::AnyConnection;

use super::accounts::Runner;
use super::Store;
use crate::error::{quoted_prefix, ArenaError};

/// How recently a runner must have called to count as able to give a
/// second opinion.
pub const ACTIVE_RUNNER_MS: i64 = 10 * 60 * 1000;

/// Whether a runner's word on a fault stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opinions {
    /// Two runners or more said it.
    Confirmed,
    /// Only this runner said it, and no other is active to ask.
    LoneRunner,
    /// Only this runner said it; another runner must say it too.
    AwaitingSecond,
}

impl Opinions {
    pub fn stands(self) -> bool {
        self != Opinions::AwaitingSecond
    }

    /// What the outcome's text adds, so the operator sees a lone word.
    pub fn note(self, runner: &Runner) -> String {
        match self {
            Opinions::LoneRunner => format!(
                " (on the word of runner `{}` alone: no other runner was active to confirm it)",
                runner.name
            ),
            _ => String::new(),
        }
    }
}

/// Records that `runner` gave `match_id` back; how the runners' word stands.
pub(crate) async fn record_give_back(
    tx: &mut AnyConnection,
    runner: &Runner,
    match_id: i64,
    now: i64,
) -> Result<Opinions, ArenaError> {
    sqlx::query("INSERT INTO give_backs (match_id, runner_id, given_at) VALUES ($1, $2, $3)")
        .bind(match_id)
        .bind(runner.id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    let runners: i64 =
        sqlx::query_scalar("SELECT COUNT(DISTINCT runner_id) FROM give_backs WHERE match_id = $1")
            .bind(match_id)
            .fetch_one(&mut *tx)
            .await?;
    opinions(tx, runner, runners, now).await
}

/// Records that `runner` could not build `bot_version_id`; how the
/// runners' word stands. A runner's second report counts once.
pub(crate) async fn record_build_failure(
    tx: &mut AnyConnection,
    runner: &Runner,
    bot_version_id: i64,
    now: i64,
) -> Result<Opinions, ArenaError> {
    sqlx::query(
        "INSERT INTO build_failure_reports (bot_version_id, runner_id, reported_at) \
         VALUES ($1, $2, $3) ON CONFLICT (bot_version_id, runner_id) DO NOTHING",
    )
    .bind(bot_version_id)
    .bind(runner.id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let runners: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM build_failure_reports WHERE bot_version_id = $1")
            .bind(bot_version_id)
            .fetch_one(&mut *tx)
            .await?;
    opinions(tx, runner, runners, now).await
}

async fn opinions(
    tx: &mut AnyConnection,
    runner: &Runner,
    runners_saying_it: i64,
    now: i64,
) -> Result<Opinions, ArenaError> {
    if runners_saying_it >= 2 {
        return Ok(Opinions::Confirmed);
    }
    let others: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM runners WHERE id <> $1 AND revoked_at IS NULL \
         AND last_seen_at IS NOT NULL AND last_seen_at >= $2",
    )
    .bind(runner.id)
    .bind(now - ACTIVE_RUNNER_MS)
    .fetch_one(&mut *tx)
    .await?;
    Ok(match others {
        0 => Opinions::LoneRunner,
        _ => Opinions::AwaitingSecond,
    })
}

/// Whether bot version `bot_version_id` has a build command: a build
/// failure of a version without one is a runner's invention.
pub(crate) async fn has_build(
    tx: &mut AnyConnection,
    bot_version_id: i64,
) -> Result<bool, ArenaError> {
    let manifest: String = sqlx::query_scalar("SELECT manifest FROM bot_versions WHERE id = $1")
        .bind(bot_version_id)
        .fetch_one(&mut *tx)
        .await?;
    let manifest: crate::archive::Manifest = serde_json::from_str(&manifest)
        .map_err(|error| ArenaError::Internal(format!("a stored manifest: {error}")))?;
    Ok(manifest.build.is_some())
}

impl Store {
    /// The archive `content_hash`, for a runner that holds a live lease on
    /// a match seating a version with it; refused otherwise, so no runner
    /// token reads every bot's source.
    pub async fn artifact_for_runner(
        &self,
        runner: &Runner,
        content_hash: &str,
    ) -> Result<Vec<u8>, ArenaError> {
        let super::Flag(held) = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM matches m \
             JOIN seats s ON s.match_id = m.id \
             JOIN bot_versions v ON v.id = s.bot_version_id \
             WHERE v.content_hash = $1 AND m.status = 'leased' \
             AND m.lease_holder = $2 AND m.lease_expires_at > $3)",
        )
        .bind(content_hash)
        .bind(runner.id)
        .bind(self.now_ms())
        .fetch_one(self.pool())
        .await?;
        if !held {
            return Err(ArenaError::PermissionDenied(format!(
                "runner `{}` holds no match seating the bot `{}`: a runner fetches only \
                 the bots of the matches it leased",
                runner.name,
                quoted_prefix(content_hash)
            )));
        }
        self.artifact(content_hash).await
    }
}

#[cfg(test)]
#[path = "runner_trust_tests.rs"]
mod tests;
