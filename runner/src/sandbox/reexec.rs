//! Starting the supervisor as a fresh image of the runner's own binary.
//!
//! Forking the runner for every bot copied the page tables of a
//! multi-threaded process, and the supervisor then kept the runner's pages
//! shared copy-on-write for the bot's whole life: each page the runner wrote
//! afterwards cost a fault and a TLB shootdown on the CPUs of its other
//! threads, so parallel matches slowed each other down. Now the runner starts
//! the supervisor the way `posix_spawn` starts a program: a `clone` that
//! shares the runner's memory (`CLONE_VM | CLONE_VFORK`: nothing is copied,
//! the calling thread waits) and creates the namespaces; its child only
//! marks the descriptors to keep and executes the runner's binary again
//! (`/proc/self/exe`, right even if the file was replaced since). That image
//! never reaches `main`: a constructor in `.init_array` sees the marker
//! argument, reads the [`ChildPlan`] the runner wrote into a memfd, and runs
//! the supervisor, a small single-threaded process whose fork of the bot
//! copies almost nothing. The constructor is in this crate, so it is in every
//! binary that can start a sandbox: `cairn`, and test and bench binaries.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fs::File;
use std::io::{Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileExt;

use nix::errno::Errno;
use nix::sys::memfd::{memfd_create, MFdFlags};
use nix::sys::resource::Resource;
use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow};
use nix::unistd::Pid;
use seccompiler::sock_filter;

use super::child::{fail, run_supervisor, ChildPlan, ExecPointers};
use super::report::SetupStep;
use super::rootfs::MountPlan;
use super::SandboxError;

/// The first argument that turns the runner's binary into a supervisor.
const MARKER: &CStr = c"--cairn-sandbox-supervisor";
/// The image's name in `ps`.
const SUPERVISOR_NAME: &CStr = c"cairn-sandbox";
/// Stack of the short-lived clone child (a few syscalls, then `execve`).
const CHILD_STACK_BYTES: usize = 16 * 1024;
/// The rlimits a plan may carry, by position.
const RLIMIT_RESOURCES: [Resource; 5] = [
    Resource::RLIMIT_NOFILE,
    Resource::RLIMIT_FSIZE,
    Resource::RLIMIT_CPU,
    Resource::RLIMIT_NPROC,
    Resource::RLIMIT_CORE,
];

// glibc calls `.init_array` functions with main's argc, argv and envp (std
// reads its arguments the same way).
#[used]
#[link_section = ".init_array"]
static SUPERVISOR_HOOK: extern "C" fn(c_int, *const *const c_char, *const *const c_char) =
    supervisor_hook;

extern "C" fn supervisor_hook(
    argc: c_int,
    argv: *const *const c_char,
    _envp: *const *const c_char,
) {
    if argc != 4 || argv.is_null() {
        return;
    }
    // SAFETY: glibc passes argc valid pointers to nul-terminated strings;
    // an array, not a vector: nothing may be allocated before the marker.
    let arg = |index: usize| unsafe { CStr::from_ptr(*argv.add(index)) };
    let args: [&CStr; 4] = std::array::from_fn(arg);
    if args[1] != MARKER {
        return;
    }
    without_huge_pages();
    let number = |arg: &CStr| arg.to_str().ok()?.parse::<RawFd>().ok();
    let (Some(plan_fd), Some(report_fd)) = (number(args[2]), number(args[3])) else {
        // SAFETY: leaving before main; nothing to clean up.
        unsafe { libc::_exit(1) }
    };
    supervise_from_plan(plan_fd, report_fd)
}

