//! One network namespace per bot uid, created once and reused.
//!
//! Creating a network namespace and tearing it down are the costliest part
//! of a bot's start (half a millisecond of kernel work under global locks
//! to create, as much again in a kernel worker to destroy), and every
//! parallel match pays them in the same locks. Each bot uid of the pool gets
//! its namespace once; the supervisor joins it with `setns`.
//!
//! RULING (ours): reusing a namespace keeps the layer as strong. A uid is
//! leased to one live bot at a time and released only once the bot's whole
//! pid namespace is reaped, so two live bots never share a namespace. The
//! namespace has only a loopback device, down, which a bot cannot bring up
//! or reconfigure (it has no capability over a namespace of the initial user
//! namespace), so a bot can leave nothing behind but sockets, which die with
//! its processes.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::{Mutex, OnceLock};

use nix::sched::{unshare, CloneFlags};

/// A descriptor of the network namespace of bot uid `uid`, made on first use.
pub fn namespace_of(uid: u32) -> io::Result<OwnedFd> {
    static BY_UID: OnceLock<Mutex<HashMap<u32, OwnedFd>>> = OnceLock::new();
    let by_uid = BY_UID.get_or_init(Default::default);
    let mut by_uid = by_uid
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(namespace) = by_uid.get(&uid) {
        return namespace.try_clone();
    }
    let namespace = new_namespace()?;
    let copy = namespace.try_clone()?;
    by_uid.insert(uid, namespace);
    Ok(copy)
}

/// A fresh network namespace, made by a thread of its own (a thread may
/// leave the process's network namespace; the rest of the runner stays).
fn new_namespace() -> io::Result<OwnedFd> {
    std::thread::spawn(|| {
        unshare(CloneFlags::CLONE_NEWNET)?;
        Ok(File::open("/proc/thread-self/ns/net")?.into())
    })
    .join()
    .unwrap_or_else(|_| Err(io::Error::other("the namespace thread panicked")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn inode(namespace: OwnedFd) -> u64 {
        File::from(namespace).metadata().expect("nsfs inode").ino()
    }

    #[test]
    fn a_uid_keeps_its_namespace_and_other_uids_get_their_own() {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let first = inode(namespace_of(1_209_990).expect("a namespace"));
        let again = inode(namespace_of(1_209_990).expect("the same namespace"));
        let other = inode(namespace_of(1_209_991).expect("another namespace"));
        let own = std::fs::metadata("/proc/self/ns/net").expect("ours").ino();
        assert_eq!(first, again);
        assert_ne!(first, other);
        assert_ne!(first, own);
    }

    #[test]
    fn two_live_bots_never_share_a_network_namespace() {
        use crate::sandbox::{Sandbox, SandboxSpec};
        use std::io::Read;
        let sandbox = Sandbox::shared();
        if !sandbox
            .layers()
            .iter()
            .any(|layer| layer.name == "network namespace" && layer.active)
        {
            return;
        }
        let dir = std::env::temp_dir().join(format!("cairn-netns-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("bot folder");
        // Each prints its namespace, then waits on stdin, so both live at once.
        let command = ["sh", "-c", "readlink /proc/self/ns/net; cat"]
            .map(String::from)
            .to_vec();
        let spec = SandboxSpec::new(command, dir.clone());
        let mut bots: Vec<_> = (0..2)
            .map(|_| sandbox.spawn(&spec).expect("starts"))
            .collect();
        let mut namespaces = Vec::new();
        for bot in &mut bots {
            drop(bot.take_stdin());
            let mut text = String::new();
            bot.take_stdout()
                .expect("stdout")
                .read_to_string(&mut text)
                .expect("read");
            namespaces.push(text);
        }
        let own = std::fs::read_link("/proc/self/ns/net").expect("ours");
        assert!(namespaces[0].starts_with("net:["), "{namespaces:?}");
        assert_ne!(namespaces[0], namespaces[1]);
        assert!(namespaces
            .iter()
            .all(|namespace| namespace.trim() != own.to_string_lossy()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
