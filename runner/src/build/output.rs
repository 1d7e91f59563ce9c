//! A build's output folder: a capped tmpfs beside the bot folder, the copy
//! of the bot's files into it and of the result back (files, folders and
//! links only, modes reduced, sizes and depths capped), and the sweep of
//! what builds of dead processes left behind.

use std::fs;
use std::io;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::{host, BuildError};

/// The deepest and longest path a build output may hold.
const MAX_OUTPUT_DEPTH: usize = 64;
const MAX_OUTPUT_PATH_BYTES: usize = 2048;

/// Whether an I/O error while keeping a build's output is the host's: its
/// disk or memory, as opposed to what the build wrote.
pub(super) fn is_host_io_fault(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(
            libc::ENOSPC
                | libc::EDQUOT
                | libc::EIO
                | libc::ENOMEM
                | libc::EROFS
                | libc::EMFILE
                | libc::ENFILE
        )
    )
}

/// A capped tmpfs mounted on a fresh folder beside the bot folder,
/// unmounted and removed when dropped.
pub(super) struct OutputFolder {
    path: PathBuf,
}

impl OutputFolder {
    pub(super) fn create(folder: &Path, size: u64) -> Result<OutputFolder, BuildError> {
        let mut name = folder.as_os_str().to_os_string();
        name.push(format!(".build-{}", std::process::id()));
        let path = PathBuf::from(name);
        if path.exists() {
            remove_output(&path);
        }
        fs::create_dir(&path).map_err(host("creating the build folder"))?;
        let output = OutputFolder { path };
        let options = format!("size={size},mode=0755,nr_inodes=65536");
        let mounted = nix::mount::mount(
            Some("tmpfs"),
            output.path.as_path(),
            Some("tmpfs"),
            nix::mount::MsFlags::MS_NOSUID | nix::mount::MsFlags::MS_NODEV,
            Some(options.as_str()),
        );
        match mounted {
            Ok(()) => {}
            // Without the right to mount (a runner that is not root, whose
            // sandbox lacks most layers anyway, as `cairn doctor` says),
            // the output is a plain folder: its size is then not capped.
            Err(nix::errno::Errno::EPERM) => {}
            Err(errno) => {
                return Err(BuildError::Host(format!(
                    "mounting the build folder: {errno}"
                )))
            }
        }
        Ok(output)
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OutputFolder {
    fn drop(&mut self) {
        remove_output(&self.path);
    }
}

fn remove_output(path: &Path) {
    let _ = nix::mount::umount2(path, nix::mount::MntFlags::MNT_DETACH);
    let _ = fs::remove_dir_all(path);
}

/// Why a tree was not copied.
pub(super) enum CopyError {
    Io(io::Error),
    /// What the build left is not something the runner keeps.
    Refused(String),
}

impl From<io::Error> for CopyError {
    fn from(error: io::Error) -> Self {
        CopyError::Io(error)
    }
}

/// Copies the files, folders and links of `from` into the existing folder
/// `to`, as the runner's user, with modes reduced to `rwxr-xr-x`; anything
/// else, a path past the depth and length caps, or more than `max_bytes` of
/// files in all (hard links count once per name: a file linked a thousand
/// times on a capped tmpfs must not become a thousand copies on the disk),
/// is refused. Iterative, so a tree of any depth costs no stack.
pub(super) fn copy_tree(from: &Path, to: &Path, max_bytes: u64) -> Result<(), CopyError> {
    let mut total_bytes = 0_u64;
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let source = from.join(&relative);
        for entry in fs::read_dir(&source)? {
            let entry = entry?;
            let relative = relative.join(entry.file_name());
            if relative.components().count() > MAX_OUTPUT_DEPTH
                || relative.as_os_str().len() > MAX_OUTPUT_PATH_BYTES
            {
                return Err(CopyError::Refused(format!(
                    "the build output holds a path deeper than {MAX_OUTPUT_DEPTH} or longer than {MAX_OUTPUT_PATH_BYTES} bytes"
                )));
            }
            let meta = entry.metadata()?;
            let target = to.join(&relative);
            let kind = meta.file_type();
            if kind.is_symlink() {
                symlink(fs::read_link(entry.path())?, &target)?;
            } else if kind.is_dir() {
                fs::create_dir(&target)?;
                // Whatever the runner's umask: the bot's uid must read it.
                fs::set_permissions(&target, fs::Permissions::from_mode(0o755))?;
                pending.push(relative);
            } else if kind.is_file() {
                total_bytes = total_bytes.saturating_add(meta.len());
                if total_bytes > max_bytes {
                    return Err(CopyError::Refused(format!(
                        "the build output holds more than {max_bytes} bytes of files"
                    )));
                }
                fs::copy(entry.path(), &target)?;
                let mode = if meta.mode() & 0o111 != 0 {
                    0o755
                } else {
                    0o644
                };
                fs::set_permissions(&target, fs::Permissions::from_mode(mode))?;
            } else {
                return Err(CopyError::Refused(format!(
                    "the build output holds `{}`, which is neither a file, a folder nor a link",
                    relative.display()
                )));
            }
        }
    }
    Ok(())
}

/// Replaces the contents of `folder` by those of `output`: copied into a
/// fresh sibling first, which is swapped in only when complete.
pub(super) fn replace_with_output(
    folder: &Path,
    output: &Path,
    max_bytes: u64,
) -> Result<(), CopyError> {
    let mut name = folder.as_os_str().to_os_string();
    name.push(".built");
    let built = PathBuf::from(name);
    if built.exists() {
        fs::remove_dir_all(&built)?;
    }
    fs::create_dir(&built)?;
    let copied = copy_tree(output, &built, max_bytes).and_then(|()| {
        fs::set_permissions(&built, fs::Permissions::from_mode(0o755))?;
        fs::remove_dir_all(folder)?;
        fs::rename(&built, folder)?;
        Ok(())
    });
    if copied.is_err() {
        let _ = fs::remove_dir_all(&built);
    }
    copied
}

/// Removes what builds and unpacks of dead processes left in `root` (a
/// runner killed mid-build leaves its `.partial` folder, its output tmpfs
/// still mounted, a half-copied `.built` folder): every hidden entry whose
/// name carries the id of a process that no longer runs. Entries of live
/// processes (another runner sharing the cache) are left alone. Returns how
/// many entries were removed.
pub fn sweep_leftovers(root: &Path) -> usize {
    let Ok(entries) = fs::read_dir(root) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = leftover_pid(&name) else {
            continue;
        };
        if Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        remove_output(&entry.path());
        removed += 1;
    }
    removed
}

