//! The sandbox behind the launch seam: [`SandboxLauncher`] starts bots with
//! [`Sandbox::spawn`] and hands the match loop a [`BotProcess`] like any
//! other, so the match loop is the same with or without isolation.

use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use super::{
    Ending, Limits, ProcessOutcome, ProgramPolicy, Sandbox, SandboxSpec, SandboxedProcess,
};
use crate::launch::{BotLauncher, BotPipes, BotProcess, ExitReport, LaunchError, LaunchSpec};

/// Starts every bot in the sandbox, under the same limits.
#[derive(Debug, Clone)]
pub struct SandboxLauncher {
    sandbox: &'static Sandbox,
    limits: Limits,
    /// `None`: the default policy, whose interpreters are looked up at the
    /// first launch, not here: a launcher given another policy at once
    /// (`cairn play`) never runs the version managers' shims.
    programs: Option<ProgramPolicy>,
}

impl SandboxLauncher {
    /// The process-wide sandbox (probed once) with `limits`, its bots
    /// confined to their folders and the default interpreters.
    pub fn new(limits: Limits) -> SandboxLauncher {
        SandboxLauncher {
            sandbox: Sandbox::shared(),
            limits,
            programs: None,
        }
    }

    /// The same launcher with another program policy (`cairn play` trusts
    /// its user's commands; a runner confines the arena's bots).
    pub fn with_programs(self, programs: ProgramPolicy) -> SandboxLauncher {
        SandboxLauncher {
            programs: Some(programs),
            ..self
        }
    }

    pub fn sandbox(&self) -> &'static Sandbox {
        self.sandbox
    }
}

impl BotLauncher for SandboxLauncher {
    fn launch(&self, spec: &LaunchSpec) -> Result<Box<dyn BotProcess>, LaunchError> {
        let sandbox_spec = SandboxSpec {
            command: spec.command.clone(),
            bot_dir: spec.bot_dir.clone(),
            programs: self.programs.clone().unwrap_or_default(),
            limits: self.limits,
            env: spec.env.clone(),
            writable_bot_dir: false,
        };
        let process =
            self.sandbox
                .spawn(&sandbox_spec)
                .map_err(|error| match error.is_host_fault() {
                    true => LaunchError::Host(format!("the sandbox cannot start the bot: {error}")),
                    false => LaunchError::NotStartable(format!("cannot start the bot: {error}")),
                })?;
        Ok(Box::new(SandboxBot { process }))
    }

    fn describe(&self) -> String {
        let layers = self.sandbox.layers();
        let missing: Vec<&str> = layers
            .iter()
            .filter(|layer| !layer.active)
            .map(|layer| layer.name)
            .collect();
        match missing.is_empty() {
            true => format!("sandbox: all {} layers active", layers.len()),
            false => format!(
                "sandbox INCOMPLETE: {} of {} layers unavailable ({})",
                missing.len(),
                layers.len(),
                missing.join(", ")
            ),
        }
    }
}

#[derive(Debug)]
struct SandboxBot {
    process: SandboxedProcess,
}

/// The sandbox's ending as a wait status, so the match loop reads it like
/// any exit (a kill by the runner reads as SIGKILL); a broken limit is
/// named with its figure under `limits`.
fn exit_report(outcome: ProcessOutcome, limits: &Limits) -> ExitReport {
    let status = match outcome.ending {
        Ending::Exited(code) => ExitStatus::from_raw((code & 0xff) << 8),
        Ending::Signaled(signal) => ExitStatus::from_raw(signal & 0x7f),
        Ending::Killed => ExitStatus::from_raw(libc::SIGKILL),
    };
    ExitReport {
        status,
        broken_limit: outcome.limit_broken.map(|limit| limits.describe(limit)),
    }
}

impl BotProcess for SandboxBot {
    fn take_pipes(&mut self) -> Option<BotPipes> {
        let stdin: OwnedFd = self.process.take_stdin()?.into();
        let stdout: OwnedFd = self.process.take_stdout()?.into();
        let stderr: OwnedFd = self.process.take_stderr()?.into();
        Some(BotPipes {
            stdin,
            stdout,
            stderr,
        })
    }

    fn cpu_time(&self) -> Option<Duration> {
        Some(self.process.cpu_time())
    }

    fn try_status(&mut self) -> Option<ExitReport> {
        let limits = *self.process.limits();
        self.process
            .try_status()
            .map(|outcome| exit_report(outcome, &limits))
    }

    fn kill_all(&mut self) {
        self.process.kill_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::LimitBroken;

    #[test]
    fn a_policy_given_at_once_replaces_the_default_before_any_lookup() {
        let launcher = SandboxLauncher::new(Limits::default());
        assert_eq!(launcher.programs, None, "looked up at the first launch");
        let trusted = launcher.with_programs(ProgramPolicy::Trusted);
        assert_eq!(trusted.programs, Some(ProgramPolicy::Trusted));
    }

    fn report_of(ending: Ending, limit_broken: Option<LimitBroken>) -> ExitReport {
        let outcome = ProcessOutcome {
            ending,
            limit_broken,
            cpu_time: Duration::ZERO,
        };
        exit_report(outcome, &Limits::default())
    }

    #[test]
    fn sandbox_endings_read_as_exit_codes_signals_and_broken_limits() {
        let exited = report_of(Ending::Exited(3), None);
        assert_eq!((exited.status.code(), exited.broken_limit), (Some(3), None));
        let signaled = report_of(Ending::Signaled(11), None);
        assert_eq!(signaled.status.signal(), Some(11));
        let killed = report_of(Ending::Killed, Some(LimitBroken::Memory));
        assert_eq!(killed.status.signal(), Some(libc::SIGKILL));
        assert_eq!(
            killed.broken_limit.as_deref(),
            Some("memory limit of 512 MiB")
        );
    }
}
