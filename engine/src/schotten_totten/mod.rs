//! # Schotten Totten
//!
//! Reiner Knizia's two-player border war, exactly as in
//! `shared/rules/schotten-totten.md`: the base game, the Expert variant
//! (claims only at the start of a turn), the Tactics variant (10 tactic
//! cards) and multi-round matches, in any combination:
//! `expert=true`, `tactics=true`, `rounds=N` (1 to 15, default 1).
//!
//! A turn is a sequence of decisions, each an [`Action`]: play a card (or
//! pass when the rules allow), claim stones one at a time and say `done`,
//! and in the Tactics variant choose the deck to draw from. Decisions with
//! no alternative (drawing in the base game, a forced pass, an empty claim
//! step) are taken by the engine and are not actions.
//!
//! Scores are match points: the round winner scores 5, the loser 1 per stone
//! they control (a single-round game is a one-round match).
//!
//! Rulings of ours (not in the rules page), repeated where the code does it:
//! - a round that ends by both players passing and that nobody wins is a
//!   drawn round: each player scores 1 per stone, and the player who did
//!   not start it starts the next;
//! - after that double pass, if both players meet a win condition once the
//!   claimable stones are awarded, the one with more stones wins (equal: draw);
//! - the Traitor may put the card on your side of the stone it came from
//!   (the two readings of the seeds are quoted in `legal.rs`).

mod action;
pub mod cards;
mod completion;
mod descriptor;
mod determinize;
pub mod formation;
mod legal;
mod observation;
#[cfg(test)]
mod tests;

pub use action::{Action, DeckKind};
pub use descriptor::{DESCRIPTOR, PLAYOUT_BENCHES};
pub use observation::{Observation, StoneView};

use cards::{face, is_clan, tactic, TacticKind, ALL_CLAN, JOKER_A, JOKER_B, N_CARDS, N_CLAN};
use completion::{beating_completion, Refutations};
use formation::{best_value, beating_value, clan_mask, clan_value, SideCards, Value, Wild};

use crate::cards::{CardSet, Deck};
use crate::descriptor::GameDescriptor;
use crate::game::{DeterminizeError, EndReason, Game, GameOptions, Outcome, Seat, SetupError};
use crate::rng::Rng;

pub const N_STONES: usize = 9;
/// Safety net against an engine bug: a round longer than this is a draw.
const MAX_DECISIONS_PER_ROUND: u32 = 2_000;

/// The variants in play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Options {
    pub tactics: bool,
    pub expert: bool,
    pub rounds: u8,
}

impl Options {
    /// Typed options from options already checked by [`DESCRIPTOR`].
    fn from_canonical(options: &GameOptions) -> Options {
        Options {
            tactics: DESCRIPTOR.bool_value(options, "tactics"),
            expert: DESCRIPTOR.bool_value(options, "expert"),
            rounds: DESCRIPTOR.int_value(options, "rounds") as u8,
        }
    }

    /// Cards in a starting hand, and the hand limit of the Tactics variant.
    pub fn hand_size(&self) -> u32 {
        if self.tactics {
            7
        } else {
            6
        }
    }
}

/// One player's cards at one stone, in the order played.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Side {
    cards: [u8; 4],
    len: u8,
    /// The clock tick at which this side became complete; 0 while incomplete.
    completed_at: u16,
}

impl Side {
    fn cards(&self) -> &[u8] {
        &self.cards[..self.len as usize]
    }

    fn position(&self, card_face: u8) -> Option<usize> {
        self.cards().iter().position(|&c| face(c) == card_face)
    }

    /// The side's cards as a mask (tactic cards above the clan's), without
    /// a branch on the count: the claim step asks this of every stone.
    fn mask(&self) -> u64 {
        (0..4).fold(0, |mask, at| {
            let held = 0u64.wrapping_sub((at < self.len) as u64);
            mask | (1 << self.cards[at as usize]) & held
        })
    }

    /// The side's cards as a mask when they are all clan cards.
    fn clan_only(&self) -> Option<u64> {
        let mask = self.mask();
        (mask & !clan_mask(ALL_CLAN) == 0).then_some(mask)
    }

