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
    /// The call cannot be done in the current state (a cancelled match).
    #[error("{0}")]
    FailedPrecondition(String),
    /// A public read shed: the caller may try again after the hint.
    #[error(transparent)]
    Shed(#[from] crate::admission::Refusal),
}

/// The most characters of a caller's input an error quotes.
pub const MAX_QUOTED_CHARS: usize = 80;

/// `text` as an error quotes it: at most [`MAX_QUOTED_CHARS`] characters,
/// `...` marking a cut, so a huge input never comes back whole.
pub fn quoted_prefix(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

impl ArenaError {
    /// Whether the database failed (what `cairn_database_errors_total`
    /// counts).
    pub fn is_database(&self) -> bool {
        matches!(self, ArenaError::Database(_) | ArenaError::Migration(_))
    }

    /// Whether the database's disk is full (SQLite's `SQLITE_FULL`,
    /// PostgreSQL's `disk_full`, or the system's `ENOSPC`): the operator's
    /// trouble, which clears when space is freed, never the caller's.
    pub fn is_disk_full(&self) -> bool {
        match self {
            ArenaError::Database(sqlx::Error::Database(error)) => {
                matches!(error.code().as_deref(), Some("13" | "53100"))
                    || error.message().contains("database or disk is full")
            }
            ArenaError::Database(sqlx::Error::Io(error)) => {
                error.kind() == std::io::ErrorKind::StorageFull
            }
            _ => false,
        }
    }

    pub(crate) fn not_found(what: &'static str, id: impl ToString) -> ArenaError {
        ArenaError::NotFound {
            what,
            id: quoted_prefix(&id.to_string()),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> ArenaError {
        ArenaError::InvalidArgument(message.into())
    }

    /// What the caller is told. A failure of ours (database, migration,
    /// internal) is logged in full and reaches the caller only as "internal
    /// error": sqlx text names tables, columns and file paths.
    pub(crate) fn client_message(&self) -> String {
        match self {
            // Load, not a fault: the caller may simply try again.
            ArenaError::Database(sqlx::Error::PoolTimedOut) => {
                tracing::warn!("every database connection stayed busy past the wait");
                "the arena is busy (every database connection is in use): try again shortly"
                    .to_string()
            }
            error if error.is_disk_full() => {
                tracing::error!(error = %self, "the database's disk is full");
                "the arena's database disk is full: try again once its operator frees space"
                    .to_string()
            }
            ArenaError::Database(_) | ArenaError::Migration(_) | ArenaError::Internal(_) => {
                tracing::error!(error = %self, "internal error");
                "internal error".to_string()
            }
            _ => self.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    use super::*;

    /// Keeps the text of every event logged while it is the default subscriber.
    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<String>>>);

    struct Text<'a>(&'a mut String);

    impl Visit for Text<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.push_str(&format!("{}={value:?} ", field.name()));
        }
    }

    impl Subscriber for Recorder {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut text = format!("{} ", event.metadata().level());
            event.record(&mut Text(&mut text));
            self.0.lock().unwrap().push(text);
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    fn status_and_log(error: ArenaError) -> (tonic::Status, Vec<String>) {
        let recorder = Recorder::default();
        let status =
            tracing::subscriber::with_default(recorder.clone(), || tonic::Status::from(error));
        let log = recorder.0.lock().unwrap().clone();
        (status, log)
    }

    #[test]
    fn a_database_error_reaches_the_caller_as_internal_error_and_the_log_in_full() {
        let error = ArenaError::Database(sqlx::Error::Protocol(
            "no such table: secret_tokens in /srv/arena.db".into(),
        ));
        let (status, log) = status_and_log(error);
        assert_eq!(status.code(), tonic::Code::Internal);
        assert_eq!(status.message(), "internal error");
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(log[0].starts_with("ERROR"), "{log:?}");
        assert!(log[0].contains("no such table: secret_tokens in /srv/arena.db"));
    }

    #[test]
    fn running_out_of_database_connections_is_unavailable_and_says_to_retry() {
        let (status, log) = status_and_log(ArenaError::Database(sqlx::Error::PoolTimedOut));
        assert_eq!(status.code(), tonic::Code::Unavailable);
        assert!(
            status.message().contains("try again"),
            "{}",
            status.message()
        );
        assert_eq!(log.len(), 1, "{log:?}");
        assert!(log[0].starts_with("WARN"), "{log:?}");
    }

    #[test]
    fn a_full_disk_is_unavailable_and_names_the_operators_trouble() {
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        let (status, log) = status_and_log(ArenaError::Database(sqlx::Error::Io(full)));
        assert_eq!(status.code(), tonic::Code::Unavailable);
        assert!(
            status.message().contains("disk is full"),
            "{}",
            status.message()
        );
        assert!(log[0].starts_with("ERROR"), "{log:?}");
    }

    /// A real SQLite file that cannot grow: its error is read as a full disk.
    #[tokio::test]
    async fn sqlites_full_error_is_read_as_a_full_disk() {
        use sqlx::ConnectOptions;
        let dir = tempfile::tempdir().unwrap();
        let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(dir.path().join("full.db"))
            .create_if_missing(true)
            .connect()
            .await
            .unwrap();
        sqlx::query("PRAGMA max_page_count = 2")
            .execute(&mut connection)
            .await
            .unwrap();
        let filled = async {
            sqlx::query("CREATE TABLE t (x BLOB)")
                .execute(&mut connection)
                .await?;
            sqlx::query("INSERT INTO t VALUES (zeroblob(100000))")
                .execute(&mut connection)
                .await
        };
        let error = ArenaError::Database(filled.await.unwrap_err());
        assert!(error.is_disk_full(), "{error}");
        assert!(!ArenaError::Database(sqlx::Error::PoolTimedOut).is_disk_full());
    }

    #[test]
    fn a_refusal_keeps_its_message_and_logs_nothing() {
        let (status, log) = status_and_log(ArenaError::invalid("seats must be 2"));
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(status.message(), "seats must be 2");
        assert!(log.is_empty(), "{log:?}");
    }
}
