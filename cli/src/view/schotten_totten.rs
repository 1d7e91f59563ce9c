//! Schotten Totten as text: the nine stones (numbered 0 to 8, as in the
//! action texts) with both sides and claims,
//! the hands, the decks, the discard and the tactics played.

use std::fmt::Write as _;

use cairn_proto::game::v1::SchottenTottenObservation as Seen;

use super::{Board, Perspective};

pub fn draw(board: &Board<'_, Seen>) -> String {
    let public = board.public();
    let mut out = String::new();
    // `round` counts from 0 and passes the last one when the match is over.
    let rounds = public.rounds.max(1);
    let mut heading = format!("round {}/{rounds}", (public.round + 1).min(rounds));
    if public.rounds > 1 {
        let points: Vec<String> = public.match_points.iter().map(i32::to_string).collect();
        let _ = write!(heading, " (match points {})", points.join(" : "));
    }
    let _ = write!(heading, " · phase {}", public.phase);
    if public.pending > 0 {
        let _ = write!(heading, " ({} pending)", public.pending);
    }
    let _ = writeln!(out, "{heading}");
    let _ = writeln!(
        out,
        "{:>5}  {:<22}  {:<22}  claim",
        "stone",
        board.seat_label(0),
        board.seat_label(1)
    );
    for (index, stone) in public.stones.iter().enumerate() {
        let side = |seat: usize| {
            stone
                .sides
                .get(seat)
                .map_or(String::new(), |side| side.cards.join(" "))
        };
        let mut notes = Vec::new();
        if let Some(owner) = stone.owner {
            notes.push(format!("won by {}", board.short_seat(owner as usize)));
        }
        if let Some(first) = stone.first_complete {
            notes.push(format!("seat {first} completed first"));
        }
        if stone.bluff {
            notes.push("bluff".to_string());
        }
        if stone.mud {
            notes.push("mud".to_string());
        }
        let claim = if notes.is_empty() {
            "·".to_string()
        } else {
            notes.join(", ")
        };
        let _ = writeln!(
            out,
            "{:>5}  {:<22}  {:<22}  {claim}",
            index,
            side(0),
            side(1)
        );
    }
    for seat in 0..board.n_seats() {
        let _ = writeln!(out, "{}", hand_line(board, seat));
    }
    let mut decks = format!("clan deck {}", public.clan_deck);
    if public.tactics {
        let _ = write!(decks, " · tactic deck {}", public.tactic_deck);
        let played: Vec<String> = public.tactics_played.iter().map(u32::to_string).collect();
        let _ = write!(decks, " · tactics played {}", played.join(" : "));
    }
    let _ = writeln!(out, "{decks}");
    if !public.discard.is_empty() {
        let _ = writeln!(out, "discard: {}", public.discard.join(" "));
    }
    out
}

fn hand_line(board: &Board<'_, Seen>, seat: usize) -> String {
    let label = board.seat_label(seat);
    if let Some(seen) = board.seen_by(seat) {
        return format!("{label} hand: {}", seen.hand.join(" "));
    }
    // Only the counts of a hand this perspective cannot see.
    let viewer = match board.perspective {
        Perspective::Seat(viewer) => viewer,
        Perspective::Omniscient => 0,
    };
    let seen = board.views.get(viewer);
    let (clan, tactic) = seen.map_or((0, 0), |s| (s.opponent_hand_clan, s.opponent_hand_tactic));
    let tactics = seen.is_some_and(|s| s.tactics);
    if tactics {
        format!("{label} hand: {clan} clan, {tactic} tactic card(s), hidden")
    } else {
        format!("{label} hand: {clan} card(s), hidden")
    }
}