/// Turns transparent huge pages off for the sandbox, before the first
/// allocation: the bot inherits it through `fork` and `execve`. An allocator
/// that asks for huge pages (mimalloc does) otherwise zeroes 2 MiB on its
/// first byte in every new process, the largest single cost of a start, and
/// charges the bot's memory cgroup 2 MiB for it: a memory limit then counts
/// the pages a bot touched, not its allocator's rounding.
fn without_huge_pages() {
    // Best effort: the sandbox confines as well with huge pages.
    // SAFETY: a prctl on integers that only sets a flag of this process.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

/// The supervisor's life in its fresh image. Never returns.
fn supervise_from_plan(plan_fd: RawFd, report_fd: RawFd) -> ! {
    let plan = read_plan(plan_fd).and_then(|bytes| decode_plan(&mut Decoder { rest: &bytes }));
    let Some(mut plan) = plan else {
        fail(report_fd, SetupStep::StartSupervisor, Errno::EINVAL)
    };
    // SAFETY: the plan's descriptor is ours alone now.
    unsafe { libc::close(plan_fd) };
    let pointers = ExecPointers::new(&plan);
    // SAFETY: a freshly executed, single-threaded image.
    unsafe { run_supervisor(&mut plan, &pointers) }
}

fn read_plan(fd: RawFd) -> Option<Vec<u8>> {
    if !is_open(fd) {
        return None;
    }
    // SAFETY: an open descriptor the runner passed us; ManuallyDrop keeps
    // it open for the explicit close of the caller.
    let file = std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match file.read_at(&mut chunk, bytes.len() as u64) {
            Ok(0) => return Some(bytes),
            Ok(count) => bytes.extend_from_slice(&chunk[..count]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

fn is_open(fd: RawFd) -> bool {
    // SAFETY: F_GETFD only reads the descriptor's flags.
    fd >= 0 && unsafe { libc::fcntl(fd, libc::F_GETFD) } >= 0
}

/// Starts the supervisor in new namespaces (`namespace_flags`) running
/// `plan`; returns its pid once it runs the fresh image (or failed to, which
/// it reports on the plan's report pipe).
pub fn start_supervisor(plan: &ChildPlan, namespace_flags: c_int) -> Result<Pid, SandboxError> {
    let plan_file = plan_file(plan).map_err(SandboxError::io("writing the supervisor plan"))?;
    let exec = SupervisorExec::new(plan, plan_file.as_raw_fd())?;
    // On this thread's stack, as musl's posix_spawn does: the thread sleeps
    // until the child is done with it, and nothing is allocated or zeroed.
    let mut stack = std::mem::MaybeUninit::<[u128; CHILD_STACK_BYTES / 16]>::uninit();
    let stack_top = stack.as_mut_ptr().wrapping_add(1).cast::<c_void>();
    let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | namespace_flags;
    let argument = std::ptr::from_ref(&exec).cast_mut().cast::<c_void>();
    // SAFETY: the child runs exec_supervisor on its own stack while this
    // thread waits (CLONE_VFORK), and leaves by execve or _exit; every
    // signal is blocked so no handler of the runner runs in it.
    let pid = with_signals_blocked(|| unsafe {
        libc::clone(exec_supervisor, stack_top, flags, argument)
    })
    .map_err(|errno| SandboxError::Setup {
        step: "blocking signals",
        errno,
    })?;
    match pid {
        -1 => Err(SandboxError::Setup {
            step: "cloning the supervisor",
            errno: Errno::last(),
        }),
        pid => Ok(Pid::from_raw(pid)),
    }
}

/// Runs `action` with every signal blocked in this thread.
fn with_signals_blocked<T>(action: impl FnOnce() -> T) -> nix::Result<T> {
    let mut previous = SigSet::empty();
    pthread_sigmask(
        SigmaskHow::SIG_SETMASK,
        Some(&SigSet::all()),
        Some(&mut previous),
    )?;
    let result = action();
    pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&previous), None)?;
    Ok(result)
}

fn plan_file(plan: &ChildPlan) -> std::io::Result<OwnedFd> {
    let fd = memfd_create(c"cairn-sandbox-plan", MFdFlags::MFD_CLOEXEC)?;
    let mut file = File::from(fd);
    file.write_all(&encode_plan(plan))?;
    file.rewind()?;
    Ok(file.into())
}

/// What the clone child needs, prepared before the clone.
struct SupervisorExec {
    _args: [CString; 4],
    argv: [*const c_char; 5],
    envp: [*const c_char; 1],
    /// Descriptors that must survive the `execve`.
    keep: [RawFd; 8],
    report: RawFd,
}

impl SupervisorExec {
    fn new(plan: &ChildPlan, plan_fd: RawFd) -> Result<SupervisorExec, SandboxError> {
        let number = |fd: RawFd| CString::new(fd.to_string()).map_err(|_| SandboxError::NulByte);
        let report = plan.report.as_raw_fd();
        let args = [
            SUPERVISOR_NAME.to_owned(),
            MARKER.to_owned(),
            number(plan_fd)?,
            number(report)?,
        ];
        let argv = [
            args[0].as_ptr(),
            args[1].as_ptr(),
            args[2].as_ptr(),
            args[3].as_ptr(),
            std::ptr::null(),
        ];
        let landlock = plan.landlock.as_ref().map_or(-1, AsRawFd::as_raw_fd);
        let network = plan.network.as_ref().map_or(-1, AsRawFd::as_raw_fd);
        let scratch = plan.scratch.as_ref().map_or(-1, AsRawFd::as_raw_fd);
        Ok(SupervisorExec {
            _args: args,
            argv,
            envp: [std::ptr::null()],
            keep: [
                plan_fd,
                report,
                plan.stdin.as_raw_fd(),
                plan.stdout.as_raw_fd(),
                plan.stderr.as_raw_fd(),
                landlock,
                network,
                scratch,
            ],
            report,
        })
    }
}

/// The clone child: shares the runner's memory until `execve`, so it only
/// makes syscalls on the prepared [`SupervisorExec`] (as `posix_spawn`'s
/// child does).
extern "C" fn exec_supervisor(argument: *mut c_void) -> c_int {
    // SAFETY: the parent passed a SupervisorExec that outlives this child
    // (the parent waits for our execve or exit).
    let exec = unsafe { &*argument.cast::<SupervisorExec>() };
    for fd in exec.keep.iter().copied().filter(|fd| *fd >= 0) {
        // SAFETY: clears close-on-exec on a descriptor of our own table.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } < 0 {
            fail(exec.report, SetupStep::StartSupervisor, Errno::last());
        }
    }
    // SAFETY: null-terminated pointer arrays into strings the parent keeps.
    unsafe {
        libc::execve(
            c"/proc/self/exe".as_ptr(),
            exec.argv.as_ptr(),
            exec.envp.as_ptr(),
        )
    };
    fail(exec.report, SetupStep::StartSupervisor, Errno::last())
}

/// Little-endian numbers and length-prefixed strings.
#[derive(Debug, Default)]
pub struct Encoder {
    bytes: Vec<u8>,
}

impl Encoder {
    pub fn number(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    pub fn c_string(&mut self, text: &CStr) {
        self.number(text.to_bytes().len() as u64);
        self.bytes.extend_from_slice(text.to_bytes());
    }

    pub fn c_strings(&mut self, texts: &[CString]) {
        self.number(texts.len() as u64);
        for text in texts {
            self.c_string(text);
        }
    }

    fn fd(&mut self, fd: Option<RawFd>) {
        self.number(fd.map_or(0, |fd| fd as u64 + 1));
    }
}

/// Reads what an [`Encoder`] wrote; every read is `None` past the end.
#[derive(Debug)]
pub struct Decoder<'a> {
    rest: &'a [u8],
}

impl Decoder<'_> {
    pub fn number(&mut self) -> Option<u64> {
        let (head, rest) = self.rest.split_first_chunk::<8>()?;
        self.rest = rest;
        Some(u64::from_le_bytes(*head))
    }

    /// A count or a length, never more than the bytes left.
    pub fn length(&mut self) -> Option<usize> {
        let length = usize::try_from(self.number()?).ok()?;
        (length <= self.rest.len()).then_some(length)
    }

    pub fn c_string(&mut self) -> Option<CString> {
        let length = self.length()?;
        let (text, rest) = self.rest.split_at_checked(length)?;
        self.rest = rest;
        CString::new(text).ok()
    }

    pub fn c_strings(&mut self) -> Option<Vec<CString>> {
        let count = self.length()?;
        (0..count).map(|_| self.c_string()).collect()
    }

    fn fd(&mut self) -> Option<Option<RawFd>> {
        match self.number()? {
            0 => Some(None),
            number => RawFd::try_from(number - 1).ok().map(Some),
        }
    }
}

