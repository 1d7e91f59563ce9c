//! Bullfrogs' observation on the wire: the engine's
//! [`Observation`](cairn_engine::bullfrogs::Observation) with colors, cells
//! and pad kinds by name, as in the action texts.

use cairn_engine::bullfrogs::cards::{COLOR_NAMES, N_PAD_KINDS, PAD_KINDS};
use cairn_engine::bullfrogs::grid::{Pos, Table, MAX_SLOTS};
use cairn_engine::bullfrogs::grid::{Slot, LOG_KIND, NEUTRAL};
use cairn_engine::bullfrogs::scoring::ScorePiles;
use cairn_engine::bullfrogs::{Bullfrogs, Observation, Phase, Public, Sink};
use cairn_engine::{Game, Seat};

use super::ConvertError;

use crate::game::v1::{
    BullfrogsCount, BullfrogsObservation, BullfrogsPile, BullfrogsSink, BullfrogsSlot,
};

pub fn observation(state: &Bullfrogs, seat: Seat) -> BullfrogsObservation {
    let seen = state.observation(seat);
    let public = &seen.public;
    let n_colors = if public.solo {
        2
    } else {
        public.n_seats as usize
    };
    let per_color = |values: &[u8]| {
        values
            .iter()
            .take(n_colors)
            .map(|&v| v.into())
            .collect::<Vec<u32>>()
    };
    BullfrogsObservation {
        seat: seen.seat as u32,
        n_seats: public.n_seats.into(),
        solo: public.solo,
        phase: phase_name(public.phase).to_string(),
        active: color_name(public.active),
        table: public
            .table
            .slots()
            .iter()
            .map(|slot| table_slot(slot, n_colors))
            .collect(),
        frog_supply: per_color(&public.frog_supply),
        bullfrog_supply: per_color(&public.bullfrog_supply),
        won: piles(&public.won),
        played: public.played.to_string(),
        actions_left: public.actions_left.into(),
        sink: Some(sink(&public.sink)),
        marker: public.marker.to_string(),
        marker_from: public.marker_from.to_string(),
        roll_face: public.last_roll.map(|(face, _)| face.into()),
        roll_actions: public.last_roll.map(|(_, actions)| actions.into()),
        hand: (0..N_PAD_KINDS)
            .filter(|&kind| seen.hand[kind] > 0)
            .map(|kind| BullfrogsCount {
                kind: PAD_KINDS[kind].name.to_string(),
                count: seen.hand[kind].into(),
            })
            .collect(),
        hand_sizes: per_color(&seen.hand_sizes),
        deck_sizes: per_color(&seen.deck_sizes),
        sunk_unwon: unwon_piles(&public.sunk_unwon),
    }
}

fn unwon_piles(sunk: &[[u8; N_PAD_KINDS]; 5]) -> Vec<BullfrogsPile> {
    let mut won = ScorePiles::default();
    won[0] = *sunk;
    let mut piles = piles(&won);
    for pile in &mut piles {
        pile.winner.clear();
    }
    piles
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Play => "play",
        Phase::Actions => "actions",
        Phase::ChooseScore => "choose_score",
        Phase::Jump => "jump",
        Phase::Marker => "marker",
        Phase::IsaacDirection => "isaac_direction",
        Phase::Slide => "slide",
        Phase::Over => "over",
    }
}

/// A color's name, `neutral` for cards of nobody.
fn color_name(color: u8) -> String {
    COLOR_NAMES
        .get(color as usize)
        .map_or("neutral", |name| name)
        .to_string()
}

fn kind_name(kind: u8) -> String {
    if kind == LOG_KIND {
        return "log".to_string();
    }
    PAD_KINDS
        .get(kind as usize)
        .map_or("unknown", |pad| pad.name)
        .to_string()
}

fn table_slot(slot: &Slot, n_colors: usize) -> BullfrogsSlot {
    BullfrogsSlot {
        at: slot.pos.to_string(),
        kind: kind_name(slot.kind),
        owner: color_name(slot.owner),
        frogs: slot
            .frogs
            .iter()
            .take(n_colors)
            .map(|&n| n.into())
            .collect(),
        bullfrogs: slot
            .bullfrogs
            .iter()
            .take(n_colors)
            .map(|&n| n.into())
            .collect(),
        recruited: slot.recruited.into(),
    }
}

