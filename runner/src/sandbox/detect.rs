//! Probing which sandbox layers this host supports, and the layer report.

use std::fmt;

use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use super::cgroup::CgroupHost;
use super::child::raw_fork;
use super::filters::{landlock_abi_version, seccomp_programs};
use seccompiler::BpfProgram;

/// One layer of the sandbox and whether it is in force on this host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerStatus {
    pub name: &'static str,
    pub active: bool,
    /// What the layer does when active, why it is not otherwise.
    pub detail: String,
}

impl fmt::Display for LayerStatus {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = if self.active { "active" } else { "UNAVAILABLE" };
        write!(formatter, "{:<30} {:<11} {}", self.name, state, self.detail)
    }
}

/// What the host offers, found once by [`HostSupport::probe`].
#[derive(Debug, Clone)]
pub struct HostSupport {
    pub is_root: bool,
    pub network_namespace: bool,
    pub pid_namespace: bool,
    pub mount_namespace: bool,
    pub other_namespaces: bool,
    pub cgroups: Option<CgroupHost>,
    pub landlock_abi: i64,
    pub seccomp: Result<Vec<BpfProgram>, String>,
}

impl HostSupport {
    pub fn probe() -> HostSupport {
        let works = |flags| namespace_works(flags);
        HostSupport {
            is_root: nix::unistd::geteuid().is_root(),
            network_namespace: works(libc::CLONE_NEWNET),
            pid_namespace: works(libc::CLONE_NEWPID),
            mount_namespace: works(libc::CLONE_NEWNS),
            other_namespaces: works(
                libc::CLONE_NEWIPC | libc::CLONE_NEWUTS | libc::CLONE_NEWCGROUP,
            ),
            cgroups: CgroupHost::detect(),
            landlock_abi: landlock_abi_version(),
            seccomp: seccomp_programs().map_err(|error| error.to_string()),
        }
    }

    /// The private root needs both a mount namespace (to pivot) and a pid
    /// namespace (for its `/proc` to show only the bot's processes).
    pub fn private_root(&self) -> bool {
        self.mount_namespace && self.pid_namespace
    }

    /// Distinct unprivileged uids need the right to change uid.
    pub fn bot_uids(&self) -> bool {
        self.is_root
    }

    /// The `clone` flags for a sandbox's first process.
    pub fn clone_flags(&self) -> libc::c_int {
        let mut flags = 0;
        if self.network_namespace {
            flags |= libc::CLONE_NEWNET;
        }
        if self.pid_namespace {
            flags |= libc::CLONE_NEWPID;
        }
        if self.mount_namespace {
            flags |= libc::CLONE_NEWNS;
        }
        if self.other_namespaces {
            flags |= libc::CLONE_NEWIPC | libc::CLONE_NEWUTS | libc::CLONE_NEWCGROUP;
        }
        flags
    }

    /// Every layer, active or not, in a fixed order.
    pub fn layers(&self) -> Vec<LayerStatus> {
        let needs_root = "needs root (no user namespace mapping is attempted)";
        let mut layers = vec![
            layer("network namespace", self.network_namespace, "one per bot uid, never shared by live bots, loopback down: no network at all", needs_root),
            layer("pid namespace", self.pid_namespace, "a supervisor is PID 1; its exit kills every process of the bot", needs_root),
            layer(
                "private root",
                self.private_root(),
                "pivot_root into a read-only skeleton: system runtimes, the bot folder, a capped tmpfs /tmp, own /proc",
                "needs mount and pid namespaces",
            ),
            layer("ipc, uts, cgroup namespaces", self.other_namespaces, "private System V IPC, hostname and cgroup view", needs_root),
            layer("unprivileged uid", self.bot_uids(), "a distinct unused uid and gid per live bot, no groups", needs_root),
            layer("rlimits", true, "NOFILE, FSIZE, CPU, NPROC, CORE=0 (never AS: it breaks node and the JVM)", ""),
        ];
        layers.extend(self.cgroup_layers());
        layers.push(self.landlock_layer());
        layers.push(match &self.seccomp {
            Ok(_) => layer(
                "seccomp",
                true,
                "deny-list: ptrace, mount, modules, bpf, keyrings, namespaces, io_uring, ...",
                "",
            ),
            Err(error) => layer("seccomp", false, "", error),
        });
        layers
    }

    fn cgroup_layers(&self) -> Vec<LayerStatus> {
        let Some(host) = &self.cgroups else {
            let missing = "no writable cgroup hierarchy";
            return vec![
                layer("memory cap", false, "", missing),
                layer("process cap", false, "", missing),
                layer("cpu accounting", false, "", missing),
            ];
        };
        let description = host.describe();
        let missing = format!("controller missing: {description}");
        vec![
            layer("memory cap", host.has_memory(), &description, &missing),
            layer("process cap", host.has_pids(), &description, &missing),
            layer(
                "cpu accounting",
                host.has_cpu_accounting(),
                &description,
                &missing,
            ),
        ]
    }

    fn landlock_layer(&self) -> LayerStatus {
        let detail = format!(
            "ABI {}: read-only root, writes only in /tmp and /dev, no TCP bind or connect{}",
            self.landlock_abi,
            if self.landlock_abi >= 6 {
                ", signals and abstract sockets scoped to the bot"
            } else {
                ""
            }
        );
        layer(
            "landlock",
            self.landlock_abi >= 1,
            &detail,
            "not enabled in this kernel",
        )
    }
}

fn layer(name: &'static str, active: bool, when_active: &str, when_missing: &str) -> LayerStatus {
    let detail = if active { when_active } else { when_missing };
    LayerStatus {
        name,
        active,
        detail: detail.to_string(),
    }
}

/// Starts a child in new namespaces of the given kinds and reaps it.
fn namespace_works(flags: libc::c_int) -> bool {
    // SAFETY: the child only calls _exit.
    match unsafe { raw_fork(flags) } {
        Ok(0) => unsafe { libc::_exit(0) },
        Ok(pid) => waitpid(Pid::from_raw(pid), None).is_ok(),
        Err(_) => false,
    }
}
