//! A simple greedy Bullfrogs bot: recruit where it leads (filling a pad it
//! will win, with a bullfrog when that makes the difference), never fill a
//! pad for someone else, sabotage opponents' frogs, jump its own pieces to
//! the log and others' away from it, and play the cards with most actions.
//! No lookahead.

use crate::messages::BullfrogsSlot;
use crate::{best_action, bullfrogs_view, Bot, BullfrogsObservation, Request};
use cairn_engine::bullfrogs::cards::PAD_KINDS;
use cairn_engine::bullfrogs::grid::Pos;
use cairn_engine::bullfrogs::{Action, Piece};

/// Iterations per decision of `mcts-quick` in this game: the fewest that
/// beat greedy clearly, since every iteration lengthens the demo (figures
/// in docs/performance.md, "mcts-quick iterations").
pub const QUICK_ITERATIONS: u32 = 200;

/// The greedy bot.
#[derive(Debug, Clone, Copy, Default)]
pub struct GreedyBot;

/// The log's cell, where every jumped piece of ours scores.
const LOG: Pos = Pos::new(0, 0);

fn pad_kind(name: &str) -> Option<&'static cairn_engine::bullfrogs::cards::PadKind> {
    PAD_KINDS.iter().find(|kind| kind.name == name)
}

/// Strength of `color`'s pieces on a slot.
fn strength(slot: &BullfrogsSlot, color: usize) -> i32 {
    let count = |pieces: &[u32]| pieces.get(color).map_or(0, |&n| n as i32);
    count(&slot.frogs) + 2 * count(&slot.bullfrogs)
}

/// Recruiting a piece of `piece_strength` onto the card at `at`.
fn recruit_score(seen: &BullfrogsObservation, at: Pos, piece_strength: i32) -> i32 {
    let Some(slot) = seen.table.iter().find(|slot| slot.at.parse() == Ok(at)) else {
        return 0;
    };
    let Some(kind) = pad_kind(&slot.kind) else {
        return 0;
    };
    let ours = strength(slot, seen.seat as usize) + piece_strength;
    let best_other = (0..slot.frogs.len())
        .filter(|&c| c != seen.seat as usize)
        .map(|c| strength(slot, c))
        .max()
        .unwrap_or(0);
    let pieces: u32 = slot.frogs.iter().chain(&slot.bullfrogs).sum();
    if pieces + 1 < u32::from(kind.spaces) {
        // Bullfrogs are lost when their pad sinks: keep them for the finish.
        return if piece_strength == 2 {
            0
        } else {
            1 + i32::from(ours >= best_other)
        };
    }
    match ours.cmp(&best_other) {
        std::cmp::Ordering::Greater => 20 + i32::from(kind.victory_points) - piece_strength,
        std::cmp::Ordering::Equal => -2,
        std::cmp::Ordering::Less => -10,
    }
}

fn action_score(seen: &BullfrogsObservation, action: &str) -> i32 {
    let Ok(action) = action.parse::<Action>() else {
        return 0;
    };
    match action {
        Action::Recruit {
            piece: Piece::Frog,
            at,
        } => recruit_score(seen, at, 1),
        Action::Recruit {
            piece: Piece::Bullfrog,
            at,
        } => recruit_score(seen, at, 2),
        Action::Sabotage { to, .. } => {
            if to == LOG {
                1
            } else {
                2
            }
        }
        // Seat n plays colour n.
        Action::Jump { color, to, .. } => match (u32::from(color) == seen.seat, to == LOG) {
            (true, true) | (false, false) => 1,
            _ => 0,
        },
        Action::Play { kind, .. } => PAD_KINDS
            .get(usize::from(kind))
            .map_or(0, |kind| i32::from(kind.actions)),
        _ => 0,
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> String {
        "bullfrogs-greedy".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        match bullfrogs_view(request) {
            Some(seen) => best_action(request, |action| action_score(seen, action)),
            None => request.legal_actions.first().cloned().unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GameObservation, Observation};

    fn pad(at: &str, kind: &str, frogs: [u32; 2], bullfrogs: [u32; 2]) -> BullfrogsSlot {
        BullfrogsSlot {
            at: at.into(),
            kind: kind.into(),
            frogs: frogs.to_vec(),
            bullfrogs: bullfrogs.to_vec(),
            ..Default::default()
        }
    }

    fn request(table: Vec<BullfrogsSlot>, legal: &[&str]) -> Request {
        let seen = BullfrogsObservation {
            seat: 0,
            n_seats: 2,
            table,
            ..Default::default()
        };
        Request {
            decision_id: 1,
            observation: Some(Observation {
                game: Some(GameObservation::Bullfrogs(seen)),
            }),
            legal_actions: legal.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn it_fills_a_pad_it_wins_before_anything_else() {
        let table = vec![
            pad("1,0", "pad3", [1, 0], [0, 1]),
            pad("2,0", "pad5", [0, 0], [0, 0]),
        ];
        let legal = ["recruit frog at 1,0", "recruit frog at 2,0", "stop"];
        assert_eq!(
            GreedyBot.decide(&request(table.clone(), &legal)),
            "recruit frog at 2,0",
            "a frog only ties 1,0"
        );
        let legal = ["recruit frog at 2,0", "recruit bullfrog at 1,0", "stop"];
        assert_eq!(
            GreedyBot.decide(&request(table, &legal)),
            "recruit bullfrog at 1,0"
        );
    }

    #[test]
    fn it_never_fills_a_pad_for_an_opponent_and_stops_instead() {
        let table = vec![pad("1,0", "pad3", [0, 1], [0, 1])];
        assert_eq!(
            GreedyBot.decide(&request(table, &["recruit frog at 1,0", "stop"])),
            "stop"
        );
    }

    #[test]
    fn its_own_pieces_jump_to_the_log_and_others_away_from_it() {
        let table = vec![pad("1,0", "pad3", [1, 2], [0, 0])];
        let legal = ["jump blue frog to 0,0", "jump blue frog to 1,1"];
        assert_eq!(
            GreedyBot.decide(&request(table.clone(), &legal)),
            "jump blue frog to 1,1"
        );
        let legal = ["jump red frog to 1,1", "jump red frog to 0,0"];
        assert_eq!(
            GreedyBot.decide(&request(table, &legal)),
            "jump red frog to 0,0"
        );
    }
}
