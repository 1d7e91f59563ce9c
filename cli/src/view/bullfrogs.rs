//! Bullfrogs as text: the grid of pads around the log with the pieces on
//! each (a lowercase color letter counts frogs, an uppercase one
//! bullfrogs: `r2 B1` is two red frogs and one blue bullfrog), then hands,
//! decks, supplies, won cards and, in solo, Isaac's dice.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use cairn_proto::game::v1::{BullfrogsObservation as Seen, BullfrogsSlot};

use super::Board;

const CELL: usize = 12;

pub fn draw(board: &Board<'_, Seen>) -> String {
    let public = board.public();
    let mut out = String::new();
    let mut heading = format!("phase {} · {} to act", public.phase, public.active);
    if public.actions_left > 0 {
        let _ = write!(heading, " · {} action(s) left", public.actions_left);
    }
    if public.solo {
        if let (Some(face), Some(actions)) = (public.roll_face, public.roll_actions) {
            let _ = write!(
                heading,
                " · Isaac rolled {} and {actions} action(s)",
                cairn_proto::steps::movement_face_name(face)
            );
        }
    }
    let _ = writeln!(out, "{heading}");
    grid(public, &mut out);
    let _ = writeln!(
        out,
        "(r/b/g/y: frogs, R/B/G/Y: bullfrogs; * played this turn, ! being scored, @ Isaac's marker)"
    );
    for seat in 0..public.frog_supply.len() {
        seat_line(board, seat, &mut out);
    }
    won_lines(public, &mut out);
    out
}

fn grid(public: &Seen, out: &mut String) {
    let cells: BTreeMap<(i32, i32), &BullfrogsSlot> = public
        .table
        .iter()
        .filter_map(|slot| Some((cell(&slot.at)?, slot)))
        .collect();
    let (Some(min_x), Some(max_x)) = (
        cells.keys().map(|k| k.0).min(),
        cells.keys().map(|k| k.0).max(),
    ) else {
        return;
    };
    let min_y = cells.keys().map(|k| k.1).min().unwrap_or(0);
    let max_y = cells.keys().map(|k| k.1).max().unwrap_or(0);
    let mut header = "      ".to_string();
    for x in min_x..=max_x {
        let _ = write!(header, "{:<CELL$}", format!("x={x}"));
    }
    let _ = writeln!(out, "{}", header.trim_end());
    for y in (min_y..=max_y).rev() {
        let mut top = format!("{:>4}  ", format!("y={y}"));
        let mut bottom = "      ".to_string();
        for x in min_x..=max_x {
            let (label, pieces) = cells
                .get(&(x, y))
                .map_or((String::new(), String::new()), |slot| {
                    (slot_label(public, slot), pieces(slot))
                });
            let _ = write!(top, "{label:<CELL$}");
            let _ = write!(bottom, "{pieces:<CELL$}");
        }
        let _ = writeln!(out, "{}", top.trim_end());
        let _ = writeln!(out, "{}", bottom.trim_end());
    }
}

fn cell(at: &str) -> Option<(i32, i32)> {
    let (x, y) = at.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}

fn slot_label(public: &Seen, slot: &BullfrogsSlot) -> String {
    let mut label = match slot.kind.as_str() {
        "log" => "LOG".to_string(),
        "start" => "start".to_string(),
        kind => format!("{}:{}", kind, slot.owner),
    };
    if slot.at == public.played {
        label.push('*');
    }
    if scored_pad(public) == Some(slot.at.as_str()) {
        label.push('!');
    }
    if public.solo && slot.at == public.marker {
        label.push('@');
    }
    label
}

/// The pad being scored: the sink's, during the jump phase only (the
/// observation always carries a sink; outside the jump phase it is a
/// leftover or the default, the log).
fn scored_pad(public: &Seen) -> Option<&str> {
    let sink = public.sink.as_ref()?;
    (public.phase == "jump").then_some(sink.at.as_str())
}

fn pieces(slot: &BullfrogsSlot) -> String {
    let mut parts = Vec::new();
    for (color, letter) in ['r', 'b', 'g', 'y'].into_iter().enumerate() {
        if let Some(&n) = slot.frogs.get(color).filter(|&&n| n > 0) {
            parts.push(format!("{letter}{n}"));
        }
        if let Some(&n) = slot.bullfrogs.get(color).filter(|&&n| n > 0) {
            parts.push(format!("{}{n}", letter.to_ascii_uppercase()));
        }
    }
    parts.join(" ")
}

fn seat_line(board: &Board<'_, Seen>, color: usize, out: &mut String) {
    let public = board.public();
    let at = |values: &[u32]| values.get(color).copied().unwrap_or(0);
    let name = if public.solo && color == 1 {
        "Isaac (blue)".to_string()
    } else {
        format!(
            "{} ({})",
            board.seat_label(color),
            cairn_engine::bullfrogs::cards::COLOR_NAMES[color]
        )
    };
    let hand = if public.solo && color == 1 {
        String::new()
    } else {
        match board.seen_by(color) {
            Some(seen) => {
                let cards: Vec<String> = seen
                    .hand
                    .iter()
                    .map(|count| format!("{}x{}", count.count, count.kind))
                    .collect();
                format!(" · hand: {}", cards.join(" "))
            }
            None => format!(" · hand: {} card(s), hidden", at(&public.hand_sizes)),
        }
    };
    let _ = writeln!(
        out,
        "{name}{hand} · deck {} · supply {} frog(s), {} bullfrog(s)",
        at(&public.deck_sizes),
        at(&public.frog_supply),
        at(&public.bullfrog_supply)
    );
}

fn won_lines(public: &Seen, out: &mut String) {
    let mut by_winner: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for pile in &public.won {
        by_winner
            .entry(pile.winner.as_str())
            .or_default()
            .push(format!("{}x{} {}", pile.count, pile.kind, pile.color));
    }
    for (winner, piles) in by_winner {
        let _ = writeln!(out, "{winner} won: {}", piles.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use cairn_proto::game::v1::BullfrogsSink;

    use super::*;

    fn pond(phase: &str, sink_at: &str) -> Seen {
        let slot = |at: &str, kind: &str| BullfrogsSlot {
            at: at.into(),
            kind: kind.into(),
            ..Default::default()
        };
        Seen {
            phase: phase.into(),
            table: vec![slot("0,0", "log"), slot("1,0", "pad3")],
            sink: Some(BullfrogsSink {
                at: sink_at.into(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn labels(public: &Seen) -> Vec<String> {
        public
            .table
            .iter()
            .map(|slot| slot_label(public, slot))
            .collect()
    }

    #[test]
    fn the_log_is_not_marked_scored_before_anything_is_scored() {
        assert_eq!(labels(&pond("play", "0,0"))[0], "LOG");
    }

    #[test]
    fn a_pad_scored_earlier_keeps_no_mark_once_the_jumps_are_over() {
        for phase in ["play", "actions", "slide", "choose_score"] {
            let shown = labels(&pond(phase, "1,0"));
            assert!(
                shown.iter().all(|label| !label.contains('!')),
                "{phase}: {shown:?}"
            );
        }
    }

    #[test]
    fn the_pad_being_scored_is_marked_while_its_pieces_jump() {
        let shown = labels(&pond("jump", "1,0"));
        assert_eq!(shown[0], "LOG");
        assert!(shown[1].ends_with('!'), "{shown:?}");
        assert_eq!(labels(&pond("jump", "0,0"))[0], "LOG!");
    }
}
