//! A simple greedy Schotten Totten bot: claim whatever can be claimed, and
//! otherwise play the clan card that best extends a formation already on
//! its side of a stone (same color, next strength, same strength), keeping
//! tactic cards back. No lookahead.

use crate::{best_action, schotten_totten_view, Bot, Request, SchottenTottenObservation};
use cairn_engine::schotten_totten::cards::{color, is_clan, parse_card, strength};
use cairn_engine::schotten_totten::{Action, DeckKind};

/// Iterations per decision of `mcts-quick` in this game: the fewest that
/// beat greedy clearly, since every iteration lengthens the demo (figures
/// in docs/performance.md, "mcts-quick iterations").
pub const QUICK_ITERATIONS: u32 = 250;

/// The greedy Schotten Totten bot.
#[derive(Debug, Clone, Copy, Default)]
pub struct GreedyBot;

/// A clan card's color and strength; `None` for a tactic card.
fn clan_card(card: u8) -> Option<(u8, i32)> {
    is_clan(card).then(|| (color(card), i32::from(strength(card))))
}

/// How well `card` goes with the cards already on our side of `stone`.
fn play_score(seen: &SchottenTottenObservation, card: u8, stone: u8) -> i32 {
    let Some((color, strength)) = clan_card(card) else {
        return -5;
    };
    let ours = seen
        .stones
        .get(usize::from(stone))
        .and_then(|s| s.sides.get(seen.seat as usize))
        .map_or(&[][..], |side| &side.cards[..]);
    let synergy: i32 = ours
        .iter()
        .filter_map(|other| parse_card(other).and_then(clan_card))
        .map(|(other_color, other_strength)| {
            let mut bonus = 0;
            if other_color == color {
                bonus += 6;
            }
            match (other_strength - strength).abs() {
                0 => bonus += 4,
                1 => bonus += 5,
                _ => {}
            }
            bonus
        })
        .sum();
    strength + synergy
}

fn action_score(seen: &SchottenTottenObservation, action: &str) -> i32 {
    let Ok(action) = action.parse::<Action>() else {
        return 0;
    };
    match action {
        Action::Claim(_) => 100,
        Action::Play { card, stone } => play_score(seen, card, stone),
        Action::Draw(DeckKind::Clan) => 1,
        Action::Pass => -100,
        Action::Strategist { .. }
        | Action::Banshee { .. }
        | Action::Traitor { .. }
        | Action::Recruiter => -10,
        _ => 0,
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> String {
        "schotten-totten-greedy".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        match schotten_totten_view(request) {
            Some(seen) => best_action(request, |action| action_score(seen, action)),
            None => request.legal_actions.first().cloned().unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{SchottenTottenSide, SchottenTottenStone};
    use crate::{GameObservation, Observation};

    fn request(our_cards_on_stone_0: &[&str], legal: &[&str]) -> Request {
        let side = |cards: &[&str]| SchottenTottenSide {
            cards: cards.iter().map(|c| c.to_string()).collect(),
        };
        let mut stones = vec![
            SchottenTottenStone {
                sides: vec![side(&[]), side(&[])],
                ..Default::default()
            };
            9
        ];
        stones[0].sides[0] = side(our_cards_on_stone_0);
        let seen = SchottenTottenObservation {
            seat: 0,
            stones,
            ..Default::default()
        };
        Request {
            decision_id: 1,
            observation: Some(Observation {
                game: Some(GameObservation::SchottenTotten(seen)),
            }),
            legal_actions: legal.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn it_claims_whenever_a_claim_is_legal() {
        assert_eq!(
            GreedyBot.decide(&request(&[], &["play r9 1", "claim 4", "done"])),
            "claim 4"
        );
    }

    #[test]
    fn it_extends_a_run_of_its_own_color_over_a_stronger_loose_card() {
        let legal = ["play p9 1", "play r5 0"];
        assert_eq!(
            GreedyBot.decide(&request(&["r4", "r6"], &legal)),
            "play r5 0"
        );
    }

    #[test]
    fn it_keeps_tactic_cards_back_and_falls_back_to_the_first_action_without_a_view() {
        assert_eq!(
            GreedyBot.decide(&request(&[], &["play joker 1", "play b1 2"])),
            "play b1 2"
        );
        let blind = Request {
            legal_actions: vec!["a".into(), "b".into()],
            ..Default::default()
        };
        assert_eq!(GreedyBot.decide(&blind), "a");
    }
}
