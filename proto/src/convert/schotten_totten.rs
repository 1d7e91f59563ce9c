//! Schotten Totten's observation on the wire: the engine's
//! [`Observation`](cairn_engine::schotten_totten::Observation) with cards
//! by name (`r7`, `joker`), as in the action texts.

use std::sync::OnceLock;

use cairn_engine::schotten_totten::cards::{card_name, N_CARDS};
use cairn_engine::schotten_totten::{SchottenTotten, StoneView};
use cairn_engine::{Game, Seat};

use crate::game::v1::{SchottenTottenObservation, SchottenTottenSide, SchottenTottenStone};

pub fn observation(state: &SchottenTotten, seat: Seat) -> SchottenTottenObservation {
    let seen = state.observation(seat);
    SchottenTottenObservation {
        seat: seen.seat as u32,
        to_move: seen.to_move.map(|s| s as u32),
        phase: seen.phase.to_string(),
        pending: seen.pending.into(),
        stones: seen.stones.iter().map(stone).collect(),
        hand: names(&seen.hand),
        opponent_hand_clan: seen.opponent_hand_clan.into(),
        opponent_hand_tactic: seen.opponent_hand_tactic.into(),
        clan_deck: seen.clan_deck.into(),
        tactic_deck: seen.tactic_deck.into(),
        discard: names(&seen.discard),
        tactics_played: seen.tactics_played.iter().map(|&n| n.into()).collect(),
        joker_played: seen.joker_played.to_vec(),
        claimable: seen.claimable.iter().map(|&n| n.into()).collect(),
        round: seen.round.into(),
        rounds: seen.rounds.into(),
        match_points: seen.match_points.to_vec(),
        tactics: seen.tactics,
        expert: seen.expert,
    }
}

fn names(cards: &[u8]) -> Vec<String> {
    // The names are formatted once; an observation clones ~30 of them per
    // decision, which is cheaper than formatting each again.
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let table = NAMES.get_or_init(|| (0..N_CARDS).map(card_name).collect());
    cards
        .iter()
        .map(|&card| {
            table
                .get(card as usize)
                .cloned()
                .unwrap_or_else(|| card_name(card))
        })
        .collect()
}

fn stone(view: &StoneView) -> SchottenTottenStone {
    SchottenTottenStone {
        owner: view.owner.map(|s| s as u32),
        sides: view
            .cards
            .iter()
            .map(|cards| SchottenTottenSide {
                cards: names(cards),
            })
            .collect(),
        first_complete: view.first_complete.map(|s| s as u32),
        bluff: view.bluff,
        mud: view.mud,
    }
}

#[cfg(test)]
mod tests {
    use cairn_engine::{new_game, GameOptions};

    use crate::convert;
    use crate::game::v1::observation::Game as Which;

    #[test]
    fn a_fresh_deal_shows_six_named_cards_and_nine_empty_stones() {
        let state = new_game("schotten-totten", &GameOptions::new(), 2, 11).unwrap();
        let seat = state.current_seat().unwrap();
        let Some(Which::SchottenTotten(seen)) =
            convert::observation(state.as_ref(), seat).unwrap().game
        else {
            panic!("a schotten totten state gives a schotten totten observation")
        };
        assert_eq!(seen.hand.len(), 6);
        assert!(
            seen.hand
                .iter()
                .all(|card| card.len() == 2 && "roygbp".contains(&card[..1])),
            "{:?}",
            seen.hand
        );
        assert_eq!(seen.stones.len(), 9);
        assert!(seen
            .stones
            .iter()
            .all(|stone| stone.owner.is_none() && stone.sides.iter().all(|s| s.cards.is_empty())));
        assert_eq!(seen.to_move, Some(seat as u32));
        assert_eq!(seen.opponent_hand_clan, 6);
    }

    #[test]
    fn the_two_seats_see_different_hands_and_the_same_stones() {
        let mut state = new_game("schotten-totten", &GameOptions::new(), 2, 5).unwrap();
        for _ in 0..6 {
            let first = state.legal_actions()[0].clone();
            state.apply_text(&first).unwrap();
        }
        let view = |seat| match convert::observation(state.as_ref(), seat).unwrap().game {
            Some(Which::SchottenTotten(seen)) => seen,
            other => panic!("expected a schotten totten observation, got {other:?}"),
        };
        let (zero, one) = (view(0), view(1));
        assert_ne!(zero.hand, one.hand);
        assert_eq!(zero.stones, one.stones);
        assert!(zero
            .stones
            .iter()
            .any(|stone| !stone.sides[0].cards.is_empty() || !stone.sides[1].cards.is_empty()));
    }
}
