//! Lords of Scotland (Richard James), 2 to 5 players, all nine clan powers and
//! the optional Bruce cards, as in `shared/rules/lords-of-scotland.md` and the
//! Portuguese rulebook it restates.
//!
//! # Layout
//! - [`cards`]: the one card table (clan, strength, rank) and derived masks.
//! - [`action`]: the decisions and their text form.
//! - this file: the state, setup, turns (recruit, muster, pass) and the
//!   [`Game`] implementation.
//! - `powers`: activation and the nine clan powers.
//! - `skirmish`: the end of a skirmish (scoring, supporters, clean-up) and the
//!   end of the game.
//! - [`observation`]: what one seat sees, and resampling what it cannot.
//!
//! # Decisions the engine makes for the players
//! Only choices that can never be worse for the player when maximised: an
//! activated Bruce counts as whatever clan doubles its army if any does; the
//! initiative holder turns up the first face-down recruit (all are unknown to
//! everyone, so the choice carries no information).

pub mod action;
pub mod cards;
mod descriptor;
mod determinize;
mod hashing;
pub mod observation;
mod powers;
mod skirmish;
#[cfg(test)]
mod tests;

use crate::cards::CardSet;
use crate::descriptor::GameDescriptor;
use crate::game::{DeterminizeError, EndReason, Game, GameOptions, Outcome, Seat, SetupError};
use crate::rng::Rng;

pub use action::{Action, Target};
pub use cards::{CardId, Clan};
pub use descriptor::{DESCRIPTOR, PLAYOUT_BENCHES};
pub use observation::Observation;

/// A player holding more than this many cards may not recruit; with exactly
/// this many they still may. RULING (rules page): the seed governs ("Você não
/// pode recrutar se tiver mais de dez cartas em sua mão"), although English
/// sources say fewer than ten are required. A hand therefore never holds more
/// than `HAND_LIMIT + 1` cards.
pub const HAND_LIMIT: u32 = 10;
pub const TURNS_PER_SKIRMISH: u8 = 5;
pub const RECRUIT_SLOTS: usize = 5;
pub const WINNING_SCORE: u16 = 40;
/// RULING (rules page): a game not over after this many skirmishes is a draw
/// by move limit; random play never gets near it.
pub const SKIRMISH_LIMIT: u16 = 100;
pub const MAX_SEATS: usize = 5;

const NO_CARD: CardId = u8::MAX;
/// `last_places` of a seat that had no follower in the last skirmish.
const NO_PLACE: u8 = u8::MAX;

/// One place in the recruit row. The orientation stays with the slot: a
/// face-up slot is refilled face up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecruitSlot {
    card: CardId,
    face_up: bool,
}

impl RecruitSlot {
    const EMPTY: RecruitSlot = RecruitSlot {
        card: NO_CARD,
        face_up: false,
    };

    fn card(self) -> Option<CardId> {
        (self.card != NO_CARD).then_some(self.card)
    }
}

/// A player's followers: face-up ones by card, face-down ones in play order
/// (their place is public, their identity is not).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Army {
    face_up: CardSet,
    face_down: Vec<CardId>,
}

impl Army {
    fn cards(&self) -> CardSet {
        let mut all = self.face_up;
        for &card in &self.face_down {
            all.insert(card);
        }
        all
    }

    fn is_empty(&self) -> bool {
        self.face_up.is_empty() && self.face_down.is_empty()
    }
}

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The seat to move recruits, musters or passes.
    Turn,
    /// The seat to move may use `clan`'s power through `card` (a Scott acting
    /// as the clan it copies, or a card mustered by Makgill).
    Power {
        card: CardId,
        clan: Clan,
    },
    /// End of skirmish: `order[at]` takes `picks_left` more supporters.
    Supporters {
        order: [u8; MAX_SEATS],
        len: u8,
        at: u8,
        picks_left: u8,
    },
    Over(EndReason),
}

