//! The replay record: (game, options, seed, seat count, actions) is a whole
//! match, and re-simulating it is the only way to read one back.

use crate::game::{GameOptions, Outcome, SetupError};
use crate::registry::{new_game, AnyGame};

/// Everything needed to reproduce one game exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    pub game: String,
    pub options: GameOptions,
    pub seed: u64,
    pub n_seats: usize,
    /// The actions in order, in their text form.
    pub actions: Vec<String>,
}

/// Why a replay does not re-simulate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("action {index} `{action}` is illegal at that point")]
    IllegalAction { index: usize, action: String },
    #[error("action {index} `{action}` comes after the game ended")]
    AfterEnd { index: usize, action: String },
    #[error("the hash after action {index} is {actual:016x}, the replay says {expected:016x}")]
    HashMismatch {
        index: usize,
        expected: u64,
        actual: u64,
    },
}

/// A re-simulated replay: the final state and the hash after each step
/// (`hashes[0]` is the initial state, `hashes[i + 1]` follows action `i`).
#[derive(Debug)]
pub struct Simulation {
    pub state: Box<dyn AnyGame>,
    pub hashes: Vec<u64>,
}

impl Simulation {
    pub fn outcome(&self) -> Option<Outcome> {
        self.state.outcome()
    }
}

impl Replay {
    /// Re-plays every action from the initial state.
    pub fn simulate(&self) -> Result<Simulation, ReplayError> {
        let mut state = new_game(&self.game, &self.options, self.n_seats, self.seed)?;
        let mut hashes = Vec::with_capacity(self.actions.len() + 1);
        hashes.push(state.state_hash());
        for (index, action) in self.actions.iter().enumerate() {
            if state.current_seat().is_none() {
                return Err(ReplayError::AfterEnd {
                    index,
                    action: action.clone(),
                });
            }
            state
                .apply_text(action)
                .map_err(|_| ReplayError::IllegalAction {
                    index,
                    action: action.clone(),
                })?;
            hashes.push(state.state_hash());
        }
        Ok(Simulation { state, hashes })
    }

    /// Re-simulates and checks the result against a recorded hash chain
    /// (`expected[i]` after action `i`, as in [`Simulation::hashes`] without
    /// the initial hash).
    pub fn verify(&self, expected: &[u64]) -> Result<Simulation, ReplayError> {
        let simulation = self.simulate()?;
        for (index, (&want, &got)) in expected.iter().zip(&simulation.hashes[1..]).enumerate() {
            if want != got {
                return Err(ReplayError::HashMismatch {
                    index,
                    expected: want,
                    actual: got,
                });
            }
        }
        Ok(simulation)
    }
}
