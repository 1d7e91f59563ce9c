//! # cairn-python
//!
//! cairn's engine as the Python package `cairn_engine` (PyO3, built by
//! maturin; see `docs/python.md`). A Python bot creates, plays, observes,
//! clones and determinizes states of every game of the engine's table
//! (`cairn_engine::GAMES`), with the action texts and observation JSON the
//! protocol sends, because both come from the same code: the engine's
//! text actions (`AnyGame`) and `cairn_proto::convert`.
//!
//! # Layout
//! - [`State`]: one game state of any game (the Python class `Game`).
//! - [`determinize`]: a whole state from one seat's observation.
//! - `cairn_engine.pyi` (beside `Cargo.toml`): the type stubs maturin ships.
//!
//! There is no per-game code here: a game added to the table appears in the
//! package, and `tests/tests/it/python_package.rs` fails if one does not.
//!
//! # Example (Python)
//! ```text
//! import cairn_engine
//! game = cairn_engine.Game("schotten-totten", seats=2, seed=7)
//! while not game.is_over():
//!     game.apply(game.legal_actions()[0])
//! print(game.outcome())
//! ```

use cairn_engine::{AnyGame, GameOptions, Rng};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};

/// A state of one game: create it, play it, observe it, copy it.
#[pyclass(name = "Game", module = "cairn_engine")]
#[derive(Debug, Clone)]
pub struct State {
    inner: Box<dyn AnyGame>,
}

#[pymethods]
impl State {
    /// Sets up a game: `game` is an id of `GAMES`, `options` its options
    /// (values as text, bool or int), `seats` the seat count, `seed` the deal.
    #[new]
    #[pyo3(signature = (game, seats, seed=0, options=None))]
    fn new(
        game: &str,
        seats: usize,
        seed: u64,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<State> {
        let options = options
            .map(options_from_python)
            .transpose()?
            .unwrap_or_default();
        let inner = cairn_engine::new_game(game, &options, seats, seed)
            .map_err(|error| PyValueError::new_err(error.to_string()))?;
        Ok(State { inner })
    }

    /// The game's id.
    #[getter]
    fn game_id(&self) -> &'static str {
        self.inner.game_id()
    }

    /// The number of seats.
    #[getter]
    fn n_seats(&self) -> usize {
        self.inner.n_seats()
    }

    /// The actions the current seat may take, in the protocol's texts and
    /// order; empty once the game is over.
    fn legal_actions(&self) -> Vec<String> {
        self.inner.legal_actions()
    }

    /// Plays `action` for the current seat; raises `ValueError` and leaves
    /// the state unchanged when it is not legal.
    fn apply(&mut self, action: &str) -> PyResult<()> {
        self.inner
            .apply_text(action)
            .map_err(|error| PyValueError::new_err(error.to_string()))
    }

    /// The seat to act, or `None` once the game is over.
    fn current_seat(&self) -> Option<usize> {
        self.inner.current_seat()
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.inner.outcome().is_some()
    }

    /// `{"scores": [...], "ranks": [...]}` (rank 1 is best) once the game
    /// is over, else `None`: the figures the protocol's `gameOver` carries.
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(outcome) = self.inner.outcome() else {
            return Ok(None);
        };
        let result = PyDict::new(py);
        result.set_item("scores", outcome.scores)?;
        result.set_item("ranks", outcome.ranks)?;
        Ok(Some(result))
    }

    /// What `seat` may know, as the JSON text of the protocol's
    /// `request.observation` (`json.loads` it for a dict).
    fn observation(&self, seat: usize) -> PyResult<String> {
        if seat >= self.inner.n_seats() {
            return Err(PyValueError::new_err(format!(
                "seat {seat} out of range: the game has {} seats",
                self.inner.n_seats()
            )));
        }
        let wire = cairn_proto::convert::observation(self.inner.as_ref(), seat)
            .map_err(|error| PyValueError::new_err(error.to_string()))?;
        serde_json::to_string(&wire).map_err(|error| PyValueError::new_err(error.to_string()))
    }

    /// An independent copy.
    fn clone(&self) -> State {
        Clone::clone(self)
    }

    fn __copy__(&self) -> State {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        Clone::clone(self)
    }

    /// A 64-bit hash of the whole state, stable across processes.
    fn state_hash(&self) -> u64 {
        self.inner.state_hash()
    }

    /// Plays uniformly random legal actions from the seed until the game
    /// ends, inside the engine (a fast playout for searching bots).
    fn play_randomly(&mut self, seed: u64) {
        self.inner.play_randomly(&mut Rng::seeded(seed));
    }

    fn __repr__(&self) -> String {
        format!(
            "<cairn_engine.Game {} seats={} hash={:016x}>",
            self.inner.game_id(),
            self.inner.n_seats(),
            self.inner.state_hash()
        )
    }
}

/// Reads Python options: text as it is, `bool` as `true`/`false`, `int`
/// in decimal; anything else is a `TypeError`.
fn options_from_python(options: &Bound<'_, PyDict>) -> PyResult<GameOptions> {
    let mut read = GameOptions::new();
    for (key, value) in options.iter() {
        let key: String = key
            .extract()
            .map_err(|_| PyTypeError::new_err("option names must be str"))?;
        let text = if value.is_instance_of::<PyBool>() {
            value.extract::<bool>()?.to_string()
        } else if value.is_instance_of::<PyInt>() {
            value.extract::<i64>()?.to_string()
        } else if value.is_instance_of::<PyString>() {
            value.extract::<String>()?
        } else {
            return Err(PyTypeError::new_err(format!(
                "option `{key}` must be str, bool or int"
            )));
        };
        read.insert(key, text);
    }
    Ok(read)
}

/// A whole state consistent with one seat's observation (the JSON text of
/// `request.observation`, or the dict a bot parsed from it): everything the
/// seat cannot see is drawn at random from `seed`.
#[pyfunction]
#[pyo3(signature = (observation, seed=0))]
fn determinize(observation: &Bound<'_, PyAny>, seed: u64) -> PyResult<State> {
    let text: String = if observation.is_instance_of::<PyString>() {
        observation.extract()?
    } else {
        let json = observation.py().import("json")?;
        json.call_method1("dumps", (observation,))?.extract()?
    };
    let wire: cairn_proto::game::v1::Observation = serde_json::from_str(&text)
        .map_err(|error| PyValueError::new_err(format!("not an observation: {error}")))?;
    let inner = cairn_proto::convert::determinize(&wire, &mut Rng::seeded(seed))
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    Ok(State { inner })
}

/// The module: the `Game` class, `determinize`, and `GAMES` (every game id).
#[pymodule]
#[pyo3(name = "cairn_engine")]
fn cairn_engine_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<State>()?;
    module.add_function(wrap_pyfunction!(determinize, module)?)?;
    let ids: Vec<&str> = cairn_engine::game_ids().collect();
    module.add("GAMES", ids)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
