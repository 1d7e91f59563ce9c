//! Running a bot's `build` command: in the sandbox, with the layers of play
//! (no network, a private read-only root, limits on memory, processes, CPU,
//! file size and wall-clock time) and one writable folder, the output.
//!
//! The output folder starts as a copy of the bot's files, on a tmpfs
//! mounted by the runner and capped at [`BuildLimits::output_bytes`] (its
//! pages count against the build's memory cap too), so a build that fills
//! its disk fills only that. When the build ends well, the output is copied
//! back over the bot folder (files, folders and links only; modes reduced to
//! `rwxr-xr-x`), which is then the artifact. The runner's environment is
//! never passed on: the build sees the sandbox's fixed variables only.
//!
//! A failure is either the bot's ([`BuildError::Failed`]: the command is
//! missing, exits non-zero, breaks a limit, writes an output the runner will
//! not keep) or the host's ([`BuildError::Host`]: the sandbox or the disk).

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::sandbox::{Ending, Limits, ProcessOutcome, Sandbox, SandboxSpec, SandboxedProcess};

/// The most of a build's output (stdout and stderr together) that is kept:
/// its last bytes, where the error usually is.
pub const LOG_TAIL_BYTES: usize = 16 << 10;
/// The deepest and longest path a build output may hold.
const MAX_OUTPUT_DEPTH: usize = 64;
const MAX_OUTPUT_PATH_BYTES: usize = 2048;

/// What a build may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildLimits {
    /// Memory, processes, CPU and file size, as for a bot.
    pub sandbox: Limits,
    /// Wall-clock time before the build is killed.
    pub wall: Duration,
    /// Size of the output folder (the bot's files included).
    pub output_bytes: u64,
}

impl Default for BuildLimits {
    fn default() -> Self {
        BuildLimits {
            sandbox: Limits {
                memory_bytes: 2 << 30,
                max_processes: 256,
                cpu_seconds: 600,
                file_size_bytes: 256 << 20,
                open_files: 1024,
                scratch_bytes: 256 << 20,
                output_bytes: 1 << 20,
            },
            wall: Duration::from_secs(600),
            output_bytes: 1 << 30,
        }
    }
}

/// How builds run: in the sandbox (the default), or as plain processes for
/// trusted bots (`cairn play --no-sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builder {
    pub limits: BuildLimits,
    pub sandboxed: bool,
}

impl Builder {
    pub fn sandboxed(limits: BuildLimits) -> Builder {
        Builder {
            limits,
            sandboxed: true,
        }
    }

    /// No isolation: the build runs in the bot folder with this user's
    /// rights (its environment is scrubbed all the same).
    pub fn plain(limits: BuildLimits) -> Builder {
        Builder {
            limits,
            sandboxed: false,
        }
    }
}

/// Why a build did not produce an artifact.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The bot's fault: a forfeit-like result, never retried elsewhere.
    #[error("the build failed: {detail}")]
    Failed {
        /// What happened, in a few words (`exited with code 2`, ...).
        detail: String,
        /// The last [`LOG_TAIL_BYTES`] of its stdout and stderr.
        log_tail: String,
    },
    /// The host's fault: another host may well succeed.
    #[error("the build could not be run on this host: {0}")]
    Host(String),
}

impl BuildError {
    fn failed(detail: impl Into<String>, log_tail: String) -> BuildError {
        BuildError::Failed {
            detail: detail.into(),
            log_tail,
        }
    }
}

/// A successful build: what it printed (the tail) and how long it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildLog {
    pub log_tail: String,
    pub wall: Duration,
}

/// Runs `command` for the bot in `folder`, whose files become the built
/// artifact.
pub fn build_folder(
    folder: &Path,
    command: &[String],
    builder: &Builder,
) -> Result<BuildLog, BuildError> {
    if command.first().is_none_or(|program| program.is_empty()) {
        return Err(BuildError::failed(
            "the build command is empty",
            String::new(),
        ));
    }
    let started = Instant::now();
    let log_tail = match builder.sandboxed {
        true => sandboxed_build(folder, command, &builder.limits)?,
        false => plain_build(folder, command, &builder.limits)?,
    };
    Ok(BuildLog {
        log_tail,
        wall: started.elapsed(),
    })
}

