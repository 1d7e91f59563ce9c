//! The seam between the match loop and the operating system: a
//! [`BotLauncher`] starts a bot's process and hands back a [`BotProcess`]
//! (its three pipes, its CPU clock, its exit, and a way to kill everything
//! it started). The match loop knows nothing else about processes, so the
//! sandbox replaces [`PlainLauncher`] without touching it.
//!
//! [`PlainLauncher`] is the unsandboxed implementation: a `std::process`
//! child in its own process group, killed as a group. The sandbox plugs in
//! by implementing the same two traits (its limits live in its launcher),
//! and reports what isolation it gives through [`BotLauncher::describe`].

use std::os::fd::OwnedFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// What to run for one bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// The argv; a relative program path is resolved against `bot_dir`.
    pub command: Vec<String>,
    /// The bot's folder, its working directory.
    pub bot_dir: PathBuf,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
}

/// Why a bot could not be started: its own fault, or the host's.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The bot's command is empty, missing or cannot be executed: the bot
    /// forfeits with `start_failed`.
    #[error("{0}")]
    NotStartable(String),
    /// The host could not start a process (the sandbox's setup, descriptors,
    /// memory): no bot's fault; the match is not played here.
    #[error("{0}")]
    Host(String),
}

impl LaunchError {
    pub fn is_host_fault(&self) -> bool {
        matches!(self, LaunchError::Host(_))
    }

    /// A failed `spawn` of `program`: the bot's when the file is missing or
    /// not executable, the host's otherwise.
    fn spawn(program: &str, error: std::io::Error) -> LaunchError {
        let message = format!("cannot start `{program}`: {error}");
        let is_bots = matches!(
            error.kind(),
            std::io::ErrorKind::NotFound
                | std::io::ErrorKind::PermissionDenied
                | std::io::ErrorKind::InvalidInput
                | std::io::ErrorKind::ArgumentListTooLong
        ) || matches!(
            error.raw_os_error(),
            Some(libc::ENOEXEC | libc::ENOTDIR | libc::ELOOP | libc::ENAMETOOLONG | libc::ETXTBSY)
        );
        match is_bots {
            true => LaunchError::NotStartable(message),
            false => LaunchError::Host(message),
        }
    }
}

/// How a bot process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitReport {
    pub status: ExitStatus,
    /// The resource limit the process broke with its figure (`memory limit
    /// of 512 MiB`), when its supervisor knows (the plain launcher never does).
    pub broken_limit: Option<String>,
}

impl ExitReport {
    /// `exited with code 3`, `killed by signal 9`, ...
    pub fn describe(&self) -> String {
        match (self.status.code(), self.status.signal()) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            (None, None) => "ended".to_string(),
        }
    }
}

/// The pipes of a freshly started bot, as raw descriptors the match loop
/// drives itself (non-blocking, with its own deadlines).
#[derive(Debug)]
pub struct BotPipes {
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// A running bot.
pub trait BotProcess: Send + std::fmt::Debug {
    /// The pipes, once; `None` afterwards.
    fn take_pipes(&mut self) -> Option<BotPipes>;
    /// The CPU time the bot has used so far, `None` once it is gone.
    fn cpu_time(&self) -> Option<Duration>;
    /// The exit, if the process has ended (reaps it).
    fn try_status(&mut self) -> Option<ExitReport>;
    /// Kills the bot and everything it started, and reaps it.
    fn kill_all(&mut self);
}

/// Starts bots.
pub trait BotLauncher: Send + Sync + std::fmt::Debug {
    fn launch(&self, spec: &LaunchSpec) -> Result<Box<dyn BotProcess>, LaunchError>;

    /// One line saying how bots are isolated, for the user to see.
    fn describe(&self) -> String;
}

/// Starts bots as plain child processes, each in its own process group.
/// No isolation: for trusted bots and for development.
#[derive(Debug, Clone, Default)]
pub struct PlainLauncher;

impl BotLauncher for PlainLauncher {
    fn launch(&self, spec: &LaunchSpec) -> Result<Box<dyn BotProcess>, LaunchError> {
        let program = spec
            .command
            .first()
            .filter(|program| !program.is_empty())
            .ok_or_else(|| LaunchError::NotStartable("the bot command is empty".into()))?;
        let program_path = resolve_program(program, spec);
        let mut command = Command::new(&program_path);
        command
            .args(&spec.command[1..])
            .current_dir(&spec.bot_dir)
            // None of the runner's environment (its tokens least of all).
            .env_clear()
            .envs(crate::build::scrubbed_environment(&std::env::temp_dir()))
            .envs(spec.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so killing the group takes its children too.
            .process_group(0);
        let child = command
            .spawn()
            .map_err(|error| LaunchError::spawn(program, error))?;
        Ok(Box::new(PlainProcess { child, exit: None }))
    }

    fn describe(&self) -> String {
        "no sandbox: bots run as plain processes with this user's rights (trusted bots only)"
            .to_string()
    }
}

/// The bare name by which a bot runs this very `cairn` binary (`cairn
/// bot-run random`): every runner has it, so an uploaded bot needs no path
/// to it.
pub const OWN_PROGRAM: &str = "cairn";

/// This binary, when `name` is [`OWN_PROGRAM`] and this binary is `cairn`
/// (a test binary of the runner crate is not).
pub fn own_program(name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    (name == OWN_PROGRAM && exe.file_name()? == OWN_PROGRAM).then_some(exe)
}

/// `./bot.py` means the bot folder's `bot.py`, whatever our own directory.
fn resolve_program(program: &str, spec: &LaunchSpec) -> PathBuf {
    if let Some(own) = own_program(program) {
        return own;
    }
    let path = PathBuf::from(program);
    if path.is_relative() && program.contains('/') {
        spec.bot_dir.join(path)
    } else {
        path
    }
}

#[derive(Debug)]
struct PlainProcess {
    child: Child,
    exit: Option<ExitReport>,
}

impl BotProcess for PlainProcess {
    fn take_pipes(&mut self) -> Option<BotPipes> {
        let stdin = self.child.stdin.take()?;
        let stdout = self.child.stdout.take()?;
        let stderr = self.child.stderr.take()?;
        Some(BotPipes {
            stdin: stdin.into(),
            stdout: stdout.into(),
            stderr: stderr.into(),
        })
    }

