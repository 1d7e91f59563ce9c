//! The replay file: per game the engine's [`Replay`] tuple (game, options,
//! seed, seats, actions), the state-hash chain, the bot names by seat, the
//! forfeits and the final score. Reading one back means re-simulating it:
//! [`GameRecord::verify`] replays every action and checks every hash and
//! the score. The one timing-dependent part is each decision's CPU time
//! (`cpu_us`, for the viewers): without it, the same bots' moves on the same
//! seed give the same bytes whatever language the bots are in.

use std::path::Path;

use cairn_engine::forfeit::{referee_replay, FinalScore, Forfeit, RefereeError};
use cairn_engine::{GameOptions, Replay};
use serde::{Deserialize, Serialize};

use crate::steps::{replay_steps, ReplaySteps, StepsError};

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
/// How an arena's replays name a seat: its bot and version, `name@version`
/// (the runner writes it, the arena checks it).
pub fn seat_label(bot_name: &str, version: i64) -> String {
    format!("{bot_name}@{version}")
}

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
    /// Per action, the CPU time in microseconds the acting seat's bot took to
    /// choose it: the clock the time control charges. `None` where the
    /// engine played for a seat that was out. Empty in replays written
    /// before times were kept, which still load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_us: Vec<Option<u64>>,
}

/// The most CPU time one decision may be recorded with: an hour, far above
/// any time control, so a larger figure is a runner's lie, not a slow bot.
pub const MAX_DECISION_CPU_US: u64 = 3_600_000_000;

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
        self.check_times().map_err(mismatch)?;
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

    /// The times must be absent or one per action, each at most
    /// [`MAX_DECISION_CPU_US`] (a negative one does not even parse).
    fn check_times(&self) -> Result<(), String> {
        if !self.cpu_us.is_empty() && self.cpu_us.len() != self.actions.len() {
            return Err(format!(
                "{} decision times for {} actions",
                self.cpu_us.len(),
                self.actions.len()
            ));
        }
        match self
            .cpu_us
            .iter()
            .enumerate()
            .find(|(_, cpu)| cpu.is_some_and(|cpu| cpu > MAX_DECISION_CPU_US))
        {
            Some((at, Some(cpu))) => Err(format!(
                "action {at} took {cpu} µs of CPU, more than the {MAX_DECISION_CPU_US} µs possible"
            )),
            _ => Ok(()),
        }
    }

    /// Every step of the game for the viewers, each decision with its time.
    pub fn steps(&self) -> Result<ReplaySteps, StepsError> {
        replay_steps(&self.replay()).map(|steps| steps.with_times(&self.cpu_us))
    }
}

/// A hash as stored in a record.
pub fn hash_text(hash: u64) -> String {
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use cairn_engine::forfeit::final_score;
    use cairn_engine::new_game;

    use super::*;

    /// A whole Schotten Totten game of first-legal actions, timed.
    fn timed_game() -> GameRecord {
        let mut state = new_game("schotten-totten", &GameOptions::new(), 2, 5).unwrap();
        let (mut actions, mut hashes) = (Vec::new(), Vec::new());
        while let Some(first) = state.legal_actions().into_iter().next() {
            state.apply_text(&first).unwrap();
            actions.push(first);
            hashes.push(hash_text(state.state_hash()));
        }
        GameRecord {
            game: "schotten-totten".into(),
            options: GameOptions::new(),
            seed: 5,
            seats: vec!["a".into(), "b".into()],
            cpu_us: (0..actions.len() as u64).map(|i| Some(i * 10)).collect(),
            actions,
            hashes,
            forfeits: Vec::new(),
            score: final_score("schotten-totten", state.outcome().as_ref(), 2, &[]),
        }
    }

    #[test]
    fn a_replay_keeps_each_decisions_time_and_one_without_times_still_loads() {
        let record = timed_game();
        let text = ReplayFile::new(vec![record.clone()]).to_json();
        let back = ReplayFile::from_json(&text).unwrap();
        assert_eq!(back.games[0], record);
        back.verify().unwrap();
        let steps = record.steps().unwrap();
        assert_eq!(steps.steps[2].cpu_us, Some(10));

        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        old["games"][0].as_object_mut().unwrap().remove("cpu_us");
        let old = ReplayFile::from_json(&old.to_string()).unwrap();
        assert!(old.games[0].cpu_us.is_empty());
        old.verify().unwrap();
        assert!(old.games[0]
            .steps()
            .unwrap()
            .steps
            .iter()
            .all(|s| s.cpu_us.is_none()));
    }

    #[test]
    fn negative_absurd_or_miscounted_times_are_refused() {
        let text = ReplayFile::new(vec![timed_game()]).to_json();
        let mut negative: serde_json::Value = serde_json::from_str(&text).unwrap();
        negative["games"][0]["cpu_us"][3] = (-5).into();
        assert!(ReplayFile::from_json(&negative.to_string()).is_err());
        negative["games"][0]["cpu_us"][3] = 1.5.into();
        assert!(ReplayFile::from_json(&negative.to_string()).is_err());

        let mut absurd = timed_game();
        absurd.cpu_us[4] = Some(MAX_DECISION_CPU_US + 1);
        let error = absurd.verify(0).unwrap_err().to_string();
        assert!(error.contains("action 4 took"), "{error}");
        absurd.cpu_us[4] = Some(MAX_DECISION_CPU_US);
        absurd.verify(0).unwrap();

        let mut short = timed_game();
        short.cpu_us.pop();
        let error = short.verify(0).unwrap_err().to_string();
        assert!(error.contains("decision times for"), "{error}");
    }
}
