//! The deal a runner plays is not the seed the plan lists: it is a keyed
//! hash of it, under a secret only the arena's database holds.
//!
//! # Ruling (issue 9: nothing a bot author submits can hurt the results)
//! Planned seeds are public: an owner chooses a tournament's seed
//! (`CreateTournamentRequest.seed`, shown by `tournament show`), the planner
//! ([`crate::plan`], [`crate::format`]) turns it into every game's seed
//! deterministically, and `ListMatches` lists them to anyone before the
//! games are played. Were the engine dealt from them, an owner could enter
//! a bot carrying a table from seed to deal: its own hand would name the
//! deal, and with it every hidden card and the deck order. So a runner
//! deals game `g` of tournament `t` from [`DealSecret::deal_seed`]: the
//! first eight bytes of HMAC-SHA-256 under the database's 32 random bytes,
//! over the tournament id and the planned seed. The tournament id is in the
//! hash because a finished game's replay shows its deal (the game is over,
//! and its actions show much of the deal anyway): a second tournament with
//! the same seed and the same entries plans the same seeds, and must not
//! replay deals the first one published.
//!
//! What stays public: the tournament's seed and every planned seed (the
//! plan is reproducible, and the planned seed still names the deal: every
//! rotation of a table plays the same deals, and fits pair games by it);
//! a finished game's replay, with its deal seed. What does not: the secret
//! (made once per database by [`crate::store`], stored there, in no RPC, no
//! log and no `Debug` output) and the deal seed of a game not yet reported
//! (only the runner that leased its match is told, in the lease). The
//! arena re-referees every report on the deal seed ([`crate::verify`]), so
//! a runner that played the listed seed instead is refused.
//!
//! `cairn demo` plays only bundled bots and must play the same games on
//! every run: it uses [`DealSecret::DEMO`], a fixed secret written here.

use sha2::{Digest, Sha256};

/// The secret's length in bytes.
pub const DEAL_SECRET_BYTES: usize = 32;

/// What the hash is over before the tournament and the seed, so the same
/// secret keyed for anything else never gives the same numbers.
const DOMAIN: &[u8] = b"cairn deal seed v1";

/// The database's deal secret. Its `Debug` shows nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct DealSecret([u8; DEAL_SECRET_BYTES]);

impl DealSecret {
    /// The fixed secret of `cairn demo` (the ASCII text below), so the demo
    /// plays the same deals on every run. Never for an arena that takes
    /// bots from others: anyone can read it here.
    pub const DEMO: DealSecret = DealSecret(*b"cairn demo: bundled bots only. 1");

    pub const fn from_bytes(bytes: [u8; DEAL_SECRET_BYTES]) -> DealSecret {
        DealSecret(bytes)
    }

    /// A fresh secret from the operating system's randomness.
    pub fn random() -> Result<DealSecret, getrandom::Error> {
        let mut bytes = [0_u8; DEAL_SECRET_BYTES];
        getrandom::fill(&mut bytes)?;
        Ok(DealSecret(bytes))
    }

    /// The secret as the database stores it (lowercase hex). Only the
    /// store writes it; nothing else should ever print it.
    pub(crate) fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Reads the stored form back; `None` unless it is 64 hex digits.
    pub fn from_hex(text: &str) -> Option<DealSecret> {
        let bytes = hex::decode(text).ok()?;
        Some(DealSecret(bytes.try_into().ok()?))
    }

    /// The seed game `planned_seed` of tournament `tournament_id` is dealt
    /// from.
    pub fn deal_seed(&self, tournament_id: i64, planned_seed: u64) -> u64 {
        let mut message = [0_u8; DOMAIN.len() + 16];
        let (domain, rest) = message.split_at_mut(DOMAIN.len());
        domain.copy_from_slice(DOMAIN);
        rest[..8].copy_from_slice(&tournament_id.to_le_bytes());
        rest[8..].copy_from_slice(&planned_seed.to_le_bytes());
        let mac = hmac_sha256(&self.0, &message);
        let mut first = [0_u8; 8];
        first.copy_from_slice(&mac[..8]);
        u64::from_le_bytes(first)
    }
}

impl std::fmt::Debug for DealSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DealSecret(..)")
    }
}

/// SHA-256's block length: HMAC pads its key to it.
const BLOCK: usize = 64;

/// HMAC-SHA-256 (RFC 2104) of `message` under `key` (at most one block,
/// as every key here is). sha2 is already the arena's hash; the `hmac`
/// crate in the lock file is built on another sha2 major version.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    debug_assert!(key.len() <= BLOCK, "a key of one block at most");
    let mut padded = [0_u8; BLOCK];
    padded[..key.len()].copy_from_slice(key);
    let inner = Sha256::new()
        .chain_update(padded.map(|byte| byte ^ 0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(padded.map(|byte| byte ^ 0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    // HMAC-SHA-256 by another implementation (Python's hmac) gives the same.
    const PINNED_DEMO_DEAL: u64 = 4_069_981_964_778_250_199;

    #[test]
    fn the_mac_is_rfc_4231_hmac_sha_256() {
        // RFC 4231, test cases 1 and 2.
        let case_1 = hmac_sha256(&[0x0b; 20], b"Hi There");
        assert_eq!(
            hex::encode(case_1),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        let case_2 = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(
            hex::encode(case_2),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn one_secret_deals_a_planned_seed_the_same_way_every_time() {
        let secret = DealSecret::from_bytes([7; DEAL_SECRET_BYTES]);
        let again = DealSecret::from_hex(&secret.to_hex()).expect("its own hex reads back");
        for seed in [0, 1, 42, u64::MAX] {
            assert_eq!(secret.deal_seed(3, seed), again.deal_seed(3, seed));
        }
    }

    #[test]
    fn two_secrets_deal_the_same_planned_seed_differently() {
        let first = DealSecret::from_bytes([1; DEAL_SECRET_BYTES]);
        let second = DealSecret::from_bytes([2; DEAL_SECRET_BYTES]);
        for seed in [0, 1, 42, u64::MAX] {
            assert_ne!(first.deal_seed(1, seed), second.deal_seed(1, seed));
            assert_ne!(first.deal_seed(1, seed), seed, "not the listed seed");
        }
    }

    #[test]
    fn the_demo_deals_are_pinned() {
        // The demo plays these deals on every run and every build: a change
        // to the derivation must be deliberate.
        assert_eq!(DealSecret::DEMO.deal_seed(1, 1), PINNED_DEMO_DEAL);
    }

    #[test]
    fn another_tournament_with_the_same_seed_plays_other_deals() {
        let secret = DealSecret::DEMO;
        assert_ne!(secret.deal_seed(1, 99), secret.deal_seed(2, 99));
        assert_ne!(secret.deal_seed(1, 99), secret.deal_seed(1, 100));
    }

    #[test]
    fn a_secret_shows_nothing_of_itself_when_debugged() {
        let secret = DealSecret::from_bytes([0xab; DEAL_SECRET_BYTES]);
        let shown = format!("{secret:?} {:?}", Some(&secret));
        assert!(!shown.contains("ab") && !shown.contains("171"), "{shown}");
    }

    #[test]
    fn only_64_hex_digits_read_as_a_secret() {
        assert!(DealSecret::from_hex(&"00".repeat(31)).is_none());
        assert!(DealSecret::from_hex(&"zz".repeat(32)).is_none());
        assert!(DealSecret::from_hex(&"0f".repeat(32)).is_some());
    }
}
