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
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod output;

pub use output::sweep_leftovers;

use self::output::{copy_tree, is_host_io_fault, replace_with_output, CopyError, OutputFolder};
use crate::sandbox::{
    Ending, Limits, ProcessOutcome, ProgramPolicy, Sandbox, SandboxSpec, SandboxedProcess,
};

/// The most of a build's output (stdout and stderr together) that is kept:
/// its last bytes, where the error usually is.
pub const LOG_TAIL_BYTES: usize = 16 << 10;
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

pub(crate) fn host(context: &str) -> impl FnOnce(io::Error) -> BuildError + '_ {
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
        programs: ProgramPolicy::default(),
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
    if let Some(detail) = outcome_failure(&outcome, limits) {
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
fn outcome_failure(outcome: &Option<ProcessOutcome>, limits: &BuildLimits) -> Option<String> {
    let Some(outcome) = outcome else {
        return Some(format!(
            "still running after {} s of wall-clock time",
            limits.wall.as_secs()
        ));
    };
    if let Some(limit) = outcome.limit_broken {
        return Some(format!("broke the {}", limits.sandbox.describe(limit)));
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
