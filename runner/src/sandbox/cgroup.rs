//! Memory and process caps and CPU accounting through cgroups.
//!
//! cgroup v2 is used when the runner's own cgroup delegates the `memory` and
//! `pids` controllers; otherwise the v1 hierarchies (`memory`, `pids`,
//! `cpuacct`) are used. Each bot gets one cgroup per hierarchy, created under
//! the runner's own cgroup (so the runner's limits still bound its bots) and
//! named after the bot's uid, which is unique among live bots. A leased
//! uid's cgroups stay for its next bot (their counters read from where they
//! stood when it started): creating and removing three cgroups per start
//! took the kernel's global cgroup lock six times and left their teardown
//! to kernel workers on the other CPU, which a parallel match needs.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// Where per-bot cgroups can be created on this host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CgroupHost {
    /// A delegated v2 directory whose children get `memory` and `pids`.
    Unified { parent: PathBuf },
    /// v1 parent directories, one per controller that is mounted and writable.
    Legacy {
        memory: Option<PathBuf>,
        pids: Option<PathBuf>,
        cpuacct: Option<PathBuf>,
    },
}

impl CgroupHost {
    /// Finds the best cgroup setup this process may use, or `None`.
    pub fn detect() -> Option<CgroupHost> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
        let own = fs::read_to_string("/proc/self/cgroup").ok()?;
        if let Some(unified) = detect_unified(&mountinfo, &own) {
            return Some(unified);
        }
        let legacy = CgroupHost::Legacy {
            memory: legacy_parent(&mountinfo, &own, "memory"),
            pids: legacy_parent(&mountinfo, &own, "pids"),
            cpuacct: legacy_parent(&mountinfo, &own, "cpuacct"),
        };
        match &legacy {
            CgroupHost::Legacy {
                memory: None,
                pids: None,
                cpuacct: None,
            } => None,
            _ => Some(legacy),
        }
    }

    pub fn has_memory(&self) -> bool {
        match self {
            CgroupHost::Unified { .. } => true,
            CgroupHost::Legacy { memory, .. } => memory.is_some(),
        }
    }

    pub fn has_pids(&self) -> bool {
        match self {
            CgroupHost::Unified { .. } => true,
            CgroupHost::Legacy { pids, .. } => pids.is_some(),
        }
    }

    pub fn has_cpu_accounting(&self) -> bool {
        match self {
            CgroupHost::Unified { .. } => true,
            CgroupHost::Legacy { cpuacct, .. } => cpuacct.is_some(),
        }
    }

    /// One line describing the setup, for the layer report.
    pub fn describe(&self) -> String {
        match self {
            CgroupHost::Unified { parent } => format!("cgroup v2 under {}", parent.display()),
            CgroupHost::Legacy {
                memory,
                pids,
                cpuacct,
            } => {
                let shown = |dir: &Option<PathBuf>| {
                    dir.as_ref()
                        .map_or("missing".to_string(), |dir| dir.display().to_string())
                };
                format!(
                    "cgroup v1 memory {}, pids {}, cpuacct {}",
                    shown(memory),
                    shown(pids),
                    shown(cpuacct)
                )
            }
        }
    }
}

/// The v1 parent for `controller`, kept only if a child cgroup can really be
/// created there.
fn legacy_parent(mountinfo: &str, own: &str, controller: &str) -> Option<PathBuf> {
    let parent = legacy_parent_path(mountinfo, own, controller)?;
    can_create_child(&parent).then_some(parent)
}

/// The `mount point + own path` of the v1 hierarchy carrying `controller`.
fn legacy_parent_path(mountinfo: &str, own: &str, controller: &str) -> Option<PathBuf> {
    let mount_point = mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let mut after_fields = after.split_whitespace();
        let fs_type = after_fields.next()?;
        let super_options = after_fields.nth(1)?;
        let has_controller = super_options.split(',').any(|option| option == controller);
        (fs_type == "cgroup" && has_controller).then(|| before.split_whitespace().nth(4))?
    })?;
    let own_path = own.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let _id = fields.next()?;
        let controllers = fields.next()?;
        let path = fields.next()?;
        controllers
            .split(',')
            .any(|name| name == controller)
            .then_some(path)
    })?;
    Some(Path::new(mount_point).join(own_path.trim_start_matches('/')))
}

