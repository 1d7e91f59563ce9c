//! What runs inside the sandbox before the bot's `execve`: the supervisor
//! (PID 1 of the bot's pid namespace) and the bot's last setup steps.
//!
//! The supervisor runs in a fresh, single-threaded image of the runner's
//! binary ([`super::reexec`]) and forks the bot with the raw `clone` syscall
//! (glibc's `fork` would run atfork handlers). The code keeps the rules it
//! had when it was forked straight from the multi-threaded runner, and which
//! [`raw_fork`]'s other users still need: only syscalls on data the parent
//! prepared, no allocation, no locks, no glibc wrapper that talks to other
//! threads (`setuid` and `setgroups` are raw syscalls for that reason), and
//! it always leaves through `_exit`.
//!
//! The supervisor exists because PID 1 of a namespace ignores the signals it
//! has no handler for, SIGXCPU and SIGXFSZ included: as the bot's parent it
//! keeps the bot an ordinary process, reaps orphans, reports how the bot
//! ended and then exits, which makes the kernel kill every process left in
//! the namespace. It also exits when the runner disappears (its report pipe
//! loses its reader), so a crashed runner leaves no bot behind.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::sys::resource::{setrlimit, Resource};
use seccompiler::BpfProgram;

use super::in_image::{self, InImagePrograms};
use super::report::{Report, SetupStep};
use super::rootfs::MountPlan;

/// Everything the sandbox needs after `clone`, prepared by the parent.
#[derive(Debug)]
pub struct ChildPlan {
    pub mounts: Option<MountPlan>,
    pub set_hostname: bool,
    pub program: CString,
    /// The registered program of this binary the bot runs in the fork
    /// server's image instead of executing `program` ([`super::in_image`]).
    pub in_image: Option<CString>,
    pub argv: Vec<CString>,
    pub envp: Vec<CString>,
    pub workdir: CString,
    /// Uid and gid to drop to.
    pub bot_uid: Option<u32>,
    pub rlimits: Vec<(Resource, u64, u64)>,
    /// A Landlock ruleset built by the landlock crate, applied with one syscall.
    pub landlock: Option<OwnedFd>,
    /// The network namespace to join, when it is not created by the clone.
    pub network: Option<OwnedFd>,
    /// The detached scratch tmpfs the mount plan attaches at `/tmp`.
    pub scratch: Option<OwnedFd>,
    pub seccomp: Vec<BpfProgram>,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    pub report: OwnedFd,
    /// Cgroup files the supervisor writes `0` to, joining them itself.
    pub cgroup_join_files: Vec<CString>,
}

/// Pointers for `execve`, built in the parent from the plan's strings.
#[derive(Debug)]
pub struct ExecPointers {
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
}

impl ExecPointers {
    pub fn new(plan: &ChildPlan) -> ExecPointers {
        let pointers = |strings: &[CString]| {
            strings
                .iter()
                .map(|string| string.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect()
        };
        ExecPointers {
            argv: pointers(&plan.argv),
            envp: pointers(&plan.envp),
        }
    }
}

/// `fork` as the raw syscall, with extra `clone` flags (namespaces).
///
/// # Safety
/// The child must follow this module's rules (syscalls only, `_exit`).
pub unsafe fn raw_fork(namespace_flags: libc::c_int) -> Result<libc::pid_t, Errno> {
    let flags = (namespace_flags | libc::SIGCHLD) as libc::c_ulong;
    // SAFETY: a null stack pointer makes clone behave as fork (the child runs
    // on a copy of the caller's stack); the caller accepts the child's rules.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    Errno::result(pid).map(|pid| pid as libc::pid_t)
}

pub(super) fn write_report(fd: RawFd, report: Report) {
    let bytes = report.encode();
    // SAFETY: writes a stack buffer; a record is far below PIPE_BUF, so atomic.
    unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
}

pub(super) fn fail(fd: RawFd, step: SetupStep, errno: Errno) -> ! {
    write_report(
        fd,
        Report::SetupFailed {
            step,
            errno: errno as i32,
        },
    );
    // SAFETY: _exit is async-signal-safe and skips every destructor.
    unsafe { libc::_exit(1) }
}

/// Closes every descriptor except those in `keep` (unsorted, any length).
pub fn close_all_except(keep: &mut [RawFd]) -> Result<(), Errno> {
    keep.sort_unstable();
    let mut next_to_close: libc::c_uint = 0;
    for fd in keep.iter().copied().filter(|fd| *fd >= 0) {
        let fd = fd as libc::c_uint;
        if fd > next_to_close {
            // SAFETY: close_range only closes descriptors.
            let result = unsafe { libc::syscall(libc::SYS_close_range, next_to_close, fd - 1, 0) };
            Errno::result(result)?;
        }
        next_to_close = fd.saturating_add(1);
    }
    // SAFETY: as above.
    let result =
        unsafe { libc::syscall(libc::SYS_close_range, next_to_close, libc::c_uint::MAX, 0) };
    Errno::result(result).map(drop)
}

/// `fd` itself if it is above 2, else a close-on-exec duplicate above 2
/// (and `fd` is closed).
fn above_stdio(fd: RawFd) -> Result<RawFd, Errno> {
    if fd > 2 {
        return Ok(fd);
    }
    // SAFETY: fcntl and close on a descriptor we own.
    unsafe {
        let moved = Errno::result(libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3))?;
        libc::close(fd);
        Ok(moved)
    }
}

