//! What one seat sees, and states it cannot tell apart from the real one.
//!
//! Public: every face-up card, supporters, the discard pile, marks of active
//! powers, hand sizes, the places of face-down followers and recruits, the
//! draw pile's size, and which cards everyone knows to be in a hand (taken
//! from a face-up recruit) or in a hand-or-face-down pool. Private: a seat's
//! own hand, and the face-down followers it played or took. Hidden from
//! everyone: face-down recruits and the draw pile's order.

use super::cards::CardId;
use super::{LordsOfScotland, Phase, RecruitSlot, NO_CARD, NO_PLACE};
use crate::cards::CardSet;
use crate::game::Seat;
use crate::rng::Rng;

/// One recruit slot as everyone sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecruitView {
    Empty,
    FaceDown,
    FaceUp(CardId),
}

/// One army as the viewer sees it; face-down followers the viewer knows are shown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArmyView {
    pub face_up: CardSet,
    pub face_down: Vec<Option<CardId>>,
}

/// Everything one seat may know of a game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    pub viewer: Seat,
    pub n_seats: usize,
    pub bruce: bool,
    pub phase: Phase,
    pub to_move: Option<Seat>,
    pub initiative: Seat,
    pub turn_round: u8,
    pub skirmish: u16,
    pub hand: CardSet,
    pub hand_sizes: Vec<u32>,
    pub known_in_hand: Vec<CardSet>,
    pub known_in_pool: Vec<CardSet>,
    pub recruits: Vec<RecruitView>,
    pub draw_pile_len: usize,
    /// The cards the draw pile was made from (the discard pile at the last reshuffle).
    pub draw_pile_made_from: CardSet,
    pub discard: CardSet,
    pub supporters: CardSet,
    pub won: Vec<CardSet>,
    pub scores: Vec<u16>,
    pub armies: Vec<ArmyView>,
    pub takes_two: CardSet,
    pub stays: CardSet,
    pub any_clan: CardSet,
    pub kept: CardSet,
    /// Each seat's place in the last skirmish (0 = winner), `None` without followers.
    pub last_places: Vec<Option<u8>>,
    /// Each seat's army in the last skirmish, every follower face up, as
    /// revealed at its end (empty before the first skirmish ends).
    pub last_armies: Vec<CardSet>,
    /// Each army's strength in the last skirmish (doubling included).
    pub last_strengths: Vec<u16>,
}

fn recruit_view(slot: RecruitSlot) -> RecruitView {
    match slot.card() {
        None => RecruitView::Empty,
        Some(card) if slot.face_up => RecruitView::FaceUp(card),
        Some(_) => RecruitView::FaceDown,
    }
}

impl Observation {
    pub(super) fn of(state: &LordsOfScotland, viewer: Seat) -> Observation {
        let seats = state.seats();
        let army_view = |seat: usize| ArmyView {
            face_up: state.armies[seat].face_up,
            face_down: state.armies[seat]
                .face_down
                .iter()
                .map(|&card| {
                    (state.face_down_known_by[card as usize] >> viewer & 1 == 1).then_some(card)
                })
                .collect(),
        };
        Observation {
            viewer,
            n_seats: state.n_seats as usize,
            bruce: state.bruce,
            phase: state.phase,
            to_move: crate::game::Game::current_seat(state),
            initiative: state.initiative as usize,
            turn_round: state.turn_round,
            skirmish: state.skirmish,
            hand: state.hands[viewer],
            hand_sizes: seats.clone().map(|seat| state.hands[seat].len()).collect(),
            known_in_hand: state.known_in_hand[seats.clone()].to_vec(),
            known_in_pool: state.known_in_pool[seats.clone()].to_vec(),
            recruits: state
                .recruits
                .iter()
                .map(|&slot| recruit_view(slot))
                .collect(),
            draw_pile_len: state.draw_pile.len(),
            draw_pile_made_from: state.draw_pile_made_from,
            discard: state.discard,
            supporters: state.supporters,
            won: state.won[seats.clone()].to_vec(),
            scores: state.scores[seats.clone()].to_vec(),
            armies: seats.clone().map(army_view).collect(),
            takes_two: state.takes_two,
            stays: state.stays,
            any_clan: state.any_clan,
            kept: state.kept,
            last_places: seats
                .clone()
                .map(|seat| {
                    (state.last_places[seat] != NO_PLACE).then_some(state.last_places[seat])
                })
                .collect(),
            last_armies: state.last_skirmish.armies[seats.clone()].to_vec(),
            last_strengths: state.last_skirmish.strengths[seats].to_vec(),
        }
    }
}

/// A place that holds a card `viewer` cannot see.
#[derive(Clone, Copy, Debug)]
enum Place {
    Hand(usize),
    /// A face-down follower, with the seats that know it (they stay with the place).
    FaceDown {
        seat: usize,
        index: usize,
        known_by: u8,
    },
    Recruit(usize),
    Draw(usize),
}

