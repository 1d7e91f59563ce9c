//! The decisions of Lords of Scotland and their text form.
//!
//! Cards are named as in the card table (`makgill7`, `bruce12a`); seats,
//! recruit slots and face-down positions count from 0. A face-down follower
//! is named by its place in its army (`seat2/down0`), never by its identity,
//! so naming it tells nobody what it is.
//!
//! | text | when |
//! |---|---|
//! | `recruit 3` | take the recruit in slot 3 into hand |
//! | `muster scott7 up`, `muster scott7 down` | play a card from hand into the army |
//! | `pass` | nothing else is possible (empty hand, no recruit left) |
//! | `skip` | leave a power unused |
//! | `activate` | use Forsyth, Cochrane, MacDonnell or Bruce |
//! | `copy cochrane` | Scott copies a face-up follower's clan power |
//! | `also wemyss3 down` | Makgill: muster another card |
//! | `exchange forsyth9` | Cockburn: swap with that supporter |
//! | `swap fergusson4`, `swap seat1/down0` | Fergusson: swap with that follower |
//! | `discard scott2`, `discard seat0/down1` | Wemyss: discard that follower |
//! | `support cochrane11` | take that supporter at the end of the skirmish |

use std::fmt;
use std::str::FromStr;

use super::cards::{card_by_name, card_name, CardId, Clan};
use crate::game::ParseActionError;
use crate::text::{write_all, write_number};

/// A follower picked as the target of Fergusson or Wemyss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A face-up follower, named by its card (its army follows).
    FaceUp(CardId),
    /// The `index`-th face-down follower of `seat`'s army, in play order.
    FaceDown { seat: u8, index: u8 },
}

/// One decision of the seat to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Recruit { slot: u8 },
    Muster { card: CardId, face_up: bool },
    Pass,
    Skip,
    Activate,
    Copy(Clan),
    Also { card: CardId, face_up: bool },
    Exchange { supporter: CardId },
    Swap(Target),
    Discard(Target),
    Support { card: CardId },
}

fn orientation(face_up: bool) -> &'static str {
    if face_up {
        "up"
    } else {
        "down"
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::FaceUp(card) => f.write_str(card_name(*card)),
            Target::FaceDown { seat, index } => {
                f.write_str("seat")?;
                write_number(f, i32::from(*seat))?;
                f.write_str("/down")?;
                write_number(f, i32::from(*index))
            }
        }
    }
}

impl fmt::Display for Action {
    // Written piece by piece rather than with `write!` (see `crate::text`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Recruit { slot } => {
                f.write_str("recruit ")?;
                write_number(f, i32::from(*slot))
            }
            Action::Muster { card, face_up } => write_all(
                f,
                &["muster ", card_name(*card), " ", orientation(*face_up)],
            ),
            Action::Pass => f.write_str("pass"),
            Action::Skip => f.write_str("skip"),
            Action::Activate => f.write_str("activate"),
            Action::Copy(clan) => write_all(f, &["copy ", clan.name()]),
            Action::Also { card, face_up } => {
                write_all(f, &["also ", card_name(*card), " ", orientation(*face_up)])
            }
            Action::Exchange { supporter } => write_all(f, &["exchange ", card_name(*supporter)]),
            Action::Swap(target) => {
                f.write_str("swap ")?;
                target.fmt(f)
            }
            Action::Discard(target) => {
                f.write_str("discard ")?;
                target.fmt(f)
            }
            Action::Support { card } => write_all(f, &["support ", card_name(*card)]),
        }
    }
}

fn parse_card(text: &str, word: Option<&str>) -> Result<CardId, ParseActionError> {
    word.and_then(card_by_name)
        .ok_or_else(|| ParseActionError::new(text, "expected a card such as `makgill7`"))
}

fn parse_orientation(text: &str, word: Option<&str>) -> Result<bool, ParseActionError> {
    match word {
        Some("up") => Ok(true),
        Some("down") => Ok(false),
        _ => Err(ParseActionError::new(text, "expected `up` or `down`")),
    }
}

fn parse_target(text: &str, word: Option<&str>) -> Result<Target, ParseActionError> {
    let word = word.ok_or_else(|| ParseActionError::new(text, "expected a follower"))?;
    if let Some((seat, index)) = word
        .strip_prefix("seat")
        .and_then(|rest| rest.split_once("/down"))
    {
        let bad = || ParseActionError::new(text, "expected `seatN/downK`");
        let seat = seat.parse::<u8>().map_err(|_| bad())?;
        let index = index.parse::<u8>().map_err(|_| bad())?;
        return Ok(Target::FaceDown { seat, index });
    }
    Ok(Target::FaceUp(parse_card(text, Some(word))?))
}

impl FromStr for Action {
    type Err = ParseActionError;

