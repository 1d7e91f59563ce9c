//! Bullfrogs (Keith Matejka): frog armies fight over lily pads that sink
//! when full. Rules: `shared/rules/bullfrogs.md` and the Portuguese
//! rulebook it restates. Options: `solo=true` plays one seat against the
//! automaton Isaac, driven by seeded dice.
//!
//! Every choice the rulebook gives a player is a legal action of that
//! player: the card and cell to play, each action, the order of scoring,
//! each jump, Isaac's marker when the player steers it, and each slide.
//! A choice with a single option is taken automatically, so the seat to
//! move always has a real decision.
//!
//! # Layout
//! - [`data`]: the one table of card, piece and die data.
//! - [`grid`]: cells, slots, adjacency and connectivity.
//! - [`slide`]: where disconnected cards may slide.
//! - [`scoring`]: battles, jump priority, final scores.
//! - [`action`]: the actions and their text forms.
//! - `turn`, `solo`: the turn sequence, and Isaac's turn.

pub mod action;
pub mod cards;
mod descriptor;
mod determinize;
pub mod grid;
pub mod scoring;
pub mod slide;
mod solo;
mod turn;

#[cfg(test)]
mod tests;

pub use action::{Action, Piece};
pub use descriptor::{DESCRIPTOR, PLAYOUT_BENCHES};

use crate::descriptor::GameDescriptor;
use crate::game::{DeterminizeError, EndReason, Game, GameOptions, Outcome, Seat, SetupError};
use crate::rng::Rng;
use cards::{
    solo_rank_title, BULLFROGS_PER_COLOR, FROGS_PER_COLOR, HAND_SIZE, ISAAC_FROGS, MAX_DECK,
    N_PAD_KINDS, START_PAD,
};
use grid::{Pos, Slot, Table, NEUTRAL};
use scoring::{final_scores, ScorePiles};
use slide::KnownSlides;
use turn::LineSlots;

/// In solo, the player's color and Isaac's.
pub const SOLO_PLAYER: u8 = 0;
pub const ISAAC: u8 = 1;

/// Where the turn stands: which decision the seat to move faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Play a lily pad from hand.
    Play,
    /// Take an action (or stop) with the played pad.
    Actions,
    /// Several pads are full: pick the next to score.
    ChooseScore,
    /// A pad is sinking: pick the next jump.
    Jump,
    /// Solo: Isaac's marker was on a sunk pad; pick where it goes.
    Marker,
    /// Solo: the movement die says "any direction"; pick it.
    IsaacDirection,
    /// Pick the next disconnected card to slide, and where.
    Slide,
    Over,
}

/// A pad being scored, while its pieces jump.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Sink {
    pub pos: Pos,
    /// The battle's winner, if any.
    pub winner: Option<u8>,
    /// Who counts as winner for the jump priority (on a tie: the active color).
    pub priority_winner: u8,
    /// Neighbours that receive one piece each (the log, or pads with space).
    pub targets: [Pos; 4],
    pub n_targets: u8,
    /// Bitmask over `targets` of those that already received a piece.
    pub served: u8,
}

/// Everything every seat sees.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Public {
    pub n_seats: u8,
    pub solo: bool,
    pub table: Table,
    pub frog_supply: [u8; 4],
    pub bullfrog_supply: [u8; 4],
    /// Score piles: `[winner][card color or NEUTRAL][kind]` counts.
    pub won: ScorePiles,
    /// Pads that sank without a winner, out of the game: `[card color or
    /// NEUTRAL][kind]` counts (everyone saw them go).
    pub sunk_unwon: [[u8; N_PAD_KINDS]; 5],
    /// The color whose turn it is (Isaac during his solo turn).
    pub active: u8,
    pub phase: Phase,
    /// The cell of the pad played this turn.
    pub played: Pos,
    pub actions_left: u8,
    pub sink: Sink,
    /// Solo: the card Isaac's marker is on.
    pub marker: Pos,
    /// Solo: the cell of the sunk pad the marker must leave.
    pub marker_from: Pos,
    /// Solo: Isaac's last roll (movement die face index, actions).
    pub last_roll: Option<(u8, u8)>,
}