fn detect_unified(mountinfo: &str, own: &str) -> Option<CgroupHost> {
    unified_parent(mountinfo, own, &["memory", "pids"]).map(|parent| CgroupHost::Unified { parent })
}

/// This process's own v2 cgroup, if it hands every one of `controllers`
/// to the children created in it (enabling them when it may).
fn unified_parent(mountinfo: &str, own: &str, controllers: &[&str]) -> Option<PathBuf> {
    let mount_point = mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        (after.split_whitespace().next()? == "cgroup2").then(|| before.split_whitespace().nth(4))?
    })?;
    let own_path = own.lines().find_map(|line| line.strip_prefix("0::"))?;
    let parent = Path::new(mount_point).join(own_path.trim_start_matches('/'));
    let available = fs::read_to_string(parent.join("cgroup.controllers")).ok()?;
    let has = |name: &&str| available.split_whitespace().any(|word| word == *name);
    if !controllers.iter().all(has) {
        return None;
    }
    let enabled = fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
    let is_enabled = |name: &&str| enabled.split_whitespace().any(|word| word == *name);
    if !controllers.iter().all(is_enabled) {
        // Fails (EBUSY) when the runner's own cgroup holds processes and is not
        // the root: then v2 is not delegated to us and v1 is tried instead.
        let wanted: Vec<String> = controllers.iter().map(|name| format!("+{name}")).collect();
        fs::write(parent.join("cgroup.subtree_control"), wanted.join(" ")).ok()?;
    }
    can_create_child(&parent).then_some(parent)
}

/// Where this process may create child cgroups under one controller (for
/// tools that place whole processes, such as benchmarks that cap a server's
/// CPU): found as the sandbox finds its own, v2 first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControllerParent {
    /// A v2 directory delegating the controller (and every other v2
    /// controller its children were given) to its children.
    Unified(PathBuf),
    /// The v1 hierarchy carrying the controller, at this process's place in it.
    Legacy(PathBuf),
}

impl ControllerParent {
    /// The parent for `controller` (`cpu`, `cpuacct`, `memory`, ...), or
    /// `None` when neither hierarchy lets this process create a child there.
    pub fn detect(controller: &str) -> Option<ControllerParent> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
        let own = fs::read_to_string("/proc/self/cgroup").ok()?;
        if let Some(parent) = unified_parent(&mountinfo, &own, &[controller]) {
            return Some(ControllerParent::Unified(parent));
        }
        legacy_parent(&mountinfo, &own, controller).map(ControllerParent::Legacy)
    }

    /// The directory children are created in.
    pub fn path(&self) -> &Path {
        match self {
            ControllerParent::Unified(path) | ControllerParent::Legacy(path) => path,
        }
    }
}

fn can_create_child(parent: &Path) -> bool {
    let probe = parent.join(format!("cairn-probe-{}", std::process::id()));
    let created = fs::create_dir(&probe).is_ok();
    created && fs::remove_dir(&probe).is_ok()
}

/// The cgroups of one bot; removed by [`BotCgroups::remove`], or kept for
/// the next bot of the same uid by [`BotCgroups::release`].
#[derive(Debug)]
pub struct BotCgroups {
    unified: Option<PathBuf>,
    memory: Option<PathBuf>,
    pids: Option<PathBuf>,
    cpuacct: Option<PathBuf>,
    /// The CPU usage file, kept open: the runner reads it at every decision.
    cpu_usage_file: Option<File>,
    kept: bool,
    /// The counters when this bot's turn began (zero in new cgroups).
    baseline: Counters,
}

/// What the kernel counts in a bot's cgroups since they were made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counters {
    cpu: Duration,
    oom_kills: u64,
    refused_forks: u64,
}

