//! A whole state from one seat's observation: what it sees is copied, what
//! it cannot see (the other hand and the order of both decks) is dealt at
//! random from the cards it has not seen, kind by kind, keeping the cards it
//! put under the decks with the Recruiter where it put them.

use super::cards::{is_clan, ALL_CLAN, ALL_TACTICS, BLUFF, JOKER_A, JOKER_B, MUD, N_CARDS};
use super::completion::Refutations;
use super::{Observation, Options, Phase, SchottenTotten, Side, Stone, N_STONES};
use crate::cards::{CardSet, Deck};
use crate::game::{DeterminizeError, EndReason, Seat};
use crate::rng::Rng;

/// Card ids handed out for faces, each at most once.
struct Cards {
    tactics: bool,
    used: CardSet,
}

impl Cards {
    /// The id behind `card_face`: the first Joker still free for a Joker.
    fn take(&mut self, card_face: u8) -> Result<u8, DeterminizeError> {
        let candidates: &[u8] = if card_face == JOKER_A {
            &[JOKER_A, JOKER_B]
        } else {
            std::slice::from_ref(&card_face)
        };
        let card = candidates
            .iter()
            .copied()
            .find(|&card| card < N_CARDS && !self.used.contains(card))
            .ok_or(DeterminizeError("a card is seen twice or does not exist"))?;
        if !is_clan(card) && !self.tactics {
            return Err(DeterminizeError(
                "a tactic card without the tactics variant",
            ));
        }
        self.used.insert(card);
        Ok(card)
    }

    fn take_all(&mut self, faces: &[u8]) -> Result<Vec<u8>, DeterminizeError> {
        faces
            .iter()
            .map(|&card_face| self.take(card_face))
            .collect()
    }
}

fn phase_of(seen: &Observation) -> Result<Phase, DeterminizeError> {
    Ok(match seen.phase {
        "start_claims" => Phase::StartClaims,
        "play" => Phase::Play,
        "claims" => Phase::Claims,
        "draw" => Phase::Draw,
        "recruit_draw" => Phase::RecruitDraw(seen.pending),
        "recruit_return" => Phase::RecruitReturn(seen.pending),
        "over" => Phase::Over(EndReason::Finished),
        _ => return Err(DeterminizeError("unknown phase")),
    })
}

/// The stones as seen, with completion moments that keep who completed first.
fn stones_of(seen: &Observation, cards: &mut Cards) -> Result<[Stone; N_STONES], DeterminizeError> {
    if seen.stones.len() != N_STONES {
        return Err(DeterminizeError("not nine stones"));
    }
    let mut stones = [Stone::default(); N_STONES];
    for (stone, view) in stones.iter_mut().zip(&seen.stones) {
        stone.owner = match view.owner {
            Some(owner @ 0..=1) => Some(owner as u8),
            Some(_) => return Err(DeterminizeError("a stone owned by no seat")),
            None => None,
        };
        stone.bluff = view.bluff;
        stone.mud = view.mud;
        // A combat mode card lies under its stone for the rest of the round.
        for (under, card) in [(view.bluff, BLUFF), (view.mud, MUD)] {
            if under {
                cards.take(card)?;
            }
        }
        let size = stone.size();
        for (side, faces) in stone.sides.iter_mut().zip(&view.cards) {
            if faces.len() > size {
                return Err(DeterminizeError("too many cards at a stone"));
            }
            *side = Side::default();
            for card in cards.take_all(faces)? {
                side.cards[side.len as usize] = card;
                side.len += 1;
            }
        }
        let first = view.first_complete.unwrap_or(0).min(1);
        for seat in 0..2 {
            if stone.is_complete(seat) {
                stone.sides[seat].completed_at = if seat == first { 1 } else { 2 };
            }
        }
    }
    Ok(stones)
}

