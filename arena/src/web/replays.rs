//! The replay viewer's per-step JSON, built at most a few at a time and kept
//! for the most recently viewed games. A recorded game never changes, so a
//! kept answer stays right; the bound on builds keeps a flood of replay
//! requests from taking every CPU from the arena's own service.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

/// Answers kept, most recent last.
const KEPT: usize = 16;
/// Re-simulations running at once.
const BUILDS_AT_ONCE: usize = 2;

#[derive(Debug)]
pub(crate) struct ReplayCache {
    kept: Mutex<VecDeque<(i64, Arc<str>)>>,
    builds: Semaphore,
}

impl ReplayCache {
    pub(crate) fn new() -> ReplayCache {
        ReplayCache {
            kept: Mutex::new(VecDeque::with_capacity(KEPT)),
            builds: Semaphore::new(BUILDS_AT_ONCE),
        }
    }

    /// Game `game_id`'s answer: kept, or made by `build` off the request
    /// threads (an error when the build panicked).
    pub(crate) async fn get_or_build(
        &self,
        game_id: i64,
        build: impl FnOnce() -> String + Send + 'static,
    ) -> Result<Arc<str>, String> {
        if let Some(kept) = self.kept(game_id) {
            return Ok(kept);
        }
        let _permit = self.builds.acquire().await.map_err(|e| e.to_string())?;
        // Another request may have built it while this one waited.
        if let Some(kept) = self.kept(game_id) {
            return Ok(kept);
        }
        let built: Arc<str> = tokio::task::spawn_blocking(build)
            .await
            .map_err(|error| error.to_string())?
            .into();
        self.keep(game_id, Arc::clone(&built));
        Ok(built)
    }

    fn kept(&self, game_id: i64) -> Option<Arc<str>> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.iter()
            .find(|(id, _)| *id == game_id)
            .map(|(_, answer)| Arc::clone(answer))
    }

    fn keep(&self, game_id: i64, answer: Arc<str>) {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.retain(|(id, _)| *id != game_id);
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back((game_id, answer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_kept_answer_is_not_built_again_and_the_oldest_goes_first() {
        let cache = ReplayCache::new();
        for id in 0..KEPT as i64 {
            cache
                .get_or_build(id, move || format!("game {id}"))
                .await
                .unwrap();
        }
        let again = cache
            .get_or_build(3, || "built twice".to_string())
            .await
            .unwrap();
        assert_eq!(&*again, "game 3");
        cache.get_or_build(99, || "new".to_string()).await.unwrap();
        assert!(cache.kept(0).is_none(), "the oldest answer is dropped");
        assert!(cache.kept(1).is_some() && cache.kept(99).is_some());
        assert_eq!(cache.kept.lock().unwrap().len(), KEPT);
    }

    #[tokio::test]
    async fn a_build_that_panics_is_an_error_and_nothing_is_kept() {
        let cache = ReplayCache::new();
        let failed = cache.get_or_build(5, || panic!("a bad replay")).await;
        assert!(failed.is_err());
        assert!(cache.kept(5).is_none());
    }
}