fn piles(won: &ScorePiles) -> Vec<BullfrogsPile> {
    let mut piles = Vec::new();
    for (winner, by_color) in won.iter().enumerate() {
        for (color, by_kind) in by_color.iter().enumerate() {
            for (kind, &count) in by_kind.iter().enumerate().filter(|(_, &count)| count > 0) {
                piles.push(BullfrogsPile {
                    winner: color_name(winner as u8),
                    color: if color as u8 == NEUTRAL {
                        "neutral".to_string()
                    } else {
                        color_name(color as u8)
                    },
                    kind: kind_name(kind as u8),
                    count: count.into(),
                });
            }
        }
    }
    piles
}

fn sink(sink: &Sink) -> BullfrogsSink {
    let n_targets = sink.n_targets as usize;
    BullfrogsSink {
        at: sink.pos.to_string(),
        winner: sink.winner.map(color_name),
        priority_winner: color_name(sink.priority_winner),
        targets: sink
            .targets
            .iter()
            .take(n_targets)
            .map(|pos| pos.to_string())
            .collect(),
        served: (0..n_targets)
            .map(|index| sink.served >> index & 1 == 1)
            .collect(),
    }
}

/// The engine's observation back from the wire (what a searching bot
/// determinizes from); refuses anything no state would show.
pub fn from_wire(wire: &BullfrogsObservation) -> Result<Observation, ConvertError> {
    let n_seats = small(wire.n_seats)?;
    let n_colors = if wire.solo { 2 } else { n_seats as usize };
    if !(1..=4).contains(&n_seats) {
        return Err(bad("a seat count out of range"));
    }
    let mut table = Table::with_log();
    for slot in &wire.table {
        let pos = parse_pos(&slot.at)?;
        let kind = parse_kind(&slot.kind)?;
        if kind == LOG_KIND {
            if pos != Pos::LOG {
                return Err(bad("a log away from 0,0"));
            }
            continue;
        }
        if table.len() >= MAX_SLOTS || table.occupied().contains(pos) {
            return Err(bad("too many cards, or two on one cell"));
        }
        let mut pad = Slot::pad(pos, kind, parse_color(&slot.owner)?);
        pad.frogs = per_color(&slot.frogs, n_colors)?;
        pad.bullfrogs = per_color(&slot.bullfrogs, n_colors)?;
        pad.recruited = small(slot.recruited)?;
        table.add(pad);
    }
    if let Some(log) = wire.table.iter().find(|slot| slot.kind == "log") {
        let at_log = table.slot_mut(0);
        at_log.frogs = per_color(&log.frogs, n_colors)?;
        at_log.bullfrogs = per_color(&log.bullfrogs, n_colors)?;
        at_log.recruited = small(log.recruited)?;
    }
    let mut won = ScorePiles::default();
    for pile in &wire.won {
        let winner = parse_color(&pile.winner)? as usize;
        let (color, kind) = pile_place(pile)?;
        let by_winner = won.get_mut(winner).ok_or(bad("a pile won by nobody"))?;
        by_winner[color][kind] = small(pile.count)?;
    }
    let mut sunk_unwon = [[0; N_PAD_KINDS]; 5];
    for pile in &wire.sunk_unwon {
        let (color, kind) = pile_place(pile)?;
        sunk_unwon[color][kind] = small(pile.count)?;
    }
    let public = Public {
        n_seats,
        solo: wire.solo,
        table,
        frog_supply: per_color(&wire.frog_supply, n_colors)?,
        bullfrog_supply: per_color(&wire.bullfrog_supply, n_colors)?,
        won,
        sunk_unwon,
        active: parse_color(&wire.active)?,
        phase: parse_phase(&wire.phase)?,
        played: parse_pos(&wire.played)?,
        actions_left: small(wire.actions_left)?,
        sink: parse_sink(wire.sink.as_ref())?,
        marker: parse_pos(&wire.marker)?,
        marker_from: parse_pos(&wire.marker_from)?,
        last_roll: match (wire.roll_face, wire.roll_actions) {
            (Some(face), Some(actions)) => Some((small(face)?, small(actions)?)),
            _ => None,
        },
    };
    let mut hand = [0; N_PAD_KINDS];
    for count in &wire.hand {
        let kind = parse_kind(&count.kind)?;
        let slot = hand
            .get_mut(kind as usize)
            .ok_or(bad("the log in a hand"))?;
        *slot = small(count.count)?;
    }
    Ok(Observation {
        seat: wire.seat as Seat,
        public,
        hand,
        hand_sizes: per_color(&wire.hand_sizes, n_colors)?,
        deck_sizes: per_color(&wire.deck_sizes, n_colors)?,
    })
}

fn bad(why: &'static str) -> ConvertError {
    ConvertError::BadObservation(why)
}

fn small(value: u32) -> Result<u8, ConvertError> {
    u8::try_from(value).map_err(|_| bad("a count out of range"))
}