    fn split(&self) -> SideCards {
        let mut split = SideCards::default();
        for &card in self.cards() {
            if is_clan(card) {
                split.fixed |= 1 << card;
            } else if let TacticKind::EliteTroop {
                strengths,
                bluff_strength,
            } = tactic(card).kind
            {
                split.push_wild(Wild {
                    strengths,
                    highest: bluff_strength,
                });
            }
        }
        split
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Stone {
    sides: [Side; 2],
    owner: Option<u8>,
    bluff: bool,
    mud: bool,
}

impl Stone {
    /// Cards a side needs to be complete: 3, or 4 under Mud Fight.
    fn size(&self) -> usize {
        3 + self.mud as usize
    }

    // `&` rather than `&&` in these tests: the masks of stones below are
    // built without a branch per stone.
    fn has_room(&self, seat: usize) -> bool {
        self.owner.is_none() & ((self.sides[seat].len as usize) < self.size())
    }

    fn is_open_and_complete(&self, seat: usize) -> bool {
        self.owner.is_none() & self.is_complete(seat)
    }

    fn is_complete(&self, seat: usize) -> bool {
        self.sides[seat].len as usize == self.size()
    }

    fn value(&self, seat: usize) -> Value {
        let side = &self.sides[seat];
        if let Some(value) = clan_value(side.cards(), self.bluff) {
            return value;
        }
        best_value(&self.sides[seat].split(), 0, self.size(), self.bluff)
            .expect("a complete side has a value")
    }
}

/// Where in its turn the player to move is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Phase {
    /// Expert variant: claims before playing.
    StartClaims,
    Play,
    /// Claims after playing.
    Claims,
    /// Tactics variant: choose the deck to draw from.
    Draw,
    /// Recruiter: draws left to take.
    RecruitDraw(u8),
    /// Recruiter: cards left to put back.
    RecruitReturn(u8),
    Over(EndReason),
}

/// A Schotten Totten match in progress.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchottenTotten {
    options: Options,
    rng: Rng,
    clan_deck: Deck<u8>,
    tactic_deck: Deck<u8>,
    hands: [CardSet; 2],
    stones: [Stone; N_STONES],
    discard: Vec<u8>,
    /// Clan cards on the table or in the discard pile: what a proof may rely on.
    visible_clan: CardSet,
    tactics_played: [u8; 2],
    joker_played: [bool; 2],
    to_move: u8,
    phase: Phase,
    /// This turn ends without a draw (a pass, or the Recruiter).
    skip_draw: bool,
    consecutive_passes: u8,
    /// The seat that put cards under the decks with the Recruiter, and how
    /// many of each deck's bottom cards (clan, tactic) it still knows.
    known_bottom: Option<(u8, [u8; 2])>,
    /// In a claim step: the stones the player to move may still claim.
    claimable: u16,
    /// Witnesses of the last failing proofs (a cache, not game state).
    refutations: Refutations,
    clock: u16,
    round: u8,
    round_starter: u8,
    match_points: [i32; 2],
    decisions_this_round: u32,
}

/// The hand's distinct faces (one entry for two Jokers).
fn hand_faces(hand: CardSet) -> impl Iterator<Item = u8> {
    let both_jokers = hand.contains(JOKER_A);
    hand.iter()
        .filter(move |&card| !(card == JOKER_B && both_jokers))
        .map(face)
}

impl SchottenTotten {
    pub fn options(&self) -> Options {
        self.options
    }

    /// `seat`'s cards at `stone` (card ids, in the order played; empty for
    /// a stone or seat that does not exist): public, and cheaper than a
    /// whole [`Observation`] for a search's playouts.
    pub fn side_cards(&self, stone: usize, seat: Seat) -> &[u8] {
        self.stones
            .get(stone)
            .and_then(|st| st.sides.get(seat))
            .map_or(&[], |side| side.cards())
    }

    /// The stones that pass `test`, as a mask, with no branch per stone.
    fn stones_where(&self, test: impl Fn(&Stone) -> bool) -> u16 {
        self.stones
            .iter()
            .enumerate()
            .fold(0, |mask, (s, st)| mask | (test(st) as u16) << s)
    }

    /// The card id in `seat`'s hand showing `card_face`.
    fn hand_card(&self, seat: usize, card_face: u8) -> Option<u8> {
        let hand = self.hands[seat];
        match card_face {
            JOKER_A => [JOKER_A, JOKER_B].into_iter().find(|&j| hand.contains(j)),
            // The second Joker has no face of its own: actions name `joker`.
            JOKER_B => None,
            _ => (card_face < N_CARDS && hand.contains(card_face)).then_some(card_face),
        }
    }

