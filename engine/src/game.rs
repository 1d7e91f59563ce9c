//! The contract every game implements, in the spirit of OpenSpiel's `State`:
//! whose turn it is, the ordered legal actions, `apply` that leaves the state
//! unchanged on error, per-seat observations, the outcome, and a stable hash.

use std::collections::BTreeMap;
use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::str::FromStr;

use crate::descriptor::GameDescriptor;
use crate::hash::stable_hash;
use crate::rng::Rng;

/// A seat at the table, `0..n_seats`.
pub type Seat = usize;

/// Game options as `key=value` pairs, e.g. `tactics=true`. Each game parses
/// them into its own typed options and refuses keys it does not know.
pub type GameOptions = BTreeMap<String, String>;

/// Why a game could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("unknown game `{0}` (known: {known})", known = crate::registry::game_ids().collect::<Vec<_>>().join(", "))]
    UnknownGame(String),
    /// `known` lists the game's option keys (from its descriptor).
    #[error("unknown option `{key}` for {game}; known: {known}")]
    UnknownOption {
        game: &'static str,
        key: String,
        known: String,
    },
    #[error("{game}: option `{key}` cannot be `{value}`: {expected}")]
    BadOption {
        game: &'static str,
        key: String,
        value: String,
        expected: String,
    },
    #[error("{game} is played by {allowed}, not {n_seats}")]
    SeatCount {
        game: &'static str,
        n_seats: usize,
        allowed: String,
    },
}

/// An action that is not legal in the current state; the state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal action `{action}`")]
pub struct IllegalAction {
    pub action: String,
}

/// Text that does not spell an action of this game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read `{text}` as an action: {why}")]
pub struct ParseActionError {
    pub text: String,
    pub why: &'static str,
}

impl ParseActionError {
    pub fn new(text: &str, why: &'static str) -> ParseActionError {
        ParseActionError {
            text: text.to_string(),
            why,
        }
    }
}

/// An observation no state of this game gives (from a buggy or hostile
/// source): it cannot be completed into a state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot complete the observation into a state: {0}")]
pub struct DeterminizeError(pub &'static str);

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The rules ended it.
    Finished,
    /// The safety cap on decisions stopped it; scored as a draw. A correct
    /// engine under legal play never gets here.
    MoveLimit,
}

/// The result of a finished game: per-seat scores and ranks (1 is best;
/// tied seats share a rank).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub scores: Vec<i32>,
    pub ranks: Vec<u32>,
    pub reason: EndReason,
}

impl Outcome {
    /// Ranks seats by `keys` (greater is better, compared lexicographically);
    /// equal keys share a rank.
    pub fn ranked_by<K: Ord>(scores: Vec<i32>, keys: &[K], reason: EndReason) -> Outcome {
        let ranks = keys
            .iter()
            .map(|k| 1 + keys.iter().filter(|other| *other > k).count() as u32)
            .collect();
        Outcome {
            scores,
            ranks,
            reason,
        }
    }

    /// Ranks seats by score alone.
    pub fn from_scores(scores: Vec<i32>, reason: EndReason) -> Outcome {
        let keys = scores.clone();
        Outcome::ranked_by(scores, &keys, reason)
    }

    /// Everyone shares first place.
    pub fn draw(n_seats: usize, reason: EndReason) -> Outcome {
        Outcome::from_scores(vec![0; n_seats], reason)
    }
}