/// Every place hidden from `viewer`, and the cards in them.
fn hidden_places(state: &LordsOfScotland, viewer: Seat) -> (Vec<Place>, CardSet) {
    let mut places = Vec::new();
    let mut cards = CardSet::EMPTY;
    for seat in state.seats().filter(|&seat| seat != viewer) {
        for card in state.hands[seat].minus(state.known_in_hand[seat]).iter() {
            places.push(Place::Hand(seat));
            cards.insert(card);
        }
    }
    for seat in state.seats() {
        for (index, &card) in state.armies[seat].face_down.iter().enumerate() {
            let known_by = state.face_down_known_by[card as usize];
            if known_by >> viewer & 1 == 0 {
                places.push(Place::FaceDown {
                    seat,
                    index,
                    known_by,
                });
                cards.insert(card);
            }
        }
    }
    for (slot, recruit) in state.recruits.iter().enumerate() {
        if recruit.card != NO_CARD && !recruit.face_up {
            places.push(Place::Recruit(slot));
            cards.insert(recruit.card);
        }
    }
    for (index, &card) in state.draw_pile.iter().enumerate() {
        places.push(Place::Draw(index));
        cards.insert(card);
    }
    (places, cards)
}

/// Deals the cards hidden from `viewer` again at random over the same places,
/// keeping every card that everyone knows to be in a seat's hand-or-face-down
/// pool inside that seat's hidden hand and face-down places, and the draw
/// pile within the cards it was made from. Future chance (the reshuffle
/// generator) is redrawn too.
///
/// Not tracked (the resampled state may contradict a perfect memory of the
/// game, never the observation): which reshuffle generation each card in a
/// hidden hand or face-down recruit came from, the order in which known
/// hand cards and face-down musters happened, and which face-down followers
/// of a seat it mustered itself rather than took with Fergusson.
pub(super) fn resample_hidden(
    state: &LordsOfScotland,
    viewer: Seat,
    rng: &mut Rng,
) -> LordsOfScotland {
    let (places, hidden) = hidden_places(state, viewer);
    let mut deal = Redeal {
        assigned: vec![NO_CARD; places.len()],
        places,
        free: hidden,
    };
    for seat in state.seats().filter(|&seat| seat != viewer) {
        let pool = CardSet(state.known_in_pool[seat].0 & hidden.0);
        deal.assign_among(
            pool,
            |place| matches!(place, Place::Hand(s) | Place::FaceDown { seat: s, .. } if s == seat),
            rng,
        );
    }
    // After a reshuffle everyone knows the draw pile holds only cards of the
    // discard pile it was made from.
    let made_from = CardSet(deal.free.0 & state.draw_pile_made_from.0);
    deal.assign_among(made_from, |place| matches!(place, Place::Draw(_)), rng);
    let rest = deal.free;
    deal.assign_among(rest, |_| true, rng);
    debug_assert!(deal.free.is_empty() && !deal.assigned.contains(&NO_CARD));

    let mut next = state.clone();
    next.rng = Rng::seeded(rng.next_u64());
    for seat in state.seats().filter(|&seat| seat != viewer) {
        next.hands[seat] = state.known_in_hand[seat];
    }
    for card in hidden.iter() {
        next.face_down_known_by[card as usize] = 0;
    }
    for (place, &card) in deal.places.iter().zip(&deal.assigned) {
        match *place {
            Place::Hand(seat) => next.hands[seat].insert(card),
            Place::FaceDown {
                seat,
                index,
                known_by,
            } => {
                next.armies[seat].face_down[index] = card;
                next.face_down_known_by[card as usize] = known_by;
            }
            Place::Recruit(slot) => next.recruits[slot].card = card,
            Place::Draw(index) => next.draw_pile[index] = card,
        }
    }
    next
}

/// Hidden cards being dealt again over the hidden places.
struct Redeal {
    places: Vec<Place>,
    assigned: Vec<CardId>,
    free: CardSet,
}

impl Redeal {
    /// Puts `cards` (or as many as fit) at random into still empty places
    /// that satisfy `fits`.
    fn assign_among(&mut self, cards: CardSet, fits: impl Fn(Place) -> bool, rng: &mut Rng) {
        if cards.is_empty() {
            return;
        }
        let mut open: Vec<usize> = (0..self.places.len())
            .filter(|&i| self.assigned[i] == NO_CARD && fits(self.places[i]))
            .collect();
        rng.shuffle(&mut open);
        let mut cards: Vec<CardId> = cards.iter().collect();
        rng.shuffle(&mut cards);
        for (&place, card) in open.iter().zip(cards) {
            self.assigned[place] = card;
            self.free.remove(card);
        }
    }
}
