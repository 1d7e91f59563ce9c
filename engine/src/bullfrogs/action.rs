//! Bullfrogs decisions and their text forms, e.g. `play pad3 at -1,1`,
//! `recruit frog at 0,1`, `move frog from 2,0 to 0,1`,
//! `sabotage blue from 0,1 to 1,1`, `stop`, `score 1,1`,
//! `jump green frog to 0,1`, `marker to 1,0`, `slide 2,-1 to 1,0`.

use std::fmt;
use std::str::FromStr;

use super::cards::{deck_kind_by_name, pad_kind, COLOR_NAMES};
use super::grid::Pos;
use crate::game::ParseActionError;
use crate::text::write_all;

/// A frog or a bullfrog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Piece {
    Frog,
    Bullfrog,
}

impl Piece {
    fn name(self) -> &'static str {
        match self {
            Piece::Frog => "frog",
            Piece::Bullfrog => "bullfrog",
        }
    }
}

/// One decision of the seat to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Play a hand card of this kind (index into `PAD_KINDS`) at a cell.
    Play { kind: u8, at: Pos },
    /// Recruit a piece from supply onto a card.
    Recruit { piece: Piece, at: Pos },
    /// Recruit with an empty supply: move one of one's frogs between pads.
    MoveFrog { from: Pos, to: Pos },
    /// Jump an opponent's frog of `color` from a card to an adjacent one.
    Sabotage { color: u8, from: Pos, to: Pos },
    /// End the action step early.
    Stop,
    /// Score this full pad next.
    Score { at: Pos },
    /// Jump a piece of `color` from the sinking pad to a neighbour.
    Jump { color: u8, piece: Piece, to: Pos },
    /// Solo: put Isaac's marker on this card.
    Marker { to: Pos },
    /// Slide a disconnected card.
    Slide { from: Pos, to: Pos },
}

impl fmt::Display for Action {
    // Written piece by piece rather than with `write!` (see `crate::text`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let color_name = |color: u8| COLOR_NAMES[color as usize];
        match *self {
            Action::Play { kind, at } => {
                write_all(f, &["play ", pad_kind(kind).name, " at "])?;
                at.fmt(f)
            }
            Action::Recruit { piece, at } => {
                write_all(f, &["recruit ", piece.name(), " at "])?;
                at.fmt(f)
            }
            Action::MoveFrog { from, to } => {
                f.write_str("move frog from ")?;
                from_to(f, from, to)
            }
            Action::Sabotage { color, from, to } => {
                write_all(f, &["sabotage ", color_name(color), " from "])?;
                from_to(f, from, to)
            }
            Action::Stop => f.write_str("stop"),
            Action::Score { at } => {
                f.write_str("score ")?;
                at.fmt(f)
            }
            Action::Jump { color, piece, to } => {
                write_all(f, &["jump ", color_name(color), " ", piece.name(), " to "])?;
                to.fmt(f)
            }
            Action::Marker { to } => {
                f.write_str("marker to ")?;
                to.fmt(f)
            }
            Action::Slide { from, to } => {
                f.write_str("slide ")?;
                from_to(f, from, to)
            }
        }
    }
}

/// `FROM to TO`, the end of a move's text.
fn from_to(f: &mut fmt::Formatter<'_>, from: Pos, to: Pos) -> fmt::Result {
    fmt::Display::fmt(&from, f)?;
    f.write_str(" to ")?;
    fmt::Display::fmt(&to, f)
}

fn parse_pos(text: &str, word: &str) -> Result<Pos, ParseActionError> {
    word.parse().map_err(|_| {
        ParseActionError::new(text, "expected a cell `x,y` with coordinates within 46")
    })
}

fn parse_color(text: &str, word: &str) -> Result<u8, ParseActionError> {
    COLOR_NAMES
        .iter()
        .position(|c| *c == word)
        .map(|c| c as u8)
        .ok_or_else(|| ParseActionError::new(text, "unknown color"))
}

fn parse_piece(text: &str, word: &str) -> Result<Piece, ParseActionError> {
    match word {
        "frog" => Ok(Piece::Frog),
        "bullfrog" => Ok(Piece::Bullfrog),
        _ => Err(ParseActionError::new(text, "expected `frog` or `bullfrog`")),
    }
}

impl FromStr for Action {
    type Err = ParseActionError;

