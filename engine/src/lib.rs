//! # cairn-engine
//!
//! The shared engine: the referee of every match cairn plays. Pure and
//! synchronous: no I/O, no clocks, no threads; all chance comes from a seed.
//!
//! # Layout
//! - [`game`]: the [`Game`] trait every game implements, [`Outcome`], options.
//! - [`rng`], [`cards`], [`hash`], [`bits`]: seeded chance, card sets and
//!   decks, the stable state hash, set bits of a word.
//! - [`descriptor`]: what each game declares (seats, options, action
//!   grammar) and [`canonical_options`].
//! - [`registry`]: [`GAMES`], the one table of games, and games by id
//!   behind the object-safe [`AnyGame`].
//! - [`replay`]: the replay record and re-simulation.
//! - [`forfeit`]: forfeit reasons, scoring with forfeits, re-refereeing a
//!   played game ([`forfeit::referee_replay`]), shared by runner and arena.
//! - [`testing`]: the conformance test every game passes.
//! - [`text`]: writing action texts without the formatting machinery.
//! - one module per game: [`schotten_totten`], [`lords_of_scotland`], [`bullfrogs`].
//!
//! # Example
//! ```
//! use cairn_engine::{new_game, GameOptions};
//!
//! let mut game = new_game("schotten-totten", &GameOptions::new(), 2, 42).unwrap();
//! while game.current_seat().is_some() {
//!     let first = game.legal_actions()[0].clone();
//!     game.apply_text(&first).unwrap();
//! }
//! assert_eq!(game.outcome().unwrap().scores.len(), 2);
//! ```

pub mod bits;
pub mod bullfrogs;
pub mod cards;
pub mod descriptor;
pub mod forfeit;
pub mod game;
pub mod hash;
pub mod lords_of_scotland;
#[cfg(test)]
mod pinned_games;
pub mod registry;
pub mod replay;
pub mod rng;
pub mod schotten_totten;
pub mod seating;
pub mod testing;
pub mod text;

pub use descriptor::GameDescriptor;
pub use game::{
    DeterminizeError, EndReason, Game, GameOptions, IllegalAction, Outcome, ParseActionError, Seat,
    SetupError,
};
pub use registry::{canonical_options, descriptor, game_ids, new_game, AnyGame, GAMES};
pub use replay::{Replay, ReplayError, Simulation};
pub use rng::Rng;
