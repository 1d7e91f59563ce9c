//! A running sandboxed bot: its pipes, its CPU time, how it ended, and the
//! guarantee that nothing of it survives [`SandboxedProcess::kill_all`].

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::process::{ChildStderr, ChildStdin, ChildStdout};
use std::time::Duration;

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use super::cgroup::BotCgroups;
use super::report::{Report, REPORT_SIZE};
use super::rootfs::RootSkeleton;
use super::uid_pool::UidLease;
use super::{LimitBroken, Limits, SandboxError};

const SIGXCPU: i32 = Signal::SIGXCPU as i32;
const SIGXFSZ: i32 = Signal::SIGXFSZ as i32;

/// How the bot's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (the kernel's OOM kill and RLIMIT signals included).
    Signaled(i32),
    /// [`SandboxedProcess::kill_all`] ended it while it ran.
    Killed,
}

/// How the bot ended, which limit it broke, and the CPU it used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessOutcome {
    pub ending: Ending,
    pub limit_broken: Option<LimitBroken>,
    /// CPU time of the whole tree (all its processes, reaped or not).
    pub cpu_time: Duration,
}

/// What must be cleaned up once the bot is gone.
#[derive(Debug)]
pub struct Leftovers {
    pub cgroups: Option<BotCgroups>,
    pub skeleton: Option<RootSkeleton>,
    pub lease: Option<UidLease>,
}

/// A started bot. Dropping it kills the whole tree.
#[derive(Debug)]
pub struct SandboxedProcess {
    supervisor: Pid,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    reports: File,
    leftovers: Leftovers,
    limits: Limits,
    has_pid_namespace: bool,
    outcome: Option<ProcessOutcome>,
    /// CPU time of the bot and its reaped children, from the supervisor.
    reported_cpu: Duration,
}

impl SandboxedProcess {
    pub(super) fn new(
        supervisor: Pid,
        [stdin, stdout, stderr]: [OwnedFd; 3],
        reports: OwnedFd,
        leftovers: Leftovers,
        limits: Limits,
        has_pid_namespace: bool,
    ) -> SandboxedProcess {
        SandboxedProcess {
            supervisor,
            stdin: Some(ChildStdin::from(stdin)),
            stdout: Some(ChildStdout::from(stdout)),
            stderr: Some(ChildStderr::from(stderr)),
            reports: File::from(reports),
            leftovers,
            limits,
            has_pid_namespace,
            outcome: None,
            reported_cpu: Duration::ZERO,
        }
    }

    /// The limits the process runs under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Waits for the supervisor's word that the bot's `execve` happened.
    pub(super) fn await_start(&mut self) -> Result<(), SandboxError> {
        match self.read_report() {
            Some(Report::Started) => Ok(()),
            Some(Report::SetupFailed { step, errno }) => Err(SandboxError::Setup {
                step: step.name(),
                errno: nix::errno::Errno::from_raw(errno),
            }),
            Some(Report::Exited { .. }) | None => Err(SandboxError::SupervisorVanished),
        }
    }