/// The sandbox's first process. Never returns.
///
/// # Safety
/// Call only in a single-threaded process that exists for this (the fresh
/// image of [`super::reexec`]).
pub unsafe fn run_supervisor(
    plan: &mut ChildPlan,
    pointers: &ExecPointers,
    programs: Option<&'static InImagePrograms>,
) -> ! {
    // Every disposition is the default, as the fork server set them once
    // ([`default_dispositions`]); all signals stay blocked, as the runner
    // started us, until only SIGCHLD is. A session of our own keeps the
    // terminal's Ctrl-C for the runner, which then ends us through the
    // report pipe.
    // SAFETY: setsid takes no arguments; we are not a group leader.
    unsafe { libc::setsid() };
    // The OOM killer ranks by resident size, which counts the pages of the
    // runner's binary we map: without this it could pick us instead of the
    // bot that ran out of memory.
    set_oom_score_adj(c"-1000");
    let report = plan.report.as_raw_fd();
    if let Err((step, errno)) = enter_sandbox(plan) {
        fail(report, step, errno);
    }
    let signal_fd =
        child_signal_fd().unwrap_or_else(|errno| fail(report, SetupStep::SignalFd, errno));
    // SAFETY: we are a single-threaded process, as raw_fork requires.
    let bot = unsafe { start_bot(plan, pointers, programs) };
    supervise(bot, signal_fd, report)
}

/// Keeps only the descriptors of the plan, joins the cgroups, builds the
/// root and names the host.
fn enter_sandbox(plan: &mut ChildPlan) -> Result<(), (SetupStep, Errno)> {
    let landlock_fd = plan
        .landlock
        .as_ref()
        .map_or(-1, |ruleset| ruleset.as_raw_fd());
    let network_fd = plan
        .network
        .as_ref()
        .map_or(-1, |namespace| namespace.as_raw_fd());
    let scratch_fd = plan.scratch.as_ref().map(AsRawFd::as_raw_fd);
    let mut keep = [
        plan.stdin.as_raw_fd(),
        plan.stdout.as_raw_fd(),
        plan.stderr.as_raw_fd(),
        plan.report.as_raw_fd(),
        landlock_fd,
        network_fd,
        scratch_fd.unwrap_or(-1),
    ];
    close_all_except(&mut keep).map_err(|errno| (SetupStep::CloseFds, errno))?;
    if network_fd >= 0 {
        // SAFETY: setns and close on a descriptor of the plan.
        unsafe {
            let joined = libc::setns(network_fd, libc::CLONE_NEWNET);
            libc::close(network_fd);
            Errno::result(joined).map_err(|errno| (SetupStep::JoinNetwork, errno))?;
        }
    }
    // Before the pivot: the cgroup files are host paths.
    join_cgroups(&plan.cgroup_join_files).map_err(|errno| (SetupStep::JoinCgroups, errno))?;
    if let Some(mounts) = &plan.mounts {
        mounts.apply_in_child(plan.scratch.take())?;
    }
    if plan.set_hostname {
        nix::unistd::sethostname("cairn-bot").map_err(|errno| (SetupStep::Hostname, errno))?;
    }
    Ok(())
}

