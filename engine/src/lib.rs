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
//! - [`for_each_game!`]: the one table of games. It declares each game's
//!   module and [`GAMES`], and every layer above the engine that dispatches
//!   on a game is generated from it.
//! - [`registry`]: games by id behind the object-safe [`AnyGame`].
//! - [`replay`]: the replay record and re-simulation.
//! - [`forfeit`]: forfeit reasons, scoring with forfeits, re-refereeing a
//!   played game ([`forfeit::referee_replay`]), shared by runner and arena.
//! - [`testing`]: the conformance test every game passes.
//! - [`text`]: writing action texts without the formatting machinery.
//! - one module per game, declared by [`for_each_game!`].
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

/// Calls `$callback! { [args] (Type, module) ... }` once with every game:
/// its engine type (`cairn_engine::<module>::<Type>`, also the name of its
/// variant in the wire's `observation::Game`) and its module name, which
/// every layer uses for that game's module. Extra `args` (identifiers of the
/// caller's locals, passed through for hygiene) come first, in brackets.
/// A game added here and lacking a face in a layer is a compile error
/// there, not a silent fallback.
#[macro_export]
macro_rules! for_each_game {
    ($callback:ident $(, $arg:tt)* $(,)?) => {
        $callback! {
            [$($arg),*]
            (SchottenTotten, schotten_totten)
            (LordsOfScotland, lords_of_scotland)
            (Bullfrogs, bullfrogs)
        }
    };
}

macro_rules! games {
    ([] $(($game:ident, $module:ident))*) => {
        $(pub mod $module;)*

        /// Every game the engine referees, in the order listings show them.
        pub const GAMES: &[registry::RegisteredGame] =
            &[$(registry::RegisteredGame::of::<$module::$game>()),*];
    };
}
for_each_game!(games);

pub mod bits;
pub mod cards;
pub mod descriptor;
pub mod forfeit;
pub mod game;
pub mod hash;
#[cfg(test)]
mod pinned_games;
pub mod registry;
pub mod replay;
pub mod rng;
pub mod seating;
pub mod testing;
pub mod text;

pub use descriptor::GameDescriptor;
pub use game::{
    DeterminizeError, EndReason, Game, GameOptions, IllegalAction, Outcome, ParseActionError, Seat,
    SetupError,
};
pub use registry::{canonical_options, descriptor, game_ids, new_game, AnyGame};
pub use replay::{Replay, ReplayError, Simulation};
pub use rng::Rng;
