//! Building a sandbox for one bot and starting it.
//!
//! Everything that allocates happens here, before the fork: the uid lease,
//! the root skeleton and its mount plan, the cgroups, the pipes, the filters
//! and every C string. The forked side ([`super::child`]) only consumes them.

use std::ffi::CString;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::Path;

use nix::fcntl::OFlag;
use nix::sys::resource::Resource;
use nix::unistd::{pipe2, Pid};

use super::cgroup::BotCgroups;
use super::child::{raw_fork, run_supervisor, ChildPlan, ExecPointers};
use super::detect::HostSupport;
use super::filters::landlock_ruleset;
use super::process::{Leftovers, SandboxedProcess};
use super::resolve::{resolve_command, ResolvedCommand};
use super::rootfs::{self, MountPlan, RootSkeleton};
use super::uid_pool::{private_dir, state_dir, UidLease};
use super::{Limits, SandboxError, SandboxSpec};

/// The parent's ends of the bot's pipes and the control pipes.
struct ParentEnds {
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
    reports: OwnedFd,
    go: OwnedFd,
}

pub fn spawn(host: &HostSupport, spec: &SandboxSpec) -> Result<SandboxedProcess, SandboxError> {
    let bot_dir = spec
        .bot_dir
        .canonicalize()
        .map_err(|source| SandboxError::BotDir {
            path: spec.bot_dir.clone(),
            source,
        })?;
    if bot_dir.parent().is_none() {
        // It would show the whole host, read-only but still.
        let source = std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the root is not a bot folder",
        );
        return Err(SandboxError::BotDir {
            path: bot_dir,
            source,
        });
    }
    let resolved = resolve_command(&spec.command, &bot_dir)?;
    let state = state_dir();
    private_dir(&state).map_err(SandboxError::io("creating the sandbox state folder"))?;
    let lease = if host.bot_uids() {
        Some(UidLease::acquire(&state).map_err(SandboxError::io("leasing a bot uid"))?)
    } else {
        None
    };
    let name = match &lease {
        Some(lease) => format!("cairn-bot-{}", lease.uid()),
        None => format!("cairn-bot-{}-{}", std::process::id(), unique_number()),
    };
    let (skeleton, mounts) = if host.private_root() {
        let mut shown = resolved.extra_read_only.clone();
        shown.push(bot_dir.clone());
        let (skeleton, plan) = rootfs::prepare(
            &state.join("roots").join(&name),
            &shown,
            spec.limits.scratch_bytes,
        )
        .map_err(SandboxError::io("building the root skeleton"))?;
        (Some(skeleton), Some(plan))
    } else {
        (None, None)
    };
    let cgroups = match &host.cgroups {
        Some(cgroup_host) => Some(
            // One task more than the bot may have: the supervisor.
            BotCgroups::create(
                cgroup_host,
                &name,
                spec.limits.memory_bytes,
                spec.limits.max_processes + 1,
            )
            .map_err(SandboxError::io("creating the bot cgroups"))?,
        ),
        None => None,
    };
    let leftovers = Leftovers {
        cgroups,
        skeleton,
        lease,
    };
    start(host, spec, &resolved, &bot_dir, mounts, leftovers)
}

fn unique_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn start(
    host: &HostSupport,
    spec: &SandboxSpec,
    resolved: &ResolvedCommand,
    bot_dir: &Path,
    mounts: Option<MountPlan>,
    leftovers: Leftovers,
) -> Result<SandboxedProcess, SandboxError> {
    let bot_uid = leftovers.lease.as_ref().map(UidLease::uid);
    let (mut plan, parent_ends) = child_plan(
        host,
        spec,
        resolved,
        bot_dir,
        mounts,
        leftovers.skeleton.as_ref(),
        bot_uid,
    )?;
    let pointers = ExecPointers::new(&plan);
    // SAFETY: the child runs run_supervisor, which keeps to raw syscalls on
    // the prepared plan and leaves through _exit.
    let supervisor = match unsafe { raw_fork(host.clone_flags()) } {
        Ok(0) => unsafe { run_supervisor(&mut plan, &pointers) },
        Ok(pid) => Pid::from_raw(pid),
        Err(errno) => {
            return Err(SandboxError::Setup {
                step: "cloning the supervisor",
                errno,
            })
        }
    };
    // Closes the parent's copies of the child's ends (and the ruleset).
    drop(plan);
    let ParentEnds {
        stdin,
        stdout,
        stderr,
        reports,
        go,
    } = parent_ends;
    let mut process = SandboxedProcess::new(
        supervisor,
        [stdin, stdout, stderr],
        reports,
        leftovers,
        spec.limits,
        host.pid_namespace,
    );
    process
        .attach_to_cgroups()
        .map_err(SandboxError::io("moving the supervisor into its cgroups"))?;
    std::fs::File::from(go)
        .write_all(b"g")
        .map_err(SandboxError::io("releasing the supervisor"))?;
    process.await_start()?;
    Ok(process)
}

