//! The kernel-enforced filters applied to the bot just before `execve`:
//! a seccomp deny-list and a Landlock ruleset.
//!
//! Both are built in the parent, where allocation is fine; the forked child
//! only installs them. seccomp is a deny-list (everything a bot needs to run
//! any language stays allowed): it refuses what no bot needs and what would
//! widen its reach (debugging other processes, mounts, namespaces, kernel
//! modules, BPF, keyrings, io_uring whose operations seccomp cannot see).
//! Landlock repeats the filesystem view as access rights (read and execute
//! in the new root, write only in `/tmp` and `/dev`), forbids TCP bind and
//! connect, and scopes signals and abstract unix sockets to the bot's own
//! processes.

use std::collections::BTreeMap;
use std::os::fd::BorrowedFd;
use std::path::Path;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Syscalls refused with `EPERM`.
const DENIED_SYSCALLS: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_mount_setattr,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_userfaultfd,
    libc::SYS_syslog,
    libc::SYS_fanotify_init,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_vhangup,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_uselib,
];

/// `clone` flags that would create namespaces; `clone` itself must stay.
const NAMESPACE_CLONE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
];

/// Builds the seccomp program: one filter whose syscall lookup is a
/// binary search.
///
/// `clone3` passes its flags in memory, out of seccomp's sight, so it fails
/// with `ENOSYS` and libc falls back to `clone`, whose flags are checked.
///
/// The kernel runs a new filter once per syscall number when it is
/// installed (to cache the syscalls it always allows), inside a section
/// with interrupts off: seccompiler's chain of one comparison per denied
/// syscall, plus a second filter for `clone3`, cost a quarter of a
/// millisecond per bot there; the search takes a few comparisons per
/// number. [`chained_programs`] builds the same rules with seccompiler, the
/// reference the tests compare this program with.
pub fn seccomp_programs() -> Result<Vec<BpfProgram>, seccompiler::Error> {
    let reference = chained_programs()?;
    // seccompiler's architecture check: load the arch, kill on a mismatch.
    let mut program: BpfProgram = reference[0].iter().take(3).cloned().collect();
    program.push(statement(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_NR_OFFSET));
    // The x32 ABI's calls carry the x86_64 architecture and their own
    // numbers, each `X32_SYSCALL_BIT` above a number this list names
    // (`socket` is 41 and x32's is 0x4000_0029), so a deny-list that read
    // only the x86_64 numbers would let every one through. No bot needs
    // x32: none of its calls exists.
    #[cfg(target_arch = "x86_64")]
    program.extend([
        jump(BPF_JGE, X32_SYSCALL_BIT, 0, 1),
        statement(BPF_RET | BPF_K, errno(libc::ENOSYS)),
    ]);
    let mut cases: Vec<(u32, Verdict)> = DENIED_SYSCALLS
        .iter()
        .map(|number| (*number as u32, Verdict::Deny))
        .collect();
    cases.push((libc::SYS_clone as u32, Verdict::CheckCloneFlags));
    cases.push((libc::SYS_clone3 as u32, Verdict::NoSuchCall));
    cases.sort_unstable_by_key(|(number, _)| *number);
    program.extend(search(&cases));
    Ok(vec![program])
}

/// What the filter does with one syscall number it names.
#[derive(Debug, Clone, Copy)]
enum Verdict {
    Deny,
    CheckCloneFlags,
    NoSuchCall,
}

const BPF_LD: u16 = 0x00;
const BPF_JMP: u16 = 0x05;
const BPF_RET: u16 = 0x06;
const BPF_W: u16 = 0x00;
const BPF_ABS: u16 = 0x20;
const BPF_JEQ: u16 = 0x10;
const BPF_JGE: u16 = 0x30;
const BPF_JSET: u16 = 0x40;
const BPF_K: u16 = 0x00;
/// Offsets in `struct seccomp_data`: the number, then the low half of the
/// first argument (little-endian).
const SECCOMP_DATA_NR_OFFSET: u32 = 0;
const SECCOMP_DATA_ARG0_LOW_OFFSET: u32 = 16;
/// What x32 calls add to their number (`__X32_SYSCALL_BIT`).
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;
/// Cases searched by plain comparisons, below which splitting gains nothing.
const LINEAR_CASES: usize = 4;

fn statement(code: u16, k: u32) -> seccompiler::sock_filter {
    seccompiler::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: usize, jf: usize) -> seccompiler::sock_filter {
    // A classic BPF jump reaches 255 instructions ahead; the whole program
    // is far shorter.
    seccompiler::sock_filter {
        code: BPF_JMP | code | BPF_K,
        jt: jt as u8,
        jf: jf as u8,
        k,
    }
}

fn errno(code: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (code as u32 & libc::SECCOMP_RET_DATA)
}

