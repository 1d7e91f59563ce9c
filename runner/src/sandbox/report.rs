//! The supervisor's reports to the runner: fixed-size records on a pipe,
//! written with one `write` each (atomic below `PIPE_BUF`) and encoded
//! without allocation, since the supervisor may not allocate.

/// A setup step that can fail inside the sandbox, sent to the parent by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum SetupStep {
    CloseFds = 1,
    PrivateMounts,
    BindRoot,
    MakeDir,
    Proc,
    Bind,
    RemountReadOnly,
    PivotRoot,
    DetachOldRoot,
    Hostname,
    JoinCgroups,
    SignalFd,
    Fork,
    Stdio,
    Rlimits,
    Credentials,
    WorkingDirectory,
    Landlock,
    Seccomp,
    Exec,
    StartSupervisor,
    JoinNetwork,
    MountScratch,
}

impl SetupStep {
    const ALL: [SetupStep; 23] = [
        SetupStep::CloseFds,
        SetupStep::PrivateMounts,
        SetupStep::BindRoot,
        SetupStep::MakeDir,
        SetupStep::Proc,
        SetupStep::Bind,
        SetupStep::RemountReadOnly,
        SetupStep::PivotRoot,
        SetupStep::DetachOldRoot,
        SetupStep::Hostname,
        SetupStep::JoinCgroups,
        SetupStep::SignalFd,
        SetupStep::Fork,
        SetupStep::Stdio,
        SetupStep::Rlimits,
        SetupStep::Credentials,
        SetupStep::WorkingDirectory,
        SetupStep::Landlock,
        SetupStep::Seccomp,
        SetupStep::Exec,
        SetupStep::StartSupervisor,
        SetupStep::JoinNetwork,
        SetupStep::MountScratch,
    ];

    pub fn from_code(code: u32) -> Option<SetupStep> {
        SetupStep::ALL.into_iter().find(|step| *step as u32 == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            SetupStep::CloseFds => "closing inherited descriptors",
            SetupStep::PrivateMounts => "making mounts private",
            SetupStep::BindRoot => "binding the new root",
            SetupStep::MakeDir => "creating a mount point",
            SetupStep::Proc => "mounting /proc",
            SetupStep::Bind => "bind-mounting a directory",
            SetupStep::RemountReadOnly => "remounting read-only",
            SetupStep::PivotRoot => "pivoting into the new root",
            SetupStep::DetachOldRoot => "detaching the old root",
            SetupStep::Hostname => "setting the hostname",
            SetupStep::JoinCgroups => "joining the bot cgroups",
            SetupStep::SignalFd => "creating the signal descriptor",
            SetupStep::Fork => "forking the bot",
            SetupStep::Stdio => "connecting stdin, stdout and stderr",
            SetupStep::Rlimits => "setting rlimits",
            SetupStep::Credentials => "dropping to the bot uid",
            SetupStep::WorkingDirectory => "entering the bot folder",
            SetupStep::Landlock => "applying landlock",
            SetupStep::Seccomp => "applying seccomp",
            SetupStep::Exec => "executing the bot",
            SetupStep::StartSupervisor => "starting the sandbox supervisor",
            SetupStep::JoinNetwork => "joining the bot's network namespace",
            SetupStep::MountScratch => "attaching the scratch /tmp",
        }
    }
}

/// Messages from the supervisor to the runner, fixed-size records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// The bot's `execve` succeeded.
    Started,
    /// A setup step failed with an errno.
    SetupFailed { step: SetupStep, errno: i32 },
    /// The bot ended: raw wait status and the CPU time of it and the
    /// children it reaped.
    Exited { wait_status: i32, cpu_micros: u64 },
}

pub const REPORT_SIZE: usize = 16;

impl Report {
    pub fn encode(self) -> [u8; REPORT_SIZE] {
        let (tag, first, second): (u32, u32, u64) = match self {
            Report::Started => (1, 0, 0),
            Report::SetupFailed { step, errno } => (2, step as u32, errno as u64),
            Report::Exited {
                wait_status,
                cpu_micros,
            } => (3, wait_status as u32, cpu_micros),
        };
        let mut bytes = [0u8; REPORT_SIZE];
        bytes[0..4].copy_from_slice(&tag.to_ne_bytes());
        bytes[4..8].copy_from_slice(&first.to_ne_bytes());
        bytes[8..16].copy_from_slice(&second.to_ne_bytes());
        bytes
    }

    pub fn decode(bytes: [u8; REPORT_SIZE]) -> Option<Report> {
        let tag = u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let first = u32::from_ne_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let mut second_bytes = [0u8; 8];
        second_bytes.copy_from_slice(&bytes[8..16]);
        let second = u64::from_ne_bytes(second_bytes);
        match tag {
            1 => Some(Report::Started),
            2 => Some(Report::SetupFailed {
                step: SetupStep::from_code(first)?,
                errno: second as i32,
            }),
            3 => Some(Report::Exited {
                wait_status: first as i32,
                cpu_micros: second,
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_survive_the_pipe_encoding() {
        let reports = [
            Report::Started,
            Report::SetupFailed {
                step: SetupStep::PivotRoot,
                errno: libc::EINVAL,
            },
            Report::Exited {
                wait_status: 9,
                cpu_micros: 1_234_567,
            },
        ];
        for report in reports {
            assert_eq!(Report::decode(report.encode()), Some(report));
        }
    }

    #[test]
    fn every_setup_step_has_a_distinct_code_and_a_name() {
        for (index, step) in SetupStep::ALL.into_iter().enumerate() {
            assert_eq!(step as u32, index as u32 + 1);
            assert_eq!(SetupStep::from_code(step as u32), Some(step));
            assert!(!step.name().is_empty());
        }
        assert_eq!(SetupStep::from_code(0), None);
    }
}