fn child_plan(
    host: &HostSupport,
    spec: &SandboxSpec,
    resolved: &ResolvedCommand,
    bot_dir: &Path,
    mounts: Option<MountPlan>,
    skeleton: Option<&RootSkeleton>,
    bot_uid: Option<u32>,
) -> Result<(ChildPlan, ParentEnds), SandboxError> {
    let pipe = || {
        pipe2(OFlag::O_CLOEXEC).map_err(|errno| SandboxError::Io {
            context: "creating a pipe",
            source: errno.into(),
        })
    };
    let (stdin_read, stdin_write) = pipe()?;
    let (stdout_read, stdout_write) = pipe()?;
    let (stderr_read, stderr_write) = pipe()?;
    let (reports_read, reports_write) = pipe()?;
    let (go_read, go_write) = pipe()?;
    let landlock = if host.landlock_abi >= 1 {
        let root = skeleton.map_or(Path::new("/"), RootSkeleton::dir);
        Option::<OwnedFd>::from(landlock_ruleset(root)?)
    } else {
        None
    };
    let plan = ChildPlan {
        mounts,
        set_hostname: host.other_namespaces,
        program: c_string(resolved.program.to_string_lossy().as_ref())?,
        argv: resolved
            .argv
            .iter()
            .map(|arg| c_string(arg))
            .collect::<Result<_, _>>()?,
        envp: environment(spec, resolved)?,
        workdir: c_string(bot_dir.to_string_lossy().as_ref())?,
        bot_uid,
        rlimits: rlimits(&spec.limits),
        landlock,
        seccomp: host.seccomp.clone().unwrap_or_default(),
        stdin: stdin_read,
        stdout: stdout_write,
        stderr: stderr_write,
        report: reports_write,
        go: go_read,
    };
    let ends = ParentEnds {
        stdin: stdin_write,
        stdout: stdout_read,
        stderr: stderr_read,
        reports: reports_read,
        go: go_write,
    };
    Ok((plan, ends))
}

fn c_string(text: &str) -> Result<CString, SandboxError> {
    CString::new(text).map_err(|_| SandboxError::NulByte)
}

fn environment(
    spec: &SandboxSpec,
    resolved: &ResolvedCommand,
) -> Result<Vec<CString>, SandboxError> {
    let base = [
        ("PATH", resolved.search_path.as_str()),
        ("HOME", "/tmp"),
        ("TMPDIR", "/tmp"),
        ("LANG", "C.UTF-8"),
        // The bot's uid has no passwd entry; libraries asking for a user
        // name (Python's getpass) read these first.
        ("USER", "bot"),
        ("LOGNAME", "bot"),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    ];
    let extra = spec
        .env
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_str()));
    base.into_iter()
        .chain(extra)
        .map(|(key, value)| c_string(&format!("{key}={value}")))
        .collect()
}

fn rlimits(limits: &Limits) -> Vec<(Resource, u64, u64)> {
    vec![
        (
            Resource::RLIMIT_NOFILE,
            limits.open_files,
            limits.open_files,
        ),
        (
            Resource::RLIMIT_FSIZE,
            limits.file_size_bytes,
            limits.file_size_bytes,
        ),
        // SIGXCPU at the limit, SIGKILL a second later for a bot that catches it.
        (
            Resource::RLIMIT_CPU,
            limits.cpu_seconds,
            limits.cpu_seconds + 1,
        ),
        // One above the cgroup's cap, so that the cgroup refuses first and
        // counts the refusal; the rlimit is the backstop without cgroups.
        (
            Resource::RLIMIT_NPROC,
            limits.max_processes + 1,
            limits.max_processes + 1,
        ),
        (Resource::RLIMIT_CORE, 0, 0),
    ]
}