/// Takes ownership of descriptors the runner handed to this image, once the
/// whole plan has been read; `None` if one is not open.
fn owned_fds<const N: usize>(fds: [RawFd; N]) -> Option<[OwnedFd; N]> {
    if !fds.iter().all(|fd| is_open(*fd)) {
        return None;
    }
    // SAFETY: open descriptors that nothing else in this image owns.
    Some(fds.map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }))
}

fn encode_plan(plan: &ChildPlan) -> Vec<u8> {
    let mut out = Encoder::default();
    match &plan.mounts {
        Some(mounts) => {
            out.number(1);
            mounts.encode(&mut out);
        }
        None => out.number(0),
    }
    out.number(u64::from(plan.set_hostname));
    out.c_string(&plan.program);
    out.c_strings(&plan.argv);
    out.c_strings(&plan.envp);
    out.c_string(&plan.workdir);
    out.number(plan.bot_uid.map_or(0, |uid| u64::from(uid) + 1));
    out.number(plan.rlimits.len() as u64);
    for (resource, soft, hard) in &plan.rlimits {
        let index = RLIMIT_RESOURCES.iter().position(|known| known == resource);
        out.number(index.map_or(u64::MAX, |index| index as u64));
        out.number(*soft);
        out.number(*hard);
    }
    out.number(plan.seccomp.len() as u64);
    for program in &plan.seccomp {
        out.number(program.len() as u64);
        for instruction in program {
            out.number(
                u64::from(instruction.code)
                    | u64::from(instruction.jt) << 16
                    | u64::from(instruction.jf) << 24
                    | u64::from(instruction.k) << 32,
            );
        }
    }
    out.c_strings(&plan.cgroup_join_files);
    out.fd(plan.landlock.as_ref().map(AsRawFd::as_raw_fd));
    out.fd(plan.network.as_ref().map(AsRawFd::as_raw_fd));
    out.fd(plan.scratch.as_ref().map(AsRawFd::as_raw_fd));
    for fd in [&plan.stdin, &plan.stdout, &plan.stderr, &plan.report] {
        out.fd(Some(fd.as_raw_fd()));
    }
    out.bytes
}

