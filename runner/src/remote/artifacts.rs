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

use super::cache_index::CacheIndex;
use super::client::{ArenaConnection, RemoteError};
use super::disk::{is_disk_full, mentions_disk_full, Disk};
use crate::bot_folder::{BotManifest, PreparedBot};
use crate::build::{BuildError, Builder};
use crate::launch::LaunchSpec;
use crate::referee::BotEntry;

/// The most failed builds a runner remembers (their logs are 16 KiB at most).
const MAX_REMEMBERED_FAILURES: usize = 4096;

/// How much disk the cache may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheLimits {
    /// The built bots' total size: past it, the least recently used bots
    /// no match is using are deleted.
    pub cap_bytes: u64,
    /// The room a new bot needs on the cache's filesystem before it is
    /// fetched (the runner stops leasing while there is less).
    pub min_free_bytes: u64,
}

impl Default for CacheLimits {
    fn default() -> Self {
        CacheLimits {
            cap_bytes: 10 << 30,
            min_free_bytes: 1 << 30,
        }
    }
}

/// The artifact cache: one folder per content hash.
#[derive(Debug)]
pub struct ArtifactCache {
    root: PathBuf,
    /// How builds run: sandboxed unless the runner runs with `--no-sandbox`.
    builder: Builder,
    limits: CacheLimits,
    disk: Arc<dyn Disk>,
    /// One fetch-and-build at a time per bot in this process, so two
    /// workers that need the same new bot do not both build it, and one
    /// slow build holds up no other bot's.
    preparing: std::sync::Mutex<HashMap<String, Arc<Mutex<()>>>>,
    index: Arc<std::sync::Mutex<CacheIndex>>,
    /// Builds that failed here, with their logs: the next match seating
    /// the version reports the same failure without building it again.
    failed: std::sync::Mutex<HashMap<String, String>>,
}

/// A ready bot a match is using: it is not evicted until this is dropped.
#[derive(Debug)]
pub struct CachedBot {
    pub folder: PathBuf,
    hash: String,
    index: Arc<std::sync::Mutex<CacheIndex>>,
}

impl Drop for CachedBot {
    fn drop(&mut self) {
        lock(&self.index).release(&self.hash);
    }
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

impl ArtifactCache {
    /// A cache in `root`; the bots already there are counted (oldest
    /// first by their folders' modification times) and the cache trimmed
    /// to its cap.
    pub fn new(
        root: PathBuf,
        builder: Builder,
        limits: CacheLimits,
        disk: Arc<dyn Disk>,
    ) -> ArtifactCache {
        let mut index = CacheIndex::new(limits.cap_bytes);
        for (hash, bytes) in super::cache_folders::scan(&root) {
            index.insert(&hash, bytes);
        }
        let cache = ArtifactCache {
            root,
            builder,
            limits,
            disk,
            preparing: std::sync::Mutex::default(),
            index: Arc::new(std::sync::Mutex::new(index)),
            failed: std::sync::Mutex::default(),
        };
        cache.trim(0);
        cache
    }

    /// The folder of a ready bot, fetching and building it if needed.
    pub async fn bot_folder(
        &self,
        connection: &ArenaConnection,
        seat: &pb::LeasedSeat,
    ) -> Result<CachedBot, RemoteError> {
        let hash = checked_hash(&seat.content_hash)?;
        if let Some(ready) = self.ready(&hash)? {
            return Ok(ready);
        }
        let this_bot = Arc::clone(lock(&self.preparing).entry(hash.clone()).or_default());
        let _preparing = this_bot.lock().await;
        if let Some(ready) = self.ready(&hash)? {
            return Ok(ready);
        }
        self.make_room()?;
        let archive = fetch(connection, &hash).await?;
        let root = self.root.clone();
        let manifest = seat.manifest.clone().unwrap_or_default();
        let builder = self.builder;
        let built = tokio::task::spawn_blocking({
            let hash = hash.clone();
            move || unpack_and_build(&root, &hash, &archive, &manifest, &builder)
        })
        .await
        .map_err(|error| RemoteError::Task(error.to_string()))?;
        match built {
            Ok(bytes) => Ok(self.add(&hash, bytes)),
            Err(RemoteError::BuildFailed { hash, log }) => {
                let mut failed = lock(&self.failed);
                if failed.len() >= MAX_REMEMBERED_FAILURES {
                    failed.clear();
                }
                failed.insert(hash.clone(), log.clone());
                Err(RemoteError::BuildFailed { hash, log })
            }
            Err(error) => Err(disk_full_or(error)),
        }
    }

    /// The bot `hash` taken for a match when it is built here, or the
    /// failure of its build here; `None` when it must be made.
    fn ready(&self, hash: &str) -> Result<Option<CachedBot>, RemoteError> {
        if let Some(log) = lock(&self.failed).get(hash) {
            return Err(RemoteError::BuildFailed {
                hash: hash.to_string(),
                log: log.clone(),
            });
        }
        let folder = self.root.join(hash);
        let mut index = lock(&self.index);
        // Evicted folders are renamed away under this lock: a folder seen
        // here stays until the bot taken here is released.
        if !folder.is_dir() {
            index.forget(hash);
            return Ok(None);
        }
        if !index.contains(hash) {
            // Built by another runner sharing this cache.
            index.insert(hash, super::cache_folders::disk_usage(&folder));
        }
        index.take(hash);
        drop(index);
        super::cache_folders::mark_used(&folder);
        Ok(Some(self.cached(hash)))
    }