/// What some seats may not see.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Hidden {
    /// Cards in hand by kind, per color.
    hands: [[u8; N_PAD_KINDS]; 4],
    /// Draw piles (kind per card, top last), per color.
    decks: [[u8; MAX_DECK]; 4],
    deck_len: [u8; 4],
    /// Solo: the source of Isaac's dice.
    dice: Rng,
}

/// A Bullfrogs game state.
#[derive(Debug, Clone)]
pub struct Bullfrogs {
    public: Public,
    hidden: Hidden,
    /// In the slide phase, the legal slides (derived from the table).
    known_slides: KnownSlides,
    /// In the action step, the slots in line with the played pad (derived
    /// from the table, whose cards do not move until the step ends).
    line_slots: LineSlots,
}

impl PartialEq for Bullfrogs {
    /// What is seen and what is hidden: the known slides and the line
    /// slots follow.
    fn eq(&self, other: &Bullfrogs) -> bool {
        self.public == other.public && self.hidden == other.hidden
    }
}

impl Eq for Bullfrogs {}

impl std::hash::Hash for Bullfrogs {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.public.hash(state);
        self.hidden.hash(state);
    }
}

/// What one seat knows: the whole table and supplies, its own hand, and the
/// sizes of every hand and deck.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub seat: Seat,
    pub public: Public,
    pub hand: [u8; N_PAD_KINDS],
    pub hand_sizes: [u8; 4],
    pub deck_sizes: [u8; 4],
}

impl Bullfrogs {
    /// Colors that take part: the players, plus Isaac in solo.
    pub fn n_colors(&self) -> usize {
        if self.public.solo {
            2
        } else {
            self.public.n_seats as usize
        }
    }

    /// Colors that hold cards.
    fn n_card_colors(&self) -> usize {
        self.public.n_seats as usize
    }

    pub fn public(&self) -> &Public {
        &self.public
    }

    pub fn hand(&self, color: usize) -> [u8; N_PAD_KINDS] {
        self.hidden.hands[color]
    }

    fn hand_size(&self, color: usize) -> u8 {
        self.hidden.hands[color].iter().sum()
    }

    /// Moves the top card of `color`'s deck to its hand, if any.
    fn draw(&mut self, color: usize) {
        let len = self.hidden.deck_len[color];
        if len > 0 {
            let kind = self.hidden.decks[color][len as usize - 1];
            self.hidden.deck_len[color] = len - 1;
            self.hidden.hands[color][kind as usize] += 1;
        }
    }

