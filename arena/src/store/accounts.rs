//! Owners (who submit bots and create tournaments) and runners (who play
//! matches), each known by the hash of a bearer token.

use super::{new_token, token_hash, Store};
use crate::error::ArenaError;

/// Someone who owns bots.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Owner {
    pub id: i64,
    pub name: String,
}

/// A machine allowed to lease and play matches.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Runner {
    pub id: i64,
    pub name: String,
}

/// Names of owners, runners and bots: short, printable, shell-safe.
pub(crate) fn check_name(what: &str, name: &str) -> Result<(), ArenaError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() || name.len() > 64 || !name.chars().all(allowed) {
        return Err(ArenaError::invalid(format!(
            "{what} name `{name}` must be 1 to 64 characters of letters, digits, `-`, `_` or `.`"
        )));
    }
    Ok(())
}

fn unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.is_unique_violation())
}

impl Store {
    /// Registers an owner; the token is returned once and never stored.
    pub async fn register_owner(&self, name: &str) -> Result<(Owner, String), ArenaError> {
        check_name("owner", name)?;
        let token = new_token()?;
        let inserted = sqlx::query_scalar(
            "INSERT INTO owners (name, token_hash, created_at) VALUES (?, ?, ?) RETURNING id",
        )
        .bind(name)
        .bind(token_hash(&token))
        .bind(self.now_ms())
        .fetch_one(self.pool())
        .await;
        match inserted {
            Ok(id) => Ok((
                Owner {
                    id,
                    name: name.to_string(),
                },
                token,
            )),
            Err(error) if unique_violation(&error) => Err(ArenaError::AlreadyExists(format!(
                "owner `{name}` already exists"
            ))),
            Err(error) => Err(error.into()),
        }
    }

    /// The owner a token belongs to.
    pub async fn owner_by_token(&self, token: &str) -> Result<Owner, ArenaError> {
        sqlx::query_as("SELECT id, name FROM owners WHERE token_hash = ?")
            .bind(token_hash(token))
            .fetch_optional(self.pool())
            .await?
            .ok_or(ArenaError::Unauthenticated("owner"))
    }

    /// Registers a runner with a fresh token.
    pub async fn register_runner(&self, name: &str) -> Result<(Runner, String), ArenaError> {
        let token = new_token()?;
        let runner = self.register_runner_with_token(name, &token).await?;
        Ok((runner, token))
    }

    /// Registers a runner with a token chosen by the operator (e.g. given
    /// to `cairn serve` on the command line); registering the same name and
    /// token again is a no-op.
    pub async fn register_runner_with_token(
        &self,
        name: &str,
        token: &str,
    ) -> Result<Runner, ArenaError> {
        check_name("runner", name)?;
        if token.len() < 16 {
            return Err(ArenaError::invalid(
                "a runner token must be at least 16 characters",
            ));
        }
        let hash = token_hash(token);
        let existing: Option<Runner> =
            sqlx::query_as("SELECT id, name FROM runners WHERE name = ? AND token_hash = ?")
                .bind(name)
                .bind(&hash)
                .fetch_optional(self.pool())
                .await?;
        if let Some(runner) = existing {
            return Ok(runner);
        }
        let inserted = sqlx::query_scalar(
            "INSERT INTO runners (name, token_hash, created_at) VALUES (?, ?, ?) RETURNING id",
        )
        .bind(name)
        .bind(hash)
        .bind(self.now_ms())
        .fetch_one(self.pool())
        .await;
        match inserted {
            Ok(id) => Ok(Runner {
                id,
                name: name.to_string(),
            }),
            Err(error) if unique_violation(&error) => Err(ArenaError::AlreadyExists(format!(
                "runner `{name}` or its token already exists"
            ))),
            Err(error) => Err(error.into()),
        }
    }

    /// The runner a token belongs to.
    pub async fn runner_by_token(&self, token: &str) -> Result<Runner, ArenaError> {
        sqlx::query_as("SELECT id, name FROM runners WHERE token_hash = ?")
            .bind(token_hash(token))
            .fetch_optional(self.pool())
            .await?
            .ok_or(ArenaError::Unauthenticated("runner"))
    }
}
