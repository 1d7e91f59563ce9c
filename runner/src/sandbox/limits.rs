//! Resource limits of one sandboxed bot, and the limit a bot broke.
//!
//! Memory and process caps are enforced by cgroups (the whole process tree
//! shares them), the rest by rlimits on the bot process (inherited by its
//! children). `RLIMIT_AS` is deliberately never set: node and the JVM reserve
//! far more address space than they use and refuse to start under it.

use std::time::Duration;

/// What one bot may use. Every field applies to the bot's whole process tree
/// unless said otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Resident memory of the whole tree, tmpfs scratch files included (cgroup).
    pub memory_bytes: u64,
    /// Processes and threads alive at once (cgroup `pids.max` and `RLIMIT_NPROC`).
    pub max_processes: u64,
    /// CPU time; each process gets it as `RLIMIT_CPU`, and the cgroup total is
    /// checked by [`super::SandboxedProcess::try_status`].
    pub cpu_seconds: u64,
    /// Largest file a process may write (`RLIMIT_FSIZE`).
    pub file_size_bytes: u64,
    /// Open file descriptors per process (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Size of the private writable `/tmp` (tmpfs).
    pub scratch_bytes: u64,
    /// Bytes the reader of the bot's stdout and stderr should accept per line
    /// or message before declaring the bot broken; the sandbox only carries it.
    pub output_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 512 << 20,
            max_processes: 64,
            cpu_seconds: 600,
            file_size_bytes: 16 << 20,
            open_files: 256,
            scratch_bytes: 64 << 20,
            output_bytes: 1 << 20,
        }
    }
}

impl Limits {
    /// The CPU budget as a duration.
    pub fn cpu_time(&self) -> Duration {
        Duration::from_secs(self.cpu_seconds)
    }

    /// `limit` named with its figure under these limits, as a forfeit's
    /// detail says it: `memory limit of 512 MiB`.
    pub fn describe(&self, limit: LimitBroken) -> String {
        let figure = match limit {
            LimitBroken::Memory => mib(self.memory_bytes),
            LimitBroken::CpuTime => format!("{} s of CPU", self.cpu_seconds),
            LimitBroken::FileSize => mib(self.file_size_bytes),
            LimitBroken::Processes => format!("{} processes and threads", self.max_processes),
        };
        format!("{limit} limit of {figure}")
    }
}

impl std::fmt::Display for Limits {
    /// Every limit in a line, as `cairn doctor` prints the defaults.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "memory {} (the whole process tree, /tmp files included), {} processes and threads, \
             {} s of CPU in all, files up to {}, {} open files, a {} /tmp",
            mib(self.memory_bytes),
            self.max_processes,
            self.cpu_seconds,
            mib(self.file_size_bytes),
            self.open_files,
            mib(self.scratch_bytes)
        )
    }
}

/// `512 MiB`, or bytes when not a whole number of MiB.
fn mib(bytes: u64) -> String {
    match bytes % (1 << 20) {
        0 => format!("{} MiB", bytes >> 20),
        _ => format!("{bytes} bytes"),
    }
}

/// The limit a bot was stopped by (or ran into).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitBroken {
    /// The cgroup's memory cap: the kernel's OOM killer ended a process.
    Memory,
    /// `RLIMIT_CPU` (SIGXCPU / SIGKILL) or the cgroup's CPU total.
    CpuTime,
    /// `RLIMIT_FSIZE` (SIGXFSZ).
    FileSize,
    /// The process cap: at least one fork or thread creation was refused.
    Processes,
}

impl LimitBroken {
    /// A short stable name, for reports and forfeit details.
    pub fn name(self) -> &'static str {
        match self {
            LimitBroken::Memory => "memory",
            LimitBroken::CpuTime => "cpu_time",
            LimitBroken::FileSize => "file_size",
            LimitBroken::Processes => "processes",
        }
    }
}

impl std::fmt::Display for LimitBroken {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_limits_leave_room_for_interpreters() {
        let limits = Limits::default();
        assert_eq!(limits.memory_bytes, 512 << 20);
        assert_eq!(limits.max_processes, 64);
        assert_eq!(limits.file_size_bytes, 16 << 20);
        assert_eq!(limits.open_files, 256);
        assert_eq!(limits.cpu_time(), Duration::from_secs(600));
    }

    #[test]
    fn a_broken_limit_is_described_with_its_figure() {
        let limits = Limits::default();
        assert_eq!(
            limits.describe(LimitBroken::Memory),
            "memory limit of 512 MiB"
        );
        assert_eq!(
            limits.describe(LimitBroken::Processes),
            "processes limit of 64 processes and threads"
        );
        assert_eq!(
            limits.describe(LimitBroken::CpuTime),
            "cpu_time limit of 600 s of CPU"
        );
        let odd = Limits {
            file_size_bytes: 1000,
            ..limits
        };
        assert_eq!(
            odd.describe(LimitBroken::FileSize),
            "file_size limit of 1000 bytes"
        );
    }

    #[test]
    fn broken_limits_have_stable_names() {
        assert_eq!(LimitBroken::Memory.to_string(), "memory");
        assert_eq!(LimitBroken::CpuTime.name(), "cpu_time");
    }
}
