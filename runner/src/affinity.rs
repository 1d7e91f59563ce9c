//! Keeping a match on one CPU. A decision is a ping-pong between the match
//! loop and one bot; when the two sit on different CPUs every message wakes
//! an idle CPU, which on a virtual machine costs tens of microseconds (the
//! benchmark measured 45 us a round trip across CPUs against 5 us on one).
//! Bots inherit the CPU set of the thread that starts them, so pinning the
//! match loop's thread pins the whole match; parallel matches go on
//! different CPUs.

/// The calling thread pinned to one CPU; dropping it restores the CPU set
/// the thread had before.
pub struct PinnedThread {
    previous: Box<libc::cpu_set_t>,
}

impl std::fmt::Debug for PinnedThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PinnedThread")
    }
}

/// Pins the calling thread (and so every process it starts from now on) to `cpu`.
pub fn pin_current_thread(cpu: usize) -> std::io::Result<PinnedThread> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut previous: Box<libc::cpu_set_t> = Box::new(unsafe { std::mem::zeroed() });
    // SAFETY: the kernel writes at most `size` bytes into `previous`.
    if unsafe { libc::sched_getaffinity(0, size, &mut *previous) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no such cpu",
        ));
    }
    // SAFETY: as above; CPU_SET writes inside the set for cpu < CPU_SETSIZE.
    let mut only: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut only) };
    // SAFETY: reads `size` bytes from a valid set.
    if unsafe { libc::sched_setaffinity(0, size, &only) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(PinnedThread { previous })
}

impl Drop for PinnedThread {
    fn drop(&mut self) {
        // SAFETY: restores the set read in `pin_current_thread`.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &*self.previous);
        }
    }
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: no arguments, no memory.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).ok()
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
}