    fn cached(&self, hash: &str) -> CachedBot {
        CachedBot {
            folder: self.root.join(hash),
            hash: hash.to_string(),
            index: Arc::clone(&self.index),
        }
    }

    /// Counts a bot just built (and taken), then trims the cache.
    fn add(&self, hash: &str, bytes: u64) -> CachedBot {
        {
            let mut index = lock(&self.index);
            index.insert(hash, bytes);
            index.take(hash);
        }
        let bot = self.cached(hash);
        self.trim(0);
        bot
    }

    /// Deletes the least recently used idle bots until the cache fits its
    /// cap with `room` more bytes.
    fn trim(&self, room: u64) {
        let moved = {
            let mut index = lock(&self.index);
            let evicted = index.evict_for(room);
            super::cache_folders::move_aside(&self.root, &evicted)
        };
        super::cache_folders::delete(moved);
    }

    /// Makes sure a new bot has room: the cache is trimmed to its cap, and
    /// when the filesystem still has less than the minimum free, every
    /// idle bot is deleted; [`RemoteError::DiskFull`] if that is not enough.
    pub fn make_room(&self) -> Result<(), RemoteError> {
        self.trim(0);
        if self.free_bytes()? >= self.limits.min_free_bytes {
            return Ok(());
        }
        let moved = {
            let mut index = lock(&self.index);
            let evicted = index.evict_all_idle();
            super::cache_folders::move_aside(&self.root, &evicted)
        };
        if !moved.is_empty() {
            tracing::info!(
                "runner: the disk is short of room: deleted {} idle bot(s) from the cache",
                moved.len()
            );
        }
        super::cache_folders::delete(moved);
        let free = self.free_bytes()?;
        if free >= self.limits.min_free_bytes {
            return Ok(());
        }
        Err(RemoteError::DiskFull(format!(
            "{free} bytes free on the cache's disk ({}), {} needed",
            self.root.display(),
            self.limits.min_free_bytes
        )))
    }

