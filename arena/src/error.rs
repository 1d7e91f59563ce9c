//! The arena's one error type. Every refusal a caller can cause has its own
//! variant so the gRPC layer maps it to the right status in one place
//! (`impl From<ArenaError> for tonic::Status` in [`crate::service`]).

use cairn_engine::SetupError;

use crate::archive::ArchiveError;
use crate::plan::PlanError;

/// Why an arena operation failed. Refusals leave the database unchanged.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    #[error("internal error: {0}")]
    Internal(String),
    #[error("missing or unknown {0} token")]
    Unauthenticated(&'static str),
    #[error("{0}")]
    PermissionDenied(String),
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    #[error("{0}")]
    InvalidArgument(String),
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    Quota(String),
    #[error(transparent)]
    Game(#[from] SetupError),
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error("the lease on match {match_id} has expired or passed to another runner")]
    LeaseLost { match_id: i64 },
}

impl ArenaError {
    pub(crate) fn not_found(what: &'static str, id: impl ToString) -> ArenaError {
        ArenaError::NotFound {
            what,
            id: id.to_string(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> ArenaError {
        ArenaError::InvalidArgument(message.into())
    }
}
