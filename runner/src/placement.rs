//! Where threads run and at what priority: the one home of CPU placement
//! (affinity) and niceness for every thread cairn places, as safe calls
//! (rustix). Which thread goes where is the caller's policy: the runner
//! keeps a match on one CPU ([`pin_current_thread`]); `cairn serve` and the
//! arena bench keep the arena's writes on a core of their own and run its
//! public calls lower ([`split_off`], [`move_current_thread`],
//! [`set_thread_nice`]), as `cairn_arena::service::{write_core, API_NICE}`
//! say.
//!
//! Keeping a match on one CPU: a decision is a ping-pong between the match
//! loop and one bot; when the two sit on different CPUs every message wakes
//! an idle CPU, which on a virtual machine costs tens of microseconds
//! (figures in docs/performance.md, "A match on one CPU").
//! Bots inherit the CPU set of the thread that starts them, so pinning the
//! match loop's thread pins the whole match; parallel matches go on
//! different CPUs.

use std::io;

pub use rustix::thread::CpuSet;

/// The calling thread pinned to one CPU; dropping it restores the CPU set
/// the thread had before.
#[derive(Debug)]
pub struct PinnedThread {
    previous: CpuSet,
}

/// Pins the calling thread (and so every process it starts from now on) to `cpu`.
pub fn pin_current_thread(cpu: usize) -> io::Result<PinnedThread> {
    let previous = allowed_set()?;
    move_current_thread(&only(cpu)?)?;
    Ok(PinnedThread { previous })
}

impl Drop for PinnedThread {
    fn drop(&mut self) {
        // Restoring a set the kernel gave us cannot fail in a way we could act on.
        let _ = move_current_thread(&self.previous);
    }
}

/// The set holding `cpu` alone.
fn only(cpu: usize) -> io::Result<CpuSet> {
    if cpu >= CpuSet::MAX_CPU {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no such cpu"));
    }
    let mut set = CpuSet::new();
    set.set(cpu);
    Ok(set)
}

/// Keeps the calling thread (and what it starts from now on) on `cpus`.
pub fn move_current_thread(cpus: &CpuSet) -> io::Result<()> {
    Ok(rustix::thread::sched_setaffinity(None, cpus)?)
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> Option<usize> {
    Some(rustix::thread::sched_getcpu())
}

/// The set of CPUs the calling thread may run on.
pub fn allowed_set() -> io::Result<CpuSet> {
    Ok(rustix::thread::sched_getaffinity(None)?)
}

/// The CPUs in `set`, in order.
pub fn cpus_in(set: &CpuSet) -> Vec<usize> {
    (0..CpuSet::MAX_CPU)
        .filter(|&cpu| set.is_set(cpu))
        .collect()
}

/// The CPUs the calling thread may run on, in order (empty if unknown).
pub fn allowed_cpus() -> Vec<usize> {
    allowed_set().map(|set| cpus_in(&set)).unwrap_or_default()
}

/// `cpu` alone, and the rest of `allowed` (`cpu` too when nothing else is
/// left, so that both sets can be run on).
pub fn split_off(allowed: &CpuSet, cpu: usize) -> io::Result<(CpuSet, CpuSet)> {
    let alone = only(cpu)?;
    let mut rest = *allowed;
    rest.unset(cpu);
    if rest.count() == 0 {
        rest = alone;
    }
    Ok((alone, rest))
}

/// The calling thread's niceness.
pub fn thread_nice() -> io::Result<i32> {
    Ok(rustix::process::getpriority_process(None)?)
}

/// The niceness `by` lower than the calling thread's (at most 19); `None`
/// for the same, or when the thread's own cannot be read.
pub fn lowered_nice(by: u8) -> Option<i32> {
    let nice = thread_nice().ok()?;
    (by > 0).then(|| (nice + i32::from(by)).min(19))
}

/// Runs the calling thread at niceness `nice` (sets, not adds: a thread
/// may start from one already lowered).
pub fn set_thread_nice(nice: i32) -> io::Result<()> {
    let me = Some(rustix::thread::gettid());
    Ok(rustix::process::setpriority_process(me, nice)?)
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

    #[test]
    fn a_cpu_split_off_is_alone_and_the_rest_keeps_the_others() {
        let mut allowed = CpuSet::new();
        for cpu in [0, 2, 5] {
            allowed.set(cpu);
        }
        let (alone, rest) = split_off(&allowed, 5).unwrap();
        assert_eq!(cpus_in(&alone), [5]);
        assert_eq!(cpus_in(&rest), [0, 2]);
        let mut one = CpuSet::new();
        one.set(3);
        let (alone, rest) = split_off(&one, 3).unwrap();
        assert_eq!((cpus_in(&alone), cpus_in(&rest)), (vec![3], vec![3]));
        assert!(split_off(&allowed, CpuSet::MAX_CPU).is_err());
    }

    /// On its own thread: the test lowers the thread it runs on.
    #[test]
    fn a_thread_lowered_runs_at_the_niceness_set_and_others_keep_theirs() {
        let before = thread_nice().unwrap();
        assert_eq!(lowered_nice(0), None);
        let lowered = lowered_nice(3).unwrap();
        assert_eq!(lowered, (before + 3).min(19));
        std::thread::spawn(move || {
            set_thread_nice(lowered).unwrap();
            assert_eq!(thread_nice().unwrap(), lowered);
            assert_eq!(lowered_nice(30), Some(19));
        })
        .join()
        .unwrap();
        assert_eq!(thread_nice().unwrap(), before);
    }
}