/// Moves this (single-threaded) process into each cgroup of the bot.
fn join_cgroups(files: &[CString]) -> Result<(), Errno> {
    for file in files {
        // SAFETY: open, write and close on a prepared path and a static byte.
        unsafe {
            let fd = Errno::result(libc::open(file.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC))?;
            let written = libc::write(fd, c"0".as_ptr().cast(), 1);
            libc::close(fd);
            Errno::result(written)?;
        }
    }
    Ok(())
}

/// Leaves only SIGCHLD blocked and returns a descriptor that becomes
/// readable on it.
fn child_signal_fd() -> Result<RawFd, Errno> {
    // SAFETY: sigset operations on a stack value, then two syscalls.
    unsafe {
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut mask);
        libc::sigaddset(&mut mask, libc::SIGCHLD);
        Errno::result(libc::sigprocmask(
            libc::SIG_SETMASK,
            &mask,
            std::ptr::null_mut(),
        ))?;
        Errno::result(libc::signalfd(
            -1,
            &mask,
            libc::SFD_CLOEXEC | libc::SFD_NONBLOCK,
        ))
    }
}

/// Forks the bot, reports whether its `execve` worked, returns its pid.
///
/// # Safety
/// Single-threaded forked child only.
unsafe fn start_bot(
    plan: &mut ChildPlan,
    pointers: &ExecPointers,
    programs: Option<&'static InImagePrograms>,
) -> libc::pid_t {
    let report = plan.report.as_raw_fd();
    let mut exec_check = [0; 2];
    // SAFETY: pipe2 fills the two-element array.
    if let Err(errno) =
        Errno::result(unsafe { libc::pipe2(exec_check.as_mut_ptr(), libc::O_CLOEXEC) })
    {
        fail(report, SetupStep::Fork, errno);
    }
    // The runner's 0, 1 and 2 were closed: the pipe may have landed there,
    // where the bot's stdio will be put.
    for end in exec_check.iter_mut() {
        *end = above_stdio(*end).unwrap_or_else(|errno| fail(report, SetupStep::Fork, errno));
    }
    // SAFETY: the child only runs exec_bot, which follows the module's rules.
    let bot =
        unsafe { fork_bot(plan) }.unwrap_or_else(|errno| fail(report, SetupStep::Fork, errno));
    if bot == 0 {
        // SAFETY: single-threaded child of a fork.
        unsafe { libc::close(exec_check[0]) };
        exec_bot(plan, pointers, exec_check[1], programs);
    }
    // SAFETY: closing our copies: the bot's pipes must reach EOF when the bot
    // closes them, not when the supervisor exits.
    unsafe {
        libc::close(exec_check[1]);
        libc::close(plan.stdin.as_raw_fd());
        libc::close(plan.stdout.as_raw_fd());
        libc::close(plan.stderr.as_raw_fd());
    }
    let mut failure = [0u8; 8];
    // SAFETY: reads at most 8 bytes into a stack buffer; EOF means execve closed it.
    let count = unsafe { libc::read(exec_check[0], failure.as_mut_ptr().cast(), failure.len()) };
    if count == 8 {
        let step = u32::from_ne_bytes([failure[0], failure[1], failure[2], failure[3]]);
        let errno = i32::from_ne_bytes([failure[4], failure[5], failure[6], failure[7]]);
        let step = SetupStep::from_code(step).unwrap_or(SetupStep::Exec);
        write_report(report, Report::SetupFailed { step, errno });
    } else {
        write_report(report, Report::Started);
    }
    bot
}

/// Waits for the bot, reaping orphans on the way; exits when the bot ended
/// or the runner went away.
fn supervise(bot: libc::pid_t, signal_fd: RawFd, report: RawFd) -> ! {
    loop {
        let mut fds = [
            libc::pollfd {
                fd: signal_fd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: report,
                events: 0,
                revents: 0,
            },
        ];
        // SAFETY: polls two stack-held descriptors.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if ready < 0 {
            continue;
        }
        if fds[1].revents & (libc::POLLERR | libc::POLLHUP) != 0 {
            // SAFETY: leaving; the kernel kills the rest of the namespace.
            unsafe { libc::_exit(0) }
        }
        let mut siginfo = [0u8; 128];
        // SAFETY: drains pending SIGCHLD records into a stack buffer.
        while unsafe { libc::read(signal_fd, siginfo.as_mut_ptr().cast(), siginfo.len()) } > 0 {}
        reap_children(bot, report);
    }
}

