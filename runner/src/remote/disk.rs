//! The disk under the artifact cache, as the runner sees it: how much room
//! is left, and whether an error means there is none. A full disk is the
//! host's trouble: the runner stops leasing until there is room again, and
//! no bot is charged nor any match given up for it.
//!
//! [`Disk`] is a seam: tests hand the runner a disk that says it is full.

use std::io;
use std::path::Path;

/// The filesystem holding the cache.
pub trait Disk: Send + Sync + std::fmt::Debug {
    /// Bytes an unprivileged user may still write on the filesystem
    /// holding `path`.
    fn free_bytes(&self, path: &Path) -> io::Result<u64>;
}

/// The real filesystem, asked with statvfs(3).
#[derive(Debug, Clone, Copy, Default)]
pub struct HostDisk;

impl Disk for HostDisk {
    fn free_bytes(&self, path: &Path) -> io::Result<u64> {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: statvfs is plain old data; the call fills it or fails.
        let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is a valid C string and `stats` a valid out pointer.
        if unsafe { libc::statvfs(path.as_ptr(), &mut stats) } != 0 {
            return Err(io::Error::last_os_error());
        }
        #[allow(clippy::useless_conversion)] // u32 or u64 by platform
        let block = u64::from(stats.f_frsize);
        #[allow(clippy::useless_conversion)]
        let available = u64::from(stats.f_bavail);
        Ok(available.saturating_mul(block))
    }
}

/// Whether `error` says the disk (or this user's quota on it) is full.
pub fn is_disk_full(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

/// Whether an error's text carries a full disk's system error, as
/// `std::io::Error` prints it: errors that crossed a `String` (an archive
/// that could not be unpacked, a sandbox that could not be set up) keep
/// only that.
pub fn mentions_disk_full(text: &str) -> bool {
    [libc::ENOSPC, libc::EDQUOT]
        .iter()
        .any(|code| text.contains(&format!("(os error {code})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_known_by_its_error_and_by_its_error_text() {
        let full = io::Error::from_raw_os_error(libc::ENOSPC);
        assert!(is_disk_full(&full));
        assert!(is_disk_full(&io::Error::from_raw_os_error(libc::EDQUOT)));
        assert!(!is_disk_full(&io::Error::from_raw_os_error(libc::EACCES)));
        assert!(mentions_disk_full(&format!("unpacking: {full}")));
        assert!(!mentions_disk_full("(os error 2)"));
        assert!(!mentions_disk_full("(os error 280)"));
    }

    #[test]
    fn the_host_disk_reports_room_on_the_temporary_folder() {
        let free = HostDisk.free_bytes(&std::env::temp_dir()).unwrap();
        assert!(free > 0);
        assert!(HostDisk.free_bytes(Path::new("/no/such/folder")).is_err());
    }
}