    /// The next record from the supervisor; `None` at end of file.
    fn read_report(&mut self) -> Option<Report> {
        let mut bytes = [0u8; REPORT_SIZE];
        self.reports.read_exact(&mut bytes).ok()?;
        Report::decode(bytes)
    }

    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.stdout.take()
    }

    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.stderr.take()
    }

    /// Host pid of the supervisor, the root of the bot's process tree.
    pub fn pid(&self) -> u32 {
        self.supervisor.as_raw() as u32
    }

    /// Becomes readable (data or end of file) once the bot has ended, after
    /// which [`SandboxedProcess::try_status`] returns the outcome: for waiting
    /// without a thread (e.g. with tokio's `AsyncFd`).
    pub fn exit_fd(&self) -> BorrowedFd<'_> {
        self.reports.as_fd()
    }

    /// CPU time used so far by the bot and every process it started.
    pub fn cpu_time(&self) -> Duration {
        if let Some(outcome) = &self.outcome {
            return outcome.cpu_time;
        }
        let from_cgroup = self
            .leftovers
            .cgroups
            .as_ref()
            .and_then(BotCgroups::cpu_usage);
        from_cgroup
            .unwrap_or_else(|| tree_cpu_time(self.supervisor))
            .max(self.reported_cpu)
    }

    /// How the bot ended, or `None` while it runs. A bot over its CPU budget
    /// (counted over its whole tree) is killed here.
    pub fn try_status(&mut self) -> Option<ProcessOutcome> {
        if self.outcome.is_some() {
            return self.outcome;
        }
        match waitpid(self.supervisor, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) | Err(nix::errno::Errno::EINTR) => {}
            _ => return Some(self.finish(false)),
        }
        if self.has_ended() {
            // The supervisor reports just before it exits: wait that moment.
            return Some(self.wait());
        }
        if self.cpu_time() > self.limits.cpu_time() {
            return Some(self.kill_all());
        }
        None
    }

    /// Whether the supervisor has reported the bot's end (or vanished).
    fn has_ended(&self) -> bool {
        let mut entries = [PollFd::new(self.reports.as_fd(), PollFlags::POLLIN)];
        let ready = poll(&mut entries, PollTimeout::ZERO).unwrap_or(0);
        ready > 0 && entries[0].any().unwrap_or(false)
    }

    /// Blocks until the bot ends.
    pub fn wait(&mut self) -> ProcessOutcome {
        if let Some(outcome) = self.outcome {
            return outcome;
        }
        while let Err(nix::errno::Errno::EINTR) = waitpid(self.supervisor, None) {}
        self.finish(false)
    }

    /// Kills the bot and every process it started (children, daemons that
    /// left its session) and reaps them; returns how it ended. Nothing of the
    /// bot exists any more when this returns.
    pub fn kill_all(&mut self) -> ProcessOutcome {
        if let Some(outcome) = self.outcome {
            return outcome;
        }
        // The namespace's init dying makes the kernel kill and reap every
        // other process in it before the init can be reaped.
        let _ = kill(self.supervisor, Signal::SIGKILL);
        while let Err(nix::errno::Errno::EINTR) = waitpid(self.supervisor, None) {}
        self.finish(true)
    }

    /// The supervisor is reaped: read its report, name the broken limit,
    /// sweep the cgroups and clean up.
    fn finish(&mut self, killed: bool) -> ProcessOutcome {
        let ending = match self.read_exit_report() {
            Some((ending, cpu)) => {
                self.reported_cpu = cpu;
                ending
            }
            None if killed => Ending::Killed,
            None => Ending::Signaled(Signal::SIGKILL as i32),
        };
        if let Some(cgroups) = &self.leftovers.cgroups {
            // Without a pid namespace this is what ends the stragglers.
            cgroups.kill_members();
        }
        let cpu_time = self.cpu_time();
        let limit_broken = self.broken_limit(ending, cpu_time);
        let outcome = ProcessOutcome {
            ending,
            limit_broken,
            cpu_time,
        };
        self.outcome = Some(outcome);
        self.clean_up();
        outcome
    }

    fn read_exit_report(&mut self) -> Option<(Ending, Duration)> {
        while let Some(report) = self.read_report() {
            if let Report::Exited {
                wait_status,
                cpu_micros,
            } = report
            {
                // libc, not nix's `WaitStatus`: the raw status may name a
                // real-time signal, which nix's `Signal` cannot represent.
                let ending = if libc::WIFSIGNALED(wait_status) {
                    Ending::Signaled(libc::WTERMSIG(wait_status))
                } else {
                    Ending::Exited(libc::WEXITSTATUS(wait_status))
                };
                return Some((ending, Duration::from_micros(cpu_micros)));
            }
        }
        None
    }

    fn broken_limit(&self, ending: Ending, cpu_time: Duration) -> Option<LimitBroken> {
        let cgroups = self.leftovers.cgroups.as_ref();
        if cgroups.is_some_and(|cgroups| cgroups.oom_kills() > 0) {
            return Some(LimitBroken::Memory);
        }
        let over_cpu = cpu_time >= self.limits.cpu_time();
        match ending {
            Ending::Signaled(SIGXCPU) => return Some(LimitBroken::CpuTime),
            Ending::Signaled(SIGXFSZ) => return Some(LimitBroken::FileSize),
            _ => {}
        }
        // A refused fork is the cause even when the CPU bank ran out later:
        // a fork bomb spins on failed forks until the CPU limit kills it,
        // and which comes first depends only on the machine's load.
        if cgroups.is_some_and(|cgroups| cgroups.refused_forks() > 0) {
            return Some(LimitBroken::Processes);
        }
        over_cpu.then_some(LimitBroken::CpuTime)
    }

    fn clean_up(&mut self) {
        // The scratch tmpfs, whose pages are charged to the cgroup, went
        // with the sandbox's mount namespace.
        if let Some(skeleton) = self.leftovers.skeleton.take() {
            skeleton.release();
        }
        if let Some(cgroups) = self.leftovers.cgroups.take() {
            cgroups.release();
        }
        self.leftovers.lease = None;
    }

    /// Host pids of every live process of the bot, the supervisor included.
    pub fn process_ids(&self) -> Vec<u32> {
        if let Some(cgroups) = &self.leftovers.cgroups {
            return cgroups
                .members()
                .into_iter()
                .map(|pid| pid.as_raw() as u32)
                .collect();
        }
        tree_pids(self.supervisor)
            .into_iter()
            .map(|pid| pid as u32)
            .collect()
    }

    /// Whether the sandbox can guarantee that `kill_all` leaves nothing.
    pub fn has_pid_namespace(&self) -> bool {
        self.has_pid_namespace
    }
}

