//! A state hash that does not depend on process-random keys, so a replay's
//! hash chain recorded by one run verifies in another run of the same build.

use std::hash::{Hash, Hasher};

/// FNV-1a over 64-bit words with a final avalanche; deterministic and keyless.
#[derive(Debug, Clone)]
pub struct StableHasher {
    state: u64,
}

const OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01B3;

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher { state: OFFSET }
    }
}

impl Hasher for StableHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.state = (self.state ^ b as u64).wrapping_mul(PRIME);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.state = (self.state ^ n).wrapping_mul(PRIME).rotate_left(29);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64)
    }

    fn write_u16(&mut self, n: u16) {
        self.write_u64(n as u64)
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64)
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64)
    }

    fn write_i32(&mut self, n: i32) {
        self.write_u64(n as u32 as u64)
    }

    fn write_isize(&mut self, n: isize) {
        self.write_u64(n as u64)
    }

    fn finish(&self) -> u64 {
        let mut z = self.state;
        z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        z ^ (z >> 33)
    }
}

/// The stable hash of any hashable value.
pub fn stable_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = StableHasher::default();
    value.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_hash_equal_and_different_values_differ() {
        assert_eq!(stable_hash(&(1u8, "a")), stable_hash(&(1u8, "a")));
        assert_ne!(stable_hash(&(1u8, "a")), stable_hash(&(2u8, "a")));
        assert_ne!(stable_hash(&[1u8, 2]), stable_hash(&[2u8, 1]));
    }
}
