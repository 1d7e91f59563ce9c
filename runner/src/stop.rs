//! A request, from another thread, that a match in play stop: a remote
//! runner whose lease has ended (its tournament cancelled, or the lease
//! lost) has no use for the rest of the match, and its bots hold a worker.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Shared by the match loop and whoever may stop it; clones share one flag.
#[derive(Debug, Clone, Default)]
pub struct MatchStop(Arc<AtomicBool>);

impl MatchStop {
    /// A stop nobody has asked for yet.
    pub fn new() -> MatchStop {
        MatchStop::default()
    }

    /// Asks the match loop to stop at its next check (at most
    /// [`crate::connection::CPU_CHECK_INTERVAL`] into a bot's decision).
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_requested_through_one_clone_is_seen_by_the_others() {
        let stop = MatchStop::new();
        let other = stop.clone();
        assert!(!other.requested());
        stop.request();
        assert!(other.requested());
    }
}
