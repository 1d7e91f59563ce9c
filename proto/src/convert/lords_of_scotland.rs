//! Lords of Scotland's observation on the wire: the engine's
//! [`Observation`](cairn_engine::lords_of_scotland::Observation) with cards
//! by name and card sets as lists in card-id order.

use cairn_engine::cards::CardSet;
use cairn_engine::lords_of_scotland::cards::{card_name, CardId};
use cairn_engine::lords_of_scotland::observation::{ArmyView, RecruitView};
use cairn_engine::lords_of_scotland::{LordsOfScotland, Phase};
use cairn_engine::{Game, Seat};

use crate::game::v1::{
    CardList, LordsOfScotlandArmy, LordsOfScotlandObservation, LordsOfScotlandPlace,
    LordsOfScotlandRecruit,
};

pub fn observation(state: &LordsOfScotland, seat: Seat) -> LordsOfScotlandObservation {
    let seen = state.observation(seat);
    let mut wire = LordsOfScotlandObservation {
        seat: seen.viewer as u32,
        n_seats: seen.n_seats as u32,
        bruce: seen.bruce,
        to_move: seen.to_move.map(|s| s as u32),
        initiative: seen.initiative as u32,
        turn_round: seen.turn_round.into(),
        skirmish: seen.skirmish.into(),
        hand: names(seen.hand),
        hand_sizes: seen.hand_sizes.clone(),
        known_in_hand: seen
            .known_in_hand
            .iter()
            .map(|&set| card_list(set))
            .collect(),
        known_in_pool: seen
            .known_in_pool
            .iter()
            .map(|&set| card_list(set))
            .collect(),
        recruits: seen.recruits.iter().map(|&slot| recruit(slot)).collect(),
        draw_pile: seen.draw_pile_len as u32,
        draw_pile_made_from: names(seen.draw_pile_made_from),
        discard: names(seen.discard),
        supporters: names(seen.supporters),
        won: seen.won.iter().map(|&set| card_list(set)).collect(),
        scores: seen.scores.iter().map(|&s| s.into()).collect(),
        armies: seen.armies.iter().map(army).collect(),
        takes_two: names(seen.takes_two),
        stays: names(seen.stays),
        any_clan: names(seen.any_clan),
        kept: names(seen.kept),
        last_places: seen
            .last_places
            .iter()
            .map(|place| LordsOfScotlandPlace {
                place: place.map(u32::from),
            })
            .collect(),
        last_armies: seen.last_armies.iter().map(|&set| card_list(set)).collect(),
        last_strengths: seen.last_strengths.iter().map(|&s| s.into()).collect(),
        ..Default::default()
    };
    set_phase(&mut wire, seen.phase);
    wire
}

fn set_phase(wire: &mut LordsOfScotlandObservation, phase: Phase) {
    wire.phase = match phase {
        Phase::Turn => "turn",
        Phase::Power { card, clan } => {
            wire.power_card = card_name(card).to_string();
            wire.power_clan = clan.name().to_string();
            "power"
        }
        Phase::Supporters {
            order,
            len,
            at,
            picks_left,
        } => {
            wire.supporter_order = order[..len as usize].iter().map(|&s| s.into()).collect();
            wire.supporter_turn = at.into();
            wire.picks_left = picks_left.into();
            "supporters"
        }
        Phase::Over(_) => "over",
    }
    .to_string();
}

fn names(set: CardSet) -> Vec<String> {
    set.iter()
        .map(|card: CardId| card_name(card).to_string())
        .collect()
}

fn card_list(set: CardSet) -> CardList {
    CardList { cards: names(set) }
}

fn recruit(slot: RecruitView) -> LordsOfScotlandRecruit {
    let (state, card) = match slot {
        RecruitView::Empty => ("empty", String::new()),
        RecruitView::FaceDown => ("face_down", String::new()),
        RecruitView::FaceUp(card) => ("face_up", card_name(card).to_string()),
    };
    LordsOfScotlandRecruit {
        state: state.to_string(),
        card,
    }
}

fn army(view: &ArmyView) -> LordsOfScotlandArmy {
    LordsOfScotlandArmy {
        face_up: names(view.face_up),
        face_down: view
            .face_down
            .iter()
            .map(|card| card.map_or_else(String::new, |c| card_name(c).to_string()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use cairn_engine::{new_game, GameOptions};

    use crate::convert;
    use crate::game::v1::observation::Game as Which;
    use crate::game::v1::LordsOfScotlandObservation;

    fn view(state: &dyn cairn_engine::AnyGame, seat: usize) -> LordsOfScotlandObservation {
        match convert::observation(state, seat).unwrap().game {
            Some(Which::LordsOfScotland(seen)) => seen,
            other => panic!("expected a lords of scotland observation, got {other:?}"),
        }
    }

    #[test]
    fn a_fresh_three_seat_deal_shows_own_hand_by_name_and_per_seat_lists_for_every_seat() {
        let state = new_game("lords-of-scotland", &GameOptions::new(), 3, 4).unwrap();
        let seen = view(state.as_ref(), 1);
        assert_eq!((seen.seat, seen.n_seats), (1, 3));
        assert_eq!(seen.phase, "turn");
        assert_eq!(seen.hand.len() as u32, seen.hand_sizes[1]);
        assert!(
            seen.hand
                .iter()
                .all(|card| card.chars().last().is_some_and(|c| c.is_ascii_digit())),
            "{:?}",
            seen.hand
        );
        assert_eq!(seen.armies.len(), 3);
        assert_eq!(seen.won.len(), 3);
        assert_eq!(seen.last_places.len(), 3);
        assert!(!seen.supporters.is_empty());
        assert!(!seen.recruits.is_empty());
    }

    #[test]
    fn seats_see_their_own_hands_and_the_same_table() {
        let mut state = new_game("lords-of-scotland", &GameOptions::new(), 4, 9).unwrap();
        for _ in 0..12 {
            let Some(first) = state.legal_actions().into_iter().next() else {
                break;
            };
            state.apply_text(&first).unwrap();
        }
        let (zero, two) = (view(state.as_ref(), 0), view(state.as_ref(), 2));
        assert_ne!(zero.hand, two.hand);
        assert_eq!(zero.supporters, two.supporters);
        assert_eq!(zero.discard, two.discard);
        assert_eq!(zero.hand_sizes, two.hand_sizes);
    }
}