/// The instructions of one case, entered with the number in the accumulator.
fn verdict_code(verdict: Verdict) -> BpfProgram {
    let deny = statement(BPF_RET | BPF_K, errno(libc::EPERM));
    match verdict {
        Verdict::Deny => vec![deny],
        Verdict::NoSuchCall => vec![statement(BPF_RET | BPF_K, errno(libc::ENOSYS))],
        Verdict::CheckCloneFlags => {
            let mask = NAMESPACE_CLONE_FLAGS
                .iter()
                .fold(0u32, |mask, flag| mask | *flag as u32);
            vec![
                statement(BPF_LD | BPF_W | BPF_ABS, SECCOMP_DATA_ARG0_LOW_OFFSET),
                jump(BPF_JSET, mask, 0, 1),
                deny,
                statement(BPF_RET | BPF_K, libc::SECCOMP_RET_ALLOW),
            ]
        }
    }
}

/// A binary search over `cases` (sorted by number), allowing every number
/// it does not name.
fn search(cases: &[(u32, Verdict)]) -> BpfProgram {
    if cases.len() <= LINEAR_CASES {
        let mut code = Vec::new();
        for (number, verdict) in cases {
            let body = verdict_code(*verdict);
            code.push(jump(BPF_JEQ, *number, 0, body.len()));
            code.extend(body);
        }
        code.push(statement(BPF_RET | BPF_K, libc::SECCOMP_RET_ALLOW));
        return code;
    }
    let (below, from) = cases.split_at(cases.len() / 2);
    let below = search(below);
    let mut code = vec![jump(BPF_JGE, from[0].0, below.len(), 0)];
    code.extend(below);
    code.extend(search(from));
    code
}

/// The same rules as [`seccomp_programs`], as seccompiler chains them: a
/// deny-list and a filter for `clone3`, in installation order.
pub fn chained_programs() -> Result<Vec<BpfProgram>, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let mut denied: BTreeMap<i64, Vec<SeccompRule>> = DENIED_SYSCALLS
        .iter()
        .map(|number| (*number, Vec::new()))
        .collect();
    let namespace_rules = NAMESPACE_CLONE_FLAGS
        .iter()
        .map(|flag| {
            let flag = *flag as u64;
            let condition = SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag),
                flag,
            )?;
            SeccompRule::new(vec![condition])
        })
        .collect::<Result<Vec<_>, _>>()?;
    denied.insert(libc::SYS_clone, namespace_rules);
    let deny_list = SeccompFilter::new(
        denied,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    let no_clone3: BTreeMap<i64, Vec<SeccompRule>> = [(libc::SYS_clone3, Vec::new())].into();
    let clone3_filter = SeccompFilter::new(
        no_clone3,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )?;
    Ok(vec![deny_list.try_into()?, clone3_filter.try_into()?])
}

/// The Landlock ABI this kernel speaks, 0 when Landlock is off.
pub fn landlock_abi_version() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the version query reads no memory (null attributes, size 0).
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    version.max(0)
}