impl Drop for SandboxedProcess {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// `root` and its descendants, from `/proc`.
fn tree_pids(root: Pid) -> Vec<i32> {
    let mut found = Vec::new();
    let mut pending = vec![root.as_raw()];
    while let Some(pid) = pending.pop() {
        found.push(pid);
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        pending.extend(
            children
                .split_whitespace()
                .filter_map(|child| child.parse::<i32>().ok()),
        );
    }
    found
}

/// CPU time of `root` and its descendants from `/proc`, for hosts without
/// cgroup CPU accounting.
fn tree_cpu_time(root: Pid) -> Duration {
    let ticks_per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .unwrap_or(100) as u64;
    let total_ticks: u64 = tree_pids(root)
        .into_iter()
        .map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // utime, stime, cutime, cstime: the 12th to 15th fields after the
            // command's closing parenthesis.
            let after_command = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            after_command
                .split_whitespace()
                .skip(11)
                .take(4)
                .filter_map(|field| field.parse::<u64>().ok())
                .sum::<u64>()
        })
        .sum();
    Duration::from_millis(total_ticks * 1000 / ticks_per_second.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{Sandbox, SandboxSpec};

    fn assert_send_and_sync<T: Send + Sync>() {}

    #[test]
    fn a_sandboxed_process_can_move_between_threads() {
        assert_send_and_sync::<SandboxedProcess>();
    }

    #[test]
    fn the_supervisor_has_its_own_session_and_ignores_stray_signals() {
        use std::io::{BufRead, BufReader, Write};
        let dir = std::env::temp_dir().join(format!("cairn-session-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("bot folder");
        let spec = SandboxSpec::new(vec!["cat".to_string()], dir.clone());
        let mut process = Sandbox::shared().spawn(&spec).expect("cat starts");
        let supervisor = Pid::from_raw(process.pid() as i32);
        // Not in the runner's session: a terminal's Ctrl-C reaches the runner only.
        assert_eq!(nix::unistd::getsid(Some(supervisor)), Ok(supervisor));
        for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            kill(supervisor, signal).expect("signal delivered");
        }
        let mut stdin = process.take_stdin().expect("stdin");
        stdin.write_all(b"still here\n").expect("write");
        let mut stdout = BufReader::new(process.take_stdout().expect("stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        assert_eq!(line, "still here\n");
        assert_eq!(process.kill_all().ending, Ending::Killed);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn once_the_exit_fd_is_readable_try_status_has_the_outcome() {
        let dir = std::env::temp_dir().join(format!("cairn-exit-fd-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("bot folder");
        let command = ["sh", "-c", "exit 5"].map(String::from).to_vec();
        let mut process = Sandbox::shared()
            .spawn(&SandboxSpec::new(command, dir.clone()))
            .expect("starts");
        let mut entries = [PollFd::new(process.exit_fd(), PollFlags::POLLIN)];
        assert_eq!(poll(&mut entries, PollTimeout::NONE), Ok(1));
        let outcome = process.try_status().expect("ended");
        assert_eq!(outcome.ending, Ending::Exited(5));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_supervisor_ends_the_bot_when_the_runner_stops_listening() {
        let dir = std::env::temp_dir().join(format!("cairn-orphan-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("bot folder");
        let spec = SandboxSpec::new(vec!["cat".to_string()], dir.clone());
        let mut process = Sandbox::shared().spawn(&spec).expect("cat starts");
        let _stdin_kept_open = process.take_stdin();
        let mut stdout = process.take_stdout().expect("stdout");
        // What a crashed runner leaves: its end of the report pipe closed.
        process.reports = File::open("/dev/null").expect("/dev/null");
        let mut rest = Vec::new();
        stdout
            .read_to_end(&mut rest)
            .expect("end of file once cat is killed");
        assert_eq!(
            process.wait().ending,
            Ending::Signaled(Signal::SIGKILL as i32)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
