//! A whole state from one seat's observation: what it sees is copied, the
//! cards it has not seen are laid in the places it cannot see (other hands,
//! face-down followers it does not know, face-down recruits, the draw pile)
//! in any order, and then dealt again at random by the same redeal the
//! conformance test checks ([`super::observation::resample_hidden`]), which
//! keeps every card everyone knows to be in a seat's hand-or-face-down pool
//! in that seat's places and the draw pile within the cards it was made from.

use super::cards::{self, CardId};
use super::observation::{Observation, RecruitView};
use super::{LordsOfScotland, Phase, RecruitSlot, MAX_SEATS, NO_CARD, NO_PLACE};
use crate::cards::CardSet;
use crate::game::DeterminizeError;
use crate::rng::Rng;

fn fail<T>(why: &'static str) -> Result<T, DeterminizeError> {
    Err(DeterminizeError(why))
}

/// The cards of the deck seen so far, each at most once.
struct Seen {
    deck: CardSet,
    cards: CardSet,
}

impl Seen {
    fn claim(&mut self, set: CardSet) -> Result<(), DeterminizeError> {
        if set.minus(self.deck) != CardSet::EMPTY || set.0 & self.cards.0 != 0 {
            return fail("a card is seen twice or is not in the deck");
        }
        self.cards = self.cards.union(set);
        Ok(())
    }

    fn claim_one(&mut self, card: CardId) -> Result<(), DeterminizeError> {
        if (card as usize) >= cards::N_CARDS {
            return fail("no such card");
        }
        self.claim([card].into_iter().collect())
    }
}

fn check_shape(seen: &Observation) -> Result<usize, DeterminizeError> {
    let n_seats = seen.n_seats;
    let lists = [
        seen.hand_sizes.len(),
        seen.known_in_hand.len(),
        seen.known_in_pool.len(),
        seen.won.len(),
        seen.scores.len(),
        seen.armies.len(),
        seen.last_places.len(),
        seen.last_armies.len(),
        seen.last_strengths.len(),
    ];
    if !(2..=MAX_SEATS).contains(&n_seats)
        || seen.viewer >= n_seats
        || seen.initiative >= n_seats
        || seen.to_move.is_some_and(|seat| seat >= n_seats)
        || lists.iter().any(|&len| len != n_seats)
        || seen.recruits.len() != super::RECRUIT_SLOTS
    {
        return fail("seat counts or list lengths do not agree");
    }
    match seen.phase {
        Phase::Supporters { order, len, at, .. }
            if len as usize > n_seats
                || at >= len
                || order[..len as usize]
                    .iter()
                    .any(|&seat| seat as usize >= n_seats) =>
        {
            fail("a supporter order out of range")
        }
        Phase::Power { card, .. } if card as usize >= cards::N_CARDS => fail("no such card"),
        _ => Ok(n_seats),
    }
}