fn per_color(values: &[u32], n_colors: usize) -> Result<[u8; 4], ConvertError> {
    if values.len() > n_colors {
        return Err(bad("more values than colors"));
    }
    let mut out = [0; 4];
    for (slot, &value) in out.iter_mut().zip(values) {
        *slot = small(value)?;
    }
    Ok(out)
}

fn parse_pos(text: &str) -> Result<Pos, ConvertError> {
    text.parse().map_err(|_| bad("a cell that is not `x,y`"))
}

fn parse_color(text: &str) -> Result<u8, ConvertError> {
    if text == "neutral" {
        return Ok(NEUTRAL);
    }
    COLOR_NAMES
        .iter()
        .position(|name| *name == text)
        .map(|color| color as u8)
        .ok_or(bad("an unknown color"))
}

fn parse_kind(text: &str) -> Result<u8, ConvertError> {
    if text == "log" {
        return Ok(LOG_KIND);
    }
    PAD_KINDS
        .iter()
        .position(|pad| pad.name == text)
        .map(|kind| kind as u8)
        .ok_or(bad("an unknown pad kind"))
}

fn parse_phase(text: &str) -> Result<Phase, ConvertError> {
    [
        Phase::Play,
        Phase::Actions,
        Phase::ChooseScore,
        Phase::Jump,
        Phase::Marker,
        Phase::IsaacDirection,
        Phase::Slide,
        Phase::Over,
    ]
    .into_iter()
    .find(|&phase| phase_name(phase) == text)
    .ok_or(bad("an unknown phase"))
}

/// A pile's card color and kind.
fn pile_place(pile: &BullfrogsPile) -> Result<(usize, usize), ConvertError> {
    let color = parse_color(&pile.color)? as usize;
    let kind = parse_kind(&pile.kind)? as usize;
    if kind >= N_PAD_KINDS {
        return Err(bad("the log in a score pile"));
    }
    Ok((color, kind))
}

fn parse_sink(wire: Option<&BullfrogsSink>) -> Result<Sink, ConvertError> {
    let Some(wire) = wire else {
        return Ok(Sink::default());
    };
    if wire.targets.len() > 4 || wire.served.len() != wire.targets.len() {
        return Err(bad("a sink with more than four targets"));
    }
    let mut sink = Sink {
        pos: parse_pos(&wire.at)?,
        winner: wire.winner.as_deref().map(parse_color).transpose()?,
        priority_winner: parse_color(&wire.priority_winner)?,
        n_targets: wire.targets.len() as u8,
        ..Sink::default()
    };
    for (index, (target, &served)) in wire.targets.iter().zip(&wire.served).enumerate() {
        sink.targets[index] = parse_pos(target)?;
        sink.served |= (served as u8) << index;
    }
    Ok(sink)
}

#[cfg(test)]
mod tests {
    use cairn_engine::game::parse_options;
    use cairn_engine::new_game;

    use crate::convert;
    use crate::game::v1::observation::Game as Which;
    use crate::game::v1::BullfrogsObservation;

    fn view(state: &dyn cairn_engine::AnyGame, seat: usize) -> BullfrogsObservation {
        match convert::observation(state, seat).unwrap().game {
            Some(Which::Bullfrogs(seen)) => seen,
            other => panic!("expected a bullfrogs observation, got {other:?}"),
        }
    }

    #[test]
    fn a_fresh_three_seat_table_shows_the_log_the_start_pad_and_named_hand_cards() {
        let state = new_game("bullfrogs", &parse_options([]).unwrap(), 3, 5).unwrap();
        let seen = view(state.as_ref(), 2);
        assert_eq!((seen.seat, seen.n_seats, seen.solo), (2, 3, false));
        assert_eq!(seen.phase, "play");
        assert!(
            seen.table
                .iter()
                .any(|slot| slot.kind == "log" && slot.at == "0,0"),
            "{:?}",
            seen.table
        );
        assert_eq!(seen.frog_supply.len(), 3);
        let in_hand: u32 = seen.hand.iter().map(|count| count.count).sum();
        assert_eq!(in_hand, seen.hand_sizes[2]);
        assert!(
            seen.hand.iter().all(|count| count.kind.starts_with("pad")),
            "{:?}",
            seen.hand
        );
    }

    #[test]
    fn solo_shows_two_colors_and_the_player_and_isaac_share_the_table() {
        let state = new_game("bullfrogs", &parse_options(["solo=true"]).unwrap(), 1, 8).unwrap();
        let seen = view(state.as_ref(), 0);
        assert!(seen.solo);
        assert_eq!(seen.frog_supply.len(), 2);
        assert_eq!(seen.active, "red");
    }
}