    fn from_str(text: &str) -> Result<Action, ParseActionError> {
        let mut words = [""; 7];
        let mut n_words = 0;
        for word in text.split_whitespace() {
            if n_words == words.len() {
                return Err(ParseActionError::new(text, "too many words"));
            }
            words[n_words] = word;
            n_words += 1;
        }
        let pos = |word: &str| parse_pos(text, word);
        match &words[..n_words] {
            ["play", kind, "at", at] => {
                let kind = deck_kind_by_name(kind)
                    .ok_or_else(|| ParseActionError::new(text, "unknown lily pad kind"))?;
                Ok(Action::Play { kind, at: pos(at)? })
            }
            ["recruit", piece, "at", at] => Ok(Action::Recruit {
                piece: parse_piece(text, piece)?,
                at: pos(at)?,
            }),
            ["move", "frog", "from", from, "to", to] => Ok(Action::MoveFrog {
                from: pos(from)?,
                to: pos(to)?,
            }),
            ["sabotage", color, "from", from, "to", to] => Ok(Action::Sabotage {
                color: parse_color(text, color)?,
                from: pos(from)?,
                to: pos(to)?,
            }),
            ["stop"] => Ok(Action::Stop),
            ["score", at] => Ok(Action::Score { at: pos(at)? }),
            ["jump", color, piece, "to", to] => Ok(Action::Jump {
                color: parse_color(text, color)?,
                piece: parse_piece(text, piece)?,
                to: pos(to)?,
            }),
            ["marker", "to", to] => Ok(Action::Marker { to: pos(to)? }),
            ["slide", from, "to", to] => Ok(Action::Slide {
                from: pos(from)?,
                to: pos(to)?,
            }),
            _ => Err(ParseActionError::new(text, "not a bullfrogs action")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bullfrogs::cards::N_PAD_KINDS;

    /// The text forms as `write!` gave them before `fmt` was written piece
    /// by piece: the two must agree on every kind, color, piece and cell.
    fn text_by_format_macro(action: Action) -> String {
        let cell = |pos: Pos| format!("{},{}", pos.x, pos.y);
        match action {
            Action::Play { kind, at } => format!("play {} at {}", pad_kind(kind).name, cell(at)),
            Action::Recruit { piece, at } => format!("recruit {} at {}", piece.name(), cell(at)),
            Action::MoveFrog { from, to } => {
                format!("move frog from {} to {}", cell(from), cell(to))
            }
            Action::Sabotage { color, from, to } => format!(
                "sabotage {} from {} to {}",
                COLOR_NAMES[color as usize],
                cell(from),
                cell(to)
            ),
            Action::Stop => "stop".into(),
            Action::Score { at } => format!("score {}", cell(at)),
            Action::Jump { color, piece, to } => format!(
                "jump {} {} to {}",
                COLOR_NAMES[color as usize],
                piece.name(),
                cell(to)
            ),
            Action::Marker { to } => format!("marker to {}", cell(to)),
            Action::Slide { from, to } => format!("slide {} to {}", cell(from), cell(to)),
        }
    }

    #[test]
    fn every_action_is_written_as_the_format_macro_wrote_it() {
        let coordinates = [i8::MIN, -46, -10, -9, -1, 0, 1, 9, 10, 46, i8::MAX];
        let cells: Vec<Pos> = coordinates
            .iter()
            .flat_map(|&x| coordinates.map(|y| Pos::new(x, y)))
            .collect();
        let mut actions = vec![Action::Stop];
        for &at in &cells {
            actions.extend([Action::Score { at }, Action::Marker { to: at }]);
            actions.extend((0..N_PAD_KINDS as u8).map(|kind| Action::Play { kind, at }));
            for piece in [Piece::Frog, Piece::Bullfrog] {
                actions.push(Action::Recruit { piece, at });
                actions.extend((0..COLOR_NAMES.len() as u8).map(|color| Action::Jump {
                    color,
                    piece,
                    to: at,
                }));
            }
            for to in [Pos::LOG, Pos::new(-3, 12)] {
                actions.extend([
                    Action::MoveFrog { from: at, to },
                    Action::Slide { from: at, to },
                    Action::Slide { from: to, to: at },
                ]);
                actions.extend((0..COLOR_NAMES.len() as u8).map(|color| Action::Sabotage {
                    color,
                    from: at,
                    to,
                }));
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
    fn every_action_kind_round_trips_through_its_text() {
        let actions = [
            Action::Play {
                kind: 1,
                at: Pos::new(-1, 1),
            },
            Action::Recruit {
                piece: Piece::Bullfrog,
                at: Pos::new(0, -12),
            },
            Action::MoveFrog {
                from: Pos::new(2, 0),
                to: Pos::new(0, 1),
            },
            Action::Sabotage {
                color: 1,
                from: Pos::new(0, 1),
                to: Pos::new(1, 1),
            },
            Action::Stop,
            Action::Score { at: Pos::new(1, 1) },
            Action::Jump {
                color: 2,
                piece: Piece::Frog,
                to: Pos::new(0, 0),
            },
            Action::Marker { to: Pos::new(1, 0) },
            Action::Slide {
                from: Pos::new(2, -1),
                to: Pos::new(1, 0),
            },
        ];
        for action in actions {
            let text = action.to_string();
            assert_eq!(text.parse::<Action>(), Ok(action), "{text}");
        }
        assert_eq!(
            Action::Play {
                kind: 1,
                at: Pos::new(-1, 1)
            }
            .to_string(),
            "play pad3 at -1,1"
        );
    }

    #[test]
    fn malformed_texts_are_refused() {
        for text in [
            "",
            "play start at 0,1",
            "play pad3 at 0;1",
            "jump purple frog to 0,0",
            "score 47,0",
            "recruit toad at 1,0",
        ] {
            assert!(text.parse::<Action>().is_err(), "{text}");
        }
    }
}
