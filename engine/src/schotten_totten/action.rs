//! Decisions and their stable text forms. Cards are named by face (`r7`,
//! `joker`, `mud`), stones by index 0..9.
//!
//! | action | text |
//! | --- | --- |
//! | play a clan card, elite troop or combat mode | `play r7 3`, `play joker 3`, `play mud 3` |
//! | play the Recruiter | `play recruiter` |
//! | Strategist: move own card / discard it | `strategist r5 3 7`, `strategist r5 3 discard` |
//! | Banshee: discard an opponent card | `banshee g5 3` |
//! | Traitor: take an opponent clan card | `traitor g5 3 7` |
//! | pass (no clan card can be played) | `pass` |
//! | claim a stone / stop claiming | `claim 3`, `done` |
//! | draw after playing (Tactics) | `draw clan`, `draw tactic` |
//! | Recruiter: draw / put back | `recruit clan`, `recruit tactic`, `return r7` |

use std::fmt::{self, Write};
use std::str::FromStr;

use super::cards::{parse_card, write_card_name};
use crate::game::ParseActionError;
use crate::text::write_number;

/// The clan deck or the tactic deck.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeckKind {
    Clan,
    Tactic,
}

impl DeckKind {
    fn name(self) -> &'static str {
        match self {
            DeckKind::Clan => "clan",
            DeckKind::Tactic => "tactic",
        }
    }

    fn parse(text: &str) -> Option<DeckKind> {
        match text {
            "clan" => Some(DeckKind::Clan),
            "tactic" => Some(DeckKind::Tactic),
            _ => None,
        }
    }
}

/// One decision of Schotten Totten. Cards are faces (see [`super::cards::face`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// A clan card, elite troop or combat mode onto a stone.
    Play {
        card: u8,
        stone: u8,
    },
    Recruiter,
    /// Move one of your cards to another stone (`to: Some`) or discard it.
    Strategist {
        card: u8,
        from: u8,
        to: Option<u8>,
    },
    Banshee {
        card: u8,
        stone: u8,
    },
    Traitor {
        card: u8,
        from: u8,
        to: u8,
    },
    Pass,
    Claim(u8),
    EndClaims,
    Draw(DeckKind),
    RecruitDraw(DeckKind),
    Return(u8),
}

impl fmt::Display for Action {
    // Written piece by piece rather than with `write!`: the runner formats
    // every legal action of every decision, and this is its largest cost.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let card_then = |f: &mut fmt::Formatter<'_>, verb: &str, card: u8| {
            f.write_str(verb)?;
            write_card_name(f, card)
        };
        let space_number = |f: &mut fmt::Formatter<'_>, number: u8| {
            f.write_char(' ')?;
            write_number(f, i32::from(number))
        };
        match *self {
            Action::Play { card, stone } => {
                card_then(f, "play ", card)?;
                space_number(f, stone)
            }
            Action::Recruiter => f.write_str("play recruiter"),
            Action::Strategist { card, from, to } => {
                card_then(f, "strategist ", card)?;
                space_number(f, from)?;
                match to {
                    Some(to) => space_number(f, to),
                    None => f.write_str(" discard"),
                }
            }
            Action::Banshee { card, stone } => {
                card_then(f, "banshee ", card)?;
                space_number(f, stone)
            }
            Action::Traitor { card, from, to } => {
                card_then(f, "traitor ", card)?;
                space_number(f, from)?;
                space_number(f, to)
            }
            Action::Pass => f.write_str("pass"),
            Action::Claim(stone) => {
                f.write_str("claim")?;
                space_number(f, stone)
            }
            Action::EndClaims => f.write_str("done"),
            Action::Draw(deck) => {
                f.write_str("draw ")?;
                f.write_str(deck.name())
            }
            Action::RecruitDraw(deck) => {
                f.write_str("recruit ")?;
                f.write_str(deck.name())
            }
            Action::Return(card) => card_then(f, "return ", card),
        }
    }
}

fn stone(text: &str, whole: &str) -> Result<u8, ParseActionError> {
    match text.parse::<u8>() {
        Ok(s) if s < 9 && text.len() == 1 => Ok(s),
        _ => Err(ParseActionError::new(whole, "a stone is a digit 0 to 8")),
    }
}

fn card(text: &str, whole: &str) -> Result<u8, ParseActionError> {
    parse_card(text).ok_or_else(|| ParseActionError::new(whole, "unknown card"))
}

impl FromStr for Action {
    type Err = ParseActionError;

