//! Bot artifacts on the runner's disk, by content hash: fetched (streamed)
//! once, unpacked with the arena's own archive checks, built once, then
//! reused by every match that seats the same bot version.
//!
//! A bot folder appears under its final name only when it is complete and
//! built (unpacked and built in a private folder, then renamed), so runners
//! sharing one cache, or a runner killed half way, never see half a bot.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairn_proto::archive::{unpack_archive, MAX_ARCHIVE_BYTES};
use cairn_proto::arena::v1 as pb;
use tokio::sync::Mutex;

use super::client::{ArenaConnection, RemoteError};
use crate::bot_folder::{BotManifest, PreparedBot};
use crate::build::{BuildError, Builder};
use crate::launch::LaunchSpec;
use crate::referee::BotEntry;

/// The artifact cache: one folder per content hash.
#[derive(Debug)]
pub struct ArtifactCache {
    root: PathBuf,
    /// How builds run: sandboxed unless the runner runs with `--no-sandbox`.
    builder: Builder,
    /// One fetch-and-build at a time per bot in this process, so two
    /// workers that need the same new bot do not both build it, and one
    /// slow build holds up no other bot's.
    preparing: std::sync::Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

impl ArtifactCache {
    pub fn new(root: PathBuf, builder: Builder) -> ArtifactCache {
        ArtifactCache {
            root,
            builder,
            preparing: std::sync::Mutex::default(),
        }
    }

    /// The folder of a ready bot, fetching and building it if needed.
    pub async fn bot_folder(
        &self,
        connection: &ArenaConnection,
        seat: &pb::LeasedSeat,
    ) -> Result<PathBuf, RemoteError> {
        let hash = checked_hash(&seat.content_hash)?;
        let folder = self.root.join(&hash);
        if folder.is_dir() {
            return Ok(folder);
        }
        let this_bot = Arc::clone(
            self.preparing
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .entry(hash.clone())
                .or_default(),
        );
        let _preparing = this_bot.lock().await;
        if folder.is_dir() {
            return Ok(folder);
        }
        let archive = fetch(connection, &hash).await?;
        let root = self.root.clone();
        let manifest = seat.manifest.clone().unwrap_or_default();
        let builder = self.builder;
        tokio::task::spawn_blocking(move || {
            unpack_and_build(&root, &hash, &archive, &manifest, &builder)
        })
        .await
        .map_err(|error| RemoteError::Task(error.to_string()))??;
        Ok(folder)
    }
}

/// A content hash is 64 lowercase hex digits; anything else is refused
/// before it becomes a path.
fn checked_hash(hash: &str) -> Result<String, RemoteError> {
    if hash.len() == 64
        && hash
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    {
        Ok(hash.to_string())
    } else {
        Err(RemoteError::Artifact {
            hash: hash.to_string(),
            detail: "not a sha-256 content hash".into(),
        })
    }
}

/// Streams an artifact into memory, refusing more than an archive may hold.
async fn fetch(connection: &ArenaConnection, hash: &str) -> Result<Vec<u8>, RemoteError> {
    let request = connection.authorized(pb::FetchArtifactRequest {
        content_hash: hash.to_string(),
    });
    let mut stream = connection
        .client()
        .fetch_artifact(request)
        .await?
        .into_inner();
    let mut archive = Vec::new();
    while let Some(chunk) = stream.message().await? {
        archive.extend_from_slice(&chunk.data);
        if archive.len() > MAX_ARCHIVE_BYTES {
            return Err(RemoteError::Artifact {
                hash: hash.to_string(),
                detail: format!("larger than {MAX_ARCHIVE_BYTES} bytes"),
            });
        }
    }
    Ok(archive)
}

fn unpack_and_build(
    root: &Path,
    hash: &str,
    archive: &[u8],
    manifest: &pb::BotManifest,
    builder: &Builder,
) -> Result<(), RemoteError> {
    std::fs::create_dir_all(root).map_err(|source| RemoteError::WorkFolder {
        path: root.display().to_string(),
        source,
    })?;
    let staging = root.join(format!(".{hash}.{}.partial", std::process::id()));
    let built = build_in(&staging, root, hash, archive, manifest, builder);
    // Whatever happened, nothing half made stays in the cache.
    if staging.exists() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    built
}

/// Unpacks and builds in `staging`, then renames it into place.
fn build_in(
    staging: &Path,
    root: &Path,
    hash: &str,
    archive: &[u8],
    manifest: &pb::BotManifest,
    builder: &Builder,
) -> Result<(), RemoteError> {
    if staging.exists() {
        std::fs::remove_dir_all(staging).map_err(|source| RemoteError::WorkFolder {
            path: staging.display().to_string(),
            source,
        })?;
    }
    let artifact_error = |detail: String| RemoteError::Artifact {
        hash: hash.to_string(),
        detail,
    };
    let unpacked =
        unpack_archive(archive, staging).map_err(|error| artifact_error(error.to_string()))?;
    // The hash names what we asked for: a mismatch is a corrupt or wrong artifact.
    if unpacked.content_hash != hash {
        return Err(artifact_error(format!(
            "unpacks to content hash {}",
            unpacked.content_hash
        )));
    }
    let bot = prepared_bot(staging, manifest);
    bot.build_in_place(builder)
        .map_err(|error| build_error(hash, error))?;
    let folder = root.join(hash);
    match std::fs::rename(staging, &folder) {
        Ok(()) => Ok(()),
        // Another runner on this cache finished first: theirs is as good.
        Err(_) if folder.is_dir() => Ok(()),
        Err(source) => Err(RemoteError::WorkFolder {
            path: folder.display().to_string(),
            source,
        }),
    }
}

/// Whose fault a failed build is: the bot's when its build command ran and
/// failed, the host's otherwise.
fn build_error(hash: &str, error: BuildError) -> RemoteError {
    match error {
        BuildError::Failed { detail, log_tail } => RemoteError::BuildFailed {
            hash: hash.to_string(),
            log: if log_tail.is_empty() {
                detail
            } else {
                format!("{detail}\n{log_tail}")
            },
        },
        BuildError::Host(detail) => RemoteError::Artifact {
            hash: hash.to_string(),
            detail: format!("the build could not be run on this host: {detail}"),
        },
    }
}

/// A bot in `folder` as its manifest (sent with the lease) describes it.
pub fn prepared_bot(folder: &Path, manifest: &pb::BotManifest) -> PreparedBot {
    let manifest = BotManifest {
        name: manifest.name.clone(),
        command: manifest.command.clone(),
        build: (!manifest.build.is_empty()).then(|| manifest.build.clone()),
        games: (!manifest.games.is_empty()).then(|| manifest.games.clone()),
    };
    let launch = LaunchSpec {
        command: manifest.command.clone(),
        bot_dir: folder.to_path_buf(),
        env: Vec::new(),
    };
    PreparedBot {
        entry: BotEntry {
            name: manifest.name.clone(),
            launch,
        },
        manifest: Some(manifest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_lowercase_sha256_is_taken_as_a_content_hash() {
        assert!(checked_hash(&"a".repeat(64)).is_ok());
        assert!(checked_hash("../../etc").is_err());
        assert!(checked_hash(&"A".repeat(64)).is_err());
        assert!(checked_hash(&"a".repeat(63)).is_err());
    }
}