fn decode_plan(input: &mut Decoder<'_>) -> Option<ChildPlan> {
    let mounts = match input.number()? {
        0 => None,
        _ => Some(MountPlan::decode(input)?),
    };
    let set_hostname = input.number()? != 0;
    let program = input.c_string()?;
    let argv = input.c_strings()?;
    let envp = input.c_strings()?;
    let workdir = input.c_string()?;
    let bot_uid = match input.number()? {
        0 => None,
        uid => Some(u32::try_from(uid - 1).ok()?),
    };
    let rlimits = (0..input.length()?)
        .map(|_| {
            let resource = *RLIMIT_RESOURCES.get(input.length()?)?;
            Some((resource, input.number()?, input.number()?))
        })
        .collect::<Option<Vec<_>>>()?;
    let seccomp = (0..input.length()?)
        .map(|_| {
            (0..input.length()?)
                .map(|_| {
                    let word = input.number()?;
                    Some(sock_filter {
                        code: word as u16,
                        jt: (word >> 16) as u8,
                        jf: (word >> 24) as u8,
                        k: (word >> 32) as u32,
                    })
                })
                .collect::<Option<Vec<_>>>()
        })
        .collect::<Option<Vec<_>>>()?;
    let cgroup_join_files = input.c_strings()?;
    let landlock = input.fd()?;
    let network = input.fd()?;
    let scratch = input.fd()?;
    let stdio_and_report = [input.fd()??, input.fd()??, input.fd()??, input.fd()??];
    if !input.rest.is_empty() {
        return None;
    }
    let [stdin, stdout, stderr, report] = owned_fds(stdio_and_report)?;
    let optional = |fd: Option<RawFd>| match fd {
        Some(fd) => owned_fds([fd]).map(|[fd]| Some(fd)),
        None => Some(None),
    };
    let landlock = optional(landlock)?;
    let network = optional(network)?;
    let scratch = optional(scratch)?;
    Some(ChildPlan {
        mounts,
        set_hostname,
        program,
        argv,
        envp,
        workdir,
        bot_uid,
        rlimits,
        landlock,
        network,
        scratch,
        seccomp,
        stdin,
        stdout,
        stderr,
        report,
        cgroup_join_files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::report::{Report, REPORT_SIZE};

    fn pipe_ends() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("a pipe")
    }

    fn plan() -> ChildPlan {
        let (stdin, stdout) = pipe_ends();
        let (stderr, report) = pipe_ends();
        let (network, scratch) = pipe_ends();
        let text = |text: &str| CString::new(text).expect("no nul");
        ChildPlan {
            mounts: None,
            set_hostname: true,
            program: text("/usr/bin/python3"),
            argv: vec![text("python3"), text("bot.py"), text("")],
            envp: vec![text("PATH=/usr/bin"), text("CAIRN_BOT_SEED=7")],
            workdir: text("/srv/bots/alpha"),
            bot_uid: Some(1_200_003),
            rlimits: vec![
                (Resource::RLIMIT_CPU, 10, 11),
                (Resource::RLIMIT_CORE, 0, 0),
            ],
            landlock: None,
            network: Some(network),
            scratch: Some(scratch),
            seccomp: super::super::filters::seccomp_programs().expect("seccomp programs"),
            stdin,
            stdout,
            stderr,
            report,
            cgroup_join_files: vec![text("/sys/fs/cgroup/cairn-bot-1/cgroup.procs")],
        }
    }

    #[test]
    fn a_plan_reads_back_as_it_was_written() {
        let plan = plan();
        let encoded = encode_plan(&plan);
        let written = format!("{plan:?}");
        // The decoded plan owns the same descriptors now.
        std::mem::forget(plan);
        let decoded = decode_plan(&mut Decoder { rest: &encoded }).expect("a plan");
        assert_eq!(format!("{decoded:?}"), written);
    }

    #[test]
    fn a_cut_or_padded_plan_is_refused() {
        let plan = plan();
        let mut encoded = encode_plan(&plan);
        for length in 0..encoded.len() {
            let mut input = Decoder {
                rest: &encoded[..length],
            };
            assert!(decode_plan(&mut input).is_none(), "{length} bytes");
        }
        encoded.push(0);
        assert!(decode_plan(&mut Decoder { rest: &encoded }).is_none());
    }

    #[test]
    fn the_marker_makes_a_binary_a_supervisor_that_reports_a_missing_plan() {
        // This test binary links the hook too: started with the marker it
        // never reaches the test harness. Its report goes to stdout here.
        let marker = MARKER.to_str().expect("ascii");
        let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([marker, "-1", "1"])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let bytes: [u8; REPORT_SIZE] = output.stdout.as_slice().try_into().expect("one report");
        let expected = Report::SetupFailed {
            step: SetupStep::StartSupervisor,
            errno: libc::EINVAL,
        };
        assert_eq!(Report::decode(bytes), Some(expected));
    }
}