    fn from_str(text: &str) -> Result<Action, ParseActionError> {
        let words: Vec<&str> = text.split(' ').collect();
        let action = match words.as_slice() {
            ["play", "recruiter"] => Action::Recruiter,
            ["play", c, s] => Action::Play {
                card: card(c, text)?,
                stone: stone(s, text)?,
            },
            ["strategist", c, from, "discard"] => Action::Strategist {
                card: card(c, text)?,
                from: stone(from, text)?,
                to: None,
            },
            ["strategist", c, from, to] => Action::Strategist {
                card: card(c, text)?,
                from: stone(from, text)?,
                to: Some(stone(to, text)?),
            },
            ["banshee", c, s] => Action::Banshee {
                card: card(c, text)?,
                stone: stone(s, text)?,
            },
            ["traitor", c, from, to] => Action::Traitor {
                card: card(c, text)?,
                from: stone(from, text)?,
                to: stone(to, text)?,
            },
            ["pass"] => Action::Pass,
            ["claim", s] => Action::Claim(stone(s, text)?),
            ["done"] => Action::EndClaims,
            ["draw", d] => Action::Draw(
                DeckKind::parse(d)
                    .ok_or_else(|| ParseActionError::new(text, "a deck is clan or tactic"))?,
            ),
            ["recruit", d] => Action::RecruitDraw(
                DeckKind::parse(d)
                    .ok_or_else(|| ParseActionError::new(text, "a deck is clan or tactic"))?,
            ),
            ["return", c] => Action::Return(card(c, text)?),
            _ => return Err(ParseActionError::new(text, "not a schotten-totten action")),
        };
        Ok(action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schotten_totten::cards::{card_name, N_CARDS};

    /// The text forms as `write!` gave them before `fmt` was written piece
    /// by piece: the two must agree on every card, stone and deck.
    fn text_by_format_macro(action: Action) -> String {
        match action {
            Action::Play { card, stone } => format!("play {} {stone}", card_name(card)),
            Action::Recruiter => "play recruiter".into(),
            Action::Strategist {
                card,
                from,
                to: Some(to),
            } => format!("strategist {} {from} {to}", card_name(card)),
            Action::Strategist {
                card,
                from,
                to: None,
            } => format!("strategist {} {from} discard", card_name(card)),
            Action::Banshee { card, stone } => format!("banshee {} {stone}", card_name(card)),
            Action::Traitor { card, from, to } => {
                format!("traitor {} {from} {to}", card_name(card))
            }
            Action::Pass => "pass".into(),
            Action::Claim(stone) => format!("claim {stone}"),
            Action::EndClaims => "done".into(),
            Action::Draw(deck) => format!("draw {}", deck.name()),
            Action::RecruitDraw(deck) => format!("recruit {}", deck.name()),
            Action::Return(card) => format!("return {}", card_name(card)),
        }
    }

    #[test]
    fn every_action_is_written_as_the_format_macro_wrote_it() {
        let mut actions = vec![Action::Recruiter, Action::Pass, Action::EndClaims];
        for deck in [DeckKind::Clan, DeckKind::Tactic] {
            actions.extend([Action::Draw(deck), Action::RecruitDraw(deck)]);
        }
        for card in 0..N_CARDS + 2 {
            actions.push(Action::Return(card));
            for stone in 0..10 {
                actions.extend([
                    Action::Play { card, stone },
                    Action::Banshee { card, stone },
                    Action::Claim(stone),
                ]);
                actions.push(Action::Strategist {
                    card,
                    from: stone,
                    to: None,
                });
                for to in [0, 8, 12] {
                    actions.extend([
                        Action::Strategist {
                            card,
                            from: stone,
                            to: Some(to),
                        },
                        Action::Traitor {
                            card,
                            from: stone,
                            to,
                        },
                    ]);
                }
            }
        }
        for action in actions {
            assert_eq!(
                action.to_string(),
                text_by_format_macro(action),
                "{action:?}"
            );
        }
    }

    #[test]
    fn every_action_form_round_trips() {
        for text in [
            "play r7 3",
            "play joker 0",
            "play mud 8",
            "play recruiter",
            "strategist r5 3 7",
            "strategist spy 3 discard",
            "banshee g5 3",
            "traitor g5 3 7",
            "pass",
            "claim 4",
            "done",
            "draw clan",
            "draw tactic",
            "recruit tactic",
            "return p9",
        ] {
            let action: Action = text.parse().unwrap();
            assert_eq!(action.to_string(), text);
        }
    }

    #[test]
    fn malformed_actions_are_refused_with_a_reason() {
        for text in [
            "",
            "play",
            "play r7 9",
            "play r7 03",
            "claim x",
            "draw both",
            "play q7 1",
            "pass now",
            "play  r7 3",
        ] {
            assert!(text.parse::<Action>().is_err(), "{text}");
        }
    }
}