/// A Landlock ruleset for a sandbox whose root skeleton is `root` (on the
/// host: Landlock rules follow inodes, which the bind mounts keep), with
/// writes allowed in its scratch `/tmp` (the detached tmpfs `scratch`, or
/// `root/tmp` without one) and in `writable` (a build's output folder) when
/// given.
pub fn landlock_ruleset(
    root: &Path,
    scratch: Option<BorrowedFd<'_>>,
    writable: Option<&Path>,
) -> Result<RulesetCreated, landlock::RulesetError> {
    let abi = ABI::V6;
    let device_access = AccessFs::from_read(abi) | AccessFs::WriteFile | AccessFs::IoctlDev;
    let ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))?
        .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
        .scope(Scope::Signal | Scope::AbstractUnixSocket)?
        .create()?
        .add_rules(path_beneath_rules([root], AccessFs::from_read(abi)))?;
    let ruleset = match scratch {
        Some(scratch) => ruleset.add_rule(PathBeneath::new(scratch, AccessFs::from_all(abi)))?,
        None => ruleset.add_rules(path_beneath_rules(
            [root.join("tmp")],
            AccessFs::from_all(abi),
        ))?,
    };
    ruleset
        .add_rules(path_beneath_rules([root.join("dev")], device_access))?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seccomp_programs_compile_for_this_architecture() {
        let programs = chained_programs().expect("filters compile");
        assert_eq!(programs.len(), 2);
        assert!(
            programs[0].len() > DENIED_SYSCALLS.len(),
            "one jump per denied syscall at least"
        );
        let searched = seccomp_programs().expect("filter builds");
        assert_eq!(searched.len(), 1);
        assert!(searched[0].len() < 256, "every jump reaches its target");
    }

    // What seccompiler emits besides what the searched filter uses.
    const BPF_ALU: u16 = 0x04;
    const BPF_AND: u16 = 0x50;
    const BPF_JA: u16 = 0x00;
    const BPF_JGT: u16 = 0x20;

    /// `struct seccomp_data` for a call on this architecture.
    fn call(arch: u32, number: u32, first_argument: u64) -> [u8; 64] {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&number.to_ne_bytes());
        data[4..8].copy_from_slice(&arch.to_ne_bytes());
        data[16..24].copy_from_slice(&first_argument.to_ne_bytes());
        data
    }

    /// A classic BPF interpreter for what the two builders emit.
    fn run(program: &[seccompiler::sock_filter], data: &[u8; 64]) -> u32 {
        let (mut accumulator, mut pc) = (0u32, 0usize);
        loop {
            let instruction = &program[pc];
            let k = instruction.k;
            pc += 1;
            match instruction.code {
                code if code == BPF_LD | BPF_W | BPF_ABS => {
                    let at = k as usize;
                    let bytes = data[at..at + 4].try_into().expect("in seccomp_data");
                    accumulator = u32::from_ne_bytes(bytes);
                }
                code if code == BPF_ALU | BPF_AND | BPF_K => accumulator &= k,
                code if code == BPF_RET | BPF_K => return k,
                code if code == BPF_JMP | BPF_JA => pc += k as usize,
                code => {
                    let taken = match code & !BPF_JMP {
                        BPF_JEQ => accumulator == k,
                        BPF_JGE => accumulator >= k,
                        BPF_JGT => accumulator > k,
                        BPF_JSET => accumulator & k != 0,
                        other => panic!("instruction {other:#x} not interpreted"),
                    };
                    let offset = if taken {
                        instruction.jt
                    } else {
                        instruction.jf
                    };
                    pc += usize::from(offset);
                }
            }
        }
    }

    /// What the kernel returns when every filter of `programs` runs: the
    /// most restrictive action (here: kill, then errno, then allow; the
    /// first filter's errno wins among errnos, as none follows another).
    fn verdict(programs: &[BpfProgram], data: &[u8; 64]) -> u32 {
        let rank = |action: u32| match action & libc::SECCOMP_RET_ACTION_FULL {
            libc::SECCOMP_RET_KILL_PROCESS => 0,
            libc::SECCOMP_RET_ERRNO => 1,
            _ => 2,
        };
        programs
            .iter()
            .map(|program| run(program, data))
            .min_by_key(|action| rank(*action))
            .expect("a program")
    }

    #[test]
    fn the_searched_filter_decides_every_call_as_the_chained_ones() {
        let chained = chained_programs().expect("filters compile");
        let searched = seccomp_programs().expect("filter builds");
        let arch = chained[0][1].k;
        let flag_cases = NAMESPACE_CLONE_FLAGS
            .iter()
            .map(|flag| *flag as u64)
            .chain([0, libc::SIGCHLD as u64, 0x0050_0f00, u64::MAX, 1 << 40]);
        let mut checked = 0;
        for number in 0..1024 {
            for first_argument in flag_cases.clone() {
                let data = call(arch, number, first_argument);
                assert_eq!(
                    verdict(&searched, &data),
                    verdict(&chained, &data),
                    "syscall {number} with {first_argument:#x}"
                );
                checked += 1;
            }
        }
        let foreign = call(arch ^ 1, libc::SYS_read as u32, 0);
        assert_eq!(run(&searched[0], &foreign), libc::SECCOMP_RET_KILL_PROCESS);
        let denied = call(arch, libc::SYS_ptrace as u32, 0);
        assert_eq!(run(&searched[0], &denied), errno(libc::EPERM));
        let new_pid = call(arch, libc::SYS_clone as u32, libc::CLONE_NEWPID as u64);
        assert_eq!(run(&searched[0], &new_pid), errno(libc::EPERM));
        let thread = call(arch, libc::SYS_clone as u32, 0x003d_0f00);
        assert_eq!(run(&searched[0], &thread), libc::SECCOMP_RET_ALLOW);
        let clone3 = call(arch, libc::SYS_clone3 as u32, 0);
        assert_eq!(run(&searched[0], &clone3), errno(libc::ENOSYS));
        #[cfg(target_arch = "x86_64")]
        for number in [
            0,
            libc::SYS_socket as u32,
            libc::SYS_ptrace as u32,
            512,
            0x3fff_ffff,
        ] {
            let x32 = call(arch, X32_SYSCALL_BIT | number, 0);
            assert_eq!(run(&searched[0], &x32), errno(libc::ENOSYS), "x32 {number}");
        }
        assert!(checked > 10_000);
    }
}
