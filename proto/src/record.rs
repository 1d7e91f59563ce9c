//! The replay file: per game the engine's [`Replay`] tuple (game, options,
//! seed, seats, actions), the state-hash chain, the bot names by seat, the
//! forfeits and the final score. Reading one back means re-simulating it:
//! [`GameRecord::verify`] replays every action and checks every hash and
//! the score. Nothing timing-dependent is stored, so the same bots' moves
//! on the same seed give the same bytes whatever language the bots are in.

use std::path::Path;

use cairn_engine::forfeit::{referee_replay, FinalScore, Forfeit, RefereeError};
use cairn_engine::{GameOptions, Replay};
use serde::{Deserialize, Serialize};

/// The format tag written at the top of every replay file.
pub const REPLAY_FORMAT: &str = "cairn-replay-1";

/// A whole match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayFile {
    pub format: String,
    /// The index in its match of the first game held (an arena report
    /// holds one game of a match); absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_game_index: u64,
    pub games: Vec<GameRecord>,
}

fn is_zero(index: &u64) -> bool {
    *index == 0
}

/// One game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub game: String,
    pub options: GameOptions,
    pub seed: u64,
    /// The bot name at each seat.
    pub seats: Vec<String>,
    pub actions: Vec<String>,
    /// The state hash after each action, as 16 hex digits.
    pub hashes: Vec<String>,
    pub forfeits: Vec<Forfeit>,
    pub score: FinalScore,
}

/// Why a replay file does not hold up.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("not a replay file: {0}")]
    Format(#[from] serde_json::Error),
    #[error("unknown replay format `{0}` (expected {REPLAY_FORMAT})")]
    Version(String),
    #[error("game {game}: {source}")]
    Simulation { game: usize, source: RefereeError },
    #[error("game {game}: {what}")]
    Mismatch { game: usize, what: String },
}

impl ReplayFile {
    pub fn new(games: Vec<GameRecord>) -> ReplayFile {
        ReplayFile {
            format: REPLAY_FORMAT.to_string(),
            first_game_index: 0,
            games,
        }
    }

    pub fn to_json(&self) -> String {
        // Plain structs of strings, numbers and maps with string keys:
        // serialising them cannot fail.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    pub fn from_json(text: &str) -> Result<ReplayFile, RecordError> {
        let file: ReplayFile = serde_json::from_str(text)?;
        if file.format != REPLAY_FORMAT {
            return Err(RecordError::Version(file.format));
        }
        Ok(file)
    }

    pub fn write(&self, path: &Path) -> Result<(), RecordError> {
        std::fs::write(path, self.to_json()).map_err(|source| RecordError::Write {
            path: path.display().to_string(),
            source,
        })
    }

    pub fn read(path: &Path) -> Result<ReplayFile, RecordError> {
        let text = std::fs::read_to_string(path).map_err(|source| RecordError::Read {
            path: path.display().to_string(),
            source,
        })?;
        ReplayFile::from_json(&text)
    }

    /// Verifies every game by re-simulation.
    pub fn verify(&self) -> Result<(), RecordError> {
        self.games
            .iter()
            .enumerate()
            .try_for_each(|(index, game)| game.verify(index))
    }
}

impl GameRecord {
    pub fn replay(&self) -> Replay {
        Replay {
            game: self.game.clone(),
            options: self.options.clone(),
            seed: self.seed,
            n_seats: self.seats.len(),
            actions: self.actions.clone(),
        }
    }

    /// Re-referees the game (`index` names it in errors): every action
    /// must be legal, every hash must match, the forfeits must fit the play
    /// (see [`referee_replay`]), and the score must follow from them.
    pub fn verify(&self, index: usize) -> Result<(), RecordError> {
        let mismatch = |what: String| RecordError::Mismatch { game: index, what };
        if self.hashes.len() != self.actions.len() {
            return Err(mismatch(format!(
                "{} hashes for {} actions",
                self.hashes.len(),
                self.actions.len()
            )));
        }
        let refereed = referee_replay(&self.replay(), &self.forfeits).map_err(|source| {
            RecordError::Simulation {
                game: index,
                source,
            }
        })?;
        if let Some((at, (text, &hash))) = self
            .hashes
            .iter()
            .zip(&refereed.hashes)
            .enumerate()
            .find(|(_, (text, &hash))| **text != hash_text(hash))
        {
            let shown: String = text.chars().take(20).collect();
            return Err(mismatch(format!(
                "the hash after action {at} is {}, the record says `{shown}`",
                hash_text(hash)
            )));
        }
        if refereed.score != self.score {
            return Err(mismatch(format!(
                "the recorded score {:?} does not follow from the play ({:?})",
                self.score, refereed.score
            )));
        }
        Ok(())
    }
}

/// A hash as stored in a record.
pub fn hash_text(hash: u64) -> String {
    format!("{hash:016x}")
}
