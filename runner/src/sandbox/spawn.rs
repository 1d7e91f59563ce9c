//! Building a sandbox for one bot and starting it.
//!
//! Everything that allocates happens here, before the clone: the uid lease,
//! the root skeleton and its mount plan, the cgroups, the pipes, the filters
//! and every C string. The supervisor ([`super::child`], forked by
//! [`super::fork_server`]) only consumes them.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;
use nix::sys::resource::Resource;
use nix::unistd::pipe2;

use super::cgroup::BotCgroups;
use super::child::ChildPlan;
use super::detect::HostSupport;
use super::filters::landlock_ruleset;
use super::fork_server;
use super::in_image;
use super::network;
use super::process::{Leftovers, SandboxedProcess};
use super::resolve::{resolve_command, ResolvedCommand};
use super::rootfs::{self, MountPlan, PreparedRoot, RootSkeleton};
use super::uid_pool::{private_dir, state_dir, UidLease};
use super::{Limits, SandboxError, SandboxSpec};

/// The parent's ends of the bot's pipes and of the control pipes.
struct ParentEnds {
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
    reports: OwnedFd,
}

/// The sandbox's ends of the same pipes.
struct ChildEnds {
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
    report: OwnedFd,
}

/// Everything built on the host side before the fork.
struct Prepared {
    bot_dir: PathBuf,
    resolved: ResolvedCommand,
    mounts: Option<MountPlan>,
    /// The detached scratch tmpfs, attached by the sandbox.
    scratch: Option<OwnedFd>,
    leftovers: Leftovers,
}

pub fn spawn(host: &HostSupport, spec: &SandboxSpec) -> Result<SandboxedProcess, SandboxError> {
    let bot_dir = canonical_bot_dir(&spec.bot_dir)?;
    let resolved = resolve_command(&spec.command, &bot_dir, &spec.programs)?;
    let prepared = prepare(host, spec, bot_dir, resolved)?;
    start(host, spec, prepared)
}

fn canonical_bot_dir(bot_dir: &Path) -> Result<PathBuf, SandboxError> {
    let error = |source| SandboxError::BotDir {
        path: bot_dir.to_path_buf(),
        source,
    };
    let canonical = bot_dir.canonicalize().map_err(error)?;
    if canonical.parent().is_none() {
        // It would show the whole host, read-only but still.
        let message = "the root is not a bot folder";
        return Err(error(io::Error::new(io::ErrorKind::InvalidInput, message)));
    }
    Ok(canonical)
}

/// Leases a uid, builds the root skeleton and the cgroups.
fn prepare(
    host: &HostSupport,
    spec: &SandboxSpec,
    bot_dir: PathBuf,
    resolved: ResolvedCommand,
) -> Result<Prepared, SandboxError> {
    let state = state_dir();
    private_dir(&state).map_err(SandboxError::io("creating the sandbox state folder"))?;
    let lease = match host.bot_uids() {
        true => Some(UidLease::acquire(&state).map_err(SandboxError::io("leasing a bot uid"))?),
        false => None,
    };
    let name = match &lease {
        Some(lease) => format!("cairn-bot-{}", lease.uid()),
        None => format!("cairn-bot-{}-{}", std::process::id(), unique_number()),
    };
    let bot_uid = lease.as_ref().map(UidLease::uid);
    if let (true, Some(uid)) = (spec.writable_bot_dir, bot_uid) {
        rootfs::give_tree(&bot_dir, uid)
            .map_err(SandboxError::io("handing the output folder to the bot uid"))?;
    }
    let (skeleton, mounts, scratch) = match host.private_root() {
        true => {
            let mut shown = resolved.extra_read_only.clone();
            let writable = spec.writable_bot_dir.then_some(bot_dir.as_path());
            if writable.is_none() {
                shown.push(bot_dir.clone());
            }
            let skeleton_dir = state.join("roots").join(&name);
            let views = rootfs::Views {
                read_only: &shown,
                writable,
            };
            let PreparedRoot {
                skeleton,
                plan,
                scratch,
            } = rootfs::prepare(
                &skeleton_dir,
                &views,
                spec.limits.scratch_bytes,
                bot_uid,
                // Named by its uid, whose lease makes it ours alone: kept
                // for the next bot of that uid.
                lease.is_some(),
            )
            .map_err(SandboxError::io("building the root skeleton"))?;
            let scratch = above_stdio(scratch).map_err(|errno| SandboxError::Io {
                context: "placing the scratch tmpfs",
                source: errno.into(),
            })?;
            (Some(skeleton), Some(plan), Some(scratch))
        }
        false => (None, None, None),
    };
    // One task more than the bot may have: the supervisor.
    let max_tasks = spec.limits.max_processes + 1;
    let cgroups = host
        .cgroups
        .as_ref()
        .map(|cgroup_host| {
            BotCgroups::create(
                cgroup_host,
                &name,
                spec.limits.memory_bytes,
                max_tasks,
                lease.is_some(),
            )
        })
        .transpose()
        .map_err(SandboxError::io("creating the bot cgroups"))?;
    let leftovers = Leftovers {
        cgroups,
        skeleton,
        lease,
    };
    Ok(Prepared {
        bot_dir,
        resolved,
        mounts,
        scratch,
        leftovers,
    })
}

