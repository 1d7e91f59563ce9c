//! Bullfrogs' observation on the wire: the engine's
//! [`Observation`](cairn_engine::bullfrogs::Observation) with colors, cells
//! and pad kinds by name, as in the action texts.

use cairn_engine::bullfrogs::cards::{COLOR_NAMES, N_PAD_KINDS, PAD_KINDS};
use cairn_engine::bullfrogs::grid::{Slot, LOG_KIND, NEUTRAL};
use cairn_engine::bullfrogs::{Bullfrogs, Phase, Sink};
use cairn_engine::{Game, Seat};

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
    }
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

fn piles(won: &cairn_engine::bullfrogs::scoring::ScorePiles) -> Vec<BullfrogsPile> {
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
