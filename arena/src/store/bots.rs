//! Bots, their versions and the archives behind them. A bot belongs to the
//! owner who first submitted it; only that owner adds versions or deletes it.

use sqlx::AnyConnection;

use super::accounts::{check_name, Owner};
use super::validation::{Validation, ValidationState};
use super::{Page, PageOf, Store};
use crate::archive::{check_archive, CheckedArchive, Manifest};
use crate::error::ArenaError;

/// A bot, with a summary of its versions.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BotSummary {
    pub id: i64,
    pub name: String,
    pub owner: String,
    pub n_versions: i64,
    pub latest_version: i64,
    #[sqlx(try_from = "super::Flag")]
    pub deleted: bool,
}

/// One submitted version of a bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotVersion {
    pub id: i64,
    pub bot_name: String,
    pub owner: String,
    pub version: i64,
    pub content_hash: String,
    pub manifest: Manifest,
    pub size_bytes: i64,
    pub created_at: i64,
    /// Set when a runner's build of this version failed: the log's tail.
    pub build_log: Option<String>,
    /// Whether it passed its validation games (see `validation.rs`).
    pub validation: ValidationState,
}

/// The answer to a submission: the version, and whether it is new (the
/// same contents submitted again return the existing version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmittedVersion {
    pub version: BotVersion,
    pub created: bool,
}

#[derive(sqlx::FromRow)]
struct VersionRow {
    id: i64,
    bot_name: String,
    owner: String,
    version: i64,
    content_hash: String,
    manifest: String,
    size_bytes: i64,
    created_at: i64,
    build_log: Option<String>,
    validation: String,
    validation_failure: Option<String>,
}

const VERSION_SELECT: &str = "SELECT v.id, b.name AS bot_name, o.name AS owner, v.version, v.content_hash, v.manifest, a.size_bytes, v.created_at, v.build_log, \
     v.validation, v.validation_failure \
     FROM bot_versions v JOIN bots b ON b.id = v.bot_id JOIN owners o ON o.id = b.owner_id JOIN artifacts a ON a.content_hash = v.content_hash";

impl VersionRow {
    fn into_version(self) -> Result<BotVersion, ArenaError> {
        let manifest = serde_json::from_str(&self.manifest).map_err(|error| {
            ArenaError::Internal(format!("stored manifest unreadable: {error}"))
        })?;
        Ok(BotVersion {
            id: self.id,
            bot_name: self.bot_name,
            owner: self.owner,
            version: self.version,
            content_hash: self.content_hash,
            manifest,
            size_bytes: self.size_bytes,
            created_at: self.created_at,
            build_log: self.build_log,
            validation: super::validation::stored_state(
                &self.validation,
                self.validation_failure.as_deref(),
            )?,
        })
    }
}

/// Checks a submitted archive (as a runner will unpack it) and its bot's
/// name. Unpacking a large archive takes long enough to hold up every
/// other call on a runtime thread: it runs on one of the caller's
/// runtime's blocking threads.
pub(crate) async fn check_submitted_archive(archive: &[u8]) -> Result<CheckedArchive, ArenaError> {
    let bytes = archive.to_vec();
    let checked = tokio::task::spawn_blocking(move || check_archive(&bytes))
        .await
        .map_err(|error| ArenaError::Internal(format!("archive check: {error}")))??;
    check_name("bot", &checked.manifest.name)?;
    Ok(checked)
}

impl Store {
    /// Checks and stores a bot archive as a new version of the bot its
    /// manifest names, creating the bot for `owner` if it is new.
    pub async fn submit_bot_version(
        &self,
        owner: &Owner,
        archive: &[u8],
    ) -> Result<SubmittedVersion, ArenaError> {
        let checked = check_submitted_archive(archive).await?;
        self.submit_checked_bot_version(owner, archive, &checked)
            .await
    }

