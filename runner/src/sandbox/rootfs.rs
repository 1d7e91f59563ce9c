//! The bot's view of the filesystem: a minimal root it is pivoted into.
//!
//! The parent builds a skeleton directory on the host (empty mount points,
//! symlinks such as `/lib -> usr/lib`) and a [`MountPlan`] of prepared C
//! strings. A leased uid's skeleton stays for the uid's next bot, which
//! reuses it when its layout is the same (most are): creating and removing
//! some forty entries per start cost more than the sandbox's mounts, and
//! two parallel starts took turns on the lock of the folder holding them.
//!
//! The supervisor (a fork of the fork server, itself the one fresh image of
//! the runner's binary: see `reexec.rs`), in its own mount namespace, applies the plan with
//! plain syscalls and pivots into the skeleton, which is then read-only.
//! The bot sees: the system runtimes (`/usr` and the `/lib*`,
//! `/bin` links), a few `/etc` files the loader and interpreters read, the
//! harmless `/dev` nodes, `/proc` of its own pid namespace, a capped tmpfs
//! `/tmp` (made detached by the parent, attached only in the sandbox's mount
//! namespace, so it dies with it), and its own folder and interpreter prefix at their host paths, all
//! read-only except `/tmp`. Nothing of other bots or of the arena exists there.

use std::ffi::{CStr, CString};
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, DirBuilderExt};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::mount::{mount, umount2, MntFlags, MsFlags};
use nix::sys::stat::Mode;
use nix::unistd::{chdir, mkdir, pivot_root};

use super::reexec::{Decoder, Encoder};
use super::report::SetupStep;

/// Top-level entries the bot may see, shown as on the host.
const ROOT_ENTRIES: &[&str] = &["usr", "bin", "sbin", "lib", "lib64", "lib32", "libx32"];
/// `/etc` entries the dynamic loader, libc and interpreters read.
const ETC_ENTRIES: &[&str] = &[
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "nsswitch.conf",
    "python3",
    "ssl",
];
/// Device nodes that give nothing away.
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];
const DEVICE_LINKS: &[(&str, &str)] = &[
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MountKind {
    ReadOnlyBind,
    WritableBind,
    DeviceBind,
    Proc,
}

#[derive(Debug)]
struct MountStep {
    kind: MountKind,
    source: CString,
    /// Absolute path of the mount point inside the skeleton, on the host.
    target: CString,
    /// Directories to create first, outermost first (they may lie in `/tmp`,
    /// which exists only once the sandbox mounted it).
    create_dirs: Vec<CString>,
}

/// Everything the sandbox's first process mounts, prepared in advance.
#[derive(Debug)]
pub struct MountPlan {
    root: CString,
    /// Where the scratch tmpfs is attached (`/tmp` in the skeleton).
    scratch_target: CString,
    steps: Vec<MountStep>,
}

/// The skeleton directory on the host. A leased uid's skeleton is kept for
/// the next bot of that uid ([`RootSkeleton::release`]), which reuses it when
/// it would build the same one: most bots of a runner see the same views.
#[derive(Debug)]
pub struct RootSkeleton {
    dir: PathBuf,
    kept: bool,
}

impl RootSkeleton {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Removes the skeleton: only empty directories and files on the host
    /// (every mount, the scratch tmpfs included, lived in the sandbox's
    /// namespace and went with it).
    pub fn remove(&self) {
        let _ = fs::remove_file(layout_file(&self.dir));
        let _ = fs::remove_dir_all(&self.dir);
    }

    /// Called once the bot is gone: keeps a skeleton meant for reuse,
    /// removes any other.
    pub fn release(self) {
        if !self.kept {
            self.remove();
        }
    }
}

/// Beside the skeleton: the layout it was built with, written last, so a
/// skeleton whose building was cut short never matches.
fn layout_file(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".layout");
    PathBuf::from(name)
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a nul byte"))
}

fn make_dir(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(path)
}

/// Where `host_path` appears inside the skeleton.
fn inside(skeleton: &Path, host_path: &Path) -> PathBuf {
    skeleton.join(host_path.strip_prefix("/").unwrap_or(host_path))
}

/// The host directories a sandbox shows at their own paths.
#[derive(Debug, Clone, Copy)]
pub struct Views<'a> {
    /// Read-only: the bot folder, an interpreter's prefix.
    pub read_only: &'a [PathBuf],
    /// Writable: a build's output folder.
    pub writable: Option<&'a Path>,
}

