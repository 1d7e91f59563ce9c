//! Games by id behind one object-safe interface, so the runner and the arena
//! handle every game the same way and a new game plugs in here alone.

use std::any::Any;
use std::fmt::Debug;

use crate::bullfrogs::Bullfrogs;
use crate::game::{Game, GameOptions, IllegalAction, Outcome, Seat, SetupError};
use crate::lords_of_scotland::LordsOfScotland;
use crate::schotten_totten::SchottenTotten;

/// The ids of every game the engine referees.
pub const GAME_IDS: &[&str] = &[SchottenTotten::ID, LordsOfScotland::ID, Bullfrogs::ID];

/// A game of any kind, with actions in their text form.
pub trait AnyGame: Debug + Send + Sync {
    fn game_id(&self) -> &'static str;
    fn n_seats(&self) -> usize;
    fn current_seat(&self) -> Option<Seat>;
    fn legal_actions(&self) -> Vec<String>;
    /// Reads and applies an action's text form; refuses without change.
    fn apply_text(&mut self, action: &str) -> Result<(), IllegalAction>;
    /// What `viewer` learns of the current seat's `action` (see [`Game::action_seen_by`]).
    fn action_seen_by(&self, action: &str, viewer: Seat) -> Option<String>;
    fn outcome(&self) -> Option<Outcome>;
    /// What the last action made public beyond itself (see [`Game::announcement`]).
    fn announcement(&self) -> Option<String>;
    fn state_hash(&self) -> u64;
    fn clone_box(&self) -> Box<dyn AnyGame>;
    /// The concrete state, for code that knows the game (observation encoders).
    fn as_any(&self) -> &dyn Any;
}

impl<G: Game> AnyGame for G {
    fn game_id(&self) -> &'static str {
        G::ID
    }

    fn n_seats(&self) -> usize {
        Game::n_seats(self)
    }

    fn current_seat(&self) -> Option<Seat> {
        Game::current_seat(self)
    }

    fn legal_actions(&self) -> Vec<String> {
        let mut actions = Vec::new();
        Game::legal_actions(self, &mut actions);
        actions.iter().map(ToString::to_string).collect()
    }

    fn apply_text(&mut self, action: &str) -> Result<(), IllegalAction> {
        let parsed: G::Action = action.parse().map_err(|_| IllegalAction {
            action: action.to_string(),
        })?;
        Game::apply(self, &parsed)
    }

    fn action_seen_by(&self, action: &str, viewer: Seat) -> Option<String> {
        let parsed: G::Action = action.parse().ok()?;
        Some(Game::action_seen_by(self, &parsed, viewer))
    }

    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }

    fn announcement(&self) -> Option<String> {
        Game::announcement(self)
    }

    fn state_hash(&self) -> u64 {
        Game::state_hash(self)
    }

    fn clone_box(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Clone for Box<dyn AnyGame> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Sets up a game by id.
pub fn new_game(
    game_id: &str,
    options: &GameOptions,
    n_seats: usize,
    seed: u64,
) -> Result<Box<dyn AnyGame>, SetupError> {
    fn boxed<G: Game>(
        options: &GameOptions,
        n_seats: usize,
        seed: u64,
    ) -> Result<Box<dyn AnyGame>, SetupError> {
        Ok(Box::new(G::new(options, n_seats, seed)?))
    }
    match game_id {
        SchottenTotten::ID => boxed::<SchottenTotten>(options, n_seats, seed),
        LordsOfScotland::ID => boxed::<LordsOfScotland>(options, n_seats, seed),
        Bullfrogs::ID => boxed::<Bullfrogs>(options, n_seats, seed),
        other => Err(SetupError::UnknownGame(other.to_string())),
    }
}