    fn start_round(&mut self, starter: u8) {
        self.clan_deck = Deck::shuffled((0..N_CLAN).collect(), &mut self.rng);
        self.tactic_deck = if self.options.tactics {
            Deck::shuffled((N_CLAN..N_CARDS).collect(), &mut self.rng)
        } else {
            Deck::default()
        };
        self.hands = [CardSet::EMPTY; 2];
        for _ in 0..self.options.hand_size() {
            for seat in 0..2 {
                let card = self.clan_deck.draw().expect("54 cards deal two hands");
                self.hands[seat].insert(card);
            }
        }
        self.stones = [Stone::default(); N_STONES];
        self.discard.clear();
        self.visible_clan = CardSet::EMPTY;
        self.tactics_played = [0; 2];
        self.joker_played = [false; 2];
        self.consecutive_passes = 0;
        self.known_bottom = None;
        self.round_starter = starter;
        self.to_move = starter;
        self.decisions_this_round = 0;
        self.begin_turn();
    }

    fn begin_turn(&mut self) {
        self.skip_draw = false;
        if !(self.options.expert && self.try_enter_claims(Phase::StartClaims)) {
            self.enter_play();
        }
    }

    fn enter_play(&mut self) {
        self.phase = Phase::Play;
        if !self.has_play() {
            // RULING (no legal play): the player passes; claims still allowed, no draw.
            self.pass();
        }
    }

    fn pass(&mut self) {
        self.consecutive_passes += 1;
        if self.consecutive_passes >= 2 {
            self.end_round_by_passes();
            return;
        }
        self.skip_draw = true;
        self.after_play();
    }

    fn after_play(&mut self) {
        if self.options.expert || !self.try_enter_claims(Phase::Claims) {
            self.finish_turn();
        }
    }

    fn finish_turn(&mut self) {
        let seat = self.to_move as usize;
        if !self.skip_draw {
            let below_limit =
                !self.options.tactics || self.hands[seat].len() < self.options.hand_size();
            match (
                below_limit,
                self.clan_deck.is_empty(),
                self.tactic_deck.is_empty(),
            ) {
                (false, _, _) | (true, true, true) => {}
                (true, false, false) if self.options.tactics => {
                    self.phase = Phase::Draw;
                    return;
                }
                (true, false, _) => self.draw(DeckKind::Clan),
                (true, true, false) => self.draw(DeckKind::Tactic),
            }
        }
        self.end_turn();
    }

    fn end_turn(&mut self) {
        self.to_move ^= 1;
        self.begin_turn();
    }

    fn draw(&mut self, deck: DeckKind) {
        let card = match deck {
            DeckKind::Clan => self.clan_deck.draw(),
            DeckKind::Tactic => self.tactic_deck.draw(),
        };
        if let Some(card) = card {
            self.hands[self.to_move as usize].insert(card);
        }
        let left = [self.clan_deck.len() as u8, self.tactic_deck.len() as u8];
        if let Some((_, known)) = &mut self.known_bottom {
            for (count, left) in known.iter_mut().zip(left) {
                *count = (*count).min(left);
            }
        }
    }

    fn tick(&mut self) -> u16 {
        self.clock += 1;
        self.clock
    }

    fn place(&mut self, seat: usize, stone: usize, card: u8) {
        let side = &mut self.stones[stone].sides[seat];
        side.cards[side.len as usize] = card;
        side.len += 1;
        if is_clan(card) {
            self.visible_clan.insert(card);
        }
        if self.stones[stone].is_complete(seat) {
            let now = self.tick();
            self.stones[stone].sides[seat].completed_at = now;
        }
    }

    /// Takes the card showing `card_face` off a side. RULING: a side that
    /// loses a card is incomplete again and its "completed first" moment resets.
    fn lift(&mut self, seat: usize, stone: usize, card_face: u8) -> u8 {
        let side = &mut self.stones[stone].sides[seat];
        let at = side
            .position(card_face)
            .expect("is_legal checked the card is there");
        let card = side.cards[at];
        side.cards.copy_within(at + 1..side.len as usize, at);
        side.len -= 1;
        side.cards[side.len as usize] = 0;
        side.completed_at = 0;
        card
    }

    fn discard_card(&mut self, card: u8) {
        if is_clan(card) {
            self.visible_clan.insert(card);
        }
        self.discard.push(card);
    }

    fn play_tactic_from_hand(&mut self, card: u8) {
        let seat = self.to_move as usize;
        self.hands[seat].remove(card);
        self.tactics_played[seat] += 1;
    }
}

// Claims and the end of a round.
impl SchottenTotten {
    /// Whether `seat` may claim `stone` now: its side is complete and either
    /// beats the complete other side (ties to whoever completed first) or no
    /// completion of the other side, from clan cards not visible on the
    /// table or in the discard pile, could beat it. Unplayed tactic cards
    /// are ignored; elite troops on the table take any value they allow.
    pub fn can_claim(&self, seat: Seat, stone: usize) -> bool {
        let Some(st) = self.stones.get(stone) else {
            return false;
        };
        if seat > 1 || st.owner.is_some() || !st.is_complete(seat) {
            return false;
        }
        self.proves(seat, st, None)
    }