/// The whole state of a game of Lords of Scotland. `Hash` is written by hand
/// in `hashing` (word-sized writes keep the conformance test fast).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LordsOfScotland {
    n_seats: u8,
    bruce: bool,
    /// Future chance: reshuffles of the discard pile.
    rng: Rng,
    /// Top card last.
    draw_pile: Vec<CardId>,
    /// The cards the draw pile may hold, as everyone knows: the whole deck
    /// at first, the discard pile it was made from after a reshuffle.
    draw_pile_made_from: CardSet,
    discard: CardSet,
    hands: [CardSet; MAX_SEATS],
    /// Cards everyone knows to be in that hand (taken from face-up recruits).
    known_in_hand: [CardSet; MAX_SEATS],
    /// Cards everyone knows to be in that hand or among that army's face-down
    /// followers: known hand cards blur into this once the owner musters
    /// face down.
    known_in_pool: [CardSet; MAX_SEATS],
    recruits: [RecruitSlot; RECRUIT_SLOTS],
    supporters: CardSet,
    won: [CardSet; MAX_SEATS],
    scores: [u16; MAX_SEATS],
    armies: [Army; MAX_SEATS],
    /// For each face-down follower, the seats that know what it is (bit per seat).
    face_down_known_by: [u8; cards::N_CARDS],
    /// Active end-of-round powers, by the card that carries them.
    takes_two: CardSet,
    stays: CardSet,
    any_clan: CardSet,
    /// MacDonnell-like cards kept from the previous skirmish; discarded at the end of this one.
    kept: CardSet,
    initiative: u8,
    turn_round: u8,
    turn_offset: u8,
    skirmish: u16,
    /// Each seat's place in the last skirmish (0 = winner), or `NO_PLACE`.
    last_places: [u8; MAX_SEATS],
    /// Every army of the last skirmish as revealed at its end.
    last_skirmish: SkirmishReveal,
    /// The last action ended a skirmish: every seat is told what was revealed.
    just_revealed: bool,
    phase: Phase,
}

/// "No final de cada rodada, revele todos os Seguidores que estejam com a
/// face virada para baixo na escaramuça": every army of a skirmish, face up,
/// with its strength, as every seat sees it from the skirmish's end on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SkirmishReveal {
    pub armies: [CardSet; MAX_SEATS],
    pub strengths: [u16; MAX_SEATS],
}

