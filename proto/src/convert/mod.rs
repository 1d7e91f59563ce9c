//! Engine to wire. Each game with an observation message has one module
//! here; [`observation`] dispatches on the game id and downcasts the
//! registry's state to the concrete type. The dispatch is generated from
//! [`cairn_engine::for_each_game!`], as are the modules' declarations, so
//! a new game plugs in with its module here and its line there, with no
//! change to the runner.

macro_rules! modules {
    ([] $(($game:ident, $module:ident))*) => {
        $(pub mod $module;)*
    };
}
cairn_engine::for_each_game!(modules);

#[cfg(test)]
use cairn_engine::bullfrogs::Bullfrogs;
#[cfg(test)]
use cairn_engine::lords_of_scotland::LordsOfScotland;
#[cfg(test)]
use cairn_engine::schotten_totten::SchottenTotten;
#[cfg(test)]
use cairn_engine::GameOptions;
use cairn_engine::{AnyGame, Game, Seat};

use crate::game::v1::{observation::Game as Which, Observation};

/// Why a state could not be put on the wire.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error("no observation encoder for the game `{0}`")]
    UnknownGame(String),
    #[error("the state of `{0}` is not of the type its id names")]
    WrongType(&'static str),
    #[error("an observation no state gives: {0}")]
    BadObservation(&'static str),
}

/// What `seat` may know of `state`, as a wire message.
pub fn observation(state: &dyn AnyGame, seat: Seat) -> Result<Observation, ConvertError> {
    macro_rules! encode {
        ([$state:ident, $seat:ident] $(($game:ident, $module:ident))*) => {
            match $state.game_id() {
                $(cairn_engine::$module::$game::ID => {
                    Which::$game($module::observation(concrete($state)?, $seat))
                })*
                other => return Err(ConvertError::UnknownGame(other.to_string())),
            }
        };
    }
    let game = cairn_engine::for_each_game!(encode, state, seat);
    Ok(Observation { game: Some(game) })
}

/// [`observation`] as the protocol's JSON text, the form a request carries
/// it in (serialized here, where this crate is optimised even in tests).
pub fn observation_json(state: &dyn AnyGame, seat: Seat) -> Result<String, ConvertError> {
    let wire = observation(state, seat)?;
    Ok(serde_json::to_string(&wire).expect("a wire observation serializes"))
}

/// A game whose observations come back from the wire into the engine's
/// type: what a bot needs to rebuild states with [`Game::determinize`].
pub trait FromWire: Game {
    fn observation_from_wire(wire: &Observation) -> Result<Self::Observation, ConvertError>;
}

macro_rules! from_wire {
    ([] $(($game:ident, $module:ident))*) => {$(
        impl FromWire for cairn_engine::$module::$game {
            fn observation_from_wire(
                wire: &Observation,
            ) -> Result<Self::Observation, ConvertError> {
                match &wire.game {
                    Some(Which::$game(seen)) => $module::from_wire(seen),
                    _ => Err(ConvertError::BadObservation(concat!(
                        "not a ",
                        stringify!($module),
                        " observation"
                    ))),
                }
            }
        }
    )*};
}
cairn_engine::for_each_game!(from_wire);

/// Why [`determinize`] could not rebuild a state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeterminizeFailure {
    #[error("an observation of no known game")]
    NoGame,
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error(transparent)]
    Determinize(#[from] cairn_engine::game::DeterminizeError),
}

/// A whole state consistent with the wire observation `seen`, of whichever
/// game it is an observation of (see [`Game::determinize`]): what searching
/// bots outside Rust (the Python package) sample from.
pub fn determinize(
    seen: &Observation,
    rng: &mut cairn_engine::Rng,
) -> Result<Box<dyn AnyGame>, DeterminizeFailure> {
    macro_rules! rebuild {
        ([$seen:ident, $rng:ident] $(($game:ident, $module:ident))*) => {
            match &$seen.game {
                $(Some(Which::$game(wire)) => {
                    let inner = $module::from_wire(wire)?;
                    Box::new(cairn_engine::$module::$game::determinize(&inner, $rng)?)
                })*
                None => return Err(DeterminizeFailure::NoGame),
            }
        };
    }
    Ok(cairn_engine::for_each_game!(rebuild, seen, rng))
}

/// Downcasts a registry state to the concrete game type its id names.
fn concrete<G: 'static>(state: &dyn AnyGame) -> Result<&G, ConvertError> {
    state
        .as_any()
        .downcast_ref::<G>()
        .ok_or(ConvertError::WrongType(state.game_id()))
}

