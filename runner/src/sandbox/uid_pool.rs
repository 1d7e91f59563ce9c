//! A distinct unprivileged uid for every live bot on this host.
//!
//! Bots run as uids no account uses, so `RLIMIT_NPROC` counts exactly one
//! bot's processes and no bot may signal or trace another (the kernel only
//! lets a uid signal its own processes). A uid is leased by holding an
//! exclusive `flock` on `<state dir>/uids/<uid>`: the kernel drops the lock
//! when the holder dies, so a crashed runner never leaks uids, and several
//! runners on one host never share one.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

/// First uid of the pool: far above distribution and container ranges.
pub const FIRST_BOT_UID: u32 = 1_200_000;
/// Size of the pool.
pub const BOT_UID_COUNT: u32 = 10_000;

/// Where the sandbox keeps per-bot state (uid locks, root skeletons).
///
/// A tmpfs when possible: every spawn creates and removes a few dozen
/// entries, which costs tens of milliseconds on a journaling disk.
pub fn state_dir() -> PathBuf {
    let euid = nix::unistd::geteuid();
    let on_tmpfs = Path::new("/dev/shm").join(format!("cairn-sandbox-{euid}"));
    if is_private_dir_of(&on_tmpfs, euid.as_raw()) {
        return on_tmpfs;
    }
    if euid.is_root() {
        PathBuf::from("/run/cairn-sandbox")
    } else {
        std::env::temp_dir().join(format!("cairn-sandbox-{euid}"))
    }
}

/// Creates `dir` if needed and checks that it is a real directory owned by
/// `owner` and closed to others (`/dev/shm` is world-writable: someone else
/// could have planted it).
fn is_private_dir_of(dir: &Path, owner: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let _ = fs::DirBuilder::new().mode(0o700).create(dir);
    dir.symlink_metadata()
        .is_ok_and(|meta| meta.is_dir() && meta.uid() == owner && meta.mode() & 0o077 == 0)
}

/// Creates `dir` (and parents) readable only by its owner.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// An exclusively held uid; released on drop.
#[derive(Debug)]
pub struct UidLease {
    uid: u32,
    _lock: Flock<File>,
}

impl UidLease {
    /// Takes the next free uid of the pool.
    pub fn acquire(state_dir: &Path) -> io::Result<UidLease> {
        let lock_dir = lock_dir(state_dir)?;
        // The lowest free uid: the lock files stay few, and a released uid
        // has no process left (its bot's namespace was reaped), so reusing
        // it at once is safe.
        for uid in FIRST_BOT_UID..FIRST_BOT_UID + BOT_UID_COUNT {
            let file = lock_file(&lock_dir, uid)?;
            if let Ok(lock) = Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                return Ok(UidLease { uid, _lock: lock });
            }
        }
        Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "every sandbox uid is in use",
        ))
    }

    /// Waits until no live bot on this host holds `uid`, then holds it
    /// until dropped: bots started meanwhile get other uids. For tools and
    /// tests that steer which uid the next bot gets (the lowest free one).
    pub fn wait_for(uid: u32) -> io::Result<UidLease> {
        let lock_dir = lock_dir(&state_dir())?;
        let lock = Flock::lock(lock_file(&lock_dir, uid)?, FlockArg::LockExclusive)
            .map_err(|(_, errno)| io::Error::from(errno))?;
        Ok(UidLease { uid, _lock: lock })
    }

    pub fn uid(&self) -> u32 {
        self.uid
    }
}

/// The folder of the uids' lock files under `state_dir`, created if need be.
fn lock_dir(state_dir: &Path) -> io::Result<PathBuf> {
    let lock_dir = state_dir.join("uids");
    private_dir(&lock_dir)?;
    Ok(lock_dir)
}

/// The file whose `flock` leases `uid`, created if need be.
fn lock_file(lock_dir: &Path, uid: u32) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(lock_dir.join(uid.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_live_leases_never_share_a_uid() {
        let dir = std::env::temp_dir().join(format!("cairn-uid-test-{}", std::process::id()));
        let first = UidLease::acquire(&dir).expect("first lease");
        let second = UidLease::acquire(&dir).expect("second lease");
        assert_ne!(first.uid(), second.uid());
        assert!((FIRST_BOT_UID..FIRST_BOT_UID + BOT_UID_COUNT).contains(&first.uid()));
        let released = first.uid();
        drop(first);
        let relocked = File::open(dir.join("uids").join(released.to_string())).expect("lock file");
        assert!(Flock::lock(relocked, FlockArg::LockExclusiveNonblock).is_ok());
        drop(second);
        let _ = fs::remove_dir_all(&dir);
    }
}