impl SchottenTotten {
    pub(super) fn from_observation(
        seen: &Observation,
        rng: &mut Rng,
    ) -> Result<SchottenTotten, DeterminizeError> {
        let viewer = seen.seat;
        if viewer > 1 || seen.to_move.is_some_and(|seat| seat > 1) || seen.round_starter > 1 {
            return Err(DeterminizeError("a seat other than 0 and 1"));
        }
        let options = Options {
            tactics: seen.tactics,
            expert: seen.expert,
            rounds: seen.rounds,
        };
        if !(1..=15).contains(&options.rounds) || seen.round > options.rounds {
            return Err(DeterminizeError("a round out of range"));
        }
        let mut cards = Cards {
            tactics: options.tactics,
            used: CardSet::EMPTY,
        };
        let stones = stones_of(seen, &mut cards)?;
        let discard = cards.take_all(&seen.discard)?;
        let hand = cards.take_all(&seen.hand)?;
        let under = [
            cards.take_all(&seen.known_under[0])?,
            cards.take_all(&seen.known_under[1])?,
        ];
        let all_tactics = if options.tactics {
            ALL_TACTICS
        } else {
            CardSet::EMPTY
        };
        let unseen = [ALL_CLAN.minus(cards.used), all_tactics.minus(cards.used)];
        let other_holds = [seen.opponent_hand_clan, seen.opponent_hand_tactic];
        let deck_lens = [seen.clan_deck, seen.tactic_deck];
        let mut other_hand = CardSet::EMPTY;
        let mut decks = [Vec::new(), Vec::new()];
        for kind in 0..2 {
            let unknown_in_deck = (deck_lens[kind] as usize)
                .checked_sub(under[kind].len())
                .ok_or(DeterminizeError("more cards under a deck than in it"))?;
            if unseen[kind].len() as usize != other_holds[kind] as usize + unknown_in_deck {
                return Err(DeterminizeError(
                    "the unseen cards do not fill the hand and decks",
                ));
            }
            let mut pool: Vec<u8> = unseen[kind].iter().collect();
            rng.shuffle(&mut pool);
            let (to_hand, to_deck) = pool.split_at(other_holds[kind] as usize);
            other_hand = other_hand.union(to_hand.iter().copied().collect());
            decks[kind] = under[kind].iter().chain(to_deck).copied().collect();
        }
        let [clan_deck, tactic_deck] = decks;
        let mut hands = [CardSet::EMPTY; 2];
        hands[viewer] = hand.iter().copied().collect();
        hands[1 - viewer] = other_hand;
        let visible_clan = stones
            .iter()
            .flat_map(|stone| stone.sides.iter().flat_map(|side| side.cards().iter()))
            .chain(&discard)
            .filter(|&&card| is_clan(card))
            .copied()
            .collect();
        let recruiter_under = match seen.recruiter_under {
            Some((recruiter @ 0..=1, counts)) => Some((recruiter as u8, counts)),
            Some(_) => return Err(DeterminizeError("a recruiter seat other than 0 and 1")),
            None => None,
        };
        let mut state = SchottenTotten {
            options,
            rng: Rng::seeded(rng.next_u64()),
            clan_deck: Deck::from_top_last(clan_deck),
            tactic_deck: Deck::from_top_last(tactic_deck),
            hands,
            stones,
            discard,
            visible_clan,
            tactics_played: seen.tactics_played,
            joker_played: seen.joker_played,
            to_move: seen.to_move.unwrap_or(0) as u8,
            phase: phase_of(seen)?,
            skip_draw: seen.skip_draw,
            consecutive_passes: seen.consecutive_passes,
            known_bottom: recruiter_under,
            claimable: 0,
            refutations: Refutations::default(),
            clock: 2,
            round: seen.round,
            round_starter: seen.round_starter as u8,
            match_points: seen.match_points,
            decisions_this_round: seen.decisions_this_round,
        };
        if matches!(state.phase, Phase::StartClaims | Phase::Claims) {
            let to_move = state.to_move as Seat;
            state.claimable = state.claimable_iter(to_move).fold(0, |m, s| m | 1 << s);
        }
        Ok(state)
    }
}