    /// Solo: the title of the player's final score, once the game is over.
    pub fn solo_rank_title(&self) -> Option<&'static str> {
        let outcome = self.outcome()?;
        self.public.solo.then(|| solo_rank_title(outcome.scores[0]))
    }

    fn empty(n_seats: usize, solo: bool, dice: Rng) -> Bullfrogs {
        let mut table = Table::with_log();
        for cell in Pos::LOG.neighbours() {
            table.add(Slot::pad(cell, START_PAD, NEUTRAL));
        }
        let n_colors = if solo { 2 } else { n_seats };
        let mut frog_supply = [0; 4];
        let mut bullfrog_supply = [0; 4];
        for color in 0..n_colors {
            frog_supply[color] = FROGS_PER_COLOR;
            bullfrog_supply[color] = BULLFROGS_PER_COLOR;
        }
        if solo {
            frog_supply[ISAAC as usize] = ISAAC_FROGS;
            bullfrog_supply[ISAAC as usize] = 0;
        }
        let public = Public {
            n_seats: n_seats as u8,
            solo,
            table,
            frog_supply,
            bullfrog_supply,
            won: Default::default(),
            sunk_unwon: Default::default(),
            active: if solo { ISAAC } else { 0 },
            phase: Phase::Play,
            played: Pos::LOG,
            actions_left: 0,
            sink: Sink::default(),
            marker: Pos::LOG,
            marker_from: Pos::LOG,
            last_roll: None,
        };
        let hidden = Hidden {
            hands: [[0; N_PAD_KINDS]; 4],
            decks: [[0; MAX_DECK]; 4],
            deck_len: [0; 4],
            dice,
        };
        Bullfrogs {
            public,
            hidden,
            known_slides: KnownSlides::UNKNOWN,
            line_slots: LineSlots::UNKNOWN,
        }
    }

    fn deal(&mut self, deal: &mut Rng) {
        let four_players = self.public.n_seats == 4;
        for color in 0..self.n_card_colors() {
            let mut deck = Vec::with_capacity(MAX_DECK);
            for (kind, data) in cards::PAD_KINDS.iter().enumerate() {
                let copies = if four_players {
                    data.per_deck_four_players
                } else {
                    data.per_deck
                };
                deck.extend(std::iter::repeat_n(kind as u8, copies as usize));
            }
            deal.shuffle(&mut deck);
            self.hidden.decks[color][..deck.len()].copy_from_slice(&deck);
            self.hidden.deck_len[color] = deck.len() as u8;
            if !self.public.solo {
                for _ in 0..HAND_SIZE {
                    self.draw(color);
                }
            }
        }
    }

    fn final_outcome(&self) -> Outcome {
        let solo = self.public.solo;
        let scores = final_scores(&self.public.table, &self.public.won, self.n_colors(), !solo);
        if solo {
            let difference = scores[SOLO_PLAYER as usize].total() - scores[ISAAC as usize].total();
            return Outcome::from_scores(vec![difference], EndReason::Finished);
        }
        let totals: Vec<i32> = scores.iter().map(|s| s.total()).collect();
        // "Em caso de empate, os jogadores empatados pontuam seus Sapos e
        // Sapos-Boi sobre as Cartas Vitória-Régia": ties fall to pieces on
        // pads, then the tied players share the rank.
        let keys: Vec<(i32, i32)> = scores.iter().map(|s| (s.total(), s.on_pads)).collect();
        Outcome::ranked_by(totals, &keys, EndReason::Finished)
    }

    /// Redraws what `viewer` cannot see: the order of its own deck, the
    /// other colors' hands and decks (keeping their sizes), future dice.
    fn resample_into(&mut self, viewer: Seat, rng: &mut Rng) {
        for color in 0..self.n_card_colors() {
            let len = self.hidden.deck_len[color] as usize;
            if color == viewer {
                rng.shuffle(&mut self.hidden.decks[color][..len]);
                continue;
            }
            let mut pool: Vec<u8> = self.hidden.decks[color][..len].to_vec();
            for (kind, &n) in self.hidden.hands[color].iter().enumerate() {
                pool.extend(std::iter::repeat_n(kind as u8, n as usize));
            }
            rng.shuffle(&mut pool);
            let hand_size = self.hand_size(color) as usize;
            self.hidden.hands[color] = [0; N_PAD_KINDS];
            for &kind in &pool[..hand_size] {
                self.hidden.hands[color][kind as usize] += 1;
            }
            self.hidden.decks[color][..len].copy_from_slice(&pool[hand_size..]);
        }
        if self.public.solo {
            self.hidden.dice = Rng::seeded(rng.next_u64());
        }
    }
}

impl Game for Bullfrogs {
    type Action = Action;
    type Observation = Observation;

    const DESCRIPTOR: &'static GameDescriptor = &DESCRIPTOR;

    fn new(options: &GameOptions, n_seats: usize, seed: u64) -> Result<Self, SetupError> {
        let options = DESCRIPTOR.check_setup(options, n_seats)?;
        let solo = DESCRIPTOR.bool_value(&options, "solo");
        let mut rng = Rng::seeded(seed);
        let mut deal = rng.fork(1);
        let dice = rng.fork(2);
        let mut state = Bullfrogs::empty(n_seats, solo, dice);
        state.deal(&mut deal);
        state.begin_turn();
        Ok(state)
    }

    fn n_seats(&self) -> usize {
        self.public.n_seats as usize
    }

    fn current_seat(&self) -> Option<Seat> {
        match self.public.phase {
            Phase::Over => None,
            _ if self.public.solo => Some(SOLO_PLAYER as usize),
            _ => Some(self.public.active as usize),
        }
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.push_legal_actions(out);
    }

    fn is_legal(&self, action: &Action) -> bool {
        self.check_legal(action)
    }

    fn apply_legal(&mut self, action: &Action) {
        self.apply_action(*action);
    }