    fn from_str(text: &str) -> Result<Action, ParseActionError> {
        let mut words = text.split_whitespace();
        let verb = words
            .next()
            .ok_or_else(|| ParseActionError::new(text, "empty action"))?;
        let action = match verb {
            "recruit" => {
                let slot = words.next().and_then(|w| w.parse::<u8>().ok());
                Action::Recruit {
                    slot: slot.ok_or_else(|| {
                        ParseActionError::new(text, "expected a recruit slot number")
                    })?,
                }
            }
            "muster" => Action::Muster {
                card: parse_card(text, words.next())?,
                face_up: parse_orientation(text, words.next())?,
            },
            "also" => Action::Also {
                card: parse_card(text, words.next())?,
                face_up: parse_orientation(text, words.next())?,
            },
            "pass" => Action::Pass,
            "skip" => Action::Skip,
            "activate" => Action::Activate,
            "copy" => {
                let clan = words.next().and_then(Clan::from_name);
                Action::Copy(clan.ok_or_else(|| {
                    ParseActionError::new(text, "expected a clan such as `cochrane`")
                })?)
            }
            "exchange" => Action::Exchange {
                supporter: parse_card(text, words.next())?,
            },
            "swap" => Action::Swap(parse_target(text, words.next())?),
            "discard" => Action::Discard(parse_target(text, words.next())?),
            "support" => Action::Support {
                card: parse_card(text, words.next())?,
            },
            _ => return Err(ParseActionError::new(text, "unknown verb")),
        };
        match words.next() {
            Some(_) => Err(ParseActionError::new(
                text,
                "unexpected words after the action",
            )),
            None => Ok(action),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lords_of_scotland::cards::N_CARDS;

    /// The text forms as `write!` gave them before `fmt` was written piece
    /// by piece: the two must agree on every card, slot, seat and clan.
    fn text_by_format_macro(action: Action) -> String {
        let target = |target: Target| match target {
            Target::FaceUp(card) => card_name(card).to_string(),
            Target::FaceDown { seat, index } => format!("seat{seat}/down{index}"),
        };
        match action {
            Action::Recruit { slot } => format!("recruit {slot}"),
            Action::Muster { card, face_up } => {
                format!("muster {} {}", card_name(card), orientation(face_up))
            }
            Action::Pass => "pass".into(),
            Action::Skip => "skip".into(),
            Action::Activate => "activate".into(),
            Action::Copy(clan) => format!("copy {}", clan.name()),
            Action::Also { card, face_up } => {
                format!("also {} {}", card_name(card), orientation(face_up))
            }
            Action::Exchange { supporter } => format!("exchange {}", card_name(supporter)),
            Action::Swap(to) => format!("swap {}", target(to)),
            Action::Discard(to) => format!("discard {}", target(to)),
            Action::Support { card } => format!("support {}", card_name(card)),
        }
    }

    #[test]
    fn every_action_is_written_as_the_format_macro_wrote_it() {
        let mut actions = vec![Action::Pass, Action::Skip, Action::Activate];
        actions.extend(Clan::ALL.map(Action::Copy));
        for number in [0, 1, 4, 9, 10, 12, 255] {
            actions.push(Action::Recruit { slot: number });
            for index in [0, 3, 11, 200] {
                let face_down = Target::FaceDown {
                    seat: number,
                    index,
                };
                actions.extend([Action::Swap(face_down), Action::Discard(face_down)]);
            }
        }
        for card in 0..N_CARDS as CardId {
            for face_up in [true, false] {
                actions.extend([
                    Action::Muster { card, face_up },
                    Action::Also { card, face_up },
                ]);
            }
            let face_up = Target::FaceUp(card);
            actions.extend([
                Action::Exchange { supporter: card },
                Action::Support { card },
                Action::Swap(face_up),
                Action::Discard(face_up),
            ]);
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
    fn every_action_form_round_trips_through_text() {
        let makgill = card_by_name("makgill7").unwrap();
        let bruce = card_by_name("bruce12b").unwrap();
        let actions = [
            Action::Recruit { slot: 3 },
            Action::Muster {
                card: makgill,
                face_up: true,
            },
            Action::Muster {
                card: bruce,
                face_up: false,
            },
            Action::Pass,
            Action::Skip,
            Action::Activate,
            Action::Copy(Clan::Cochrane),
            Action::Also {
                card: makgill,
                face_up: false,
            },
            Action::Exchange { supporter: bruce },
            Action::Swap(Target::FaceUp(makgill)),
            Action::Swap(Target::FaceDown { seat: 2, index: 1 }),
            Action::Discard(Target::FaceDown { seat: 0, index: 0 }),
            Action::Support { card: makgill },
        ];
        for action in actions {
            let text = action.to_string();
            assert_eq!(text.parse::<Action>(), Ok(action), "{text}");
        }
        assert_eq!(
            Action::Muster {
                card: makgill,
                face_up: true
            }
            .to_string(),
            "muster makgill7 up"
        );
        assert_eq!(
            Action::Swap(Target::FaceDown { seat: 2, index: 1 }).to_string(),
            "swap seat2/down1"
        );
    }

    #[test]
    fn malformed_text_is_refused() {
        for text in [
            "",
            "recruit",
            "recruit x",
            "muster makgill7",
            "muster nobody up",
            "copy nobody",
            "swap seatx/down1",
            "skip now",
            "dance",
        ] {
            assert!(text.parse::<Action>().is_err(), "{text}");
        }
    }
}