/// A skeleton, the plan that fills it, and its scratch tmpfs: a detached
/// mount, which the sandbox attaches in its own mount namespace.
#[derive(Debug)]
pub struct PreparedRoot {
    pub skeleton: RootSkeleton,
    pub plan: MountPlan,
    pub scratch: OwnedFd,
}

/// One thing the skeleton holds on the host, in creation order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir(PathBuf),
    Link { target: PathBuf, path: PathBuf },
    File { path: PathBuf, contents: String },
}

impl Entry {
    fn create(&self) -> io::Result<()> {
        match self {
            Entry::Dir(path) => make_dir(path),
            Entry::Link { target, path } => symlink(target, path),
            Entry::File { path, contents } => fs::write(path, contents),
        }
    }
}

/// What the skeleton holds and the mount steps that fill it.
#[derive(Debug, Default)]
struct Layout {
    entries: Vec<Entry>,
    steps: Vec<MountStep>,
}

impl Layout {
    fn dir(&mut self, path: PathBuf) {
        self.entries.push(Entry::Dir(path));
    }

    fn file(&mut self, path: PathBuf, contents: String) {
        self.entries.push(Entry::File { path, contents });
    }
}

/// Builds the skeleton in `dir` (or, with `keep`, reuses the one a previous
/// bot of the same uid left there if its layout is the same), the plan that
/// fills it and the scratch.
pub fn prepare(
    dir: &Path,
    views: &Views<'_>,
    scratch_bytes: u64,
    bot_uid: Option<u32>,
    keep: bool,
) -> io::Result<PreparedRoot> {
    let mut layout = Layout::default();
    layout.dir(dir.join("tmp"));
    plan_system_views(dir, &mut layout)?;
    write_accounts(&dir.join("etc"), bot_uid, &mut layout);
    let mut shown: Vec<(&Path, MountKind)> = views
        .read_only
        .iter()
        .map(|path| (path.as_path(), MountKind::ReadOnlyBind))
        .chain(views.writable.map(|path| (path, MountKind::WritableBind)))
        .collect();
    // Outer directories first, so that a nested one is mounted on top.
    shown.sort_by_key(|(path, _)| path.components().count());
    for (host_path, kind) in shown {
        layout.steps.push(plan_shown_dir(dir, host_path, kind)?);
    }
    build_skeleton(dir, &layout, keep)?;
    let skeleton = RootSkeleton {
        dir: dir.to_path_buf(),
        kept: keep,
    };
    let scratch = detached_scratch(scratch_bytes)?;
    let plan = MountPlan {
        root: c_path(dir)?,
        scratch_target: c_path(&dir.join("tmp"))?,
        steps: layout.steps,
    };
    Ok(PreparedRoot {
        skeleton,
        plan,
        scratch,
    })
}

/// Creates the skeleton's entries in `dir`, unless `keep` and the skeleton
/// there was built with the same layout (the steps included: the sandbox
/// makes the mount points of the shown folders in it, which stay).
fn build_skeleton(dir: &Path, layout: &Layout, keep: bool) -> io::Result<()> {
    let signature = format!("{:?}\n{:?}", layout.entries, layout.steps);
    let layout_file = layout_file(dir);
    if keep
        && dir.is_dir()
        && fs::read(&layout_file).is_ok_and(|built| built == signature.as_bytes())
    {
        return Ok(());
    }
    let _ = fs::remove_file(&layout_file);
    if dir.exists() {
        // Another layout's, or a crashed runner's; nothing is mounted on
        // the host in it.
        let _ = fs::remove_dir_all(dir);
    }
    make_dir(dir)?;
    for entry in &layout.entries {
        entry.create()?;
    }
    match keep {
        true => fs::write(layout_file, signature),
        false => Ok(()),
    }
}

/// `/proc`, `/dev`, the system runtimes and the few `/etc` entries.
fn plan_system_views(dir: &Path, layout: &mut Layout) -> io::Result<()> {
    layout.dir(dir.join("proc"));
    layout
        .steps
        .push(step(MountKind::Proc, Path::new("proc"), &dir.join("proc"))?);
    prepare_devices(dir, layout)?;
    for name in ROOT_ENTRIES {
        mirror_entry(&Path::new("/").join(name), &dir.join(name), layout)?;
    }
    layout.dir(dir.join("etc"));
    for name in ETC_ENTRIES {
        mirror_entry(
            &Path::new("/etc").join(name),
            &dir.join("etc").join(name),
            layout,
        )?;
    }
    Ok(())
}