fn reap_children(bot: libc::pid_t, report: RawFd) {
    loop {
        let mut status = 0;
        // SAFETY: zeroed rusage is a valid value to be overwritten.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 writes into the two stack values.
        let pid = unsafe { libc::wait4(-1, &mut status, libc::WNOHANG, &mut usage) };
        if pid == bot {
            let micros = |time: libc::timeval| time.tv_sec as u64 * 1_000_000 + time.tv_usec as u64;
            let cpu_micros = micros(usage.ru_utime) + micros(usage.ru_stime);
            write_report(
                report,
                Report::Exited {
                    wait_status: status,
                    cpu_micros,
                },
            );
            // SAFETY: leaving; the kernel kills the rest of the namespace.
            unsafe { libc::_exit(0) }
        }
        if pid == 0 {
            return;
        }
        if pid < 0 && Errno::last() != Errno::EINTR {
            // SAFETY: no child left at all: nothing more to supervise.
            unsafe { libc::_exit(0) }
        }
    }
}

/// The bot's process. A program run in this image gets glibc's `fork`, whose
/// child records its own thread id where glibc's recursive locks compare it
/// (the raw syscall leaves the fork server's there); one that executes gets
/// the raw syscall, as the module's rules ask.
///
/// # Safety
/// Single-threaded process only; the child follows the module's rules.
unsafe fn fork_bot(plan: &ChildPlan) -> Result<libc::pid_t, Errno> {
    match plan.in_image {
        // SAFETY: single-threaded: no other thread holds a lock; this
        // image registers no fork handlers.
        Some(_) => Errno::result(unsafe { libc::fork() }),
        // SAFETY: as the caller promised.
        None => unsafe { raw_fork(0) },
    }
}

/// Last steps in the bot's own process, then `execve` (or the program of
/// this image). Never returns.
fn exec_bot(
    plan: &ChildPlan,
    pointers: &ExecPointers,
    exec_check: RawFd,
    programs: Option<&'static InImagePrograms>,
) -> ! {
    let (step, errno) = match confine_bot(plan, exec_check) {
        Err(failure) => failure,
        Ok(()) if plan.in_image.is_some() => {
            let name = plan.in_image.as_deref().unwrap_or_default();
            // SAFETY: confined, single-threaded; closing the check pipe
            // tells the supervisor the bot started, as a successful execve
            // would; the environment lives in the plan, as long as we do.
            unsafe {
                libc::close(exec_check);
                in_image::run(programs, name, pointers.envp.as_ptr())
            }
        }
        Ok(()) => {
            // SAFETY: null-terminated arrays of pointers into the plan's C strings.
            unsafe {
                libc::execve(
                    plan.program.as_ptr(),
                    pointers.argv.as_ptr(),
                    pointers.envp.as_ptr(),
                )
            };
            (SetupStep::Exec, Errno::last())
        }
    };
    let mut bytes = [0u8; 8];
    bytes[0..4].copy_from_slice(&(step as u32).to_ne_bytes());
    bytes[4..8].copy_from_slice(&(errno as i32).to_ne_bytes());
    // SAFETY: writes a stack buffer, then leaves without destructors.
    unsafe {
        libc::write(exec_check, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(127)
    }
}

/// Every confinement of the bot's own process, in an order where each step
/// still has the rights it needs (limits and uid before Landlock and seccomp,
/// which forbid nothing those need but come last by convention).
fn confine_bot(plan: &ChildPlan, exec_check: RawFd) -> Result<(), (SetupStep, Errno)> {
    unblock_signals();
    connect_stdio(plan, exec_check).map_err(|errno| (SetupStep::Stdio, errno))?;
    // SAFETY: plain prctl; if the supervisor dies, so does the bot.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    for (resource, soft, hard) in plan.rlimits.iter().copied() {
        setrlimit(resource, soft, hard).map_err(|errno| (SetupStep::Rlimits, errno))?;
    }
    // Undo the supervisor's immunity while still allowed to lower the value.
    set_oom_score_adj(c"0");
    if let Some(uid) = plan.bot_uid {
        drop_credentials(uid).map_err(|errno| (SetupStep::Credentials, errno))?;
    }
    nix::unistd::chdir(plan.workdir.as_c_str())
        .map_err(|errno| (SetupStep::WorkingDirectory, errno))?;
    if let Some(ruleset) = &plan.landlock {
        restrict_with_landlock(ruleset.as_raw_fd())
            .map_err(|errno| (SetupStep::Landlock, errno))?;
    }
    for program in &plan.seccomp {
        seccompiler::apply_filter(program).map_err(|_| (SetupStep::Seccomp, Errno::last()))?;
    }
    Ok(())
}