impl LordsOfScotland {
    /// A table with nothing dealt: the base of setup and of rule tests.
    fn empty_table(n_seats: usize, bruce: bool, seed: u64) -> LordsOfScotland {
        LordsOfScotland {
            n_seats: n_seats as u8,
            bruce,
            rng: Rng::seeded(seed),
            draw_pile: Vec::with_capacity(cards::N_CARDS),
            draw_pile_made_from: cards::deck(bruce),
            discard: CardSet::EMPTY,
            hands: [CardSet::EMPTY; MAX_SEATS],
            known_in_hand: [CardSet::EMPTY; MAX_SEATS],
            known_in_pool: [CardSet::EMPTY; MAX_SEATS],
            recruits: [RecruitSlot::EMPTY; RECRUIT_SLOTS],
            supporters: CardSet::EMPTY,
            won: [CardSet::EMPTY; MAX_SEATS],
            scores: [0; MAX_SEATS],
            armies: Default::default(),
            face_down_known_by: [0; cards::N_CARDS],
            takes_two: CardSet::EMPTY,
            stays: CardSet::EMPTY,
            any_clan: CardSet::EMPTY,
            kept: CardSet::EMPTY,
            initiative: 0,
            turn_round: 0,
            turn_offset: 0,
            skirmish: 0,
            last_places: [NO_PLACE; MAX_SEATS],
            last_skirmish: SkirmishReveal::default(),
            just_revealed: false,
            phase: Phase::Turn,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn scores(&self) -> &[u16] {
        &self.scores[..self.n_seats as usize]
    }

    fn seats(&self) -> std::ops::Range<usize> {
        0..self.n_seats as usize
    }

    /// The seat whose turn it is during the five turns.
    fn turn_seat(&self) -> usize {
        (self.initiative as usize + self.turn_offset as usize) % self.n_seats as usize
    }

    /// Draws the top card, first shuffling the discard pile into a new draw
    /// pile if the draw pile is empty. `None` once both are empty.
    fn draw_card(&mut self) -> Option<CardId> {
        if self.draw_pile.is_empty() && !self.discard.is_empty() {
            self.draw_pile.extend(self.discard.iter());
            self.draw_pile_made_from = self.discard;
            self.discard = CardSet::EMPTY;
            self.rng.shuffle(&mut self.draw_pile);
        }
        self.draw_pile.pop()
    }

    fn deal_recruits(&mut self) {
        for slot in 0..RECRUIT_SLOTS {
            let card = self.draw_card().unwrap_or(NO_CARD);
            self.recruits[slot] = RecruitSlot {
                card,
                face_up: false,
            };
        }
    }

    /// Opens a skirmish: the initiative holder's first reveal, then turns.
    fn start_skirmish(&mut self) {
        self.turn_round = 0;
        self.turn_offset = 0;
        self.phase = Phase::Turn;
        self.reveal_recruit();
    }

    /// RULING (rules page): which face-down recruit the initiative holder
    /// turns up makes no difference, so it is the first in row order.
    fn reveal_recruit(&mut self) {
        if let Some(slot) = self
            .recruits
            .iter_mut()
            .find(|slot| slot.card != NO_CARD && !slot.face_up)
        {
            slot.face_up = true;
        }
    }

    /// Passes the turn on; after the fifth round of turns the skirmish ends.
    fn end_turn(&mut self) {
        self.phase = Phase::Turn;
        self.turn_offset += 1;
        if self.turn_offset < self.n_seats {
            return;
        }
        self.turn_offset = 0;
        self.turn_round += 1;
        if self.turn_round == TURNS_PER_SKIRMISH {
            self.end_skirmish();
        } else {
            self.reveal_recruit();
        }
    }

    fn may_recruit(&self, seat: usize) -> bool {
        self.hand_allows_recruiting(seat) && self.recruits.iter().any(|slot| slot.card != NO_CARD)
    }

    /// Recruiting is forbidden only with more than `HAND_LIMIT` cards in hand.
    fn hand_allows_recruiting(&self, seat: usize) -> bool {
        self.hands[seat].len() <= HAND_LIMIT
    }

    /// RULING (rules page): a player who can neither muster (empty hand) nor
    /// recruit passes.
    fn must_pass(&self, seat: usize) -> bool {
        self.hands[seat].is_empty() && !self.may_recruit(seat)
    }

    fn turn_actions(&self, seat: usize, out: &mut Vec<Action>) {
        if self.must_pass(seat) {
            out.push(Action::Pass);
            return;
        }
        if self.hand_allows_recruiting(seat) {
            for (slot, recruit) in self.recruits.iter().enumerate() {
                if recruit.card != NO_CARD {
                    out.push(Action::Recruit { slot: slot as u8 });
                }
            }
        }
        for card in self.hands[seat].iter() {
            out.push(Action::Muster {
                card,
                face_up: true,
            });
            out.push(Action::Muster {
                card,
                face_up: false,
            });
        }
    }

    fn is_legal_turn_action(&self, seat: usize, action: &Action) -> bool {
        match *action {
            Action::Recruit { slot } => {
                self.hand_allows_recruiting(seat)
                    && self
                        .recruits
                        .get(slot as usize)
                        .is_some_and(|recruit| recruit.card != NO_CARD)
            }
            Action::Muster { card, .. } => self.hands[seat].contains(card),
            Action::Pass => self.must_pass(seat),
            _ => false,
        }
    }

    fn recruit(&mut self, seat: usize, slot: usize) {
        let RecruitSlot { card, face_up } = self.recruits[slot];
        self.hands[seat].insert(card);
        if face_up {
            self.known_in_hand[seat].insert(card);
        }
        self.recruits[slot].card = self.draw_card().unwrap_or(NO_CARD);
    }

    /// Puts a card from `seat`'s hand into its army. Face down, it blurs what
    /// the others knew about that hand (they cannot tell which card went).
    fn muster(&mut self, seat: usize, card: CardId, face_up: bool) {
        self.hands[seat].remove(card);
        if face_up {
            self.known_in_hand[seat].remove(card);
            self.known_in_pool[seat].remove(card);
            self.armies[seat].face_up.insert(card);
        } else {
            self.known_in_pool[seat] = self.known_in_pool[seat].union(self.known_in_hand[seat]);
            self.known_in_hand[seat] = CardSet::EMPTY;
            self.armies[seat].face_down.push(card);
            self.face_down_known_by[card as usize] = 1 << seat;
        }
    }

    /// Musters and, if the card is face up and may activate, offers its power.
    fn muster_and_offer_power(&mut self, seat: usize, card: CardId, face_up: bool) {
        self.muster(seat, card, face_up);
        if face_up && self.may_activate(card) {
            self.phase = Phase::Power {
                card,
                clan: cards::clan(card),
            };
        } else {
            self.end_turn();
        }
    }
}

impl Game for LordsOfScotland {
    type Action = Action;
    type Observation = Observation;

    const DESCRIPTOR: &'static GameDescriptor = &DESCRIPTOR;

    fn new(options: &GameOptions, n_seats: usize, seed: u64) -> Result<Self, SetupError> {
        let options = DESCRIPTOR.check_setup(options, n_seats)?;
        let bruce = DESCRIPTOR.bool_value(&options, "bruce");
        let mut state = LordsOfScotland::empty_table(n_seats, bruce, seed);
        state.draw_pile.extend(cards::deck(bruce).iter());
        state.rng.shuffle(&mut state.draw_pile);
        for seat in 0..n_seats {
            for _ in 0..5 {
                let card = state
                    .draw_pile
                    .pop()
                    .expect("a fresh deck deals every hand");
                state.hands[seat].insert(card);
            }
        }
        state.deal_recruits();
        state.deal_supporters();
        state.start_skirmish();
        Ok(state)
    }

    fn n_seats(&self) -> usize {
        self.n_seats as usize
    }

    fn current_seat(&self) -> Option<Seat> {
        match self.phase {
            Phase::Turn | Phase::Power { .. } => Some(self.turn_seat()),
            Phase::Supporters { order, at, .. } => Some(order[at as usize] as usize),
            Phase::Over(_) => None,
        }
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Turn => self.turn_actions(self.turn_seat(), out),
            Phase::Power { card, clan } => self.power_actions(card, clan, out),
            Phase::Supporters { .. } => {
                out.extend(self.supporters.iter().map(|card| Action::Support { card }))
            }
            Phase::Over(_) => {}
        }
    }

    fn is_legal(&self, action: &Action) -> bool {
        match self.phase {
            Phase::Turn => self.is_legal_turn_action(self.turn_seat(), action),
            Phase::Power { card, clan } => self.is_legal_power_action(card, clan, action),
            Phase::Supporters { .. } => {
                matches!(*action, Action::Support { card } if self.supporters.contains(card))
            }
            Phase::Over(_) => false,
        }
    }

    fn apply_legal(&mut self, action: &Action) {
        let seat = self.turn_seat();
        self.just_revealed = false;
        match (self.phase, *action) {
            (Phase::Turn, Action::Recruit { slot }) => {
                self.recruit(seat, slot as usize);
                self.end_turn();
            }
            (Phase::Turn, Action::Muster { card, face_up }) => {
                self.muster_and_offer_power(seat, card, face_up)
            }
            (Phase::Turn, Action::Pass) => self.end_turn(),
            (Phase::Power { card, clan }, action) => self.resolve_power(seat, card, clan, action),
            (Phase::Supporters { .. }, Action::Support { card }) => self.take_supporter(card),
            (phase, action) => debug_assert!(false, "apply_legal got {action} in {phase:?}"),
        }
    }

    fn observation(&self, seat: Seat) -> Observation {
        Observation::of(self, seat)
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.phase {
            Phase::Over(reason) => Some(self.final_outcome(reason)),
            _ => None,
        }
    }

    fn resample_hidden(&self, viewer: Seat, rng: &mut Rng) -> Self {
        observation::resample_hidden(self, viewer, rng)
    }

    fn determinize(seen: &Observation, rng: &mut Rng) -> Result<Self, DeterminizeError> {
        LordsOfScotland::from_observation(seen, rng)
    }

    fn announcement(&self) -> Option<String> {
        self.just_revealed.then(|| self.reveal_text())
    }

    fn action_seen_by(&self, action: &Action, viewer: Seat) -> String {
        let hidden = Some(viewer) != self.current_seat();
        match *action {
            Action::Muster { face_up: false, .. } if hidden => "muster ? down".to_string(),
            Action::Also { face_up: false, .. } if hidden => "also ? down".to_string(),
            _ => action.to_string(),
        }
    }
}