    fn cpu_time(&self) -> Option<Duration> {
        if self.exit.is_some() {
            return None;
        }
        process_cpu_time(self.child.id())
    }

    fn try_status(&mut self) -> Option<ExitReport> {
        if self.exit.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.exit = Some(ExitReport {
                    status,
                    broken_limit: None,
                });
            }
        }
        self.exit.clone()
    }

    fn kill_all(&mut self) {
        let group = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) with a negative pid signals that process group;
        // it touches no memory. The group is the child's own (process_group(0)).
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        if self.exit.is_none() {
            if let Ok(status) = self.child.wait() {
                self.exit = Some(ExitReport {
                    status,
                    broken_limit: None,
                });
            }
        }
    }
}

impl Drop for PlainProcess {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// The whole process's CPU time (all threads, user and system) from its
/// CPU clock: nanosecond resolution where `/proc/<pid>/stat` counts 10 ms
/// ticks, and one system call.
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    // The kernel's clock id for "the scheduler CPU time of process `pid`"
    // (what clock_getcpuclockid(3) computes, without its extra system call):
    // `(!pid << 3) | CPUCLOCK_SCHED`, part of the stable Linux ABI.
    const CPUCLOCK_SCHED: libc::clockid_t = 2;
    let clock = (!(pid as libc::clockid_t) << 3) | CPUCLOCK_SCHED;
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec passed by pointer.
    if unsafe { libc::clock_gettime(clock, &mut time) } != 0 {
        return None;
    }
    Some(Duration::new(time.tv_sec as u64, time.tv_nsec as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str) -> LaunchSpec {
        LaunchSpec {
            command: vec!["sh".into(), "-c".into(), script.into()],
            bot_dir: std::env::temp_dir(),
            env: vec![],
        }
    }

    #[test]
    fn a_spinning_child_shows_cpu_time_and_dies_with_its_group() {
        let mut process = PlainLauncher.launch(&shell("while :; do :; done")).unwrap();
        let start = std::time::Instant::now();
        let mut cpu = Duration::ZERO;
        while cpu < Duration::from_millis(20) && start.elapsed() < Duration::from_secs(10) {
            cpu = process.cpu_time().unwrap();
        }
        assert!(cpu >= Duration::from_millis(20), "cpu {cpu:?}");
        assert!(process.try_status().is_none());
        process.kill_all();
        let exit = process.try_status().unwrap();
        assert_eq!(exit.status.signal(), Some(libc::SIGKILL));
        assert_eq!(process.cpu_time(), None);
    }

    #[test]
    fn a_missing_empty_or_unexecutable_program_is_the_bots_fault() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("no-shebang"), "just words\n").unwrap();
        std::fs::write(dir.path().join("not-executable"), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        let executable = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(dir.path().join("no-shebang"), executable).unwrap();
        for command in [
            vec!["/nonexistent/bot".to_string()],
            vec![],
            vec![String::new()],
            vec!["./no-shebang".into()],
            vec!["./not-executable".into()],
            vec!["./".into()],
        ] {
            let spec = LaunchSpec {
                command: command.clone(),
                bot_dir: dir.path().to_path_buf(),
                env: vec![],
            };
            let error = PlainLauncher.launch(&spec).unwrap_err();
            assert!(
                matches!(error, LaunchError::NotStartable(_)),
                "{command:?}: {error:?}"
            );
        }
    }

    #[test]
    fn a_plain_bot_sees_none_of_the_runners_environment() {
        std::env::set_var("CAIRN_TEST_SECRET_PLAIN", "secret");
        let spec = LaunchSpec {
            env: vec![("MODE".into(), "fast".into())],
            ..shell("env")
        };
        let mut process = PlainLauncher.launch(&spec).unwrap();
        let pipes = process.take_pipes().unwrap();
        let mut seen = String::new();
        use std::io::Read;
        std::fs::File::from(pipes.stdout)
            .read_to_string(&mut seen)
            .unwrap();
        assert!(
            seen.contains("PATH=") && seen.contains("MODE=fast"),
            "{seen}"
        );
        assert!(!seen.contains("CAIRN_TEST_SECRET_PLAIN"), "{seen}");
    }
}