impl BotCgroups {
    /// Creates the bot's cgroups (clearing a stale one of the same name) and
    /// writes the limits. With `keep` (a name that the uid lease makes this
    /// bot's alone), cgroups of that name are reused, emptied first, and
    /// stay after [`BotCgroups::release`].
    pub fn create(
        host: &CgroupHost,
        name: &str,
        memory_bytes: u64,
        max_tasks: u64,
        keep: bool,
    ) -> io::Result<BotCgroups> {
        let mut cgroups = BotCgroups {
            unified: None,
            memory: None,
            pids: None,
            cpuacct: None,
            cpu_usage_file: None,
            kept: keep,
            baseline: Counters::default(),
        };
        match cgroups.populate(host, name, memory_bytes, max_tasks) {
            Ok(()) => {
                cgroups.baseline = cgroups.counters();
                Ok(cgroups)
            }
            Err(error) => {
                cgroups.remove();
                Err(error)
            }
        }
    }

    /// Creates the directories and writes the limits; on error the caller
    /// removes whatever was created.
    fn populate(
        &mut self,
        host: &CgroupHost,
        name: &str,
        memory_bytes: u64,
        max_tasks: u64,
    ) -> io::Result<()> {
        let cgroups = self;
        let keep = cgroups.kept;
        let dir = |parent: &Path| match keep {
            true => reused_dir(&parent.join(name)),
            false => fresh_dir(&parent.join(name)),
        };
        match host {
            CgroupHost::Unified { parent } => cgroups.unified = Some(dir(parent)?),
            CgroupHost::Legacy {
                memory,
                pids,
                cpuacct,
            } => {
                let make = |parent: &Option<PathBuf>| parent.as_deref().map(dir).transpose();
                cgroups.memory = make(memory)?;
                cgroups.pids = make(pids)?;
                cgroups.cpuacct = make(cpuacct)?;
            }
        }
        cgroups.write_limits(memory_bytes, max_tasks)?;
        cgroups.cpu_usage_file = cgroups.open_cpu_usage_file();
        Ok(())
    }

    fn write_limits(&self, memory_bytes: u64, max_tasks: u64) -> io::Result<()> {
        if let Some(dir) = &self.unified {
            fs::write(dir.join("memory.max"), memory_bytes.to_string())?;
            // Without swap the cap is a real cap; absent when swap is off.
            let _ = fs::write(dir.join("memory.swap.max"), "0");
            fs::write(dir.join("pids.max"), max_tasks.to_string())?;
        }
        if let Some(dir) = &self.memory {
            // memsw exists only with swap accounting; swappiness 0 keeps the bot
            // from swapping its way past the cap where it does not. It may
            // never be below the memory cap: in a reused cgroup it is set
            // before a rising cap and after a falling one.
            let memsw = dir.join("memory.memsw.limit_in_bytes");
            let _ = fs::write(&memsw, memory_bytes.to_string());
            fs::write(dir.join("memory.limit_in_bytes"), memory_bytes.to_string())?;
            let _ = fs::write(&memsw, memory_bytes.to_string());
            let _ = fs::write(dir.join("memory.swappiness"), "0");
        }
        if let Some(dir) = &self.pids {
            fs::write(dir.join("pids.max"), max_tasks.to_string())?;
        }
        Ok(())
    }

    fn dirs(&self) -> impl Iterator<Item = &PathBuf> {
        [&self.unified, &self.memory, &self.pids, &self.cpuacct]
            .into_iter()
            .flatten()
    }

    /// The files the supervisor writes `0` to, to join the cgroups itself.
    ///
    /// In v1 a single thread writing `0` to `tasks` for itself skips the
    /// global lock that moving a whole process takes, whose RCU grace period
    /// cost about 10 ms per spawn here. v2 has no `tasks`: `cgroup.procs`.
    pub fn join_files(&self) -> Vec<PathBuf> {
        let v2 = self.unified.iter().map(|dir| dir.join("cgroup.procs"));
        let v1 = [&self.memory, &self.pids, &self.cpuacct]
            .into_iter()
            .flatten();
        v2.chain(v1.map(|dir| dir.join("tasks"))).collect()
    }

    fn counters(&self) -> Counters {
        Counters {
            cpu: self.cpu_usage_since_made().unwrap_or_default(),
            oom_kills: self.oom_kills_since_made(),
            refused_forks: self.refused_forks_since_made(),
        }
    }

    /// The CPU time of every process of this bot that ran in the cgroup.
    pub fn cpu_usage(&self) -> Option<Duration> {
        let usage = self.cpu_usage_since_made()?;
        Some(usage.saturating_sub(self.baseline.cpu))
    }