impl LordsOfScotland {
    pub(super) fn from_observation(
        seen: &Observation,
        rng: &mut Rng,
    ) -> Result<LordsOfScotland, DeterminizeError> {
        let n_seats = check_shape(seen)?;
        let viewer = seen.viewer;
        let mut state = LordsOfScotland::empty_table(n_seats, seen.bruce, rng.next_u64());
        let mut taken = Seen {
            deck: cards::deck(seen.bruce),
            cards: CardSet::EMPTY,
        };
        for set in [seen.hand, seen.discard, seen.supporters] {
            taken.claim(set)?;
        }
        // Cards known to be somewhere hidden hold a place, filled below.
        let mut open_places = 0usize;
        for seat in state.seats() {
            taken.claim(seen.won[seat])?;
            taken.claim(seen.armies[seat].face_up)?;
            let in_hand = if seat == viewer {
                seen.hand
            } else {
                taken.claim(seen.known_in_hand[seat])?;
                seen.known_in_hand[seat]
            };
            state.hands[seat] = in_hand;
            open_places += (seen.hand_sizes[seat] as usize)
                .checked_sub(in_hand.len() as usize)
                .ok_or(DeterminizeError("a hand smaller than its known cards"))?;
            for card in seen.armies[seat].face_down.iter().flatten() {
                taken.claim_one(*card)?;
            }
            open_places += seen.armies[seat]
                .face_down
                .iter()
                .filter(|c| c.is_none())
                .count();
        }
        for view in &seen.recruits {
            match *view {
                RecruitView::FaceUp(card) => taken.claim_one(card)?,
                RecruitView::FaceDown => open_places += 1,
                RecruitView::Empty => {}
            }
        }
        open_places += seen.draw_pile_len;
        let hidden = taken.deck.minus(taken.cards);
        if hidden.len() as usize != open_places {
            return fail("the unseen cards do not fill the hidden places");
        }
        let mut unseen = hidden.iter();
        let mut next_unseen = || unseen.next().unwrap_or(NO_CARD);
        for seat in state.seats().filter(|&seat| seat != viewer) {
            while state.hands[seat].len() < seen.hand_sizes[seat] {
                state.hands[seat].insert(next_unseen());
            }
        }
        let everyone = ((1u16 << n_seats) - 1) as u8;
        let revealed = matches!(seen.phase, Phase::Supporters { .. } | Phase::Over(_));
        for seat in state.seats() {
            state.armies[seat].face_up = seen.armies[seat].face_up;
            for view in &seen.armies[seat].face_down {
                let (card, known_by) = match *view {
                    Some(card) if revealed => (card, everyone),
                    Some(card) => (card, 1 << seat | 1 << viewer),
                    None => (next_unseen(), 1 << seat),
                };
                state.armies[seat].face_down.push(card);
                state.face_down_known_by[card as usize] = known_by;
            }
        }
        for (slot, view) in state.recruits.iter_mut().zip(&seen.recruits) {
            *slot = match *view {
                RecruitView::Empty => RecruitSlot::EMPTY,
                RecruitView::FaceDown => RecruitSlot {
                    card: next_unseen(),
                    face_up: false,
                },
                RecruitView::FaceUp(card) => RecruitSlot {
                    card,
                    face_up: true,
                },
            };
        }
        state.draw_pile = (0..seen.draw_pile_len).map(|_| next_unseen()).collect();
        state.copy_public(seen);
        Ok(super::observation::resample_hidden(&state, viewer, rng))
    }

    /// Everything of `seen` that is the same for every seat.
    fn copy_public(&mut self, seen: &Observation) {
        let n_seats = seen.n_seats;
        for seat in 0..n_seats {
            self.known_in_hand[seat] = seen.known_in_hand[seat];
            self.known_in_pool[seat] = seen.known_in_pool[seat];
            self.won[seat] = seen.won[seat];
            self.scores[seat] = seen.scores[seat];
            self.last_places[seat] = seen.last_places[seat].unwrap_or(NO_PLACE);
            self.last_skirmish.armies[seat] = seen.last_armies[seat];
            self.last_skirmish.strengths[seat] = seen.last_strengths[seat];
        }
        self.draw_pile_made_from = seen.draw_pile_made_from;
        self.discard = seen.discard;
        self.supporters = seen.supporters;
        self.takes_two = seen.takes_two;
        self.stays = seen.stays;
        self.any_clan = seen.any_clan;
        self.kept = seen.kept;
        self.initiative = seen.initiative as u8;
        self.turn_round = seen.turn_round;
        self.skirmish = seen.skirmish;
        self.phase = seen.phase;
        // The seat to move during the turns is the initiative holder's
        // `turn_offset`-th neighbour; in the supporters phase the offset is 0.
        self.turn_offset = match (seen.phase, seen.to_move) {
            (Phase::Turn | Phase::Power { .. }, Some(to_move)) => {
                ((to_move + n_seats - seen.initiative) % n_seats) as u8
            }
            _ => 0,
        };
    }
}
