//! The state hash, written by hand: the derived one feeds every `u128` card
//! set and the 98-byte knowledge table to the stable hasher a byte at a
//! time, which made hashing the bulk of the conformance test's time. Every
//! field is hashed, so equal states hash equal and the replay hash chain
//! still covers the whole state.

use std::hash::{Hash, Hasher};

use super::{Army, LordsOfScotland};
use crate::cards::CardSet;

fn write_set<H: Hasher>(state: &mut H, set: CardSet) {
    state.write_u64(set.0 as u64);
    state.write_u64((set.0 >> 64) as u64);
}

/// Packs bytes eight to a word, with the length first so that different
/// lengths never collide.
fn write_bytes<H: Hasher>(state: &mut H, bytes: &[u8]) {
    state.write_usize(bytes.len());
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        state.write_u64(u64::from_le_bytes(word));
    }
}

fn write_army<H: Hasher>(state: &mut H, army: &Army) {
    write_set(state, army.face_up);
    write_bytes(state, &army.face_down);
}

impl Hash for LordsOfScotland {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from_le_bytes([
            self.n_seats,
            self.bruce as u8,
            self.initiative,
            self.turn_round,
            self.turn_offset,
            0,
            0,
            0,
        ]));
        state.write_u16(self.skirmish);
        self.rng.hash(state);
        self.phase.hash(state);
        write_bytes(state, &self.draw_pile);
        for set in [
            self.draw_pile_made_from,
            self.discard,
            self.supporters,
            self.takes_two,
            self.stays,
            self.any_clan,
            self.kept,
        ] {
            write_set(state, set);
        }
        for seat in 0..self.hands.len() {
            for set in [
                self.hands[seat],
                self.known_in_hand[seat],
                self.known_in_pool[seat],
                self.won[seat],
            ] {
                write_set(state, set);
            }
            write_army(state, &self.armies[seat]);
        }
        for score in self.scores {
            state.write_u16(score);
        }
        write_bytes(state, &self.last_places);
        write_bytes(state, &self.recruits.map(|slot| slot.card));
        write_bytes(state, &self.recruits.map(|slot| slot.face_up as u8));
        write_bytes(state, &self.face_down_known_by);
        for seat in 0..self.hands.len() {
            write_set(state, self.last_skirmish.armies[seat]);
            state.write_u16(self.last_skirmish.strengths[seat]);
        }
        state.write_u8(self.just_revealed as u8);
    }
}
