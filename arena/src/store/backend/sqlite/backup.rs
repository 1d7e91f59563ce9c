//! `cairn backup`: a consistent copy of a live SQLite arena. `VACUUM INTO`
//! reads one snapshot (WAL readers never block the writer, so runners keep
//! reporting) and writes a compact database, deal secret included. The copy
//! goes to a temporary file beside the target, synced, then linked in
//! place: a backup never overwrites a file and never leaves half of one.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

use crate::error::ArenaError;

/// What a backup copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupSummary {
    pub games: i64,
    pub bytes: u64,
}

/// Copies the arena database `db` to the new file `out`.
pub async fn backup(db: &Path, out: &Path) -> Result<BackupSummary, ArenaError> {
    if !db.is_file() {
        return Err(ArenaError::InvalidArgument(format!(
            "no arena database at {}",
            db.display()
        )));
    }
    if out.exists() {
        return Err(ArenaError::AlreadyExists(format!(
            "{} exists: a backup never overwrites a file, name a new one",
            out.display()
        )));
    }
    let partial = partial_path(out)?;
    let copied = copy(db, &partial).await;
    let placed = copied.and_then(|summary| {
        // A hard link fails if `out` appeared meanwhile: no clobbering.
        std::fs::hard_link(&partial, out).map_err(|error| {
            ArenaError::FailedPrecondition(format!("cannot write {}: {error}", out.display()))
        })?;
        Ok(summary)
    });
    let _ = std::fs::remove_file(&partial);
    placed
}

/// `OUT.partial-PID` in the same folder (the same file system as `out`).
fn partial_path(out: &Path) -> Result<PathBuf, ArenaError> {
    let name = out
        .file_name()
        .ok_or_else(|| ArenaError::InvalidArgument(format!("{} names no file", out.display())))?;
    let mut partial = name.to_os_string();
    partial.push(format!(".partial-{}", std::process::id()));
    Ok(out.with_file_name(partial))
}

async fn copy(db: &Path, partial: &Path) -> Result<BackupSummary, ArenaError> {
    let target = partial.to_str().ok_or_else(|| {
        ArenaError::InvalidArgument(format!("{} is not UTF-8", partial.display()))
    })?;
    let mut connection = SqliteConnectOptions::from_str("sqlite://")?
        .filename(db)
        .read_only(true)
        .busy_timeout(Duration::from_secs(30))
        .connect()
        .await?;
    let is_arena: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('results', 'deal_secret')",
    )
    .fetch_one(&mut connection)
    .await
    .map_err(|_| not_an_arena(db))?;
    if is_arena != 2 {
        return Err(not_an_arena(db));
    }
    sqlx::query("VACUUM INTO ?")
        .bind(target)
        .execute(&mut connection)
        .await?;
    connection.close().await?;
    // The copy is on disk before it takes the backup's name.
    let file = std::fs::File::open(partial)
        .and_then(|file| file.sync_all().map(|()| file))
        .map_err(|error| ArenaError::Internal(format!("cannot sync {target}: {error}")))?;
    let bytes = file.metadata().map(|meta| meta.len()).unwrap_or(0);
    let mut copied = SqliteConnectOptions::from_str("sqlite://")?
        .filename(partial)
        .read_only(true)
        .connect()
        .await?;
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM results")
        .fetch_one(&mut copied)
        .await?;
    copied.close().await?;
    Ok(BackupSummary { games, bytes })
}

fn not_an_arena(db: &Path) -> ArenaError {
    ArenaError::InvalidArgument(format!("{} is not a cairn arena database", db.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_backup_refuses_an_existing_target_and_a_file_that_is_no_arena() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("arena.db");
        let out = dir.path().join("copy.db");
        std::fs::write(&out, b"precious").unwrap();
        std::fs::write(&db, b"").unwrap();
        let refused = backup(&db, &out).await.unwrap_err().to_string();
        assert!(refused.contains("never overwrites"), "{refused}");
        assert_eq!(std::fs::read(&out).unwrap(), b"precious");
        let fresh = dir.path().join("fresh.db");
        let refused = backup(&db, &fresh).await.unwrap_err().to_string();
        assert!(refused.contains("not a cairn arena"), "{refused}");
        assert!(!fresh.exists());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no partial file left: {names:?}");
    }
}