/// Best effort: some kernels refuse the write (this project's machines
/// answer EIO even to root), and the sandbox works without it.
fn set_oom_score_adj(value: &std::ffi::CStr) {
    // SAFETY: open, write and close on a static path and a C string.
    unsafe {
        let fd = libc::open(
            c"/proc/self/oom_score_adj".as_ptr(),
            libc::O_WRONLY | libc::O_CLOEXEC,
        );
        if fd >= 0 {
            libc::write(fd, value.as_ptr().cast(), value.to_bytes().len());
            libc::close(fd);
        }
    }
}

/// Unblocks every signal; the dispositions are already the defaults (see
/// [`default_dispositions`]).
fn unblock_signals() {
    // SAFETY: sigset calls on a stack value.
    unsafe {
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
    }
}

/// Sets every signal's disposition to the default. The fork server does it
/// once, before it serves: the runner may ignore SIGPIPE (Rust does) and
/// ignored signals survive the `execve` that started the server; the server
/// installs no handler, so every supervisor and bot forked from it starts
/// with the defaults, without 62 `sigaction` calls of its own. The system
/// call itself, because glibc's `sigaction` refuses its internal signals
/// (32 and 33), which an ignoring runner would otherwise pass on.
pub(super) fn default_dispositions() {
    // The kernel's `struct sigaction` all zero: SIG_DFL, no flags, no mask.
    let default = [0u64; 4];
    for signal in 1..65 {
        if signal != libc::SIGKILL && signal != libc::SIGSTOP {
            // SAFETY: rt_sigaction reads `default`, sized for the kernel's
            // struct, and writes nothing back (a null old action).
            unsafe {
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    signal,
                    default.as_ptr(),
                    std::ptr::null_mut::<u64>(),
                    std::mem::size_of::<u64>(),
                )
            };
        }
    }
}

/// Puts the bot's pipe ends on 0, 1 and 2 and closes everything else.
fn connect_stdio(plan: &ChildPlan, exec_check: RawFd) -> Result<(), Errno> {
    let ends = [
        plan.stdin.as_raw_fd(),
        plan.stdout.as_raw_fd(),
        plan.stderr.as_raw_fd(),
    ];
    let mut high = [0; 3];
    for (slot, fd) in high.iter_mut().zip(ends) {
        // SAFETY: duplicates above 2 first, so no dup2 below clobbers another end.
        *slot = Errno::result(unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10) })?;
    }
    for (target, fd) in high.into_iter().enumerate() {
        // SAFETY: dup2 onto 0, 1, 2; the duplicate is inheritable.
        Errno::result(unsafe { libc::dup2(fd, target as RawFd) })?;
    }
    let landlock_fd = plan
        .landlock
        .as_ref()
        .map_or(-1, |ruleset| ruleset.as_raw_fd());
    close_all_except(&mut [0, 1, 2, exec_check, landlock_fd])
}

/// Enforces the ruleset on this process and its future children.
fn restrict_with_landlock(ruleset: RawFd) -> Result<(), Errno> {
    // SAFETY: prctl and landlock_restrict_self take integers only.
    unsafe {
        Errno::result(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
        Errno::result(libc::syscall(
            libc::SYS_landlock_restrict_self,
            ruleset,
            0u32,
        ))?;
        libc::close(ruleset);
    }
    Ok(())
}

/// Drops to `uid` (and the same gid) with no supplementary groups, as raw
/// syscalls: glibc's wrappers would try to reach the runner's other threads.
fn drop_credentials(uid: u32) -> Result<(), Errno> {
    // SAFETY: credential syscalls on integers (setgroups with an empty list).
    unsafe {
        Errno::result(libc::syscall(
            libc::SYS_setgroups,
            0usize,
            std::ptr::null::<libc::gid_t>(),
        ))?;
        Errno::result(libc::syscall(libc::SYS_setresgid, uid, uid, uid))?;
        Errno::result(libc::syscall(libc::SYS_setresuid, uid, uid, uid))?;
    }
    Ok(())
}