/// The process id in a work folder's name: `.<hash>.<pid>.partial...`,
/// `.<hash>.<pid>.staging`, `<...>.build-<pid>`.
fn leftover_pid(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    if let Some((_, pid)) = name.rsplit_once(".build-") {
        return pid.parse().ok();
    }
    let mut parts = name[1..].split('.');
    let _hash = parts.next()?;
    let pid = parts.next()?.parse().ok()?;
    parts.next().is_some().then_some(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_are_known_by_the_process_id_in_their_name() {
        let hash = "ab".repeat(32);
        assert_eq!(leftover_pid(&format!(".{hash}.42.partial")), Some(42));
        assert_eq!(
            leftover_pid(&format!(".{hash}.42.partial.partial")),
            Some(42)
        );
        assert_eq!(
            leftover_pid(&format!(".{hash}.42.partial.build-42")),
            Some(42)
        );
        assert_eq!(leftover_pid(&format!(".{hash}.7.staging")), Some(7));
        assert_eq!(leftover_pid(&hash), None);
        assert_eq!(leftover_pid(&format!(".{hash}")), None);
        assert_eq!(leftover_pid(".cache.lock"), None);
    }

    #[test]
    fn a_sweep_removes_the_leftovers_of_dead_processes_only() {
        let root = tempfile::tempdir().unwrap();
        let hash = "cd".repeat(32);
        // Pid 4194304 is above Linux's largest (pid_max), so never alive.
        let dead = root.path().join(format!(".{hash}.4194304.partial"));
        let live = root
            .path()
            .join(format!(".{hash}.{}.partial", std::process::id()));
        let artifact = root.path().join(&hash);
        for folder in [&dead, &live, &artifact] {
            fs::create_dir_all(folder.join("inside")).unwrap();
        }
        assert_eq!(sweep_leftovers(root.path()), 1);
        assert!(!dead.exists() && live.exists() && artifact.exists());
    }
}