/// A `passwd` and `group` naming only root and the bot: lookups of the
/// bot's own user (Python's `getpass`, the JVM's `user.home`) work, and the
/// host's accounts stay unknown.
fn write_accounts(etc: &Path, bot_uid: Option<u32>, layout: &mut Layout) {
    let mut passwd = String::from("root:x:0:0:root:/:/bin/sh\n");
    let mut group = String::from("root:x:0:\n");
    if let Some(uid) = bot_uid {
        passwd.push_str(&format!("bot:x:{uid}:{uid}:bot:/tmp:/bin/sh\n"));
        group.push_str(&format!("bot:x:{uid}:\n"));
    }
    layout.file(etc.join("passwd"), passwd);
    layout.file(etc.join("group"), group);
}

/// A bind of `host_path` at the same path, with every directory on the
/// way created first (in the sandbox: some may lie in `/tmp`).
fn plan_shown_dir(dir: &Path, host_path: &Path, kind: MountKind) -> io::Result<MountStep> {
    let target = inside(dir, host_path);
    let mut bind = step(kind, host_path, &target)?;
    let mut ancestors: Vec<&Path> = target
        .ancestors()
        .take_while(|ancestor| *ancestor != dir)
        .collect();
    ancestors.reverse();
    bind.create_dirs = ancestors
        .into_iter()
        .map(c_path)
        .collect::<io::Result<_>>()?;
    Ok(bind)
}

// The new mount API (Linux 5.2), which libc names only by syscall number.
const FSOPEN_CLOEXEC: libc::c_uint = 1;
const FSCONFIG_SET_STRING: libc::c_uint = 1;
const FSCONFIG_CMD_CREATE: libc::c_uint = 6;
const FSMOUNT_CLOEXEC: libc::c_uint = 1;
const MOUNT_ATTR_NOSUID: libc::c_uint = 0x2;
const MOUNT_ATTR_NODEV: libc::c_uint = 0x4;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

/// The scratch tmpfs as a mount attached nowhere. Mounting it on the host
/// meant unmounting it there too, and an unmount from the host's mount
/// namespace waits for an RCU grace period while holding the namespace
/// lock, which every parallel start and stop needs: attached only inside
/// the sandbox, it goes with the sandbox's mount namespace, whose teardown
/// waits once for all of its mounts. Landlock rules name the tmpfs's root,
/// so the descriptor is also what the parent's rule for `/tmp` is built on.
fn detached_scratch(scratch_bytes: u64) -> io::Result<OwnedFd> {
    // SAFETY: fsopen takes a static C string and returns a new descriptor.
    let context = unsafe { libc::syscall(libc::SYS_fsopen, c"tmpfs".as_ptr(), FSOPEN_CLOEXEC) };
    // SAFETY: a descriptor fsopen just returned, owned by nothing else.
    let context = unsafe { OwnedFd::from_raw_fd(Errno::result(context)? as RawFd) };
    let size = CString::new(scratch_bytes.to_string())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let options = [
        (c"source", c"tmpfs"),
        (c"size", size.as_c_str()),
        (c"mode", c"1777"),
        (c"nr_inodes", c"16384"),
    ];
    for (key, value) in options {
        // SAFETY: fsconfig reads two C strings that outlive the call.
        let set = unsafe {
            libc::syscall(
                libc::SYS_fsconfig,
                context.as_raw_fd(),
                FSCONFIG_SET_STRING,
                key.as_ptr(),
                value.as_ptr(),
                0,
            )
        };
        Errno::result(set)?;
    }
    // SAFETY: fsconfig with no pointers.
    let created = unsafe {
        libc::syscall(
            libc::SYS_fsconfig,
            context.as_raw_fd(),
            FSCONFIG_CMD_CREATE,
            std::ptr::null::<libc::c_char>(),
            std::ptr::null::<libc::c_char>(),
            0,
        )
    };
    Errno::result(created)?;
    let attributes = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    // SAFETY: fsmount on the configured context returns a new descriptor.
    let mount = unsafe {
        libc::syscall(
            libc::SYS_fsmount,
            context.as_raw_fd(),
            FSMOUNT_CLOEXEC,
            attributes,
        )
    };
    // SAFETY: a descriptor fsmount just returned, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(Errno::result(mount)? as RawFd) })
}

