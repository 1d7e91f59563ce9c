//! Starting the fork server as a fresh image of the runner's own binary,
//! and the plan it hands each supervisor.
//!
//! Forking the runner for every bot copied the page tables of a
//! multi-threaded process, and the supervisor then kept the runner's pages
//! shared copy-on-write for the bot's whole life: each page the runner wrote
//! afterwards cost a fault and a TLB shootdown on the CPUs of its other
//! threads, so parallel matches slowed each other down. Executing the
//! runner's binary again for every supervisor cost more than half a start's
//! CPU instead (the loader, the allocator, a 2 MiB huge page). Now the
//! runner starts one [`super::fork_server`] the way `posix_spawn` starts a
//! program: a `clone` that shares the runner's memory (`CLONE_VM |
//! CLONE_VFORK`: nothing is copied, the calling thread waits); its child
//! only marks the socket to keep and executes the runner's binary again
//! (`/proc/self/exe`, right even if the file was replaced since). That image
//! never reaches `main`: a constructor in `.init_array` sees the marker
//! argument and serves, a small single-threaded process whose forks copy
//! almost nothing. The constructor is in this crate, so it is in every
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

use super::child::ChildPlan;
use super::fork_server;
use super::rootfs::MountPlan;
use super::SandboxError;

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
static FORK_SERVER_HOOK: extern "C" fn(c_int, *const *const c_char, *const *const c_char) =
    fork_server_hook;

extern "C" fn fork_server_hook(
    argc: c_int,
    argv: *const *const c_char,
    _envp: *const *const c_char,
) {
    if argc != 3 || argv.is_null() {
        return;
    }
    // SAFETY: glibc passes argc valid pointers to nul-terminated strings;
    // an array, not a vector: nothing may be allocated before the marker.
    let arg = |index: usize| unsafe { CStr::from_ptr(*argv.add(index)) };
    let args: [&CStr; 3] = std::array::from_fn(arg);
    if args[1] == fork_server::MARKER {
        serve_from_constructor(args[2], None);
    }
}

/// Becomes the fork server on the socket numbered `socket` (serving
/// `programs` in its image, if any), from a constructor before `main`.
/// Never returns.
pub fn serve_from_constructor(
    socket: &CStr,
    programs: Option<&'static super::InImagePrograms>,
) -> ! {
    without_huge_pages();
    let socket = socket
        .to_str()
        .ok()
        .and_then(|text| text.parse::<RawFd>().ok());
    match socket {
        Some(socket) if is_open(socket) => fork_server::serve(socket, programs),
        // SAFETY: leaving before main; nothing to clean up.
        _ => unsafe { libc::_exit(1) },
    }
}

