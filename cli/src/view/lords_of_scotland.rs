//! Lords of Scotland as text: the recruit row, the supporters still to be
//! won, and per seat its score, supporters won, hand and followers.

use std::fmt::Write as _;

use cairn_proto::game::v1::LordsOfScotlandObservation as Seen;

use super::Board;

pub fn draw(board: &Board<'_, Seen>) -> String {
    let public = board.public();
    let mut out = String::new();
    let mut heading = format!(
        "skirmish {} · round {} · phase {} · initiative {}",
        public.skirmish,
        public.turn_round,
        public.phase,
        board.short_seat(public.initiative as usize)
    );
    if public.phase == "power" {
        let _ = write!(
            heading,
            " · power of {} as {}",
            public.power_card, public.power_clan
        );
    }
    if public.phase == "supporters" {
        let order: Vec<String> = public.supporter_order.iter().map(u32::to_string).collect();
        let _ = write!(
            heading,
            " · picking order {} ({} pick(s) left)",
            order.join(" "),
            public.picks_left
        );
    }
    let _ = writeln!(out, "{heading}");
    let recruits: Vec<String> = public
        .recruits
        .iter()
        .map(|slot| match slot.state.as_str() {
            "face_up" => format!("[{}]", slot.card),
            "face_down" => "[face down]".to_string(),
            _ => "[ ]".to_string(),
        })
        .collect();
    let _ = writeln!(out, "recruits: {}", recruits.join(" "));
    let _ = writeln!(out, "supporters to win: {}", list(&public.supporters));
    for seat in 0..board.n_seats() {
        seat_lines(board, seat, &mut out);
    }
    let _ = writeln!(
        out,
        "draw pile {} · discard: {}",
        public.draw_pile,
        list(&public.discard)
    );
    let marks = [
        ("takes two", &public.takes_two),
        ("stays", &public.stays),
        ("any clan", &public.any_clan),
        ("kept", &public.kept),
    ];
    let marks: Vec<String> = marks
        .iter()
        .filter(|(_, cards)| !cards.is_empty())
        .map(|(name, cards)| format!("{name}: {}", cards.join(" ")))
        .collect();
    if !marks.is_empty() {
        let _ = writeln!(out, "powers: {}", marks.join(" · "));
    }
    out
}

fn seat_lines(board: &Board<'_, Seen>, seat: usize, out: &mut String) {
    let public = board.public();
    let score = public.scores.get(seat).copied().unwrap_or(0);
    let won = public.won.get(seat).map_or(&[][..], |list| &list.cards);
    let to_move = if public.to_move == Some(seat as u32) {
        "  <- to move"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "{} · score {score} · won: {}{to_move}",
        board.seat_label(seat),
        list(won)
    );
    let n_hand = public.hand_sizes.get(seat).copied().unwrap_or(0);
    match board.seen_by(seat) {
        Some(seen) => {
            let _ = writeln!(out, "    hand ({n_hand}): {}", list(&seen.hand));
        }
        None => {
            let known = public
                .known_in_hand
                .get(seat)
                .map_or(&[][..], |list| &list.cards);
            let _ = writeln!(out, "    hand ({n_hand}): hidden; known: {}", list(known));
        }
    }
    let army = public.armies.get(seat);
    let face_up = army.map_or(&[][..], |army| &army.face_up);
    let face_down: Vec<String> = (0..army.map_or(0, |army| army.face_down.len()))
        .map(|index| face_down_card(board, seat, index))
        .collect();
    let _ = writeln!(
        out,
        "    followers: {} · face down: {}",
        list(face_up),
        if face_down.is_empty() {
            "-".to_string()
        } else {
            face_down.join(" ")
        }
    );
}

/// A face-down follower as this perspective knows it: named when some seat
/// it may see knows the card, `??` otherwise.
fn face_down_card(board: &Board<'_, Seen>, seat: usize, index: usize) -> String {
    (0..board.n_seats())
        .filter_map(|viewer| board.seen_by(viewer))
        .filter_map(|seen| seen.armies.get(seat)?.face_down.get(index))
        .find(|card| !card.is_empty())
        .cloned()
        .unwrap_or_else(|| "??".to_string())
}

fn list(cards: &[String]) -> String {
    if cards.is_empty() {
        "-".to_string()
    } else {
        cards.join(" ")
    }
}