/// Attaches the detached mount `scratch` at `target` (and closes it).
fn attach_scratch(scratch: OwnedFd, target: &CStr) -> Result<(), Errno> {
    // SAFETY: move_mount reads an empty and a prepared C string.
    let moved = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            scratch.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_FDCWD,
            target.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    };
    Errno::result(moved).map(drop)
}

fn step(kind: MountKind, source: &Path, target: &Path) -> io::Result<MountStep> {
    Ok(MountStep {
        kind,
        source: c_path(source)?,
        target: c_path(target)?,
        create_dirs: Vec::new(),
    })
}

fn prepare_devices(dir: &Path, layout: &mut Layout) -> io::Result<()> {
    let dev = dir.join("dev");
    layout.dir(dev.clone());
    for name in DEVICES {
        let host = Path::new("/dev").join(name);
        if host.exists() {
            layout.file(dev.join(name), String::new());
            layout
                .steps
                .push(step(MountKind::DeviceBind, &host, &dev.join(name))?);
        }
    }
    for (name, target) in DEVICE_LINKS {
        layout.entries.push(Entry::Link {
            target: PathBuf::from(target),
            path: dev.join(name),
        });
    }
    Ok(())
}

/// Shows the host entry `host` at `target`: a symlink is copied, a directory
/// or file gets a read-only bind mount, a missing entry is skipped.
fn mirror_entry(host: &Path, target: &Path, layout: &mut Layout) -> io::Result<()> {
    let Ok(meta) = host.symlink_metadata() else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        layout.entries.push(Entry::Link {
            target: fs::read_link(host)?,
            path: target.to_path_buf(),
        });
        return Ok(());
    }
    match meta.is_dir() {
        true => layout.dir(target.to_path_buf()),
        false => layout.file(target.to_path_buf(), String::new()),
    }
    layout
        .steps
        .push(step(MountKind::ReadOnlyBind, host, target)?);
    Ok(())
}

/// Hands `dir` and everything in it to `uid` (links themselves, never
/// their targets), so that a sandbox running as `uid` may write there.
/// Iterative: a tree of any depth costs no stack.
pub fn give_tree(dir: &Path, uid: u32) -> io::Result<()> {
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        std::os::unix::fs::lchown(&path, Some(uid), Some(uid))?;
        if path.symlink_metadata()?.is_dir() {
            for entry in fs::read_dir(&path)? {
                pending.push(entry?.path());
            }
        }
    }
    Ok(())
}

const NO_PATH: Option<&CStr> = None;

impl MountKind {
    const ALL: [MountKind; 4] = [
        MountKind::ReadOnlyBind,
        MountKind::WritableBind,
        MountKind::DeviceBind,
        MountKind::Proc,
    ];
}

impl MountPlan {
    /// Writes the plan for the supervisor's fresh process image.
    pub fn encode(&self, out: &mut Encoder) {
        out.c_string(&self.root);
        out.c_string(&self.scratch_target);
        out.number(self.steps.len() as u64);
        for step in &self.steps {
            let kind = MountKind::ALL.iter().position(|kind| *kind == step.kind);
            out.number(kind.unwrap_or(0) as u64);
            out.c_string(&step.source);
            out.c_string(&step.target);
            out.c_strings(&step.create_dirs);
        }
    }

    /// Reads what [`MountPlan::encode`] wrote; `None` if it is malformed.
    pub fn decode(input: &mut Decoder<'_>) -> Option<MountPlan> {
        let root = input.c_string()?;
        let scratch_target = input.c_string()?;
        let n_steps = input.length()?;
        let mut steps = Vec::with_capacity(n_steps);
        for _ in 0..n_steps {
            steps.push(MountStep {
                kind: *MountKind::ALL.get(input.length()?)?,
                source: input.c_string()?,
                target: input.c_string()?,
                create_dirs: input.c_strings()?,
            });
        }
        Some(MountPlan {
            root,
            scratch_target,
            steps,
        })
    }
}