    fn observation(&self, seat: Seat) -> Observation {
        let mut hand_sizes = [0; 4];
        let mut deck_sizes = [0; 4];
        for color in 0..self.n_card_colors() {
            hand_sizes[color] = self.hand_size(color);
            deck_sizes[color] = self.hidden.deck_len[color];
        }
        let hand = if seat < self.n_card_colors() {
            self.hidden.hands[seat]
        } else {
            [0; N_PAD_KINDS]
        };
        Observation {
            seat,
            public: self.public.clone(),
            hand,
            hand_sizes,
            deck_sizes,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.public.phase == Phase::Over).then(|| self.final_outcome())
    }

    fn resample_hidden(&self, viewer: Seat, rng: &mut Rng) -> Self {
        let mut resampled = self.clone();
        resampled.resample_into(viewer, rng);
        resampled
    }

    fn determinize(seen: &Observation, rng: &mut Rng) -> Result<Self, DeterminizeError> {
        Bullfrogs::from_observation(seen, rng)
    }
}

/// Test-only construction of arbitrary tables.
#[cfg(test)]
impl Bullfrogs {
    /// The log alone; every color with a full supply and no cards; `active`
    /// to play (in solo: the player).
    pub(crate) fn bare_table(n_seats: usize, solo: bool) -> Bullfrogs {
        let mut state = Bullfrogs::empty(n_seats, solo, Rng::seeded(7));
        state.public.table = Table::with_log();
        state.public.active = 0;
        state
    }

    /// Puts a pad of `kind` (a `PAD_KINDS` name) and `owner` at `(x, y)`.
    pub(crate) fn put_pad(&mut self, (x, y): (i8, i8), kind: &str, owner: u8) {
        let kind = cards::PAD_KINDS
            .iter()
            .position(|k| k.name == kind)
            .expect("a pad kind name") as u8;
        self.public
            .table
            .add(Slot::pad(Pos::new(x, y), kind, owner));
    }

    /// Moves pieces of `color` from its supply onto the card at `(x, y)`.
    pub(crate) fn put_pieces(&mut self, (x, y): (i8, i8), color: u8, frogs: u8, bullfrogs: u8) {
        let index = self
            .public
            .table
            .find(Pos::new(x, y))
            .expect("a card there");
        let slot = self.public.table.slot_mut(index);
        slot.frogs[color as usize] += frogs;
        slot.bullfrogs[color as usize] += bullfrogs;
        self.public.frog_supply[color as usize] -= frogs;
        self.public.bullfrog_supply[color as usize] -= bullfrogs;
    }

    /// Adds cards of `kind` to `color`'s hand and `deck` (top last).
    pub(crate) fn give_cards(&mut self, color: usize, hand: &[&str], deck: &[&str]) {
        for name in hand {
            self.hidden.hands[color]
                [cards::deck_kind_by_name(name).expect("a deck kind") as usize] += 1;
        }
        for name in deck {
            let len = self.hidden.deck_len[color] as usize;
            self.hidden.decks[color][len] = cards::deck_kind_by_name(name).expect("a deck kind");
            self.hidden.deck_len[color] += 1;
        }
    }

    /// The pieces of `color` on the card at `(x, y)`: (frogs, bullfrogs).
    pub(crate) fn pieces_at(&self, (x, y): (i8, i8), color: u8) -> Option<(u8, u8)> {
        self.public
            .table
            .at(Pos::new(x, y))
            .map(|s| (s.frogs[color as usize], s.bullfrogs[color as usize]))
    }

    /// The cells holding a card, sorted.
    pub(crate) fn layout(&self) -> Vec<(i8, i8)> {
        let mut cells: Vec<(i8, i8)> = self
            .public
            .table
            .slots()
            .iter()
            .map(|s| (s.pos.x, s.pos.y))
            .collect();
        cells.sort_unstable();
        cells
    }

    /// Applies an action given as text, panicking with the legal list if refused.
    pub(crate) fn act(&mut self, text: &str) {
        let action: Action = text.parse().unwrap_or_else(|e| panic!("{e}"));
        if self.apply(&action).is_err() {
            let mut legal = Vec::new();
            self.legal_actions(&mut legal);
            let legal: Vec<String> = legal.iter().map(ToString::to_string).collect();
            panic!(
                "`{text}` refused in {:?}; legal: {legal:?}",
                self.public.phase
            );
        }
    }

    pub(crate) fn legal_texts(&self) -> Vec<String> {
        let mut legal = Vec::new();
        self.legal_actions(&mut legal);
        legal.iter().map(ToString::to_string).collect()
    }
}
