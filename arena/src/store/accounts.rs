//! Owners (who submit bots and create tournaments) and runners (who play
//! matches), each known by the hash of a bearer token.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::Store;
use crate::error::ArenaError;

/// How long a runner found by its token is trusted without asking the
/// database again (see [`RunnerCache`]).
const TOKEN_TRUST: Duration = Duration::from_secs(2);

/// Runners remembered past that many are all forgotten.
const MAX_CACHED_RUNNERS: usize = 4_096;

/// What this process remembers of runners, to spare a hot call a round
/// trip: the runner each token named when last looked up, and when this
/// process last recorded each runner's sighting.
///
/// A token is trusted for [`TOKEN_TRUST`] at most, and only while no write
/// that may have revoked a runner committed since the lookup: a revocation
/// declares no snapshot it touches, so its commit bumps the read cache's
/// epoch, in this process before `revoke_runner` returns and in every
/// other process when its notification arrives. Until then another
/// process may accept the revoked token for a moment, and nothing it
/// accepts then changes anything: the revocation gave the runner's
/// matches back (its heartbeats and reports are refused as for a lost
/// lease) and a lease checks the runner in its own transaction.
#[derive(Debug, Default)]
pub(crate) struct RunnerCache {
    by_token_hash: Mutex<HashMap<String, TrustedRunner>>,
    /// The time (the store's clock) this process last wrote each runner's
    /// sighting.
    sightings: Mutex<HashMap<i64, i64>>,
}

#[derive(Debug)]
struct TrustedRunner {
    runner: Runner,
    epoch: u64,
    looked_up: Instant,
}

impl RunnerCache {
    fn trusted(&self, hash: &str, epoch: u64) -> Option<Runner> {
        let cached = lock(&self.by_token_hash);
        let trusted = cached.get(hash)?;
        (trusted.epoch == epoch && trusted.looked_up.elapsed() < TOKEN_TRUST)
            .then(|| trusted.runner.clone())
    }

    fn trust(&self, hash: String, runner: Runner, epoch: u64, looked_up: Instant) {
        let mut cached = lock(&self.by_token_hash);
        if cached.len() >= MAX_CACHED_RUNNERS {
            cached.clear();
        }
        cached.insert(
            hash,
            TrustedRunner {
                runner,
                epoch,
                looked_up,
            },
        );
    }

    /// Whether this process recorded `runner_id`'s sighting less than
    /// `fresh_ms` before `now` (and not after it: a clock set back).
    pub(crate) fn seen_within(&self, runner_id: i64, now: i64, fresh_ms: i64) -> bool {
        lock(&self.sightings)
            .get(&runner_id)
            .is_some_and(|&at| at <= now && now - at < fresh_ms)
    }