impl MountPlan {
    /// Applies the plan, attaching the detached tmpfs `scratch` at `/tmp`,
    /// and pivots into the new root.
    ///
    /// Runs in the sandbox's first process right after `clone`: only
    /// syscalls on prepared data, no allocation.
    pub fn apply_in_child(&self, scratch: Option<OwnedFd>) -> Result<(), (SetupStep, Errno)> {
        let private = MsFlags::MS_REC | MsFlags::MS_PRIVATE;
        mount(NO_PATH, c"/", NO_PATH, private, NO_PATH)
            .map_err(|errno| (SetupStep::PrivateMounts, errno))?;
        let root = self.root.as_c_str();
        let bind = MsFlags::MS_BIND | MsFlags::MS_REC;
        mount(Some(root), root, NO_PATH, bind, NO_PATH)
            .map_err(|errno| (SetupStep::BindRoot, errno))?;
        // Before the steps: some create their mount points in `/tmp`.
        let scratch = scratch.ok_or((SetupStep::MountScratch, Errno::EBADF))?;
        attach_scratch(scratch, &self.scratch_target)
            .map_err(|errno| (SetupStep::MountScratch, errno))?;
        for step in &self.steps {
            step.apply()?;
        }
        remount_read_only(root, MsFlags::empty())
            .map_err(|errno| (SetupStep::RemountReadOnly, errno))?;
        chdir(root).map_err(|errno| (SetupStep::PivotRoot, errno))?;
        pivot_root(c".", c".").map_err(|errno| (SetupStep::PivotRoot, errno))?;
        umount2(c".", MntFlags::MNT_DETACH).map_err(|errno| (SetupStep::DetachOldRoot, errno))?;
        chdir(c"/").map_err(|errno| (SetupStep::PivotRoot, errno))
    }
}

impl MountStep {
    fn apply(&self) -> Result<(), (SetupStep, Errno)> {
        for dir in &self.create_dirs {
            match mkdir(dir.as_c_str(), Mode::from_bits_truncate(0o755)) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(errno) => return Err((SetupStep::MakeDir, errno)),
            }
        }
        let source = self.source.as_c_str();
        let target = self.target.as_c_str();
        let hardened = MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
        match self.kind {
            MountKind::Proc => mount(
                Some(source),
                target,
                Some(c"proc"),
                hardened | MsFlags::MS_NOEXEC,
                // Only the bot's own processes: the supervisor is a copy of
                // the runner, whose command line is nobody else's business.
                Some(c"hidepid=2"),
            )
            .map_err(|errno| (SetupStep::Proc, errno)),
            MountKind::DeviceBind => {
                mount(Some(source), target, NO_PATH, MsFlags::MS_BIND, NO_PATH)
                    .map_err(|errno| (SetupStep::Bind, errno))?;
                let flags = MsFlags::MS_BIND
                    | MsFlags::MS_REMOUNT
                    | MsFlags::MS_NOSUID
                    | MsFlags::MS_NOEXEC;
                mount(NO_PATH, target, NO_PATH, flags, NO_PATH)
                    .map_err(|errno| (SetupStep::RemountReadOnly, errno))
            }
            MountKind::WritableBind => {
                let bind = MsFlags::MS_BIND | MsFlags::MS_REC;
                mount(Some(source), target, NO_PATH, bind, NO_PATH)
                    .map_err(|errno| (SetupStep::Bind, errno))?;
                let flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | hardened;
                mount(NO_PATH, target, NO_PATH, flags, NO_PATH)
                    .map_err(|errno| (SetupStep::RemountReadOnly, errno))
            }
            MountKind::ReadOnlyBind => {
                let bind = MsFlags::MS_BIND | MsFlags::MS_REC;
                mount(Some(source), target, NO_PATH, bind, NO_PATH)
                    .map_err(|errno| (SetupStep::Bind, errno))?;
                remount_read_only(target, MsFlags::MS_NODEV)
                    .map_err(|errno| (SetupStep::RemountReadOnly, errno))
            }
        }
    }
}