    fn cpu_usage_since_made(&self) -> Option<Duration> {
        let file = self.cpu_usage_file.as_ref()?;
        let mut buffer = [0u8; 512];
        let length = file.read_at(&mut buffer, 0).ok()?;
        let text = std::str::from_utf8(buffer.get(..length)?).ok()?;
        if self.unified.is_some() {
            return keyed_value(text, "usage_usec").map(Duration::from_micros);
        }
        text.trim().parse().ok().map(Duration::from_nanos)
    }

    fn open_cpu_usage_file(&self) -> Option<File> {
        match (&self.unified, &self.cpuacct) {
            (Some(dir), _) => File::open(dir.join("cpu.stat")).ok(),
            (None, Some(dir)) => File::open(dir.join("cpuacct.usage")).ok(),
            (None, None) => None,
        }
    }

    /// How many processes of this bot the OOM killer ended because of the
    /// memory cap.
    pub fn oom_kills(&self) -> u64 {
        self.oom_kills_since_made()
            .saturating_sub(self.baseline.oom_kills)
    }

    fn oom_kills_since_made(&self) -> u64 {
        let (dir, file) = match (&self.unified, &self.memory) {
            (Some(dir), _) => (dir, "memory.events"),
            (None, Some(dir)) => (dir, "memory.oom_control"),
            (None, None) => return 0,
        };
        let text = fs::read_to_string(dir.join(file)).unwrap_or_default();
        keyed_value(&text, "oom_kill").unwrap_or(0)
    }

    /// How many of this bot's forks the process cap refused.
    pub fn refused_forks(&self) -> u64 {
        self.refused_forks_since_made()
            .saturating_sub(self.baseline.refused_forks)
    }

    fn refused_forks_since_made(&self) -> u64 {
        let Some(dir) = self.unified.as_ref().or(self.pids.as_ref()) else {
            return 0;
        };
        let text = fs::read_to_string(dir.join("pids.events")).unwrap_or_default();
        keyed_value(&text, "max").unwrap_or(0)
    }

    /// Pids (host namespace) of the processes still in the cgroup.
    pub fn members(&self) -> Vec<Pid> {
        let Some(dir) = self
            .unified
            .as_ref()
            .or(self.pids.as_ref())
            .or(self.memory.as_ref())
        else {
            return Vec::new();
        };
        let text = fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
        text.lines()
            .filter_map(|line| line.trim().parse().ok())
            .map(Pid::from_raw)
            .collect()
    }

    /// Kills every member until none is left (a fork racing the sweep is
    /// caught by the next round; the process cap bounds the rounds).
    pub fn kill_members(&self) {
        for _round in 0..1000 {
            let members = self.members();
            if members.is_empty() {
                return;
            }
            for pid in members {
                let _ = kill(pid, Signal::SIGKILL);
            }
            std::thread::yield_now();
        }
    }

    /// Called once the bot is gone (killed and reaped): keeps cgroups made
    /// for reuse, removes any other.
    pub fn release(self) {
        if !self.kept {
            self.remove();
        }
    }

    /// Removes the cgroups; they must be empty (killed and reaped).
    pub fn remove(&self) {
        for dir in self.dirs() {
            // A killed task leaves the cgroup a moment after it is reaped.
            for _attempt in 0..1000 {
                match fs::remove_dir(dir) {
                    Err(error) if error.raw_os_error() == Some(libc::EBUSY) => {
                        std::thread::yield_now()
                    }
                    _ => break,
                }
            }
        }
    }
}

/// Creates `dir`, first clearing a leftover of a crashed runner.
fn fresh_dir(dir: &Path) -> io::Result<PathBuf> {
    if dir.exists() {
        let stale = stale_cgroup(dir);
        stale.kill_members();
        stale.remove();
    }
    fs::create_dir(dir)?;
    Ok(dir.to_path_buf())
}

/// `dir` as the previous bot of its uid left it, emptied (a crashed
/// runner's bot may still be there), or new.
fn reused_dir(dir: &Path) -> io::Result<PathBuf> {
    match dir.is_dir() {
        true => stale_cgroup(dir).kill_members(),
        false => fs::create_dir(dir)?,
    }
    Ok(dir.to_path_buf())
}

