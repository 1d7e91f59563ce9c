//! Starts one untrusted bot process in a layered sandbox and tells what
//! happened to it.
//!
//! # Layers
//! Each is probed once by [`Sandbox::detect`] and listed by
//! [`Sandbox::layers`] (and [`doctor`]) as active or unavailable; a missing
//! layer is never skipped silently.
//! - own pid, mount, ipc, uts and cgroup namespaces, and the network
//!   namespace of its uid (`network`: one per uid, never shared by live bots);
//! - a supervisor as PID 1 of the pid namespace (`child`), the bot its child;
//!   forked by the fork server (`fork_server`), a fresh image of the
//!   runner's binary (`reexec`) started once, never a fork of the runner;
//!   a bundled bot of that binary runs in that image, confined the same way,
//!   without executing the binary again (`in_image`);
//! - a distinct unprivileged uid per live bot (`uid_pool`);
//! - a private read-only root with a capped tmpfs `/tmp` (`rootfs`);
//! - rlimits, cgroup memory and process caps, cgroup CPU accounting (`cgroup`);
//! - Landlock and seccomp (`filters`).
//!
//! # Using it
//! [`Sandbox::spawn`] blocks until the bot's `execve` (3 ms on an idle
//! machine of this kind, 5-10 ms under load, mostly mount namespace work in
//! the kernel): from async code call it in `spawn_blocking`. The pipes are std types, which
//! tokio converts with `from_std`; [`SandboxedProcess::exit_fd`] turns
//! readable when the bot ended; [`SandboxedProcess::cpu_time`] costs about a
//! microsecond (one `pread`), so it can be read at every decision. Dropping a
//! [`SandboxedProcess`] kills the whole tree.
//!
//! # What survives a crash of the runner
//! Every supervisor notices (its report pipe loses its reader) and exits,
//! which kills its bot's whole namespace, and with it the mount namespace
//! that holds its scratch tmpfs; every fork server reads the end of its
//! socket and exits. A bot's cgroups and root skeleton stay
//! until its uid is leased again, which empties the cgroups (killing what
//! is left in them) and reuses or rebuilds the skeleton; they stay after a
//! normal end too, for that uid's next bot.
//!
//! # Example
//! ```no_run
//! use cairn_runner::sandbox::{Sandbox, SandboxSpec};
//! let sandbox = Sandbox::detect();
//! let spec = SandboxSpec::new(vec!["python3".into(), "bot.py".into()], "/srv/bots/alpha".into());
//! let mut bot = sandbox.spawn(&spec).expect("bot starts");
//! let _stdin = bot.take_stdin();
//! let outcome = bot.wait();
//! println!("{:?} after {:?} of CPU", outcome.ending, outcome.cpu_time);
//! ```

mod cgroup;
mod child;
mod detect;
mod filters;
mod fork_server;
mod in_image;
mod launcher;
mod limits;
mod network;
mod process;
mod programs;
mod reexec;
mod report;
mod resolve;
mod rootfs;
mod spawn;
mod uid_pool;

use std::io;
use std::path::PathBuf;
use std::sync::OnceLock;

pub use cgroup::ControllerParent;
pub use detect::LayerStatus;
pub use fork_server::idle_server_pids;
#[doc(hidden)]
pub use in_image::before_main as in_image_before_main;
pub use in_image::InImagePrograms;
pub use launcher::SandboxLauncher;
pub use limits::{LimitBroken, Limits};
pub use process::{Ending, ProcessOutcome, SandboxedProcess};
pub use programs::{Interpreter, Interpreters, ProgramPolicy, SYSTEM_SEARCH_PATH};
pub use resolve::{is_system_path, resolve_command, ResolvedCommand};
pub use uid_pool::{UidLease, FIRST_BOT_UID};

/// What to run and under which limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSpec {
    /// The program and its arguments; the program is looked up on `PATH`, or
    /// in `bot_dir` when it contains a `/`.
    pub command: Vec<String>,
    /// The bot's folder: shown read-only at its own path, and the working
    /// directory.
    pub bot_dir: PathBuf,
    /// Which programs the command may name.
    pub programs: ProgramPolicy,
    pub limits: Limits,
    /// Extra environment variables (the bot gets no other of the runner's).
    pub env: Vec<(String, String)>,
    /// Show `bot_dir` writable, owned by the sandbox's uid while it runs
    /// (a build's one output folder); read-only otherwise.
    pub writable_bot_dir: bool,
}

impl SandboxSpec {
    /// A spec with default limits and no extra environment.
    pub fn new(command: Vec<String>, bot_dir: PathBuf) -> SandboxSpec {
        SandboxSpec {
            command,
            bot_dir,
            programs: ProgramPolicy::default(),
            limits: Limits::default(),
            env: Vec::new(),
            writable_bot_dir: false,
        }
    }
}

/// Why a bot could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("empty command")]
    EmptyCommand,
    #[error("command {0:?} not found")]
    CommandNotFound(String),
    /// A stranger's program that would show the bot a host folder.
    #[error("{0}; a bot runs a program of its folder or one of the runner's interpreters")]
    ProgramOutsideFolder(String),
    #[error("a command argument or variable holds a nul byte")]
    NulByte,
    #[error("bot folder {path}: {source}")]
    BotDir { path: PathBuf, source: io::Error },
    #[error("{context}: {source}")]
    Io {
        context: &'static str,
        source: io::Error,
    },
    #[error("landlock ruleset: {0}")]
    Landlock(#[from] landlock::RulesetError),
    #[error("sandbox setup failed while {step}: {errno}")]
    Setup {
        step: &'static str,
        errno: nix::errno::Errno,
    },
    #[error("the sandbox ended before the bot started")]
    SupervisorVanished,
}