/// One game's rules. A match is fully described by (game, options, seed,
/// seat count, actions): see [`crate::replay`].
pub trait Game: Clone + Debug + Hash + Send + Sync + 'static {
    /// A decision, with a stable human-readable text form
    /// (`Display` / `FromStr` round-trip).
    type Action: Clone + Debug + Eq + Hash + Display + FromStr<Err = ParseActionError> + Send + Sync;
    /// What one seat may know of the state.
    type Observation: Clone + Debug + Eq + Send;

    /// What the game declares about itself (see [`crate::descriptor`]).
    const DESCRIPTOR: &'static GameDescriptor;

    /// The game id used on the wire and the command line.
    const ID: &'static str = Self::DESCRIPTOR.id;

    /// The initial state; all chance comes from `seed`.
    fn new(options: &GameOptions, n_seats: usize, seed: u64) -> Result<Self, SetupError>;

    fn n_seats(&self) -> usize;

    /// The seat to decide next, `None` once the game is over.
    fn current_seat(&self) -> Option<Seat>;

    fn is_terminal(&self) -> bool {
        self.current_seat().is_none()
    }

    /// The legal actions of the current seat, deterministic and in a fixed
    /// order, non-empty unless the game is over. Appends to `out`.
    fn legal_actions(&self, out: &mut Vec<Self::Action>);

    fn is_legal(&self, action: &Self::Action) -> bool;

    /// Applies an action known to be legal (see [`Game::is_legal`]).
    fn apply_legal(&mut self, action: &Self::Action);

    /// Applies `action`, or refuses it and leaves the state unchanged.
    fn apply(&mut self, action: &Self::Action) -> Result<(), IllegalAction> {
        if !self.is_legal(action) {
            return Err(IllegalAction {
                action: action.to_string(),
            });
        }
        self.apply_legal(action);
        Ok(())
    }

    /// Everything `seat` may know, and nothing more.
    fn observation(&self, seat: Seat) -> Self::Observation;

    /// The result, once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// A state that `viewer` cannot tell apart from this one: everything
    /// hidden from `viewer` (other hands, deck order, future chance) is
    /// redrawn at random. Bots use it for sampling; tests use it to prove
    /// observations do not leak.
    fn resample_hidden(&self, viewer: Seat, rng: &mut Rng) -> Self;

    /// A whole state that the observing seat cannot tell from the real one,
    /// built from its latest observation alone, with everything hidden from
    /// it (other hands, deck order, face-down cards, future chance) drawn at
    /// random among the completions consistent with it. An observation
    /// carries everything a player with a perfect memory of the game knows,
    /// so the events before it add nothing; this is what a searching bot
    /// samples from (determinization).
    fn determinize(seen: &Self::Observation, rng: &mut Rng) -> Result<Self, DeterminizeError>;

    /// What `viewer` learns when the current seat takes `action` (called
    /// before it is applied): the action itself unless part of it is hidden.
    fn action_seen_by(&self, action: &Self::Action, _viewer: Seat) -> String {
        action.to_string()
    }

    /// What the action just applied made public to every seat beyond the
    /// action itself, as text (the armies revealed at the end of a Lords of
    /// Scotland skirmish); `None` after most actions.
    fn announcement(&self) -> Option<String> {
        None
    }

    /// A hash of the whole state that is the same in every run of this build.
    fn state_hash(&self) -> u64 {
        stable_hash(self)
    }
}

/// Parses `key=value` words into options.
pub fn parse_options<'a>(words: impl IntoIterator<Item = &'a str>) -> Result<GameOptions, String> {
    let mut options = GameOptions::new();
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("option `{word}` is not of the form key=value"))?;
        if key.is_empty() {
            return Err(format!("option `{word}` has an empty key"));
        }
        if options.insert(key.to_string(), value.to_string()).is_some() {
            return Err(format!("option `{key}` is given twice"));
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_places_on_equal_keys() {
        let outcome = Outcome::from_scores(vec![3, 7, 3, 1], EndReason::Finished);
        assert_eq!(outcome.ranks, vec![2, 1, 2, 4]);
        assert_eq!(Outcome::draw(2, EndReason::MoveLimit).ranks, vec![1, 1]);
    }

    #[test]
    fn options_parse_and_refuse_a_key_given_twice() {
        let options = parse_options(["tactics=true", "rounds=3"]).unwrap();
        assert_eq!(options.get("rounds").map(String::as_str), Some("3"));
        assert_eq!(
            parse_options(["tactics=true", "tactics=false"]),
            Err("option `tactics` is given twice".to_string())
        );
        assert!(parse_options(["novalue"]).is_err());
        assert!(parse_options(["=true"]).is_err());
    }
}
