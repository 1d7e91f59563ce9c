//! The artifact cache's folders on disk: finding the built bots at start,
//! measuring them, and deleting evicted ones safely while other workers
//! (or other runners sharing the folder) look on.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The built bots in `root` (folders named by a content hash) with their
/// sizes, least recently used first (by modification time).
pub fn scan(root: &Path) -> Vec<(String, u64)> {
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<(SystemTime, String, u64)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_string();
            let is_hash = name.len() == 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase());
            let metadata = entry.metadata().ok().filter(|m| m.is_dir())?;
            is_hash.then(|| {
                let used = metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                (used, name, disk_usage(&entry.path()))
            })
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|(_, hash, bytes)| (hash, bytes))
        .collect()
}

/// The bytes `path` takes on disk (allocated blocks, links not followed).
pub fn disk_usage(path: &Path) -> u64 {
    let Ok(metadata) = fs::symlink_metadata(path) else {
        return 0;
    };
    let own = metadata.blocks().saturating_mul(512);
    if !metadata.is_dir() {
        return own;
    }
    let Ok(entries) = fs::read_dir(path) else {
        return own;
    };
    entries
        .flatten()
        .map(|entry| disk_usage(&entry.path()))
        .fold(own, u64::saturating_add)
}

/// Stamps a bot's folder as used now, so a restarted runner keeps the
/// order of use (best effort: an old stamp only makes it go earlier).
pub fn mark_used(folder: &Path) {
    if let Ok(handle) = fs::File::open(folder) {
        let _ = handle.set_modified(SystemTime::now());
    }
}

/// Renames the evicted bots' folders to leftover names (`.<hash>.<pid>.evicting`,
/// swept by the next runner if this one dies), so no one finds them
/// half deleted; the renamed folders, to [`delete`].
pub fn move_aside(root: &Path, hashes: &[String]) -> Vec<PathBuf> {
    let pid = std::process::id();
    hashes
        .iter()
        .filter_map(|hash| {
            let aside = root.join(format!(".{hash}.{pid}.evicting"));
            match fs::rename(root.join(hash), &aside) {
                Ok(()) => Some(aside),
                Err(error) => {
                    // Gone already (another runner evicted it): nothing to free.
                    if error.kind() != std::io::ErrorKind::NotFound {
                        tracing::warn!("runner: cannot evict bot {hash} from the cache: {error}");
                    }
                    None
                }
            }
        })
        .collect()
}

/// Deletes folders moved aside.
pub fn delete(folders: Vec<PathBuf>) {
    for folder in folders {
        if let Err(error) = fs::remove_dir_all(&folder) {
            tracing::warn!(
                "runner: cannot delete {} from the cache: {error}",
                folder.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_found_oldest_first_with_its_sizes_and_evicted_folders_vanish() {
        let root = tempfile::tempdir().unwrap();
        let (old, new) = ("a".repeat(64), "b".repeat(64));
        for (hash, bytes) in [(&new, 10_000), (&old, 50_000)] {
            fs::create_dir_all(root.path().join(hash).join("src")).unwrap();
            fs::write(root.path().join(hash).join("src/bot"), vec![1u8; bytes]).unwrap();
        }
        let long_ago = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        fs::File::open(root.path().join(&old))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        fs::create_dir(root.path().join(".partial-not-a-bot")).unwrap();
        let found = scan(root.path());
        assert_eq!(
            found.iter().map(|(hash, _)| hash).collect::<Vec<_>>(),
            [&old, &new]
        );
        assert!(found[0].1 >= 50_000 && found[1].1 >= 10_000, "{found:?}");
        mark_used(&root.path().join(&old));
        assert_eq!(scan(root.path())[1].0, old);
        let moved = move_aside(root.path(), std::slice::from_ref(&old));
        assert_eq!(moved.len(), 1);
        assert!(!root.path().join(&old).exists());
        delete(moved);
        assert_eq!(scan(root.path()).len(), 1);
        assert!(move_aside(root.path(), &[old]).is_empty());
    }
}