/// Whether an I/O error while keeping a build's output is the host's: its
/// disk or memory, as opposed to what the build wrote.
fn is_host_io_fault(error: &io::Error) -> bool {
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

fn host(context: &str) -> impl FnOnce(io::Error) -> BuildError + '_ {
    move |error| BuildError::Host(format!("{context}: {error}"))
}

fn sandboxed_build(
    folder: &Path,
    command: &[String],
    limits: &BuildLimits,
) -> Result<String, BuildError> {
    let output = OutputFolder::create(folder, limits.output_bytes)?;
    copy_tree(folder, output.path(), limits.output_bytes).map_err(|error| match error {
        CopyError::Io(error) => {
            BuildError::Host(format!("copying the bot into the build: {error}"))
        }
        CopyError::Refused(detail) => BuildError::failed(detail, String::new()),
    })?;
    let spec = SandboxSpec {
        command: command.to_vec(),
        bot_dir: output.path().to_path_buf(),
        limits: limits.sandbox,
        env: Vec::new(),
        writable_bot_dir: true,
    };
    let mut process = match Sandbox::shared().spawn(&spec) {
        Ok(process) => process,
        Err(error) if error.is_host_fault() => return Err(BuildError::Host(error.to_string())),
        Err(error) => {
            return Err(BuildError::failed(
                format!("cannot start: {error}"),
                String::new(),
            ))
        }
    };
    let (outcome, log_tail) = supervise(&mut process, limits.wall);
    if let Some(detail) = outcome_failure(&outcome, limits.wall) {
        return Err(BuildError::failed(detail, log_tail));
    }
    replace_with_output(folder, output.path(), limits.output_bytes).map_err(
        |error| match error {
            CopyError::Io(error) if is_host_io_fault(&error) => {
                BuildError::Host(format!("keeping the build output: {error}"))
            }
            // What the build left cannot be read or written back (a folder
            // it made unreadable, a name too long): its own doing.
            CopyError::Io(error) => BuildError::failed(
                format!("its output cannot be kept: {error}"),
                log_tail.clone(),
            ),
            CopyError::Refused(detail) => BuildError::failed(detail, log_tail.clone()),
        },
    )?;
    Ok(log_tail)
}

/// The build's ending as a failure, `None` for a success.
fn outcome_failure(outcome: &Option<ProcessOutcome>, wall: Duration) -> Option<String> {
    let Some(outcome) = outcome else {
        return Some(format!(
            "still running after {} s of wall-clock time",
            wall.as_secs()
        ));
    };
    if let Some(limit) = outcome.limit_broken {
        return Some(format!("broke the {limit} limit"));
    }
    match outcome.ending {
        Ending::Exited(0) => None,
        Ending::Exited(code) => Some(format!("exited with code {code}")),
        Ending::Signaled(signal) => Some(format!("killed by signal {signal}")),
        Ending::Killed => Some("killed".to_string()),
    }
}

/// Drains the build's output and waits for its end, killing it at `wall`;
/// `None` when it had to be killed for time.
fn supervise(process: &mut SandboxedProcess, wall: Duration) -> (Option<ProcessOutcome>, String) {
    drop(process.take_stdin());
    let tail = LogTail::default();
    let readers: Vec<_> = [
        process.take_stdout().map(std::os::fd::OwnedFd::from),
        process.take_stderr().map(std::os::fd::OwnedFd::from),
    ]
    .into_iter()
    .flatten()
    .filter_map(|fd| tail.drain(fs::File::from(fd)))
    .collect();
    let deadline = Instant::now() + wall;
    let outcome = loop {
        if let Some(outcome) = process.try_status() {
            break Some(outcome);
        }
        if Instant::now() >= deadline {
            process.kill_all();
            break None;
        }
        // The sandbox offers no blocking wait with a timeout; a build takes
        // seconds, so looking every 20 ms costs nothing.
        std::thread::sleep(Duration::from_millis(20));
    };
    // Every process of the build is gone, so every pipe writer is closed.
    LogTail::settle(readers);
    (outcome, tail.text())
}

