//! The fork server: one fresh image of the runner's binary, started once,
//! from which every supervisor is forked, so a start skips the `execve`,
//! the dynamic loader and the allocator's set-up of a 100 MB binary.
//!
//! The server is small and single-threaded, so a fork of it copies almost
//! nothing (the reason the supervisor stopped being a fork of the runner).
//! The runner sends it a plan (the memfd [`super::reexec`] writes) and the
//! plan's descriptors over a `SOCK_SEQPACKET` pair; the server decodes it,
//! forks with `CLONE_PARENT` and the namespace flags, and answers the pid.
//! `CLONE_PARENT` makes the supervisor the runner's child: the runner reaps
//! it and reads its end as before, and the server holds nothing of a bot.
//! The forked supervisor runs exactly what the fresh image ran
//! ([`super::child::run_supervisor`]), which first closes every descriptor
//! but the plan's: the server's socket included.
//!
//! Servers wait in a pool, one per start running at once, so parallel starts
//! never queue. A server that broke (killed, or it refused a plan) is never
//! reused: the runner reaps it and takes or starts another. A request the server never
//! received is sent again to the new one; one it may have acted on is not
//! (two supervisors would share the bot's pipes): that start fails as the
//! host's fault. The server ends when the runner does (its socket reads end
//! of file).

use std::ffi::{c_int, CStr};
use std::io::{IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;

use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::socket::{
    recvmsg, sendmsg, socketpair, AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags,
    SockFlag, SockType,
};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use super::child::{raw_fork, run_supervisor, ChildPlan, ExecPointers};
use super::in_image::{self, InImagePrograms};
use super::reexec::{self, Decoder};
use super::SandboxError;

/// The first argument that turns the runner's binary into the fork server.
pub const MARKER: &CStr = c"--cairn-fork-server";
/// The image's name in `ps`.
pub const NAME: &CStr = c"cairn-fork-server";
/// A plan's descriptors at most: the plan itself, landlock, network,
/// scratch, stdin, stdout, stderr and the report pipe.
const MAX_FDS: usize = 8;
const CPU_SET_BYTES: usize = std::mem::size_of::<libc::cpu_set_t>();
/// A request: the namespace flags, the CPUs, a number per descriptor.
const HEADER_BYTES: usize = 8 + CPU_SET_BYTES;

/// Servers waiting for a request. A start takes one (or starts one when
/// none waits) and puts it back when it answered, so parallel starts never
/// wait for each other: there are as many servers as starts ever ran at once.
static IDLE: Mutex<Vec<Server>> = Mutex::new(Vec::new());

#[derive(Debug)]
struct Server {
    pid: Pid,
    socket: OwnedFd,
}

impl Server {
    fn start() -> Result<Server, SandboxError> {
        let (ours, theirs) = socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .map_err(|errno| SandboxError::Setup {
            step: "creating the fork server's socket",
            errno,
        })?;
        // A binary with programs to run in its image has its own marker.
        let marker = match in_image::registered() {
            Some(_) => in_image::MARKER,
            None => MARKER,
        };
        let pid = reexec::start_image(NAME, marker, theirs.as_raw_fd())?;
        static AT_EXIT: std::sync::Once = std::sync::Once::new();
        // SAFETY: registers a function that only locks, kills and reaps.
        AT_EXIT.call_once(|| unsafe {
            libc::atexit(retire_idle_servers);
        });
        Ok(Server { pid, socket: ours })
    }

    /// Kills and reaps a server that is not to be used again.
    fn retire(self) {
        let _ = kill(self.pid, Signal::SIGKILL);
        while let Err(Errno::EINTR) = waitpid(self.pid, None) {}
    }
}

/// At the runner's exit: its servers end with it and are reaped by it, so
/// their CPU time counts as the runner's children's, as a supervisor's did
/// when each was executed from the runner.
extern "C" fn retire_idle_servers() {
    let servers = std::mem::take(&mut *idle());
    for server in servers {
        server.retire();
    }
}

/// The pids of the fork servers waiting for a request.
pub fn idle_server_pids() -> Vec<u32> {
    idle()
        .iter()
        .map(|server| server.pid.as_raw() as u32)
        .collect()
}

fn idle() -> std::sync::MutexGuard<'static, Vec<Server>> {
    IDLE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Forks a supervisor running `plan` in new namespaces (`namespace_flags`)
/// from the fork server (started or restarted as needed); returns its pid.
pub fn start_supervisor(plan: &ChildPlan, namespace_flags: c_int) -> Result<Pid, SandboxError> {
    let plan_file =
        reexec::plan_file(plan).map_err(SandboxError::io("writing the supervisor plan"))?;
    let fds = plan_fds(plan, &plan_file);
    let mut request = (namespace_flags as u64).to_le_bytes().to_vec();
    request.extend_from_slice(&caller_cpus());
    request.extend(fds.iter().flat_map(|fd| (*fd as u64).to_le_bytes()));
    let mut attempts = 0;
    loop {
        let waiting = idle().pop();
        let running = match waiting {
            Some(running) => running,
            None => Server::start()?,
        };
        match send(&running.socket, &request, &fds) {
            Ok(()) => {
                let reply = receive_reply(&running.socket);
                match reply.is_ok() {
                    true => idle().push(running),
                    false => running.retire(),
                }
                return reply;
            }
            // Never delivered: that server is gone; another one gets it.
            Err(errno) if attempts < 2 && is_gone(errno) => {
                attempts += 1;
                running.retire();
            }
            Err(errno) => {
                running.retire();
                return Err(SandboxError::Setup {
                    step: "asking the fork server",
                    errno,
                });
            }
        }
    }
}

/// The CPUs the calling thread may run on, as the bytes of a `cpu_set_t`:
/// the supervisor and its bot keep them, as a match keeps its bots on its
/// own CPU (`crate::placement`); a fork of the server would inherit the
/// server's instead.
fn caller_cpus() -> [u8; CPU_SET_BYTES] {
    // SAFETY: an all-zero cpu_set_t is the empty set; sched_getaffinity
    // fills it; it is plain bytes.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, CPU_SET_BYTES, &mut set) != 0 {
            // Unknown: every CPU.
            return [0xff; CPU_SET_BYTES];
        }
        std::mem::transmute::<libc::cpu_set_t, [u8; CPU_SET_BYTES]>(set)
    }
}