/// Turns transparent huge pages off for the sandbox, before the first
/// allocation: every supervisor and bot inherits it through `fork` and
/// `execve`. An allocator that asks for huge pages (mimalloc does) otherwise
/// zeroes 2 MiB on its first byte in every new process, the largest single
/// cost of a start, and charges the bot's memory cgroup 2 MiB for it: a
/// memory limit then counts the pages a bot touched, not its allocator's
/// rounding.
fn without_huge_pages() {
    // Best effort: the sandbox confines as well with huge pages.
    // SAFETY: a prctl on integers that only sets a flag of this process.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

/// The whole plan the runner wrote into the memfd `fd`.
pub fn read_plan(fd: RawFd) -> Option<Vec<u8>> {
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

/// Starts a fresh image of this binary as `name` with the arguments
/// `marker` and `keep`'s number, keeping only `keep` open past the
/// `execve`; returns its pid once it runs (or has failed to).
pub fn start_image(name: &CStr, marker: &CStr, keep: RawFd) -> Result<Pid, SandboxError> {
    let exec = ImageExec::new(name, marker, keep)?;
    // On this thread's stack, as musl's posix_spawn does: the thread sleeps
    // until the child is done with it, and nothing is allocated or zeroed.
    let mut stack = std::mem::MaybeUninit::<[u128; CHILD_STACK_BYTES / 16]>::uninit();
    let stack_top = stack.as_mut_ptr().wrapping_add(1).cast::<c_void>();
    let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD;
    let argument = std::ptr::from_ref(&exec).cast_mut().cast::<c_void>();
    // SAFETY: the child runs exec_image on its own stack while this thread
    // waits (CLONE_VFORK), and leaves by execve or _exit; every signal is
    // blocked so no handler of the runner runs in it (and the image keeps
    // them all blocked).
    let pid =
        with_signals_blocked(|| unsafe { libc::clone(exec_image, stack_top, flags, argument) })
            .map_err(|errno| SandboxError::Setup {
                step: "blocking signals",
                errno,
            })?;
    match pid {
        -1 => Err(SandboxError::Setup {
            step: "starting the fork server",
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

/// The plan in a memfd, read from the start by whoever receives it.
pub fn plan_file(plan: &ChildPlan) -> std::io::Result<OwnedFd> {
    let fd = memfd_create(c"cairn-sandbox-plan", MFdFlags::MFD_CLOEXEC)?;
    let mut file = File::from(fd);
    file.write_all(&encode_plan(plan))?;
    file.rewind()?;
    Ok(file.into())
}

/// What the clone child needs, prepared before the clone.
struct ImageExec {
    _args: [CString; 3],
    argv: [*const c_char; 4],
    envp: [*const c_char; 1],
    /// The descriptor that must survive the `execve`.
    keep: RawFd,
}

impl ImageExec {
    fn new(name: &CStr, marker: &CStr, keep: RawFd) -> Result<ImageExec, SandboxError> {
        let number = CString::new(keep.to_string()).map_err(|_| SandboxError::NulByte)?;
        let args = [name.to_owned(), marker.to_owned(), number];
        let argv = [
            args[0].as_ptr(),
            args[1].as_ptr(),
            args[2].as_ptr(),
            std::ptr::null(),
        ];
        Ok(ImageExec {
            _args: args,
            argv,
            envp: [std::ptr::null()],
            keep,
        })
    }
}

/// The clone child: shares the runner's memory until `execve`, so it only
/// makes syscalls on the prepared [`ImageExec`] (as `posix_spawn`'s child
/// does). A failure leaves without a word: the runner sees the kept socket
/// close.
extern "C" fn exec_image(argument: *mut c_void) -> c_int {
    // SAFETY: the parent passed an ImageExec that outlives this child (the
    // parent waits for our execve or exit).
    let exec = unsafe { &*argument.cast::<ImageExec>() };
    // SAFETY: clears close-on-exec on a descriptor of our own table, then
    // null-terminated pointer arrays into strings the parent keeps.
    unsafe {
        if libc::fcntl(exec.keep, libc::F_SETFD, 0) == 0 {
            libc::execve(
                c"/proc/self/exe".as_ptr(),
                exec.argv.as_ptr(),
                exec.envp.as_ptr(),
            );
        }
        libc::_exit(127)
    }
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
    pub fn new(bytes: &[u8]) -> Decoder<'_> {
        Decoder { rest: bytes }
    }

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

pub fn encode_plan(plan: &ChildPlan) -> Vec<u8> {
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
    out.c_strings(plan.in_image.as_slice());
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

/// Reads a plan whose descriptor numbers `remap` turns into ours (they
/// arrived under other numbers than the runner's).
pub fn decode_plan(
    input: &mut Decoder<'_>,
    remap: &dyn Fn(RawFd) -> Option<RawFd>,
) -> Option<ChildPlan> {
    let mounts = match input.number()? {
        0 => None,
        _ => Some(MountPlan::decode(input)?),
    };
    let set_hostname = input.number()? != 0;
    let program = input.c_string()?;
    let in_image = match input.c_strings()?.as_mut_slice() {
        [] => None,
        [name] => Some(std::mem::take(name)),
        _ => return None,
    };
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
    let mut fd = || match input.fd()? {
        Some(fd) => remap(fd).map(Some),
        None => Some(None),
    };
    let landlock = fd()?;
    let network = fd()?;
    let scratch = fd()?;
    let stdio_and_report = [fd()??, fd()??, fd()??, fd()??];
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
        in_image,
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
            in_image: Some(text("first")),
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
        let decoded = decode_plan(&mut Decoder::new(&encoded), &Some).expect("a plan");
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
            assert!(decode_plan(&mut input, &Some).is_none(), "{length} bytes");
        }
        encoded.push(0);
        assert!(decode_plan(&mut Decoder::new(&encoded), &Some).is_none());
    }

    #[test]
    fn descriptors_the_remap_does_not_know_make_a_plan_invalid() {
        let plan = plan();
        let encoded = encode_plan(&plan);
        let stdin = plan.stdin.as_raw_fd();
        let without_stdin = |fd: RawFd| (fd != stdin).then_some(fd);
        assert!(decode_plan(&mut Decoder::new(&encoded), &without_stdin).is_none());
    }

    #[test]
    fn the_marker_makes_a_binary_a_fork_server_that_needs_its_socket() {
        // This test binary links the hook too: started with the marker it
        // never reaches the test harness.
        let marker = fork_server::MARKER.to_str().expect("ascii");
        let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([marker, "-1"])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        assert!(output.stdout.is_empty(), "{output:?}");
    }
}