    /// Records that this process wrote `runner_id`'s sighting at `now`.
    pub(crate) fn saw(&self, runner_id: i64, now: i64) {
        let mut sightings = lock(&self.sightings);
        if sightings.len() >= MAX_CACHED_RUNNERS {
            sightings.clear();
        }
        sightings.insert(runner_id, now);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

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

/// A runner as the operator sees it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RunnerInfo {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_seen_at: Option<i64>,
    pub revoked_at: Option<i64>,
    /// Why the arena quarantined it (revoked for an outlier tally).
    pub quarantine_reason: Option<String>,
    /// Matches it holds now.
    pub leases: i64,
}

/// The shortest runner token accepted.
pub const MIN_RUNNER_TOKEN_LEN: usize = 16;

/// Refuses a runner token too short to be secret.
pub fn check_runner_token(token: &str) -> Result<(), ArenaError> {
    if token.len() < MIN_RUNNER_TOKEN_LEN {
        return Err(ArenaError::invalid(format!(
            "a runner token must be at least {MIN_RUNNER_TOKEN_LEN} characters"
        )));
    }
    Ok(())
}

/// Names of owners, runners and bots: short, printable, shell-safe.
pub(crate) fn check_name(what: &str, name: &str) -> Result<(), ArenaError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() || name.len() > 64 || !name.chars().all(allowed) {
        // Echoed at most 64 characters long: a refusal must fit in a
        // status (a 100,000-character name did not).
        let mut shown: String = name.chars().take(64).collect();
        if shown.len() < name.len() {
            shown.push('…');
        }
        return Err(ArenaError::invalid(format!(
            "{what} name `{shown}` must be 1 to 64 characters of letters, digits, `-`, `_` or `.`"
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
            "INSERT INTO owners (name, token_hash, created_at) VALUES ($1, $2, $3) RETURNING id",
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
        sqlx::query_as("SELECT id, name FROM owners WHERE token_hash = $1")
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
        check_runner_token(token)?;
        let hash = token_hash(token);
        let existing: Option<Runner> = sqlx::query_as(
            "SELECT id, name FROM runners WHERE name = $1 AND token_hash = $2 AND revoked_at IS NULL",
        )
        .bind(name)
        .bind(&hash)
        .fetch_optional(self.pool())
        .await?;
        if let Some(runner) = existing {
            return Ok(runner);
        }
        // A revoked runner's name may be given again.
        self.write(async |tx| super::runner_tokens::free_revoked_name(tx, name).await)
            .await?;
        let inserted = sqlx::query_scalar(
            "INSERT INTO runners (name, token_hash, created_at) VALUES ($1, $2, $3) RETURNING id",
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

    /// The runner a token belongs to, unless it was revoked: asked of the
    /// database once in a while, not on every call (see [`RunnerCache`]).
    pub async fn runner_by_token(&self, token: &str) -> Result<Runner, ArenaError> {
        let hash = token_hash(token);
        // The epoch before the lookup: a revocation committing meanwhile
        // makes the answer untrusted at once.
        let (epoch, looked_up) = (self.reads.epoch(), Instant::now());
        // A report asks in its first read where tokens are not cached
        // (`report_game_with_token`).
        let cached = self.backend.caches_runner_tokens();
        if let Some(runner) = cached.then(|| self.runners.trusted(&hash, epoch)).flatten() {
            return Ok(runner);
        }
        let runner: Runner = sqlx::query_as(
            "SELECT id, name FROM runners WHERE token_hash = $1 AND revoked_at IS NULL",
        )
        .bind(&hash)
        .fetch_optional(self.pool())
        .await?
        .ok_or(ArenaError::Unauthenticated("runner"))?;
        if cached {
            self.runners.trust(hash, runner.clone(), epoch, looked_up);
        }
        Ok(runner)
    }

    /// Every runner, by name, with the matches it holds.
    pub async fn list_runners(&self) -> Result<Vec<RunnerInfo>, ArenaError> {
        Ok(sqlx::query_as(
            "SELECT r.id, r.name, r.created_at, r.last_seen_at, r.revoked_at, r.quarantine_reason, \
             (SELECT COUNT(*) FROM matches m WHERE m.lease_holder = r.id AND m.status = 'leased') AS leases \
             FROM runners r ORDER BY r.name",
        )
        .fetch_all(self.pool())
        .await?)
    }

    /// Revokes a runner: its token is refused from the next call on, and
    /// the matches it holds go back to the queue (its reports for them will
    /// be refused). Revoking twice is a no-op; returns the matches requeued.
    pub async fn revoke_runner(&self, name: &str) -> Result<u64, ArenaError> {
        let now = self.now_ms();
        let requeued = self.write(async |tx| {
            let id: Option<i64> = sqlx::query_scalar("SELECT id FROM runners WHERE name = $1")
                .bind(name)
                .fetch_optional(&mut **tx)
                .await?;
            let id = id.ok_or_else(|| ArenaError::not_found("runner", name))?;
            sqlx::query("UPDATE runners SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2")
                .bind(now)
                .bind(id)
                .execute(&mut **tx)
                .await?;
            let requeued = sqlx::query(
                "UPDATE matches SET status = 'queued', lease_holder = NULL, lease_expires_at = NULL \
                 WHERE lease_holder = $1 AND status = 'leased'",
            )
            .bind(id)
            .execute(&mut **tx)
            .await?
            .rows_affected();
            Ok(requeued)
        }).await?;
        self.notify_change();
        Ok(requeued)
    }
}

/// A fresh bearer token: 32 random bytes in hex.
pub(crate) fn new_token() -> Result<String, ArenaError> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|error| ArenaError::Internal(format!("no randomness for a token: {error}")))?;
    Ok(hex::encode(bytes))
}

/// What the database keeps of a token.
pub(crate) fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn a_refused_name_is_echoed_short() {
        let refused = check_name("owner", &"é".repeat(100_000))
            .unwrap_err()
            .to_string();
        assert!(refused.len() < 400, "{} bytes", refused.len());
        assert!(
            refused.contains('…') && refused.contains("1 to 64"),
            "{refused}"
        );
        assert!(check_name("owner", "ada-1.x_y").is_ok());
    }
}
