//! Keeping a match on one CPU. A decision is a ping-pong between the match
//! loop and one bot; when the two sit on different CPUs every message wakes
//! an idle CPU, which on a virtual machine costs tens of microseconds
//! (figures in docs/performance.md, "A match on one CPU").
//! Bots inherit the CPU set of the thread that starts them, so pinning the
//! match loop's thread pins the whole match; parallel matches go on
//! different CPUs.

use nix::sched::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// The calling thread pinned to one CPU; dropping it restores the CPU set
/// the thread had before.
#[derive(Debug)]
pub struct PinnedThread {
    previous: CpuSet,
}

/// Pins the calling thread (and so every process it starts from now on) to `cpu`.
pub fn pin_current_thread(cpu: usize) -> std::io::Result<PinnedThread> {
    let this_thread = Pid::from_raw(0);
    let previous = sched_getaffinity(this_thread)?;
    let mut only = CpuSet::new();
    only.set(cpu)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no such cpu"))?;
    sched_setaffinity(this_thread, &only)?;
    Ok(PinnedThread { previous })
}

impl Drop for PinnedThread {
    fn drop(&mut self) {
        // Restoring a set the kernel gave us cannot fail in a way we could act on.
        let _ = sched_setaffinity(Pid::from_raw(0), &self.previous);
    }
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> Option<usize> {
    sched_getcpu().ok()
}

/// The CPUs the calling thread may run on, in order (empty if unknown).
pub fn allowed_cpus() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_runs_on_its_cpu_and_gets_its_old_set_back() {
        let cpu = current_cpu().unwrap();
        let allowed_before = std::thread::available_parallelism().unwrap();
        {
            let _pin = pin_current_thread(cpu).unwrap();
            assert_eq!(current_cpu(), Some(cpu));
            assert_eq!(std::thread::available_parallelism().unwrap().get(), 1);
        }
        assert_eq!(
            std::thread::available_parallelism().unwrap(),
            allowed_before
        );
        assert!(pin_current_thread(usize::MAX).is_err());
    }

    #[test]
    fn the_allowed_cpus_are_as_many_as_the_available_parallelism() {
        let allowed = allowed_cpus();
        assert_eq!(
            allowed.len(),
            std::thread::available_parallelism().unwrap().get()
        );
        assert!(allowed.contains(&current_cpu().unwrap()));
    }
}