/// Pins the calling (forked) process to `cpus`; best effort, as pinning
/// only saves time.
fn pin_to(cpus: &[u8; CPU_SET_BYTES]) {
    // SAFETY: a cpu_set_t is plain bytes; sched_setaffinity reads it.
    unsafe {
        let set = std::mem::transmute::<[u8; CPU_SET_BYTES], libc::cpu_set_t>(*cpus);
        libc::sched_setaffinity(0, CPU_SET_BYTES, &set);
    }
}

fn is_gone(errno: Errno) -> bool {
    matches!(errno, Errno::EPIPE | Errno::ECONNRESET | Errno::ENOTCONN)
}

/// The plan file, then every descriptor the plan names, in the order
/// [`reexec::encode_plan`] writes them.
fn plan_fds(plan: &ChildPlan, plan_file: &OwnedFd) -> Vec<RawFd> {
    let optional = [&plan.landlock, &plan.network, &plan.scratch];
    let required = [&plan.stdin, &plan.stdout, &plan.stderr, &plan.report];
    std::iter::once(plan_file.as_raw_fd())
        .chain(optional.into_iter().flatten().map(AsRawFd::as_raw_fd))
        .chain(required.into_iter().map(AsRawFd::as_raw_fd))
        .collect()
}

fn send(socket: &OwnedFd, bytes: &[u8], fds: &[RawFd]) -> Result<(), Errno> {
    let data = [IoSlice::new(bytes)];
    let rights = [ControlMessage::ScmRights(fds)];
    loop {
        match sendmsg::<()>(
            socket.as_raw_fd(),
            &data,
            &rights,
            MsgFlags::MSG_NOSIGNAL,
            None,
        ) {
            Err(Errno::EINTR) => continue,
            Ok(sent) if sent == bytes.len() => return Ok(()),
            Ok(_) => return Err(Errno::EMSGSIZE),
            Err(errno) => return Err(errno),
        }
    }
}

/// The server's answer: a pid, or the errno of a failed fork.
fn receive_reply(socket: &OwnedFd) -> Result<Pid, SandboxError> {
    let mut bytes = [0u8; 8];
    let received = loop {
        let mut data = [IoSliceMut::new(&mut bytes)];
        match recvmsg::<()>(socket.as_raw_fd(), &mut data, None, MsgFlags::empty()) {
            Err(Errno::EINTR) => continue,
            other => break other.map(|message| message.bytes),
        }
    };
    match (received, i64::from_le_bytes(bytes)) {
        (Ok(8), pid) if pid > 0 => Ok(Pid::from_raw(pid as libc::pid_t)),
        (Ok(8), errno) if errno < 0 => Err(SandboxError::Setup {
            step: "cloning the supervisor",
            errno: Errno::from_raw(-errno as i32),
        }),
        _ => Err(SandboxError::SupervisorVanished),
    }
}