fn remount_read_only(target: &CStr, extra: MsFlags) -> nix::Result<()> {
    let flags =
        MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | extra;
    mount(NO_PATH, target, NO_PATH, flags, NO_PATH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skeleton_mirrors_merged_usr_links_and_plans_the_bot_folder() {
        let base = std::env::temp_dir().join(format!("cairn-rootfs-{}", std::process::id()));
        let skeleton_dir = base.join("root");
        let bot = PathBuf::from("/srv/bots/alpha");
        let views = Views {
            read_only: std::slice::from_ref(&bot),
            writable: None,
        };
        let PreparedRoot {
            skeleton,
            plan,
            scratch,
        } = prepare(&skeleton_dir, &views, 1 << 20, Some(1_234_567), false).expect("prepare");
        // The scratch is a tmpfs attached nowhere on the host.
        let scratch_fs = nix::sys::statfs::fstatfs(&scratch).expect("statfs");
        assert_eq!(scratch_fs.filesystem_type(), nix::sys::statfs::TMPFS_MAGIC);
        let device =
            |path: &Path| std::os::unix::fs::MetadataExt::dev(&fs::metadata(path).expect("exists"));
        assert_eq!(device(&skeleton_dir.join("tmp")), device(&skeleton_dir));
        for name in ["bin", "lib"] {
            let host = Path::new("/").join(name);
            if host
                .symlink_metadata()
                .is_ok_and(|meta| meta.file_type().is_symlink())
            {
                assert_eq!(
                    fs::read_link(skeleton_dir.join(name)).ok(),
                    fs::read_link(&host).ok()
                );
            }
        }
        let passwd = fs::read_to_string(skeleton_dir.join("etc/passwd")).expect("passwd");
        assert!(
            passwd.ends_with("bot:x:1234567:1234567:bot:/tmp:/bin/sh\n"),
            "{passwd}"
        );
        let bot_step = plan.steps.last().expect("a step for the bot");
        assert_eq!(bot_step.kind, MountKind::ReadOnlyBind);
        assert_eq!(
            bot_step.target.to_bytes(),
            skeleton_dir.join("srv/bots/alpha").as_os_str().as_bytes()
        );
        assert_eq!(
            bot_step.create_dirs.len(),
            3,
            "srv, srv/bots, srv/bots/alpha"
        );
        assert!(plan.steps.iter().any(|step| step.kind == MountKind::Proc));
        skeleton.release();
        assert!(!skeleton_dir.exists());
        let _ = fs::remove_dir_all(&base);
    }

    #[test]
    fn a_kept_skeleton_is_reused_for_the_same_layout_and_rebuilt_for_another() {
        let base = std::env::temp_dir().join(format!("cairn-rootfs-keep-{}", std::process::id()));
        let skeleton_dir = base.join("root");
        let (alpha, beta) = (PathBuf::from("/srv/alpha"), PathBuf::from("/srv/beta"));
        let prepare_for = |bot: &PathBuf| {
            let views = Views {
                read_only: std::slice::from_ref(bot),
                writable: None,
            };
            prepare(&skeleton_dir, &views, 1 << 20, Some(1_200_000), true).expect("prepare")
        };
        let first = prepare_for(&alpha);
        // What the sandbox makes while mounting: the bot folder's mount point.
        make_dir(&skeleton_dir.join("srv/alpha")).expect("mount point");
        fs::write(skeleton_dir.join("tmp/marker"), "").expect("marker");
        first.skeleton.release();
        assert!(skeleton_dir.join("etc/passwd").exists(), "kept");
        let second = prepare_for(&alpha);
        assert!(skeleton_dir.join("tmp/marker").exists(), "reused as it was");
        second.skeleton.release();
        let third = prepare_for(&beta);
        assert!(!skeleton_dir.join("tmp/marker").exists(), "rebuilt");
        assert!(
            !skeleton_dir.join("srv/alpha").exists(),
            "no trace of alpha"
        );
        let passwd = fs::read_to_string(skeleton_dir.join("etc/passwd")).expect("passwd");
        assert!(passwd.contains("bot:x:1200000:"), "{passwd}");
        third.skeleton.release();
        // A skeleton whose layout file is missing (cut short) is rebuilt.
        fs::write(skeleton_dir.join("tmp/marker"), "").expect("marker");
        fs::remove_file(layout_file(&skeleton_dir)).expect("layout file");
        let fourth = prepare_for(&beta);
        assert!(!skeleton_dir.join("tmp/marker").exists(), "rebuilt");
        fourth.skeleton.remove();
        assert!(!skeleton_dir.exists());
        assert!(!layout_file(&skeleton_dir).exists());
        let _ = fs::remove_dir_all(&base);
    }
}