    /// [`Store::submit_bot_version`] for an archive that
    /// [`check_submitted_archive`] passed.
    pub(crate) async fn submit_checked_bot_version(
        &self,
        owner: &Owner,
        archive: &[u8],
        checked: &CheckedArchive,
    ) -> Result<SubmittedVersion, ArenaError> {
        let (version_id, created) = self
            .write(async |tx| {
                let bot_id = self
                    .bot_for_submission(tx, owner, &checked.manifest.name)
                    .await?;
                let existing: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM bot_versions WHERE bot_id = $1 AND content_hash = $2",
                )
                .bind(bot_id)
                .bind(&checked.content_hash)
                .fetch_optional(&mut **tx)
                .await?;
                let (version_id, created) = match existing {
                    Some(id) => {
                        self.revalidate_after_host_fault(tx, id, checked).await?;
                        (id, false)
                    }
                    None => {
                        let archive_size = (checked.content_hash.as_str(), archive.len() as i64);
                        self.check_version_quota(tx, owner, bot_id, archive_size)
                            .await?;
                        let id = self.insert_version(tx, bot_id, archive, checked).await?;
                        if self.validation == Validation::On {
                            super::validation::start(tx, id, &checked.manifest, self.now_ms())
                                .await?;
                        }
                        (id, true)
                    }
                };
                Ok((version_id, created))
            })
            .await?;
        Ok(SubmittedVersion {
            version: self.bot_version(version_id).await?,
            created,
        })
    }

    /// Submitting again the contents of a version whose validation the
    /// host could not play starts its validation afresh.
    async fn revalidate_after_host_fault(
        &self,
        tx: &mut AnyConnection,
        version_id: i64,
        checked: &CheckedArchive,
    ) -> Result<(), ArenaError> {
        let failure: Option<String> = sqlx::query_scalar(
            "SELECT validation_failure FROM bot_versions WHERE id = $1 AND validation = 'failed'",
        )
        .bind(version_id)
        .fetch_optional(&mut *tx)
        .await?
        .flatten();
        let host_fault = failure
            .and_then(|text| serde_json::from_str::<super::ValidationFailure>(&text).ok())
            .is_some_and(|failure| failure.reason == super::validation::HOST_FAULT);
        if host_fault && self.validation == Validation::On {
            super::validation::start(tx, version_id, &checked.manifest, self.now_ms()).await?;
        }
        Ok(())
    }

    /// The bot's id, creating it for `owner` if new; refuses another owner's bot.
    /// RULING (ours): the owner submitting to their deleted bot brings it
    /// back, within the bot quota as a new bot would be.
    async fn bot_for_submission(
        &self,
        tx: &mut AnyConnection,
        owner: &Owner,
        name: &str,
    ) -> Result<i64, ArenaError> {
        let found: Option<(i64, i64, super::Flag)> =
            sqlx::query_as("SELECT id, owner_id, deleted_at IS NOT NULL FROM bots WHERE name = $1")
                .bind(name)
                .fetch_optional(&mut *tx)
                .await?;
        match found {
            Some((_, owner_id, _)) if owner_id != owner.id => Err(ArenaError::PermissionDenied(
                format!("bot `{name}` belongs to another owner"),
            )),
            Some((bot_id, _, super::Flag(deleted))) if !deleted => Ok(bot_id),
            Some((bot_id, _, _)) => {
                self.check_bot_quota(&mut *tx, owner).await?;
                sqlx::query("UPDATE bots SET deleted_at = NULL WHERE id = $1")
                    .bind(bot_id)
                    .execute(&mut *tx)
                    .await?;
                Ok(bot_id)
            }
            None => {
                self.check_bot_quota(&mut *tx, owner).await?;
                Ok(sqlx::query_scalar(
                    "INSERT INTO bots (owner_id, name, created_at) VALUES ($1, $2, $3) RETURNING id",
                )
                .bind(owner.id)
                .bind(name)
                .bind(self.now_ms())
                .fetch_one(&mut *tx)
                .await?)
            }
        }
    }

    async fn insert_version(
        &self,
        tx: &mut AnyConnection,
        bot_id: i64,
        archive: &[u8],
        checked: &CheckedArchive,
    ) -> Result<i64, ArenaError> {
        // Two bots may ship the same folder: the archive is stored once.
        sqlx::query("INSERT INTO artifacts (content_hash, size_bytes, data, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (content_hash) DO NOTHING")
            .bind(&checked.content_hash)
            .bind(archive.len() as i64)
            .bind(archive)
            .bind(self.now_ms())
            .execute(&mut *tx)
            .await?;
        let manifest = serde_json::to_string(&checked.manifest)
            .map_err(|error| ArenaError::Internal(error.to_string()))?;
        let id = sqlx::query_scalar(
            "INSERT INTO bot_versions (bot_id, version, content_hash, manifest, created_at) \
             VALUES ($1, (SELECT COALESCE(MAX(version), 0) + 1 FROM bot_versions WHERE bot_id = $2), $3, $4, $5) RETURNING id",
        )
        .bind(bot_id)
        .bind(bot_id)
        .bind(&checked.content_hash)
        .bind(manifest)
        .bind(self.now_ms())
        .fetch_one(&mut *tx)
        .await?;
        Ok(id)
    }

    /// Every bot, by name.
    pub async fn list_bots(&self, page: &Page<String>) -> Result<PageOf<BotSummary>, ArenaError> {
        let rows: Vec<BotSummary> = sqlx::query_as(
            "SELECT b.id, b.name, o.name AS owner, COUNT(v.id) AS n_versions, COALESCE(MAX(v.version), 0) AS latest_version, \
             b.deleted_at IS NOT NULL AS deleted \
             FROM bots b JOIN owners o ON o.id = b.owner_id LEFT JOIN bot_versions v ON v.bot_id = b.id \
             WHERE b.name > $1 GROUP BY b.id, o.name ORDER BY b.name LIMIT $2",
        )
        .bind(page.after.as_deref().unwrap_or(""))
        .bind(page.limit())
        .fetch_all(self.pool())
        .await?;
        Ok(page.finish(rows, |bot| bot.name.clone()))
    }

    /// One bot's summary, by name.
    pub async fn bot_summary(&self, name: &str) -> Result<BotSummary, ArenaError> {
        let row: Option<BotSummary> = sqlx::query_as(
            "SELECT b.id, b.name, o.name AS owner, COUNT(v.id) AS n_versions, COALESCE(MAX(v.version), 0) AS latest_version, \
             b.deleted_at IS NOT NULL AS deleted \
             FROM bots b JOIN owners o ON o.id = b.owner_id LEFT JOIN bot_versions v ON v.bot_id = b.id \
             WHERE b.name = $1 GROUP BY b.id, o.name",
        )
        .bind(name)
        .fetch_optional(self.pool())
        .await?;
        row.ok_or_else(|| ArenaError::not_found("bot", name))
    }

    /// One version by id.
    pub async fn bot_version(&self, version_id: i64) -> Result<BotVersion, ArenaError> {
        let sql = format!("{VERSION_SELECT} WHERE v.id = $1");
        let row: Option<VersionRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(version_id)
            .fetch_optional(self.pool())
            .await?;
        row.ok_or_else(|| ArenaError::not_found("bot version", version_id))?
            .into_version()
    }

    /// Every version of a bot, oldest first.
    pub async fn bot_versions(&self, bot_name: &str) -> Result<Vec<BotVersion>, ArenaError> {
        let sql = format!("{VERSION_SELECT} WHERE b.name = $1 ORDER BY v.version");
        let rows: Vec<VersionRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(bot_name)
            .fetch_all(self.pool())
            .await?;
        if rows.is_empty() {
            return Err(ArenaError::not_found("bot", bot_name));
        }
        rows.into_iter().map(VersionRow::into_version).collect()
    }

    /// Resolves `name` (its latest version) or `name@N` (version N) to a version.
    pub async fn resolve_bot_version(&self, reference: &str) -> Result<BotVersion, ArenaError> {
        let (name, wanted) = match reference.split_once('@') {
            Some((name, number)) => {
                let number: i64 = number.parse().map_err(|_| {
                    ArenaError::invalid(format!("`{reference}` is not `bot` or `bot@version`"))
                })?;
                (name, Some(number))
            }
            None => (reference, None),
        };
        let versions = self.bot_versions(name).await?;
        let found = match wanted {
            Some(number) => versions
                .into_iter()
                .find(|version| version.version == number),
            None => versions.into_iter().last(),
        };
        found.ok_or_else(|| ArenaError::not_found("bot version", reference))
    }

    /// Marks a bot deleted: it keeps its history but joins no new tournament.
    ///
    /// RULING (ours): the tournaments it is in already are not changed
    /// under the other entries: a round robin, a gauntlet, a Swiss or a
    /// knockout plays its field out (their length was known when they were
    /// created; its archive stays, so every planned match can be played and
    /// no bracket waits for a match that never comes). A ladder, open ended,
    /// schedules its versions no more (the matches already queued are
    /// played); the owner who wants it gone at once cancels the tournament.
    pub async fn delete_bot(&self, owner: &Owner, bot_name: &str) -> Result<(), ArenaError> {
        self.write(async |tx| {
            let found: Option<i64> =
                sqlx::query_scalar("SELECT owner_id FROM bots WHERE name = $1")
                    .bind(bot_name)
                    .fetch_optional(&mut **tx)
                    .await?;
            match found {
                None => return Err(ArenaError::not_found("bot", bot_name)),
                Some(owner_id) if owner_id != owner.id => {
                    return Err(ArenaError::PermissionDenied(format!(
                        "bot `{bot_name}` belongs to another owner"
                    )));
                }
                Some(_) => {}
            }
            sqlx::query("UPDATE bots SET deleted_at = COALESCE(deleted_at, $1) WHERE name = $2")
                .bind(self.now_ms())
                .bind(bot_name)
                .execute(&mut **tx)
                .await?;
            Ok(())
        })
        .await?;
        Ok(())
    }

    /// Whether a bot has been deleted.
    pub(crate) async fn bot_is_deleted(&self, bot_name: &str) -> Result<bool, ArenaError> {
        let deleted: Option<super::Flag> =
            sqlx::query_scalar("SELECT deleted_at IS NOT NULL FROM bots WHERE name = $1")
                .bind(bot_name)
                .fetch_optional(self.pool())
                .await?;
        deleted
            .map(bool::from)
            .ok_or_else(|| ArenaError::not_found("bot", bot_name))
    }

    /// The archive with this content hash.
    pub async fn artifact(&self, content_hash: &str) -> Result<Vec<u8>, ArenaError> {
        sqlx::query_scalar("SELECT data FROM artifacts WHERE content_hash = $1")
            .bind(content_hash)
            .fetch_optional(self.pool())
            .await?
            .ok_or_else(|| ArenaError::not_found("artifact", content_hash))
    }
}