    fn free_bytes(&self) -> Result<u64, RemoteError> {
        let work_folder = |source| RemoteError::WorkFolder {
            path: self.root.display().to_string(),
            source,
        };
        std::fs::create_dir_all(&self.root)
            .map_err(work_folder)
            .map_err(disk_full_or)?;
        self.disk
            .free_bytes(&self.root)
            .map_err(work_folder)
            .map_err(disk_full_or)
    }
}

/// `error` as [`RemoteError::DiskFull`] when a full disk caused it (never a
/// failed build: a build that fills its own capped output is its fault).
pub fn disk_full_or(error: RemoteError) -> RemoteError {
    let full = match &error {
        RemoteError::BuildFailed { .. } | RemoteError::DiskFull(_) => false,
        RemoteError::WorkFolder { source, .. } => is_disk_full(source),
        other => mentions_disk_full(&other.to_string()),
    };
    if full {
        RemoteError::DiskFull(error.to_string())
    } else {
        error
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
) -> Result<u64, RemoteError> {
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

/// Unpacks and builds in `staging`, then renames it into place; its
/// size on disk.
fn build_in(
    staging: &Path,
    root: &Path,
    hash: &str,
    archive: &[u8],
    manifest: &pb::BotManifest,
    builder: &Builder,
) -> Result<u64, RemoteError> {
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
    if !unpacked.is_named_by(hash) {
        return Err(artifact_error(format!(
            "unpacks to content hash {}",
            unpacked.content_hash
        )));
    }
    let bot = prepared_bot(staging, manifest);
    bot.build_in_place(builder)
        .map_err(|error| build_error(hash, error))?;
    let bytes = super::cache_folders::disk_usage(staging);
    let folder = root.join(hash);
    match std::fs::rename(staging, &folder) {
        Ok(()) => Ok(bytes),
        // Another runner on this cache finished first: theirs is as good.
        Err(_) if folder.is_dir() => Ok(bytes),
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
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A disk whose free room the test sets.
    #[derive(Debug, Default)]
    struct FakeDisk(AtomicU64);

    impl Disk for FakeDisk {
        fn free_bytes(&self, _: &Path) -> std::io::Result<u64> {
            Ok(self.0.load(Ordering::SeqCst))
        }
    }

    /// A cache over `bots` (hash letter, bytes), oldest first.
    fn cache_of(
        bots: &[(char, usize)],
        cap_bytes: u64,
    ) -> (tempfile::TempDir, Arc<FakeDisk>, ArtifactCache) {
        let root = tempfile::tempdir().unwrap();
        for (age, (letter, bytes)) in bots.iter().enumerate() {
            let folder = root.path().join(letter.to_string().repeat(64));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join("bot"), vec![7u8; *bytes]).unwrap();
            let stamp = std::time::SystemTime::UNIX_EPOCH
                + std::time::Duration::from_secs(1_000_000 + age as u64);
            std::fs::File::open(&folder)
                .unwrap()
                .set_modified(stamp)
                .unwrap();
        }
        let disk = Arc::new(FakeDisk(AtomicU64::new(u64::MAX)));
        let limits = CacheLimits {
            cap_bytes,
            min_free_bytes: 1000,
        };
        let cache = ArtifactCache::new(
            root.path().to_path_buf(),
            Builder::plain(Default::default()),
            limits,
            Arc::clone(&disk) as Arc<dyn Disk>,
        );
        (root, disk, cache)
    }

    fn present(root: &tempfile::TempDir, letter: char) -> bool {
        root.path().join(letter.to_string().repeat(64)).is_dir()
    }

    #[test]
    fn a_cache_found_over_its_cap_keeps_its_most_recently_used_bots() {
        let (root, _, cache) = cache_of(&[('a', 40_000), ('b', 40_000), ('c', 40_000)], 100_000);
        assert!(!present(&root, 'a'));
        assert!(present(&root, 'b') && present(&root, 'c'));
        assert!(lock(&cache.index).total_bytes() <= 100_000);
    }

    #[test]
    fn a_new_bot_over_the_cap_evicts_the_least_recently_used_idle_one_never_one_in_use() {
        let (root, _, cache) = cache_of(&[('a', 40_000), ('b', 40_000)], 100_000);
        // `a` (the oldest) is in use by a match; `b` is idle.
        let playing = cache.ready(&"a".repeat(64)).unwrap().unwrap();
        let new_bot = cache.add(&"c".repeat(64), 40_000);
        assert!(present(&root, 'a'), "a bot in use was evicted");
        assert!(!present(&root, 'b'));
        drop(playing);
        drop(new_bot);
        let again = cache.add(&"d".repeat(64), 40_000);
        assert!(!present(&root, 'a'));
        assert!(lock(&cache.index).contains(&"c".repeat(64)));
        drop(again);
    }

    #[test]
    fn a_full_disk_deletes_idle_bots_then_says_so_until_there_is_room() {
        let (root, disk, cache) = cache_of(&[('a', 4_000), ('b', 4_000)], 1 << 30);
        let playing = cache.ready(&"b".repeat(64)).unwrap().unwrap();
        disk.0.store(10, Ordering::SeqCst);
        let full = cache.make_room().unwrap_err();
        assert!(matches!(full, RemoteError::DiskFull(_)), "{full}");
        assert!(full.to_string().contains("10 bytes free"), "{full}");
        assert!(!present(&root, 'a'));
        assert!(present(&root, 'b'), "a bot in use was deleted");
        assert!(playing.folder.is_dir());
        disk.0.store(1_000_000, Ordering::SeqCst);
        cache.make_room().unwrap();
    }

    #[test]
    fn host_errors_from_a_full_disk_become_disk_full_and_a_failed_build_stays_the_bots() {
        let enospc = std::io::Error::from_raw_os_error(libc::ENOSPC);
        let folder = disk_full_or(RemoteError::WorkFolder {
            path: "/cache".into(),
            source: enospc,
        });
        assert!(matches!(folder, RemoteError::DiskFull(_)), "{folder}");
        let unpack = disk_full_or(RemoteError::Artifact {
            hash: "h".into(),
            detail: format!(
                "unpacking: {}",
                std::io::Error::from_raw_os_error(libc::ENOSPC)
            ),
        });
        assert!(matches!(unpack, RemoteError::DiskFull(_)), "{unpack}");
        let game = disk_full_or(RemoteError::Play("scratch: (os error 122)".into()));
        assert!(matches!(game, RemoteError::DiskFull(_)), "{game}");
        let build = disk_full_or(RemoteError::BuildFailed {
            hash: "h".into(),
            log: "write: (os error 28)".into(),
        });
        assert!(matches!(build, RemoteError::BuildFailed { .. }), "{build}");
        let other = disk_full_or(RemoteError::Play("no such game".into()));
        assert!(matches!(other, RemoteError::Play(_)), "{other}");
    }

    #[test]
    fn a_build_that_failed_here_is_reported_again_without_building() {
        let (_root, _, cache) = cache_of(&[], 1 << 30);
        let hash = "e".repeat(64);
        lock(&cache.failed).insert(hash.clone(), "exited with code 2".into());
        match cache.ready(&hash) {
            Err(RemoteError::BuildFailed { log, .. }) => assert_eq!(log, "exited with code 2"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_a_lowercase_sha256_is_taken_as_a_content_hash() {
        assert!(checked_hash(&"a".repeat(64)).is_ok());
        assert!(checked_hash("../../etc").is_err());
        assert!(checked_hash(&"A".repeat(64)).is_err());
        assert!(checked_hash(&"a".repeat(63)).is_err());
    }
}
