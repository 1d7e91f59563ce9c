//! No single runner decides what the arena cannot check (issue 30): a
//! runner reads only the bots of matches it holds.

use super::accounts::Runner;
use super::Store;
use crate::error::{quoted_prefix, ArenaError};

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