fn unique_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Starts the supervisor (which joins its cgroups itself) and waits for the
/// bot's `execve`.
fn start(
    host: &HostSupport,
    spec: &SandboxSpec,
    mut prepared: Prepared,
) -> Result<SandboxedProcess, SandboxError> {
    let (child_ends, parent_ends) = pipes()?;
    let plan = child_plan(host, spec, &mut prepared, child_ends)?;
    let mut namespace_flags = host.clone_flags();
    if plan.network.is_some() {
        namespace_flags &= !libc::CLONE_NEWNET;
    }
    let supervisor = fork_server::start_supervisor(&plan, namespace_flags)?;
    // Closes the parent's copies of the child's ends (and of the ruleset).
    drop(plan);
    let ParentEnds {
        stdin,
        stdout,
        stderr,
        reports,
    } = parent_ends;
    let stdio = [stdin, stdout, stderr];
    let leftovers = prepared.leftovers;
    let mut process = SandboxedProcess::new(
        supervisor,
        stdio,
        reports,
        leftovers,
        spec.limits,
        host.pid_namespace,
    );
    process.await_start()?;
    Ok(process)
}

/// `fd`, moved above 2 if it is 0, 1 or 2 (a runner without stdio): the
/// sandbox puts the bot's pipes there and must not clobber its own.
fn above_stdio(fd: OwnedFd) -> nix::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_DUPFD_CLOEXEC(3))
        // SAFETY: F_DUPFD_CLOEXEC returned a new descriptor that we now own.
        .map(|moved| unsafe { OwnedFd::from_raw_fd(moved) })
}

fn pipes() -> Result<(ChildEnds, ParentEnds), SandboxError> {
    let pipe = || {
        let (read, write) = pipe2(OFlag::O_CLOEXEC)?;
        Ok::<_, nix::errno::Errno>((above_stdio(read)?, above_stdio(write)?))
    };
    let pipe = || {
        pipe().map_err(|errno| SandboxError::Io {
            context: "creating a pipe",
            source: errno.into(),
        })
    };
    let (stdin_read, stdin_write) = pipe()?;
    let (stdout_read, stdout_write) = pipe()?;
    let (stderr_read, stderr_write) = pipe()?;
    let (reports_read, reports_write) = pipe()?;
    let child = ChildEnds {
        stdin: stdin_read,
        stdout: stdout_write,
        stderr: stderr_write,
        report: reports_write,
    };
    let parent = ParentEnds {
        stdin: stdin_write,
        stdout: stdout_read,
        stderr: stderr_read,
        reports: reports_read,
    };
    Ok((child, parent))
}

fn child_plan(
    host: &HostSupport,
    spec: &SandboxSpec,
    prepared: &mut Prepared,
    ends: ChildEnds,
) -> Result<ChildPlan, SandboxError> {
    let landlock = match host.landlock_abi >= 1 {
        true => {
            let skeleton = prepared.leftovers.skeleton.as_ref();
            let root = skeleton.map_or(Path::new("/"), RootSkeleton::dir);
            let writable = spec.writable_bot_dir.then_some(prepared.bot_dir.as_path());
            let scratch = prepared.scratch.as_ref().map(AsFd::as_fd);
            let ruleset = Option::<OwnedFd>::from(landlock_ruleset(root, scratch, writable)?);
            ruleset
                .map(above_stdio)
                .transpose()
                .map_err(|errno| SandboxError::Io {
                    context: "placing the landlock ruleset",
                    source: errno.into(),
                })?
        }
        false => None,
    };
    let bot_uid = prepared.leftovers.lease.as_ref().map(UidLease::uid);
    let network = match (host.network_namespace, bot_uid) {
        (true, Some(uid)) => Some(
            network::namespace_of(uid)
                .and_then(|namespace| above_stdio(namespace).map_err(Into::into))
                .map_err(SandboxError::io("preparing the bot's network namespace"))?,
        ),
        _ => None,
    };
    let cgroups = prepared.leftovers.cgroups.as_ref();
    let cgroup_join_files = cgroups.map(BotCgroups::join_files).unwrap_or_default();
    let cgroup_join_files = cgroup_join_files
        .iter()
        .map(|file| c_string(&file.to_string_lossy()))
        .collect::<Result<_, _>>()?;
    let resolved = &prepared.resolved;
    Ok(ChildPlan {
        mounts: prepared.mounts.take(),
        set_hostname: host.other_namespaces,
        program: c_string(resolved.program.to_string_lossy().as_ref())?,
        in_image: in_image::program_for(&resolved.program, &resolved.argv),
        argv: resolved
            .argv
            .iter()
            .map(|arg| c_string(arg))
            .collect::<Result<_, _>>()?,
        envp: environment(spec, resolved)?,
        workdir: c_string(prepared.bot_dir.to_string_lossy().as_ref())?,
        bot_uid,
        rlimits: rlimits(&spec.limits),
        landlock,
        network,
        scratch: prepared.scratch.take(),
        seccomp: host.seccomp.clone().unwrap_or_default(),
        stdin: ends.stdin,
        stdout: ends.stdout,
        stderr: ends.stderr,
        report: ends.report,
        cgroup_join_files,
    })
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
    let python_path = resolved
        .python_path
        .as_deref()
        .map(|dir| ("PYTHONPATH", dir));
    base.into_iter()
        .chain(python_path)
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