    /// The claim condition of `seat`'s complete side at the unclaimed
    /// `st`. When it fails and the other side holds clan cards only,
    /// `witness` (if asked for) receives a complete formation of that side,
    /// its cards and unseen ones, with a value strictly above ours.
    fn proves(&self, seat: usize, st: &Stone, witness: Option<&mut u64>) -> bool {
        let mine = st.value(seat);
        let other = 1 - seat;
        if st.is_complete(other) {
            let theirs = st.value(other);
            let proven = mine > theirs
                || (mine == theirs && st.sides[seat].completed_at < st.sides[other].completed_at);
            // Only a strictly stronger side is a witness: a tie lost on
            // who completed first is not a formation that beats ours.
            if let Some(witness) = witness.filter(|_| theirs > mine) {
                *witness = st.sides[other].clan_only().unwrap_or(0);
            }
            return proven;
        }
        let theirs = st.sides[other].split();
        let unseen = clan_mask(ALL_CLAN.minus(self.visible_clan));
        // Having completed first, a tying completion of theirs loses to us.
        let Some(beaten_by) = beating_value(&theirs, unseen, st.size(), st.bluff, mine) else {
            return true;
        };
        if let Some(witness) = witness.filter(|_| theirs.n_wilds == 0) {
            let (size, kind) = (st.size(), beaten_by.kind);
            *witness = beating_completion(theirs.fixed, unseen, size, st.bluff, mine, kind)
                .map_or(0, |cards| cards | theirs.fixed);
        }
        false
    }

    /// [`Self::can_claim`] for the player to move in a claim step, which
    /// skips the proof while the witness of its last failure still holds.
    fn can_claim_now(&mut self, seat: usize, stone: usize) -> bool {
        let st = self.stones[stone];
        let seen = clan_mask(self.visible_clan);
        if self.refutations.still_refutes(seat, stone, &st, seen) {
            return false;
        }
        let mut witness = 0;
        let proven = self.proves(seat, &st, Some(&mut witness));
        if !proven {
            self.refutations.keep(seat, stone, &st, witness);
        }
        proven
    }

    /// The stones `seat` could claim now (the rules' claim condition; in the
    /// Expert variant they are offered only at the start of a turn).
    pub fn claimable_stones(&self, seat: Seat) -> Vec<u8> {
        self.claimable_iter(seat).collect()
    }

    fn claimable_iter(&self, seat: Seat) -> impl Iterator<Item = u8> + '_ {
        // `can_claim`'s first test, inline: most stones fail it.
        let may_claim = move |stone: &Stone| stone.owner.is_none() && stone.is_complete(seat);
        (0..N_STONES as u8).filter(move |&s| {
            seat <= 1 && may_claim(&self.stones[s as usize]) && self.can_claim(seat, s as usize)
        })
    }

    /// Enters a claim step if the player to move can claim anything, noting
    /// which stones: claiming one stone changes no other stone's proof, so
    /// the set stays valid for the whole step.
    fn try_enter_claims(&mut self, phase: Phase) -> bool {
        let seat = self.to_move as usize;
        self.claimable = 0;
        for stone in crate::bits::bits(self.stones_where(|st| st.is_open_and_complete(seat))) {
            if self.can_claim_now(seat, stone as usize) {
                self.claimable |= 1 << stone;
            }
        }
        if self.claimable != 0 {
            self.phase = phase;
        }
        self.claimable != 0
    }

    fn stones_of(&self, seat: usize) -> usize {
        self.stones
            .iter()
            .filter(|s| s.owner == Some(seat as u8))
            .count()
    }

    /// Three adjacent stones or five anywhere.
    fn meets_win_condition(&self, seat: usize) -> bool {
        let owned = (0..N_STONES)
            .filter(|&s| self.stones[s].owner == Some(seat as u8))
            .fold(0u16, |m, s| m | 1 << s);
        owned & (owned >> 1) & (owned >> 2) != 0 || owned.count_ones() >= 5
    }

    fn claim(&mut self, stone: usize) {
        let seat = self.to_move as usize;
        self.stones[stone].owner = Some(seat as u8);
        self.claimable &= !(1 << stone);
        if self.meets_win_condition(seat) {
            self.end_round(Some(seat));
        } else if self.claimable == 0 {
            self.end_claims();
        }
    }

    fn end_claims(&mut self) {
        match self.phase {
            Phase::StartClaims => self.enter_play(),
            _ => self.finish_turn(),
        }
    }

    /// RULING (deadlock): both players passed in succession. Every stone
    /// either player can claim is awarded, then the win conditions are
    /// checked; otherwise more stones wins and equal stones is a draw.
    /// RULING (ours): if both meet a win condition, more stones wins.
    fn end_round_by_passes(&mut self) {
        for stone in 0..N_STONES {
            for seat in 0..2 {
                if self.can_claim(seat, stone) {
                    self.stones[stone].owner = Some(seat as u8);
                }
            }
        }
        let winner = match (self.meets_win_condition(0), self.meets_win_condition(1)) {
            (true, false) => Some(0),
            (false, true) => Some(1),
            _ => match self.stones_of(0).cmp(&self.stones_of(1)) {
                std::cmp::Ordering::Greater => Some(0),
                std::cmp::Ordering::Less => Some(1),
                std::cmp::Ordering::Equal => None,
            },
        };
        self.end_round(winner);
    }

    /// Scores the round (winner 5, loser 1 per stone) and starts the next
    /// one, the winner starting. RULING (ours): a drawn round scores 1 per
    /// stone to both, and the player who did not start it starts the next.
    fn end_round(&mut self, winner: Option<usize>) {
        match winner {
            Some(w) => {
                self.match_points[w] += 5;
                self.match_points[1 - w] += self.stones_of(1 - w) as i32;
            }
            None => {
                for seat in 0..2 {
                    self.match_points[seat] += self.stones_of(seat) as i32;
                }
            }
        }
        self.round += 1;
        if self.round >= self.options.rounds {
            self.phase = Phase::Over(EndReason::Finished);
            return;
        }
        let starter = winner.map_or(self.round_starter ^ 1, |w| w as u8);
        self.start_round(starter);
    }
}

