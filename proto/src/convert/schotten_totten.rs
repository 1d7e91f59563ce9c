//! Schotten Totten's observation on the wire: the engine's
//! [`Observation`](cairn_engine::schotten_totten::Observation) with cards
//! by name (`r7`, `joker`), as in the action texts.

use std::sync::OnceLock;

use cairn_engine::schotten_totten::cards::{card_name, parse_card, N_CARDS};
use cairn_engine::schotten_totten::{Observation, SchottenTotten, StoneView};
use cairn_engine::{Game, Seat};

use super::ConvertError;
use crate::game::v1::{
    CardList, SchottenTottenObservation, SchottenTottenSide, SchottenTottenStone,
};

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
        consecutive_passes: seen.consecutive_passes.into(),
        skip_draw: seen.skip_draw,
        round_starter: seen.round_starter as u32,
        decisions_this_round: seen.decisions_this_round,
        recruiter: seen.recruiter_under.map(|(seat, _)| seat as u32),
        recruiter_under: seen.recruiter_under.map_or_else(Vec::new, |(_, counts)| {
            counts.iter().map(|&n| n.into()).collect()
        }),
        known_under: seen
            .known_under
            .iter()
            .map(|cards| CardList {
                cards: names(cards),
            })
            .collect(),
    }
}

/// The engine's observation back from the wire (what a searching bot
/// determinizes from); refuses anything no state would show.
pub fn from_wire(wire: &SchottenTottenObservation) -> Result<Observation, ConvertError> {
    let phase = [
        "start_claims",
        "play",
        "claims",
        "draw",
        "recruit_draw",
        "recruit_return",
        "over",
    ]
    .into_iter()
    .find(|&name| name == wire.phase)
    .ok_or(bad("an unknown phase"))?;
    let stones = wire
        .stones
        .iter()
        .map(|stone| {
            let [a, b] = stone.sides.as_slice() else {
                return Err(bad("a stone without two sides"));
            };
            Ok(StoneView {
                owner: stone.owner.map(|seat| seat as Seat),
                cards: [faces(&a.cards)?, faces(&b.cards)?],
                first_complete: stone.first_complete.map(|seat| seat as Seat),
                bluff: stone.bluff,
                mud: stone.mud,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let known_under = match wire.known_under.as_slice() {
        [clan, tactic] => [faces(&clan.cards)?, faces(&tactic.cards)?],
        [] => [Vec::new(), Vec::new()],
        _ => return Err(bad("known cards under other than two decks")),
    };
    let recruiter_under = match (wire.recruiter, wire.recruiter_under.as_slice()) {
        (Some(seat), &[clan, tactic]) => Some((seat as Seat, [small(clan)?, small(tactic)?])),
        (None, []) => None,
        _ => return Err(bad("a recruiter without its two counts")),
    };
    Ok(Observation {
        seat: wire.seat as Seat,
        to_move: wire.to_move.map(|seat| seat as Seat),
        phase,
        pending: small(wire.pending)?,
        stones,
        hand: faces(&wire.hand)?,
        opponent_hand_clan: small(wire.opponent_hand_clan)?,
        opponent_hand_tactic: small(wire.opponent_hand_tactic)?,
        clan_deck: small(wire.clan_deck)?,
        tactic_deck: small(wire.tactic_deck)?,
        discard: faces(&wire.discard)?,
        tactics_played: pair(&wire.tactics_played, |&n| small(n))?,
        joker_played: pair(&wire.joker_played, |&played| Ok(played))?,
        claimable: wire
            .claimable
            .iter()
            .map(|&stone| small(stone))
            .collect::<Result<_, _>>()?,
        round: small(wire.round)?,
        rounds: small(wire.rounds)?,
        match_points: pair(&wire.match_points, |&points| Ok(points))?,
        tactics: wire.tactics,
        expert: wire.expert,
        consecutive_passes: small(wire.consecutive_passes)?,
        skip_draw: wire.skip_draw,
        round_starter: wire.round_starter as Seat,
        decisions_this_round: wire.decisions_this_round,
        recruiter_under,
        known_under,
    })
}

fn bad(why: &'static str) -> ConvertError {
    ConvertError::BadObservation(why)
}

fn small(value: u32) -> Result<u8, ConvertError> {
    u8::try_from(value).map_err(|_| bad("a count out of range"))
}

fn faces(names: &[String]) -> Result<Vec<u8>, ConvertError> {
    names
        .iter()
        .map(|name| parse_card(name).ok_or(bad("an unknown card")))
        .collect()
}

fn pair<T: Copy, U>(
    values: &[U],
    read: impl Fn(&U) -> Result<T, ConvertError>,
) -> Result<[T; 2], ConvertError> {
    match values {
        [a, b] => Ok([read(a)?, read(b)?]),
        _ => Err(bad("a per-seat list without two entries")),
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
