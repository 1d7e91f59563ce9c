//! The runner token `cairn serve` keeps for its own runner (the shared
//! runner), and runner names that outlive a revocation.
//!
//! `cairn serve --runner-token NEW` on an existing database replaces the
//! shared runner's token: the runner keeps its row (its history and
//! tallies), the old token is refused from then on. A start without a
//! token makes the shared runner once and afterwards keeps it (its token is
//! stored hashed, so it is not shown again). A revoked runner's name is
//! free again: the revoked row is renamed `NAME~revoked-ID`, its history
//! kept under that name.

use super::accounts::new_token;
use super::accounts::{check_name, check_runner_token, Runner};
use super::{token_hash, Store};
use crate::error::ArenaError;

/// The name of the runner `cairn serve` keeps for its runner token.
pub const SHARED_RUNNER: &str = "runner";

/// What became of the shared runner at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SharedRunner {
    /// It has the token given (or, with none given, the one set before).
    Kept,
    /// Its token was replaced by the one given; the old one is refused.
    Replaced,
    /// It was made, with this token (a fresh one when none was given).
    Made(String),
}

impl Store {
    /// Makes sure the shared runner `name` exists with `token`; with no
    /// token, that it exists at all (made with a fresh token if not).
    pub async fn keep_shared_runner(
        &self,
        name: &str,
        token: Option<&str>,
    ) -> Result<SharedRunner, ArenaError> {
        check_name("runner", name)?;
        let token = match token {
            Some(token) => {
                check_runner_token(token)?;
                token.to_string()
            }
            None if self.live_runner(name).await?.is_some() => return Ok(SharedRunner::Kept),
            None => new_token()?,
        };
        let hash = token_hash(&token);
        let now = self.now_ms();
        let kept = self
            .write(async |tx| {
                let holder: Option<(String, Option<i64>)> =
                    sqlx::query_as("SELECT name, revoked_at FROM runners WHERE token_hash = $1")
                        .bind(&hash)
                        .fetch_optional(&mut **tx)
                        .await?;
                match holder {
                    Some((holder, None)) if holder == name => return Ok(SharedRunner::Kept),
                    Some((holder, revoked)) => {
                        let whose = if revoked.is_some() { "a revoked" } else { "another" };
                        return Err(ArenaError::AlreadyExists(format!(
                            "this runner token belongs to {whose} runner (`{holder}`): choose another"
                        )));
                    }
                    None => {}
                }
                let replaced = sqlx::query(
                    "UPDATE runners SET token_hash = $1 WHERE name = $2 AND revoked_at IS NULL",
                )
                .bind(&hash)
                .bind(name)
                .execute(&mut **tx)
                .await?
                .rows_affected();
                if replaced > 0 {
                    return Ok(SharedRunner::Replaced);
                }
                free_revoked_name(tx, name).await?;
                sqlx::query(
                    "INSERT INTO runners (name, token_hash, created_at) VALUES ($1, $2, $3)",
                )
                .bind(name)
                .bind(&hash)
                .bind(now)
                .execute(&mut **tx)
                .await?;
                Ok(SharedRunner::Made(token.clone()))
            })
            .await?;
        if kept == SharedRunner::Replaced {
            // Token lookups trusted before now are asked again.
            self.notify_change();
        }
        Ok(kept)
    }

    async fn live_runner(&self, name: &str) -> Result<Option<Runner>, ArenaError> {
        Ok(
            sqlx::query_as("SELECT id, name FROM runners WHERE name = $1 AND revoked_at IS NULL")
                .bind(name)
                .fetch_optional(self.pool())
                .await?,
        )
    }
}

/// Renames a revoked runner called `name`, if any, to `NAME~revoked-ID`
/// (a name no runner can be given: `~` is refused), so the name can be
/// given to a new runner.
pub(crate) async fn free_revoked_name(
    tx: &mut sqlx::AnyConnection,
    name: &str,
) -> Result<(), ArenaError> {
    sqlx::query(
        "UPDATE runners SET name = name || '~revoked-' || CAST(id AS TEXT) \
         WHERE name = $1 AND revoked_at IS NOT NULL",
    )
    .bind(name)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

#[cfg(test)]
#[path = "runner_tokens_tests.rs"]
mod tests;