fn stale_cgroup(dir: &Path) -> BotCgroups {
    BotCgroups {
        unified: None,
        memory: None,
        pids: Some(dir.to_path_buf()),
        cpuacct: None,
        cpu_usage_file: None,
        kept: false,
        baseline: Counters::default(),
    }
}

/// The number after `key` in a `key value` per line file.
fn keyed_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(' ')?;
        (name == key).then(|| value.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory standing in for a cgroup hierarchy: the control
    /// files are plain files there, which is enough to check names and parsing.
    fn fake_hierarchy(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cairn-cgroup-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("fake hierarchy");
        dir
    }

    #[test]
    fn a_delegated_unified_hierarchy_is_preferred() {
        let root = fake_hierarchy("unified");
        fs::create_dir_all(root.join("runner")).expect("own cgroup");
        fs::write(
            root.join("runner/cgroup.controllers"),
            "cpuset cpu io memory pids\n",
        )
        .expect("write");
        fs::write(root.join("runner/cgroup.subtree_control"), "memory pids\n").expect("write");
        let mountinfo = format!(
            "41 31 0:38 / {} rw,relatime - cgroup2 cgroup2 rw\n",
            root.display()
        );
        let found = detect_unified(&mountinfo, "0::/runner\n");
        assert_eq!(
            found,
            Some(CgroupHost::Unified {
                parent: root.join("runner")
            })
        );
        fs::write(root.join("runner/cgroup.controllers"), "cpu io\n").expect("write");
        assert_eq!(
            detect_unified(&mountinfo, "0::/runner\n"),
            None,
            "no memory controller"
        );
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_single_controller_is_found_in_the_unified_hierarchy_only_where_it_is_available() {
        let root = fake_hierarchy("unified-cpu");
        fs::create_dir_all(root.join("server")).expect("own cgroup");
        fs::write(root.join("server/cgroup.controllers"), "cpu memory\n").expect("write");
        fs::write(root.join("server/cgroup.subtree_control"), "cpu\n").expect("write");
        let mountinfo = format!(
            "41 31 0:38 / {} rw,relatime - cgroup2 cgroup2 rw\n",
            root.display()
        );
        let own = "0::/server\n";
        assert_eq!(
            unified_parent(&mountinfo, own, &["cpu"]),
            Some(root.join("server"))
        );
        assert_eq!(
            unified_parent(&mountinfo, own, &["cpu", "pids"]),
            None,
            "no pids controller"
        );
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_legacy_cpu_hierarchy_is_found_at_the_process_place_in_it() {
        let mountinfo = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
                         33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n";
        let own = "2:cpuacct:/\n1:cpu:/jobs/arena\n0::/\n";
        assert_eq!(
            legacy_parent_path(mountinfo, own, "cpu"),
            Some(PathBuf::from("/sys/fs/cgroup/cpu/jobs/arena"))
        );
        assert_eq!(
            legacy_parent_path(mountinfo, own, "cpuacct"),
            Some(PathBuf::from("/sys/fs/cgroup/cpuacct"))
        );
        assert_eq!(legacy_parent_path(mountinfo, own, "memory"), None);
    }

    #[test]
    fn unified_cgroups_get_their_limits_and_report_usage() {
        let parent = fake_hierarchy("unified-bot");
        let host = CgroupHost::Unified {
            parent: parent.clone(),
        };
        let mut cgroups = BotCgroups::create(&host, "bot", 256 << 20, 17, false).expect("create");
        let dir = parent.join("bot");
        assert_eq!(
            fs::read_to_string(dir.join("memory.max")).ok(),
            Some((256u64 << 20).to_string())
        );
        assert_eq!(
            fs::read_to_string(dir.join("memory.swap.max")).ok(),
            Some("0".to_string())
        );
        assert_eq!(
            fs::read_to_string(dir.join("pids.max")).ok(),
            Some("17".to_string())
        );
        fs::write(dir.join("cpu.stat"), "usage_usec 1500\nuser_usec 1000\n").expect("write");
        cgroups.cpu_usage_file = cgroups.open_cpu_usage_file();
        assert_eq!(cgroups.cpu_usage(), Some(Duration::from_micros(1500)));
        fs::write(
            dir.join("memory.events"),
            "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n",
        )
        .expect("write");
        fs::write(dir.join("pids.events"), "max 2\n").expect("write");
        assert_eq!((cgroups.oom_kills(), cgroups.refused_forks()), (1, 2));
        let _ = fs::remove_dir_all(&parent);
    }

    #[test]
    fn legacy_cgroups_get_their_limits_and_report_usage() {
        let root = fake_hierarchy("legacy-bot");
        let [memory, pids, cpuacct] = ["memory", "pids", "cpuacct"].map(|name| root.join(name));
        for parent in [&memory, &pids, &cpuacct] {
            fs::create_dir_all(parent).expect("fake controller hierarchy");
        }
        let host = CgroupHost::Legacy {
            memory: Some(memory.clone()),
            pids: Some(pids.clone()),
            cpuacct: Some(cpuacct.clone()),
        };
        let mut cgroups = BotCgroups::create(&host, "bot", 64 << 20, 9, false).expect("create");
        let limit = fs::read_to_string(memory.join("bot/memory.limit_in_bytes")).ok();
        assert_eq!(limit, Some((64u64 << 20).to_string()));
        assert_eq!(
            fs::read_to_string(pids.join("bot/pids.max")).ok(),
            Some("9".to_string())
        );
        fs::write(cpuacct.join("bot/cpuacct.usage"), "2500000000\n").expect("write");
        cgroups.cpu_usage_file = cgroups.open_cpu_usage_file();
        assert_eq!(cgroups.cpu_usage(), Some(Duration::from_millis(2500)));
        let oom_control = "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n";
        fs::write(memory.join("bot/memory.oom_control"), oom_control).expect("write");
        assert_eq!(cgroups.oom_kills(), 2);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn kept_cgroups_count_only_what_their_next_bot_does() {
        let parent = fake_hierarchy("kept-bot");
        let host = CgroupHost::Unified {
            parent: parent.clone(),
        };
        let dir = parent.join("bot");
        let first = BotCgroups::create(&host, "bot", 256 << 20, 17, true).expect("create");
        fs::write(dir.join("cpu.stat"), "usage_usec 1500\n").expect("write");
        fs::write(dir.join("memory.events"), "oom_kill 1\n").expect("write");
        fs::write(dir.join("pids.events"), "max 2\n").expect("write");
        first.release();
        assert!(dir.is_dir(), "kept for the uid's next bot");
        let mut second = BotCgroups::create(&host, "bot", 128 << 20, 9, true).expect("reuse");
        assert_eq!(
            fs::read_to_string(dir.join("memory.max")).ok(),
            Some((128u64 << 20).to_string())
        );
        assert_eq!(second.cpu_usage(), Some(Duration::ZERO));
        assert_eq!((second.oom_kills(), second.refused_forks()), (0, 0));
        fs::write(dir.join("cpu.stat"), "usage_usec 4000\n").expect("write");
        fs::write(dir.join("memory.events"), "oom_kill 2\n").expect("write");
        fs::write(dir.join("pids.events"), "max 5\n").expect("write");
        second.cpu_usage_file = second.open_cpu_usage_file();
        assert_eq!(second.cpu_usage(), Some(Duration::from_micros(2500)));
        assert_eq!((second.oom_kills(), second.refused_forks()), (1, 3));
        let _ = fs::remove_dir_all(&parent);
    }

    #[test]
    fn keyed_values_are_read_by_exact_key() {
        let text = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(keyed_value(text, "oom_kill"), Some(3));
        assert_eq!(keyed_value(text, "missing"), None);
    }

    #[test]
    fn a_legacy_hierarchy_is_found_by_its_controller_option() {
        let mountinfo = "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
                         33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n";
        let own = "4:memory:/process_api/abc\n2:cpuacct:/\n0::/\n";
        assert_eq!(
            legacy_parent_path(mountinfo, own, "memory"),
            Some(PathBuf::from("/sys/fs/cgroup/memory/process_api/abc"))
        );
        assert_eq!(
            legacy_parent_path(mountinfo, own, "cpuacct"),
            Some(PathBuf::from("/sys/fs/cgroup/cpuacct"))
        );
        assert_eq!(legacy_parent_path(mountinfo, own, "pids"), None);
    }
}