#[cfg(test)]
mod tests {
    use cairn_engine::game::parse_options;
    use cairn_engine::{Game, Rng};

    use super::*;

    /// Random games of `G`: at every step, every seat's observation goes
    /// to the wire and back unchanged.
    fn round_trips<G: FromWire>(words: &[&str], n_seats: usize, games: u64) {
        let options = parse_options(words.iter().copied()).unwrap();
        let mut rng = Rng::seeded(3);
        let mut legal = Vec::new();
        for seed in 0..games {
            let mut state = G::new(&options, n_seats, seed).unwrap();
            while !state.is_terminal() {
                for seat in 0..n_seats {
                    let wire = observation(&state, seat).unwrap();
                    let back = G::observation_from_wire(&wire).unwrap();
                    assert_eq!(back, state.observation(seat), "{words:?} seed {seed}");
                }
                legal.clear();
                state.legal_actions(&mut legal);
                let action = legal[rng.below(legal.len())].clone();
                state.apply(&action).unwrap();
            }
        }
    }

    #[test]
    fn every_observation_of_every_game_comes_back_from_the_wire_unchanged() {
        for words in [&[][..], &["tactics=true", "expert=true", "rounds=2"]] {
            round_trips::<SchottenTotten>(words, 2, 20);
        }
        for n_seats in 2..=5 {
            round_trips::<LordsOfScotland>(&["bruce=true"], n_seats, 3);
        }
        for n_seats in 2..=4 {
            round_trips::<Bullfrogs>(&[], n_seats, 5);
        }
        round_trips::<Bullfrogs>(&["solo=true"], 1, 5);
    }

    /// The place a new game must be added besides its engine folder and its
    /// line in `cairn_engine::GAMES`: an encoder here (see ARCHITECTURE.md).
    #[test]
    fn every_game_in_the_engine_table_has_an_observation_encoder() {
        for game in cairn_engine::GAMES {
            let descriptor = game.descriptor;
            let (min, max) = descriptor.seat_bounds();
            let mut encoded = 0;
            for n_seats in min..=max {
                for rule in descriptor.seats {
                    let options: GameOptions = rule
                        .when
                        .map(|(key, value)| (key.to_string(), value.to_string()))
                        .into_iter()
                        .collect();
                    let Ok(state) = cairn_engine::new_game(descriptor.id, &options, n_seats, 1)
                    else {
                        continue;
                    };
                    let seat = state.current_seat().unwrap();
                    observation(state.as_ref(), seat).unwrap();
                    encoded += 1;
                }
            }
            assert!(encoded > 0, "{} has no seat count", descriptor.id);
        }
    }

    #[test]
    fn a_state_determinized_from_the_wire_shows_its_seat_the_same_observation() {
        for game in cairn_engine::GAMES {
            let id = game.descriptor.id;
            let (min, _) = game.descriptor.seat_bounds();
            let n_seats = min.max(2);
            let mut rng = Rng::seeded(5);
            for seed in 0..20 {
                let mut state =
                    cairn_engine::new_game(id, &GameOptions::new(), n_seats, seed).unwrap();
                for _ in 0..seed {
                    let legal = state.legal_actions();
                    state.apply_text(&legal[rng.below(legal.len())]).unwrap();
                }
                let seat = state.current_seat().unwrap();
                let seen = observation(state.as_ref(), seat).unwrap();
                let rebuilt = determinize(&seen, &mut rng).unwrap();
                assert_eq!(rebuilt.game_id(), id);
                assert_eq!(
                    observation(rebuilt.as_ref(), seat).unwrap(),
                    seen,
                    "{id} seed {seed}"
                );
            }
        }
        assert_eq!(
            determinize(&Observation::default(), &mut Rng::seeded(1)).unwrap_err(),
            DeterminizeFailure::NoGame
        );
    }

    #[test]
    fn observations_of_another_game_or_nonsense_are_refused() {
        let state = SchottenTotten::new(&GameOptions::new(), 2, 1).unwrap();
        let wire = observation(&state, 0).unwrap();
        assert!(LordsOfScotland::observation_from_wire(&wire).is_err());
        assert!(Bullfrogs::observation_from_wire(&wire).is_err());
        let mut broken = wire.clone();
        if let Some(Which::SchottenTotten(seen)) = &mut broken.game {
            seen.hand.push("r42".into());
        }
        assert!(SchottenTotten::observation_from_wire(&broken).is_err());
        assert!(SchottenTotten::observation_from_wire(&Observation::default()).is_err());
    }
}
