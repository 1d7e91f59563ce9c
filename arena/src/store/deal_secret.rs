//! The database's deal secret ([`crate::deal`]): 32 random bytes made by
//! the first store to open the database and read by every store after it,
//! so the arena processes sharing one PostgreSQL database deal alike. The
//! leases and the verification of reports derive deal seeds from it; it
//! leaves the store in nothing but those seeds.

use sqlx::AnyPool;

use super::Store;
use crate::deal::DealSecret;
use crate::error::ArenaError;

impl Store {
    /// The seed game `planned_seed` of tournament `tournament_id` is dealt
    /// from: what a lease carries and what a report is verified against.
    pub(crate) fn deal_seed(&self, tournament_id: i64, planned_seed: u64) -> u64 {
        self.deal_secret.deal_seed(tournament_id, planned_seed)
    }
}

/// The database's secret, made and stored first if it has none. Two
/// processes opening a new database at once may both make one: the first
/// insert wins, the other does nothing, and both read the winner's.
pub(super) async fn load_or_make(writer: &AnyPool) -> Result<DealSecret, ArenaError> {
    if let Some(stored) = stored(writer).await? {
        return Ok(stored);
    }
    let made = DealSecret::random()
        .map_err(|error| ArenaError::Internal(format!("no randomness for a secret: {error}")))?;
    sqlx::query("INSERT INTO deal_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING")
        .bind(made.to_hex())
        .execute(writer)
        .await?;
    stored(writer)
        .await?
        .ok_or_else(|| ArenaError::Internal("the deal secret was not stored".into()))
}

async fn stored(writer: &AnyPool) -> Result<Option<DealSecret>, ArenaError> {
    let text: Option<String> = sqlx::query_scalar("SELECT secret FROM deal_secret WHERE id = 1")
        .fetch_optional(writer)
        .await?;
    text.map(|text| {
        // Never the text itself in the error: it would be logged.
        DealSecret::from_hex(&text)
            .ok_or_else(|| ArenaError::Internal("the stored deal secret is unreadable".into()))
    })
    .transpose()
}

#[cfg(test)]
mod tests;
