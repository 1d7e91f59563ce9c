//! Engine to wire. Each game with an observation message has one module
//! here; [`observation`] dispatches on the game id and downcasts the
//! registry's state to the concrete type, so a new game plugs in by adding
//! its module and one match arm, with no change to the runner.

pub mod bullfrogs;
pub mod lords_of_scotland;
pub mod schotten_totten;

use cairn_engine::bullfrogs::Bullfrogs;
use cairn_engine::lords_of_scotland::LordsOfScotland;
use cairn_engine::schotten_totten::SchottenTotten;
use cairn_engine::{AnyGame, Game, Seat};

use crate::game::v1::{observation::Game as Which, Observation};

/// Why a state could not be put on the wire.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error("no observation encoder for the game `{0}`")]
    UnknownGame(String),
    #[error("the state of `{0}` is not of the type its id names")]
    WrongType(&'static str),
}

/// What `seat` may know of `state`, as a wire message.
pub fn observation(state: &dyn AnyGame, seat: Seat) -> Result<Observation, ConvertError> {
    let game = match state.game_id() {
        SchottenTotten::ID => {
            Which::SchottenTotten(schotten_totten::observation(concrete(state)?, seat))
        }
        LordsOfScotland::ID => {
            Which::LordsOfScotland(lords_of_scotland::observation(concrete(state)?, seat))
        }
        Bullfrogs::ID => Which::Bullfrogs(bullfrogs::observation(concrete(state)?, seat)),
        other => return Err(ConvertError::UnknownGame(other.to_string())),
    };
    Ok(Observation { game: Some(game) })
}

/// Downcasts a registry state to the concrete game type its id names.
fn concrete<G: 'static>(state: &dyn AnyGame) -> Result<&G, ConvertError> {
    state
        .as_any()
        .downcast_ref::<G>()
        .ok_or(ConvertError::WrongType(state.game_id()))
}
