//! A whole state from one seat's observation: the table, supplies, score
//! piles and turn are public and copied; each color's unseen cards (its deck
//! as dealt, less the cards of its color on the table, in score piles and,
//! for the viewer, in hand) are dealt at random into its hand and deck,
//! keeping their sizes; Isaac's future dice are drawn afresh.

use super::cards::{self, MAX_DECK, N_PAD_KINDS};
use super::{Bullfrogs, Hidden, Observation};
use crate::game::DeterminizeError;
use crate::rng::Rng;

/// Each kind's count in `color`'s deck as dealt.
fn dealt(n_seats: u8) -> [u8; N_PAD_KINDS] {
    let mut counts = [0; N_PAD_KINDS];
    for (count, data) in counts.iter_mut().zip(cards::PAD_KINDS.iter()) {
        *count = if n_seats == 4 {
            data.per_deck_four_players
        } else {
            data.per_deck
        };
    }
    counts
}

/// The cards of `color` nobody has seen leave its hand and deck.
fn unseen_of(seen: &Observation, color: usize) -> Result<Vec<u8>, DeterminizeError> {
    let mut counts = dealt(seen.public.n_seats);
    let mut remove = |kind: usize, n: u8| {
        let left = counts.get_mut(kind).and_then(|count| count.checked_sub(n));
        match left {
            Some(left) => {
                counts[kind] = left;
                Ok(())
            }
            None => Err(DeterminizeError("more cards of a kind than were dealt")),
        }
    };
    for slot in seen.public.table.slots() {
        if slot.owner as usize == color {
            remove(slot.kind as usize, 1)?;
        }
    }
    for by_winner in &seen.public.won {
        for (kind, &n) in by_winner[color].iter().enumerate() {
            remove(kind, n)?;
        }
    }
    for (kind, &n) in seen.public.sunk_unwon[color].iter().enumerate() {
        remove(kind, n)?;
    }
    if color == seen.seat {
        for (kind, &n) in seen.hand.iter().enumerate() {
            remove(kind, n)?;
        }
    }
    let mut pool = Vec::with_capacity(MAX_DECK);
    for (kind, &n) in counts.iter().enumerate() {
        pool.extend(std::iter::repeat_n(kind as u8, n as usize));
    }
    Ok(pool)
}

impl Bullfrogs {
    pub(super) fn from_observation(
        seen: &Observation,
        rng: &mut Rng,
    ) -> Result<Bullfrogs, DeterminizeError> {
        let n_card_colors = seen.public.n_seats as usize;
        if !(1..=4).contains(&n_card_colors) || seen.seat >= n_card_colors {
            return Err(DeterminizeError("a seat out of range"));
        }
        let mut hidden = Hidden {
            hands: [[0; N_PAD_KINDS]; 4],
            decks: [[0; MAX_DECK]; 4],
            deck_len: [0; 4],
            dice: Rng::seeded(rng.next_u64()),
        };
        for color in 0..n_card_colors {
            let mut pool = unseen_of(seen, color)?;
            rng.shuffle(&mut pool);
            let in_hand = if color == seen.seat {
                hidden.hands[color] = seen.hand;
                0
            } else {
                seen.hand_sizes[color] as usize
            };
            let deck_len = seen.deck_sizes[color] as usize;
            if pool.len() != in_hand + deck_len || deck_len > MAX_DECK {
                return Err(DeterminizeError(
                    "the unseen cards do not fill the hand and deck",
                ));
            }
            for &kind in &pool[..in_hand] {
                hidden.hands[color][kind as usize] += 1;
            }
            hidden.decks[color][..deck_len].copy_from_slice(&pool[in_hand..]);
            hidden.deck_len[color] = deck_len as u8;
        }
        Ok(Bullfrogs {
            public: seen.public.clone(),
            hidden,
            known_slides: super::slide::KnownSlides::UNKNOWN,
            line_slots: super::turn::LineSlots::UNKNOWN,
        })
    }
}
