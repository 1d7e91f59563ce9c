//! The one public name of a game (issue 36): `TOURNAMENT/MATCH/GAME`, the
//! tournament's id, the match's number in its tournament and the game's
//! number in its match (both from 1, as the web pages number them). The
//! CLI, the web pages and their JSON all take and show it; a bare game id,
//! the older form, is still taken everywhere it was.

use std::fmt;

/// A game as a user names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameRef {
    /// The arena-wide game id (what `cairn match list` lists).
    Id(i64),
    Name(GameName),
}

/// `TOURNAMENT/MATCH/GAME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameName {
    pub tournament_id: i64,
    /// From 1: the match's index in its tournament plus one.
    pub match_number: i64,
    /// From 1: the game's index in its match plus one.
    pub game_number: i64,
}

impl GameName {
    /// The name of the game at `match_index` and `game_index` (from 0).
    pub fn of(tournament_id: i64, match_index: i64, game_index: i64) -> GameName {
        GameName {
            tournament_id,
            match_number: match_index + 1,
            game_number: game_index + 1,
        }
    }
}

impl fmt::Display for GameName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.tournament_id, self.match_number, self.game_number
        )
    }
}

impl std::str::FromStr for GameRef {
    type Err = String;

    /// `42` (a game id) or `3/12/2`; every number positive.
    fn from_str(text: &str) -> Result<GameRef, String> {
        let positive = |part: &str| {
            part.parse::<i64>()
                .ok()
                .filter(|n| *n > 0 && part.bytes().all(|b| b.is_ascii_digit()))
        };
        let parts: Vec<&str> = text.split('/').collect();
        let bad = || {
            format!(
                "`{text}` names no game: write TOURNAMENT/MATCH/GAME (e.g. 3/12/1) or a game id"
            )
        };
        match parts[..] {
            [id] => positive(id).map(GameRef::Id).ok_or_else(bad),
            [t, m, g] => match (positive(t), positive(m), positive(g)) {
                (Some(tournament_id), Some(match_number), Some(game_number)) => {
                    Ok(GameRef::Name(GameName {
                        tournament_id,
                        match_number,
                        game_number,
                    }))
                }
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_and_a_bare_id_both_name_a_game_and_a_name_reads_back_as_written() {
        let name: GameRef = "3/12/2".parse().unwrap();
        assert_eq!(name, GameRef::Name(GameName::of(3, 11, 1)));
        assert_eq!(GameName::of(3, 11, 1).to_string(), "3/12/2");
        assert_eq!("42".parse::<GameRef>(), Ok(GameRef::Id(42)));
    }

    #[test]
    fn zero_negative_signed_partial_and_huge_parts_name_no_game() {
        for text in [
            "",
            "0",
            "-1",
            "+3",
            "3/12",
            "3/0/1",
            "3/1/1/1",
            "a/b/c",
            "3//1",
            " 3/1/1",
            "99999999999999999999",
        ] {
            let parsed = text.parse::<GameRef>();
            assert!(parsed.is_err(), "{text:?}: {parsed:?}");
        }
    }
}
