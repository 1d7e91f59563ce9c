//! What the artifact cache holds, by content hash: each built bot's size on
//! disk, when a match last used it and how many matches use it now. The
//! cache stays under its cap by dropping the least recently used bots that
//! no match is using; a bot in use is never chosen, so the cache may stay
//! over its cap while every bot in it is playing.

use std::collections::HashMap;

/// One cached bot version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    bytes: u64,
    /// The index's clock when a match last took it (larger is more recent).
    last_used: u64,
    /// Matches holding it now.
    in_use: usize,
}

/// The cache's bookkeeping; the folders themselves are the caller's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheIndex {
    cap_bytes: u64,
    entries: HashMap<String, Entry>,
    clock: u64,
}

impl CacheIndex {
    pub fn new(cap_bytes: u64) -> CacheIndex {
        CacheIndex {
            cap_bytes,
            entries: HashMap::new(),
            clock: 0,
        }
    }

    pub fn cap_bytes(&self) -> u64 {
        self.cap_bytes
    }

    /// The bytes of every bot the index knows.
    pub fn total_bytes(&self) -> u64 {
        self.entries.values().map(|entry| entry.bytes).sum()
    }

    pub fn contains(&self, hash: &str) -> bool {
        self.entries.contains_key(hash)
    }

    /// Records a bot in the cache (built, or found there at the runner's
    /// start or made by another runner sharing the folder) as the most
    /// recently used. Nothing holds it yet.
    pub fn insert(&mut self, hash: &str, bytes: u64) {
        let last_used = self.tick();
        self.entries
            .entry(hash.to_string())
            .and_modify(|entry| entry.bytes = bytes)
            .or_insert(Entry {
                bytes,
                last_used,
                in_use: 0,
            });
    }

    /// A match takes `hash`: it is the most recently used bot and cannot
    /// be evicted until [`CacheIndex::release`]. False when unknown.
    pub fn take(&mut self, hash: &str) -> bool {
        let now = self.tick();
        match self.entries.get_mut(hash) {
            Some(entry) => {
                entry.last_used = now;
                entry.in_use += 1;
                true
            }
            None => false,
        }
    }

    /// A match is done with `hash`.
    pub fn release(&mut self, hash: &str) {
        if let Some(entry) = self.entries.get_mut(hash) {
            entry.in_use = entry.in_use.saturating_sub(1);
        }
    }

    /// Forgets `hash` (its folder is gone).
    pub fn forget(&mut self, hash: &str) {
        self.entries.remove(hash);
    }

    /// The bots to delete so the cache fits its cap with `room` more
    /// bytes, least recently used first, none in use; they are forgotten.
    pub fn evict_for(&mut self, room: u64) -> Vec<String> {
        let mut idle: Vec<(u64, String)> = self
            .entries
            .iter()
            .filter(|(_, entry)| entry.in_use == 0)
            .map(|(hash, entry)| (entry.last_used, hash.clone()))
            .collect();
        idle.sort();
        let mut total = self.total_bytes();
        let mut evicted = Vec::new();
        for (_, hash) in idle {
            if total.saturating_add(room) <= self.cap_bytes {
                break;
            }
            if let Some(entry) = self.entries.remove(&hash) {
                total -= entry.bytes;
                evicted.push(hash);
            }
        }
        evicted
    }

    /// Every bot no match is using, least recently used first; forgotten.
    pub fn evict_all_idle(&mut self) -> Vec<String> {
        let cap = std::mem::replace(&mut self.cap_bytes, 0);
        let evicted = self.evict_for(0);
        self.cap_bytes = cap;
        evicted
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index_of(cap: u64, bots: &[(&str, u64)]) -> CacheIndex {
        let mut index = CacheIndex::new(cap);
        for (hash, bytes) in bots {
            index.insert(hash, *bytes);
        }
        index
    }

    #[test]
    fn a_cache_under_its_cap_evicts_nothing() {
        let mut index = index_of(100, &[("a", 40), ("b", 50)]);
        assert!(index.evict_for(0).is_empty());
        assert!(index.evict_for(10).is_empty());
        assert_eq!(index.total_bytes(), 90);
    }

    #[test]
    fn the_least_recently_used_bots_go_first_until_the_cache_fits() {
        let mut index = index_of(100, &[("a", 40), ("b", 40), ("c", 40)]);
        // `a` is used again (and let go): `b` is now the oldest.
        assert!(index.take("a"));
        index.release("a");
        assert_eq!(index.evict_for(0), ["b"]);
        assert_eq!(index.total_bytes(), 80);
        assert_eq!(index.evict_for(30), ["c"]);
        assert!(index.contains("a"));
        assert!(!index.contains("b"));
    }

    #[test]
    fn a_bot_in_use_is_never_evicted_even_over_the_cap() {
        let mut index = index_of(50, &[("a", 40), ("b", 40)]);
        assert!(index.take("a"));
        assert!(index.take("b"));
        assert!(index.evict_for(0).is_empty());
        assert!(index.evict_all_idle().is_empty());
        index.release("b");
        assert_eq!(index.evict_for(0), ["b"]);
        // Two matches held `a`: one letting go leaves it held.
        assert!(index.take("a"));
        index.release("a");
        assert!(index.evict_all_idle().is_empty());
        index.release("a");
        assert_eq!(index.evict_all_idle(), ["a"]);
    }

    #[test]
    fn an_unknown_bot_cannot_be_taken_and_a_forgotten_one_frees_its_bytes() {
        let mut index = index_of(100, &[("a", 60)]);
        assert!(!index.take("b"));
        index.forget("a");
        assert_eq!(index.total_bytes(), 0);
        assert!(!index.take("a"));
    }

    #[test]
    fn evicting_everything_idle_keeps_the_cap() {
        let mut index = index_of(100, &[("a", 10), ("b", 10)]);
        assert_eq!(index.evict_all_idle().len(), 2);
        assert_eq!(index.cap_bytes(), 100);
        assert_eq!(index.total_bytes(), 0);
    }
}