/// The last bytes of a stream shared by several pipe readers.
#[derive(Debug, Clone, Default)]
struct LogTail {
    bytes: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl LogTail {
    /// Drains `reader` on a thread; `None` when no thread could be had
    /// (the build then blocks on a full pipe and fails for time).
    fn drain<R: Read + Send + 'static>(&self, mut reader: R) -> Option<JoinHandle<()>> {
        let bytes = std::sync::Arc::clone(&self.bytes);
        let spawned = std::thread::Builder::new()
            .name("build-log".into())
            .spawn(move || {
                let mut chunk = [0u8; 8192];
                while let Ok(n) = reader.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    let Ok(mut kept) = bytes.lock() else { break };
                    kept.extend_from_slice(&chunk[..n]);
                    let excess = kept.len().saturating_sub(LOG_TAIL_BYTES);
                    kept.drain(..excess);
                }
            });
        spawned.ok()
    }

    /// Waits a moment for the readers to reach the end of their pipes (a
    /// process that escaped the kill may hold one open for ever).
    fn settle(readers: Vec<JoinHandle<()>>) {
        let deadline = Instant::now() + Duration::from_secs(1);
        while readers.iter().any(|reader| !reader.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn text(&self) -> String {
        let kept = self.bytes.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&kept).into_owned()
    }
}

/// A capped tmpfs mounted on a fresh folder beside the bot folder,
/// unmounted and removed when dropped.
struct OutputFolder {
    path: PathBuf,
}

impl OutputFolder {
    fn create(folder: &Path, size: u64) -> Result<OutputFolder, BuildError> {
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

    fn path(&self) -> &Path {
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
enum CopyError {
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
fn copy_tree(from: &Path, to: &Path, max_bytes: u64) -> Result<(), CopyError> {
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
fn replace_with_output(folder: &Path, output: &Path, max_bytes: u64) -> Result<(), CopyError> {
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

/// The environment a plain build gets: none of the runner's but `PATH`.
pub fn scrubbed_environment(home: &Path) -> Vec<(String, String)> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    vec![
        ("PATH".into(), path),
        ("HOME".into(), home.display().to_string()),
        ("LANG".into(), "C.UTF-8".into()),
    ]
}

/// A trusted bot's build, in its own folder, with the wall-clock limit only.
fn plain_build(
    folder: &Path,
    command: &[String],
    limits: &BuildLimits,
) -> Result<String, BuildError> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let Some((program, args)) = command.split_first() else {
        return Err(BuildError::failed(
            "the build command is empty",
            String::new(),
        ));
    };
    let mut child = Command::new(program)
        .args(args)
        .current_dir(folder)
        .env_clear()
        // A trusted build keeps the user's home (where rustup and caches
        // live); nothing else of the environment.
        .envs(scrubbed_environment(
            &std::env::var_os("HOME").map_or_else(|| folder.to_path_buf(), PathBuf::from),
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|error| match error.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => {
                BuildError::failed(format!("cannot start `{program}`: {error}"), String::new())
            }
            _ => BuildError::Host(format!("cannot start `{program}`: {error}")),
        })?;
    let tail = LogTail::default();
    let readers: Vec<_> = [
        child.stdout.take().map(std::os::fd::OwnedFd::from),
        child.stderr.take().map(std::os::fd::OwnedFd::from),
    ]
    .into_iter()
    .flatten()
    .filter_map(|fd| tail.drain(fs::File::from(fd)))
    .collect();
    let deadline = Instant::now() + limits.wall;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => break None,
        }
    };
    // SAFETY: kill(2) on the build's own process group; no memory involved.
    unsafe {
        libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
    }
    let _ = child.wait();
    LogTail::settle(readers);
    let log_tail = tail.text();
    match status {
        Some(status) if status.success() => Ok(log_tail),
        Some(status) => {
            let detail = match (status.code(), status.signal()) {
                (Some(code), _) => format!("exited with code {code}"),
                (None, Some(signal)) => format!("killed by signal {signal}"),
                (None, None) => "ended".to_string(),
            };
            Err(BuildError::failed(detail, log_tail))
        }
        None => Err(BuildError::failed(
            format!(
                "still running after {} s of wall-clock time",
                limits.wall.as_secs()
            ),
            log_tail,
        )),
    }
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
