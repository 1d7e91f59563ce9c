//! Lords of Scotland's observation on the wire: the engine's
//! [`Observation`](cairn_engine::lords_of_scotland::Observation) with cards
//! by name and card sets as lists in card-id order.

use cairn_engine::cards::CardSet;
use cairn_engine::lords_of_scotland::cards::{card_by_name, card_name, CardId};
use cairn_engine::lords_of_scotland::observation::{ArmyView, Observation, RecruitView};
use cairn_engine::lords_of_scotland::{Clan, LordsOfScotland, Phase, MAX_SEATS};
use cairn_engine::{EndReason, Game, Seat};

use super::ConvertError;

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

/// The engine's observation back from the wire (what a searching bot
/// determinizes from); refuses anything no state would show.
pub fn from_wire(wire: &LordsOfScotlandObservation) -> Result<Observation, ConvertError> {
    let sets = |lists: &[CardList]| -> Result<Vec<CardSet>, ConvertError> {
        lists.iter().map(|list| card_set(&list.cards)).collect()
    };
    Ok(Observation {
        viewer: wire.seat as Seat,
        n_seats: wire.n_seats as usize,
        bruce: wire.bruce,
        phase: parse_phase(wire)?,
        to_move: wire.to_move.map(|seat| seat as Seat),
        initiative: wire.initiative as Seat,
        turn_round: small(wire.turn_round)?,
        skirmish: u16::try_from(wire.skirmish).map_err(|_| bad("a skirmish out of range"))?,
        hand: card_set(&wire.hand)?,
        hand_sizes: wire.hand_sizes.clone(),
        known_in_hand: sets(&wire.known_in_hand)?,
        known_in_pool: sets(&wire.known_in_pool)?,
        recruits: wire
            .recruits
            .iter()
            .map(|slot| match slot.state.as_str() {
                "empty" => Ok(RecruitView::Empty),
                "face_down" => Ok(RecruitView::FaceDown),
                "face_up" => Ok(RecruitView::FaceUp(card(&slot.card)?)),
                _ => Err(bad("an unknown recruit state")),
            })
            .collect::<Result<_, _>>()?,
        draw_pile_len: wire.draw_pile as usize,
        draw_pile_made_from: card_set(&wire.draw_pile_made_from)?,
        discard: card_set(&wire.discard)?,
        supporters: card_set(&wire.supporters)?,
        won: sets(&wire.won)?,
        scores: wire
            .scores
            .iter()
            .map(|&score| u16::try_from(score).map_err(|_| bad("a score out of range")))
            .collect::<Result<_, _>>()?,
        armies: wire
            .armies
            .iter()
            .map(|army| {
                Ok(ArmyView {
                    face_up: card_set(&army.face_up)?,
                    face_down: army
                        .face_down
                        .iter()
                        .map(|name| match name.as_str() {
                            "" => Ok(None),
                            name => card(name).map(Some),
                        })
                        .collect::<Result<_, _>>()?,
                })
            })
            .collect::<Result<_, ConvertError>>()?,
        takes_two: card_set(&wire.takes_two)?,
        stays: card_set(&wire.stays)?,
        any_clan: card_set(&wire.any_clan)?,
        kept: card_set(&wire.kept)?,
        last_places: wire
            .last_places
            .iter()
            .map(|place| place.place.map(small).transpose())
            .collect::<Result<_, _>>()?,
        last_armies: sets(&wire.last_armies)?,
        last_strengths: wire
            .last_strengths
            .iter()
            .map(|&strength| u16::try_from(strength).map_err(|_| bad("a strength out of range")))
            .collect::<Result<_, _>>()?,
    })
}

fn parse_phase(wire: &LordsOfScotlandObservation) -> Result<Phase, ConvertError> {
    Ok(match wire.phase.as_str() {
        "turn" => Phase::Turn,
        "power" => Phase::Power {
            card: card(&wire.power_card)?,
            clan: Clan::from_name(&wire.power_clan).ok_or(bad("an unknown clan"))?,
        },
        "supporters" => {
            let mut order = [0u8; MAX_SEATS];
            if wire.supporter_order.len() > MAX_SEATS {
                return Err(bad("a supporter order longer than the table"));
            }
            for (slot, &seat) in order.iter_mut().zip(&wire.supporter_order) {
                *slot = small(seat)?;
            }
            Phase::Supporters {
                order,
                len: wire.supporter_order.len() as u8,
                at: small(wire.supporter_turn)?,
                picks_left: small(wire.picks_left)?,
            }
        }
        // The wire does not say why the game ended; it no longer matters.
        "over" => Phase::Over(EndReason::Finished),
        _ => return Err(bad("an unknown phase")),
    })
}

fn bad(why: &'static str) -> ConvertError {
    ConvertError::BadObservation(why)
}

fn small(value: u32) -> Result<u8, ConvertError> {
    u8::try_from(value).map_err(|_| bad("a number out of range"))
}

fn card(name: &str) -> Result<CardId, ConvertError> {
    card_by_name(name).ok_or(bad("an unknown card"))
}

fn card_set(names: &[String]) -> Result<CardSet, ConvertError> {
    names.iter().map(|name| card(name)).collect()
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
