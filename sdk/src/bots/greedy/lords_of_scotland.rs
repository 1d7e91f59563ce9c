//! A simple greedy Lords of Scotland bot: take the strongest supporter,
//! muster strong cards face up, recruit strong face-up cards (or a face-down
//! one when the hand runs low), hit other armies' strongest followers with
//! Wemyss and Fergusson, and always use a power. No lookahead.

use crate::{best_action, lords_of_scotland_view, Bot, LordsOfScotlandObservation, Request};
use cairn_engine::lords_of_scotland::cards::{card_by_name, card_name, strength};
use cairn_engine::lords_of_scotland::{Action, CardId, Target};

/// Iterations per decision of `mcts-quick` in this game: the fewest that
/// beat greedy clearly, since every iteration lengthens the demo (figures
/// in docs/performance.md, "mcts-quick iterations").
pub const QUICK_ITERATIONS: u32 = 1000;

/// The greedy bot.
#[derive(Debug, Clone, Copy, Default)]
pub struct GreedyBot;

/// A card's strength from its name (`makgill7`); a face-down card or an
/// unknown name counts as the average strength.
fn strength_of(name: &str) -> i32 {
    card_by_name(name).map_or(6, card_strength)
}

fn card_strength(card: CardId) -> i32 {
    i32::from(strength(card))
}

/// A follower's strength as far as we can see it (a face-down one counts as
/// the average).
fn target_strength(target: Target) -> i32 {
    match target {
        Target::FaceUp(card) => card_strength(card),
        Target::FaceDown { .. } => 6,
    }
}

/// Whether a follower named in a `swap` or `discard` is in our own army.
fn is_ours(seen: &LordsOfScotlandObservation, target: Target) -> bool {
    match target {
        Target::FaceDown { seat, .. } => u32::from(seat) == seen.seat,
        Target::FaceUp(card) => seen
            .armies
            .get(seen.seat as usize)
            .is_some_and(|army| army.face_up.iter().any(|up| up == card_name(card))),
    }
}

fn recruit_score(seen: &LordsOfScotlandObservation, slot: u8) -> i32 {
    let recruit = seen.recruits.get(usize::from(slot));
    let card_value = recruit.map_or(0, |recruit| 2 * strength_of(&recruit.card) - 8);
    // A short hand cannot keep an army growing for the rest of the skirmish.
    let short_hand_bonus = 3 * (3 - seen.hand.len() as i32).max(0);
    card_value + short_hand_bonus
}

fn action_score(seen: &LordsOfScotlandObservation, action: &str) -> i32 {
    let Ok(action) = action.parse::<Action>() else {
        return 0;
    };
    match action {
        Action::Support { card } => 100 + card_strength(card),
        Action::Exchange { supporter } => card_strength(supporter) - strength_of(&seen.power_card),
        Action::Muster { card, face_up } | Action::Also { card, face_up } => {
            2 * card_strength(card) + i32::from(face_up)
        }
        Action::Recruit { slot } => recruit_score(seen, slot),
        Action::Swap(target) if !is_ours(seen, target) => target_strength(target),
        Action::Discard(target) => {
            if is_ours(seen, target) {
                -target_strength(target)
            } else {
                target_strength(target)
            }
        }
        Action::Activate | Action::Copy(_) => 1,
        Action::Pass => -100,
        _ => 0,
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> String {
        "lords-of-scotland-greedy".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        match lords_of_scotland_view(request) {
            Some(seen) => best_action(request, |action| action_score(seen, action)),
            None => request.legal_actions.first().cloned().unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{LordsOfScotlandArmy, LordsOfScotlandRecruit};
    use crate::{GameObservation, Observation};

    fn request(seen: LordsOfScotlandObservation, legal: &[&str]) -> Request {
        Request {
            decision_id: 1,
            observation: Some(Observation {
                game: Some(GameObservation::LordsOfScotland(seen)),
            }),
            legal_actions: legal.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        }
    }

    fn hand(cards: &[&str]) -> LordsOfScotlandObservation {
        LordsOfScotlandObservation {
            hand: cards.iter().map(|c| c.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn it_takes_the_strongest_supporter() {
        let legal = ["support scott3", "support cochrane11", "support wemyss9"];
        assert_eq!(
            GreedyBot.decide(&request(hand(&[]), &legal)),
            "support cochrane11"
        );
    }

    #[test]
    fn it_musters_its_strongest_card_face_up_rather_than_recruit_a_weak_one() {
        let mut seen = hand(&["scott2", "makgill10", "wemyss4"]);
        seen.recruits = vec![LordsOfScotlandRecruit {
            state: "face_up".into(),
            card: "forsyth3".into(),
        }];
        let legal = [
            "recruit 0",
            "muster scott2 up",
            "muster makgill10 down",
            "muster makgill10 up",
        ];
        assert_eq!(
            GreedyBot.decide(&request(seen, &legal)),
            "muster makgill10 up"
        );
    }

    #[test]
    fn with_an_empty_hand_it_recruits_the_strongest_face_up_card() {
        let mut seen = hand(&[]);
        let face_up = |card: &str| LordsOfScotlandRecruit {
            state: "face_up".into(),
            card: card.into(),
        };
        seen.recruits = vec![
            face_up("scott5"),
            LordsOfScotlandRecruit {
                state: "face_down".into(),
                card: String::new(),
            },
            face_up("fergusson12"),
        ];
        assert_eq!(
            GreedyBot.decide(&request(seen, &["recruit 0", "recruit 1", "recruit 2"])),
            "recruit 2"
        );
    }

    #[test]
    fn wemyss_discards_another_armys_strongest_follower_never_its_own() {
        let mut seen = hand(&[]);
        seen.seat = 1;
        let army = |cards: &[&str]| LordsOfScotlandArmy {
            face_up: cards.iter().map(|c| c.to_string()).collect(),
            face_down: vec![],
        };
        seen.armies = vec![army(&["scott4", "cochrane9"]), army(&["makgill12"])];
        let legal = [
            "discard scott4",
            "discard cochrane9",
            "discard makgill12",
            "discard seat1/down0",
        ];
        assert_eq!(
            GreedyBot.decide(&request(seen, &legal)),
            "discard cochrane9"
        );
    }
}
