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

/// Builds the seccomp programs, in installation order.
///
/// `clone3` passes its flags in memory, out of seccomp's sight, so it fails
/// with `ENOSYS` and libc falls back to `clone`, whose flags are checked.
pub fn seccomp_programs() -> Result<Vec<BpfProgram>, seccompiler::Error> {
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
        let programs = seccomp_programs().expect("filters compile");
        assert_eq!(programs.len(), 2);
        assert!(
            programs[0].len() > DENIED_SYSCALLS.len(),
            "one jump per denied syscall at least"
        );
    }
}