impl SandboxError {
    /// Whether the fault lies with the host (setting up the sandbox: cgroups,
    /// namespaces, the root, the uid pool, the disk) rather than with the
    /// command it was asked to run (missing, not executable, malformed).
    pub fn is_host_fault(&self) -> bool {
        match self {
            SandboxError::EmptyCommand
            | SandboxError::CommandNotFound(_)
            | SandboxError::ProgramOutsideFolder(_)
            | SandboxError::NulByte => false,
            SandboxError::Setup { step, .. } => *step != report::SetupStep::Exec.name(),
            SandboxError::BotDir { .. }
            | SandboxError::Io { .. }
            | SandboxError::Landlock(_)
            | SandboxError::SupervisorVanished => true,
        }
    }

    fn io(context: &'static str) -> impl FnOnce(io::Error) -> SandboxError {
        move |source| SandboxError::Io { context, source }
    }
}

/// The sandbox layers this host supports; create once, spawn many bots.
#[derive(Debug, Clone)]
pub struct Sandbox {
    host: detect::HostSupport,
}

impl Sandbox {
    /// Probes the host (namespaces, cgroups, Landlock, seccomp): a few
    /// milliseconds, so do it once.
    pub fn detect() -> Sandbox {
        Sandbox {
            host: detect::HostSupport::probe(),
        }
    }

    /// A process-wide sandbox, probed on first use.
    pub fn shared() -> &'static Sandbox {
        static SHARED: OnceLock<Sandbox> = OnceLock::new();
        SHARED.get_or_init(Sandbox::detect)
    }

    /// Every layer with whether it is active here.
    pub fn layers(&self) -> Vec<LayerStatus> {
        self.host.layers()
    }

    /// Whether every layer is active.
    pub fn is_complete(&self) -> bool {
        self.layers().iter().all(|layer| layer.active)
    }

    /// Starts the bot; returns once its `execve` succeeded or failed.
    pub fn spawn(&self, spec: &SandboxSpec) -> Result<SandboxedProcess, SandboxError> {
        spawn::spawn(&self.host, spec)
    }
}

/// The layer report of `cairn doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctorReport {
    pub layers: Vec<LayerStatus>,
}

impl DoctorReport {
    /// Whether every layer is active (`cairn doctor` exits 0 only then).
    pub fn is_complete(&self) -> bool {
        self.layers.iter().all(|layer| layer.active)
    }
}

impl std::fmt::Display for DoctorReport {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for layer in &self.layers {
            writeln!(formatter, "{layer}")?;
        }
        let missing = self.layers.iter().filter(|layer| !layer.active).count();
        match missing {
            0 => write!(
                formatter,
                "sandbox complete: all {} layers active",
                self.layers.len()
            ),
            _ => write!(
                formatter,
                "sandbox INCOMPLETE: {missing} of {} layers unavailable",
                self.layers.len()
            ),
        }
    }
}

/// Probes the host and reports every sandbox layer.
pub fn doctor() -> DoctorReport {
    DoctorReport {
        layers: Sandbox::detect().layers(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_faults_are_the_hosts_and_a_bad_command_the_bots() {
        let errno = nix::errno::Errno::EACCES;
        let bots = [
            SandboxError::EmptyCommand,
            SandboxError::CommandNotFound("python4".into()),
            SandboxError::NulByte,
            SandboxError::Setup {
                step: report::SetupStep::Exec.name(),
                errno,
            },
        ];
        for error in bots {
            assert!(!error.is_host_fault(), "{error}");
        }
        let hosts = [
            SandboxError::Setup {
                step: report::SetupStep::JoinCgroups.name(),
                errno,
            },
            SandboxError::Setup {
                step: report::SetupStep::PivotRoot.name(),
                errno,
            },
            SandboxError::Io {
                context: "leasing a bot uid",
                source: io::Error::from(io::ErrorKind::WouldBlock),
            },
            SandboxError::Setup {
                step: report::SetupStep::StartSupervisor.name(),
                errno,
            },
            SandboxError::SupervisorVanished,
        ];
        for error in hosts {
            assert!(error.is_host_fault(), "{error}");
        }
    }

    #[test]
    fn the_doctor_report_ends_with_a_verdict() {
        let active = LayerStatus {
            name: "seccomp",
            active: true,
            detail: "deny-list".into(),
        };
        let missing = LayerStatus {
            name: "landlock",
            active: false,
            detail: "off".into(),
        };
        let complete = DoctorReport {
            layers: vec![active.clone()],
        };
        assert!(complete.is_complete());
        assert!(complete
            .to_string()
            .ends_with("sandbox complete: all 1 layers active"));
        let incomplete = DoctorReport {
            layers: vec![active, missing],
        };
        assert!(!incomplete.is_complete());
        let text = incomplete.to_string();
        assert!(
            text.contains("landlock") && text.contains("UNAVAILABLE"),
            "{text}"
        );
        assert!(text.ends_with("1 of 2 layers unavailable"), "{text}");
    }
}
