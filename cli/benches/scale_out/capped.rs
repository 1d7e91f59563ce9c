//! Each arena process in a cgroup of its own, held to the same share of one
//! core (v2 `cpu.max`, or v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`),
//! its CPU time read back from the cgroup (v2 `cpu.stat`, v1
//! `cpuacct.usage`). Where the cgroups may be made is found as the sandbox
//! finds its own ([`ControllerParent::detect`]).
//!
//! A cgroup is removed when its [`CappedGroup`] is dropped (on a panic
//! too); one left by a benchmark that was killed is removed by the next.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use cairn_runner::sandbox::ControllerParent;

/// The CFS period the quota is a share of.
const PERIOD_US: u64 = 100_000;
/// The prefix of this benchmark's cgroups, then the owning process's id.
const PREFIX: &str = "cairn-scale-out-";

/// Where capped cgroups can be made on this host.
#[derive(Debug)]
pub struct CpuCgroups {
    /// The `cpu` controller's parent: where the cap is written.
    cap: ControllerParent,
    /// Where the CPU time is counted: the same directory in v2, the
    /// `cpuacct` hierarchy's in v1 (the same when both are mounted together).
    accounting: ControllerParent,
}

impl CpuCgroups {
    /// The host's cgroups, or why none can hold a capped process.
    pub fn detect() -> Result<CpuCgroups, String> {
        let cap = ControllerParent::detect("cpu").ok_or(
            "no cpu cgroup this process may create children in (cgroup v2 with the `cpu` \
             controller delegated, or a writable cgroup v1 `cpu` hierarchy; run as root or \
             in a delegated cgroup)",
        )?;
        let accounting = match &cap {
            ControllerParent::Unified(_) => cap.clone(),
            ControllerParent::Legacy(_) => ControllerParent::detect("cpuacct")
                .ok_or("a cgroup v1 `cpu` hierarchy but no writable `cpuacct` one")?,
        };
        let cgroups = CpuCgroups { cap, accounting };
        cgroups.remove_stale();
        Ok(cgroups)
    }

    /// A new cgroup `name`, not capped yet ([`CappedGroup::cap`]).
    pub fn create(&self, name: &str) -> io::Result<CappedGroup> {
        let dir_name = format!("{PREFIX}{}-{name}", std::process::id());
        let mut group = CappedGroup {
            dirs: Vec::new(),
            unified: matches!(self.cap, ControllerParent::Unified(_)),
        };
        for parent in [&self.cap, &self.accounting] {
            let dir = parent.path().join(&dir_name);
            if !group.dirs.contains(&dir) {
                fs::create_dir(&dir)?;
                group.dirs.push(dir);
            }
        }
        Ok(group)
    }

    /// Removes the cgroups of benchmarks that are no longer running (a
    /// killed one's; its arena processes died with it).
    fn remove_stale(&self) {
        for parent in [self.cap.path(), self.accounting.path()] {
            let Ok(entries) = fs::read_dir(parent) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(owner) = name
                    .strip_prefix(PREFIX)
                    .and_then(|rest| rest.split('-').next())
                else {
                    continue;
                };
                if !Path::new("/proc").join(owner).exists() {
                    remove_cgroup(&entry.path());
                }
            }
        }
    }
}

/// One capped cgroup (one directory per hierarchy it spans).
#[derive(Debug)]
pub struct CappedGroup {
    /// The cap's directory first, then the accounting's when it is another.
    dirs: Vec<PathBuf>,
    unified: bool,
}

impl CappedGroup {
    /// Moves process `pid` (every thread of it) into the cgroup.
    pub fn add(&self, pid: u32) -> io::Result<()> {
        for dir in &self.dirs {
            fs::write(dir.join("cgroup.procs"), pid.to_string())?;
        }
        Ok(())
    }

    /// Holds its processes to `share` of one core from now on.
    pub fn cap(&self, share: f64) -> io::Result<()> {
        let quota = (share * PERIOD_US as f64).round() as u64;
        let dir = &self.dirs[0];
        if self.unified {
            return fs::write(dir.join("cpu.max"), format!("{quota} {PERIOD_US}"));
        }
        fs::write(dir.join("cpu.cfs_period_us"), PERIOD_US.to_string())?;
        fs::write(dir.join("cpu.cfs_quota_us"), quota.to_string())
    }

    /// The CPU time (µs) its processes used since it was made.
    pub fn cpu_us(&self) -> f64 {
        let usage_dir = self.dirs.last().expect("a cgroup has a directory");
        if self.unified {
            return keyed(&usage_dir.join("cpu.stat"), "usage_usec").unwrap_or(0.0);
        }
        let nanoseconds = fs::read_to_string(usage_dir.join("cpuacct.usage")).unwrap_or_default();
        nanoseconds.trim().parse::<f64>().unwrap_or(0.0) / 1_000.0
    }

    /// The CFS periods so far in which its processes ran, and those in
    /// which they used up their quota and waited (the cap at work).
    pub fn periods(&self) -> (f64, f64) {
        let stat = self.dirs[0].join("cpu.stat");
        (
            keyed(&stat, "nr_periods").unwrap_or(0.0),
            keyed(&stat, "nr_throttled").unwrap_or(0.0),
        )
    }
}

impl Drop for CappedGroup {
    fn drop(&mut self) {
        for dir in &self.dirs {
            remove_cgroup(dir);
        }
    }
}

/// Removes an empty cgroup; the kernel may still be detaching a process
/// reaped a moment ago (EBUSY), so it is tried again a few times.
fn remove_cgroup(dir: &Path) {
    for _ in 0..1_000 {
        match fs::remove_dir(dir) {
            Err(error) if error.raw_os_error() == Some(libc::EBUSY) => std::thread::yield_now(),
            Err(error) if error.kind() != io::ErrorKind::NotFound => {
                eprintln!("cannot remove the cgroup {}: {error}", dir.display());
                return;
            }
            _ => return,
        }
    }
    eprintln!("cannot remove the cgroup {}: still busy", dir.display());
}

/// The number after `key` in a `key value` per line file.
fn keyed(path: &Path, key: &str) -> Option<f64> {
    let text = fs::read_to_string(path).ok()?;
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(' ')?;
        (name == key).then(|| value.trim().parse().ok())?
    })
}
