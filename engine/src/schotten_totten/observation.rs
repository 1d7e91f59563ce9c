//! What one seat sees: both sides of every stone, the discard pile, its own
//! hand, deck and hand sizes (by kind, since the deck drawn from is seen),
//! tactic counts, whose turn it is. Never the deck order or the other hand.

use super::cards::{face, ALL_CLAN, ALL_TACTICS};
use super::{Phase, SchottenTotten};
use crate::game::Seat;
use crate::rng::Rng;

/// One stone as everyone sees it. Cards are faces (see [`super::cards::face`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct StoneView {
    pub owner: Option<Seat>,
    /// Each seat's cards there, in the order played.
    pub cards: [Vec<u8>; 2],
    /// Which side completed first (it wins a tie), if any is complete.
    pub first_complete: Option<Seat>,
    pub bluff: bool,
    pub mud: bool,
}

/// Everything a seat may know.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Observation {
    pub seat: Seat,
    pub to_move: Option<Seat>,
    /// `start_claims`, `play`, `claims`, `draw`, `recruit_draw`, `recruit_return` or `over`.
    pub phase: &'static str,
    /// Recruiter draws or returns still to make.
    pub pending: u8,
    pub stones: Vec<StoneView>,
    /// Own hand, every card as its face, in id order (both Jokers show as `joker`).
    pub hand: Vec<u8>,
    pub opponent_hand_clan: u8,
    pub opponent_hand_tactic: u8,
    pub clan_deck: u8,
    pub tactic_deck: u8,
    pub discard: Vec<u8>,
    pub tactics_played: [u8; 2],
    pub joker_played: [bool; 2],
    /// Stones this seat could claim now (public information, for convenience).
    pub claimable: Vec<u8>,
    pub round: u8,
    pub rounds: u8,
    pub match_points: [i32; 2],
    pub tactics: bool,
    pub expert: bool,
    /// Passes in a row (two end the round).
    pub consecutive_passes: u8,
    /// This turn ends without a draw (a pass, or the Recruiter).
    pub skip_draw: bool,
    pub round_starter: Seat,
    /// Decisions taken this round (a safety cap ends a round that runs away).
    pub decisions_this_round: u32,
    /// The seat that put cards under the decks with the Recruiter this
    /// round, and how many of them (clan, tactic) are still there.
    pub recruiter_under: Option<(Seat, [u8; 2])>,
    /// The cards this seat put under the (clan, tactic) decks that are still
    /// there, bottom first: a player remembers them.
    pub known_under: [Vec<u8>; 2],
}

impl SchottenTotten {
    pub(super) fn observe(&self, seat: Seat) -> Observation {
        let other = 1 - seat;
        let (phase, pending) = match self.phase {
            Phase::StartClaims => ("start_claims", 0),
            Phase::Play => ("play", 0),
            Phase::Claims => ("claims", 0),
            Phase::Draw => ("draw", 0),
            Phase::RecruitDraw(n) => ("recruit_draw", n),
            Phase::RecruitReturn(n) => ("recruit_return", n),
            Phase::Over(_) => ("over", 0),
        };
        Observation {
            seat,
            to_move: crate::Game::current_seat(self),
            phase,
            pending,
            stones: self.stones.iter().map(stone_view).collect(),
            hand: self.hands[seat].iter().map(face).collect(),
            opponent_hand_clan: self.hands[other].intersection(ALL_CLAN).len() as u8,
            opponent_hand_tactic: self.hands[other].intersection(ALL_TACTICS).len() as u8,
            clan_deck: self.clan_deck.len() as u8,
            tactic_deck: self.tactic_deck.len() as u8,
            discard: self.discard.iter().map(|&c| face(c)).collect(),
            tactics_played: self.tactics_played,
            joker_played: self.joker_played,
            claimable: self.claimable_stones(seat),
            round: self.round,
            rounds: self.options.rounds,
            match_points: self.match_points,
            tactics: self.options.tactics,
            expert: self.options.expert,
            consecutive_passes: self.consecutive_passes,
            skip_draw: self.skip_draw,
            round_starter: self.round_starter as Seat,
            decisions_this_round: self.decisions_this_round,
            recruiter_under: self
                .known_bottom
                .map(|(recruiter, counts)| (recruiter as Seat, counts)),
            known_under: self.known_under(seat),
        }
    }

    fn known_under(&self, seat: Seat) -> [Vec<u8>; 2] {
        match self.known_bottom {
            Some((recruiter, [clan, tactic])) if recruiter as Seat == seat => [
                self.clan_deck.as_slice()[..clan as usize]
                    .iter()
                    .map(|&c| face(c))
                    .collect(),
                self.tactic_deck.as_slice()[..tactic as usize]
                    .iter()
                    .map(|&c| face(c))
                    .collect(),
            ],
            _ => [Vec::new(), Vec::new()],
        }
    }

    /// Redeals the cards `viewer` cannot see: the other hand and each deck
    /// are refilled from their pooled cards, kind by kind (the deck a card
    /// was drawn from is public), and future shuffles are reseeded. Cards
    /// the viewer itself put under a deck with the Recruiter stay there.
    pub(super) fn resample(&self, viewer: Seat, rng: &mut Rng) -> SchottenTotten {
        let mut state = self.clone();
        let other = 1 - viewer;
        let known = match self.known_bottom {
            Some((seat, counts)) if seat as Seat == viewer => counts,
            _ => [0, 0],
        };
        for ((kind_mask, deck), fixed) in [
            (ALL_CLAN, &mut state.clan_deck),
            (ALL_TACTICS, &mut state.tactic_deck),
        ]
        .into_iter()
        .zip(known)
        {
            let held = state.hands[other].intersection(kind_mask);
            let unknown_part = &mut deck.as_mut_slice()[fixed as usize..];
            let mut pooled: Vec<u8> = held.iter().chain(unknown_part.iter().copied()).collect();
            rng.shuffle(&mut pooled);
            let (to_hand, to_deck) = pooled.split_at(held.len() as usize);
            state.hands[other] = state.hands[other]
                .minus(kind_mask)
                .union(to_hand.iter().copied().collect());
            unknown_part.copy_from_slice(to_deck);
        }
        state.rng = Rng::seeded(rng.next_u64());
        state
    }
}

fn stone_view(stone: &super::Stone) -> StoneView {
    let [a, b] = &stone.sides;
    let first_complete = match (a.completed_at, b.completed_at) {
        (0, 0) => None,
        (0, _) => Some(1),
        (_, 0) => Some(0),
        (x, y) => Some(if x < y { 0 } else { 1 }),
    };
    StoneView {
        owner: stone.owner.map(|o| o as Seat),
        cards: [
            a.cards().iter().map(|&c| face(c)).collect(),
            b.cards().iter().map(|&c| face(c)).collect(),
        ],
        first_complete,
        bluff: stone.bluff,
        mud: stone.mud,
    }
}