impl Game for SchottenTotten {
    type Action = Action;
    type Observation = Observation;

    const DESCRIPTOR: &'static GameDescriptor = &DESCRIPTOR;

    fn new(options: &GameOptions, n_seats: usize, seed: u64) -> Result<Self, SetupError> {
        let options = Options::from_canonical(&DESCRIPTOR.check_setup(options, n_seats)?);
        let mut state = SchottenTotten {
            options,
            rng: Rng::seeded(seed),
            clan_deck: Deck::default(),
            tactic_deck: Deck::default(),
            hands: [CardSet::EMPTY; 2],
            stones: [Stone::default(); N_STONES],
            discard: Vec::new(),
            visible_clan: CardSet::EMPTY,
            tactics_played: [0; 2],
            joker_played: [false; 2],
            to_move: 0,
            phase: Phase::Play,
            skip_draw: false,
            consecutive_passes: 0,
            known_bottom: None,
            claimable: 0,
            refutations: Refutations::default(),
            clock: 0,
            round: 0,
            round_starter: 0,
            match_points: [0; 2],
            decisions_this_round: 0,
        };
        // RULING: the arena decides who starts; seat 0 starts the first round.
        state.start_round(0);
        Ok(state)
    }

    fn n_seats(&self) -> usize {
        2
    }

    fn current_seat(&self) -> Option<Seat> {
        match self.phase {
            Phase::Over(_) => None,
            _ => Some(self.to_move as Seat),
        }
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.legal(out);
    }

    fn is_legal(&self, action: &Action) -> bool {
        self.check(action)
    }

    fn apply_legal(&mut self, action: &Action) {
        self.perform(action);
    }

    fn observation(&self, seat: Seat) -> Observation {
        self.observe(seat.min(1))
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.phase {
            Phase::Over(EndReason::Finished) => Some(Outcome::from_scores(
                self.match_points.to_vec(),
                EndReason::Finished,
            )),
            Phase::Over(EndReason::MoveLimit) => Some(Outcome::draw(2, EndReason::MoveLimit)),
            _ => None,
        }
    }

    fn resample_hidden(&self, viewer: Seat, rng: &mut Rng) -> Self {
        self.resample(viewer.min(1), rng)
    }

    fn determinize(seen: &Observation, rng: &mut Rng) -> Result<Self, DeterminizeError> {
        SchottenTotten::from_observation(seen, rng)
    }

    /// The cards put back by the Recruiter are hidden: others see only the deck.
    fn action_seen_by(&self, action: &Action, viewer: Seat) -> String {
        match *action {
            Action::Return(card) if viewer != self.to_move as Seat => {
                format!("return {}", if is_clan(card) { "clan" } else { "tactic" })
            }
            _ => action.to_string(),
        }
    }
}