/// The server's life in its fresh image: every signal stays blocked (as
/// the runner started it), only `socket` stays open. Its bots may run
/// `programs` in this image. Never returns.
pub fn serve(socket: RawFd, programs: Option<&'static InImagePrograms>) -> ! {
    if super::child::close_all_except(&mut [socket]).is_err() || !fill_stdio() {
        // SAFETY: leaving before main; the runner sees the socket close.
        unsafe { libc::_exit(1) }
    }
    super::child::default_dispositions();
    detect_cpu_features();
    loop {
        let Some((flags, cpus, plan)) = receive_request(socket) else {
            // End of file (the runner is gone) or a plan we cannot trust.
            // SAFETY: as above.
            unsafe { libc::_exit(0) }
        };
        let reply = match fork_supervisor(plan, flags, &cpus, programs) {
            Ok(pid) => i64::from(pid),
            Err(errno) => -i64::from(errno as i32),
        };
        let reply = reply.to_le_bytes();
        let data = [IoSlice::new(&reply)];
        if sendmsg::<()>(socket, &data, &[], MsgFlags::MSG_NOSIGNAL, None).is_err() {
            // SAFETY: as above.
            unsafe { libc::_exit(0) }
        }
    }
}

/// Fills the standard library's cache of CPU features once here, so that
/// the supervisors and in-image bots forked from this image inherit it
/// rather than each probe the CPU again (`cpuid` traps to the hypervisor
/// on a virtual machine).
fn detect_cpu_features() {
    #[cfg(target_arch = "x86_64")]
    let _ = std::arch::is_x86_feature_detected!("avx2");
}

/// Puts `/dev/null` on 0, 1 and 2 where nothing is, so that received
/// descriptors land above them: the bot's pipes are moved there.
fn fill_stdio() -> bool {
    (0..3).all(|fd| {
        // SAFETY: F_GETFD reads flags; open returns the lowest free number.
        unsafe {
            libc::fcntl(fd, libc::F_GETFD) >= 0
                || libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) == fd
        }
    })
}

/// Forks the supervisor (the runner's child, by `CLONE_PARENT`); the plan's
/// descriptors are closed here when `plan` drops.
fn fork_supervisor(
    mut plan: ChildPlan,
    flags: c_int,
    cpus: &[u8; CPU_SET_BYTES],
    programs: Option<&'static InImagePrograms>,
) -> Result<libc::pid_t, Errno> {
    let pointers = ExecPointers::new(&plan);
    // SAFETY: this process is single-threaded; the child only runs the
    // supervisor, which follows the rules of `child`.
    let pid = unsafe { raw_fork(flags | libc::CLONE_PARENT) }?;
    if pid == 0 {
        pin_to(cpus);
        // SAFETY: a single-threaded fork of the server.
        unsafe { run_supervisor(&mut plan, &pointers, programs) }
    }
    Ok(pid)
}

/// One request: the namespace flags and the decoded plan, which owns the
/// received descriptors. `None` at end of file or for anything malformed
/// (the server then exits, closing what it received with it).
fn receive_request(socket: RawFd) -> Option<(c_int, [u8; CPU_SET_BYTES], ChildPlan)> {
    let mut bytes = [0u8; HEADER_BYTES + 8 * MAX_FDS];
    let mut space = nix::cmsg_space!([RawFd; MAX_FDS]);
    let (length, received) = loop {
        let mut data = [IoSliceMut::new(&mut bytes)];
        match recvmsg::<()>(
            socket,
            &mut data,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Err(Errno::EINTR) => continue,
            Err(_) => return None,
            Ok(message) => {
                let mut fds = Vec::new();
                for control in message.cmsgs().ok()? {
                    if let ControlMessageOwned::ScmRights(rights) = control {
                        fds.extend(rights);
                    }
                }
                break (message.bytes, fds);
            }
        }
    };
    let (header, numbers) = bytes[..length].split_at_checked(HEADER_BYTES)?;
    let (flags, cpus) = header.split_first_chunk::<8>()?;
    let flags = c_int::try_from(u64::from_le_bytes(*flags)).ok()?;
    let cpus: [u8; CPU_SET_BYTES] = cpus.try_into().ok()?;
    let runner_fds: Vec<u64> = numbers
        .chunks_exact(8)
        .map(|chunk| u64::from_le_bytes(chunk.try_into().unwrap_or_default()))
        .collect();
    if numbers.len() % 8 != 0 || runner_fds.len() != received.len() || received.is_empty() {
        return None;
    }
    // SAFETY: the plan file arrived with this message: ours alone.
    let plan_file = unsafe { OwnedFd::from_raw_fd(received[0]) };
    let bytes = reexec::read_plan(plan_file.as_raw_fd())?;
    drop(plan_file);
    // The plan names the runner's numbers; here they arrived under others.
    let remap = |runner_fd: RawFd| {
        let index = runner_fds[1..]
            .iter()
            .position(|fd| *fd == runner_fd as u64)?;
        Some(received[index + 1])
    };
    let plan = reexec::decode_plan(&mut Decoder::new(&bytes), &remap)?;
    Some((flags, cpus, plan))
}
