//! Games by id behind one object-safe interface, so the runner and the arena
//! handle every game the same way. [`GAMES`], generated from
//! [`crate::for_each_game!`], lists them.

use std::any::Any;
use std::fmt::{Debug, Write};

use crate::descriptor::GameDescriptor;
use crate::game::{Game, GameOptions, IllegalAction, Outcome, Seat, SetupError};
use crate::rng::Rng;
use crate::GAMES;

/// A game in [`GAMES`]: its descriptor and how to set it up.
#[derive(Debug)]
pub struct RegisteredGame {
    pub descriptor: &'static GameDescriptor,
    setup: Setup,
}

/// Sets up a game from options, a seat count and a seed.
type Setup = fn(&GameOptions, usize, u64) -> Result<Box<dyn AnyGame>, SetupError>;

impl RegisteredGame {
    pub const fn of<G: Game>() -> RegisteredGame {
        RegisteredGame {
            descriptor: G::DESCRIPTOR,
            setup: boxed::<G>,
        }
    }
}

fn boxed<G: Game>(
    options: &GameOptions,
    n_seats: usize,
    seed: u64,
) -> Result<Box<dyn AnyGame>, SetupError> {
    Ok(Box::new(G::new(options, n_seats, seed)?))
}

/// The ids of every game, in [`GAMES`] order.
pub fn game_ids() -> impl Iterator<Item = &'static str> {
    GAMES.iter().map(|game| game.descriptor.id)
}

/// The descriptor of the game `game_id`, if the engine knows it.
pub fn descriptor(game_id: &str) -> Option<&'static GameDescriptor> {
    GAMES
        .iter()
        .map(|game| game.descriptor)
        .find(|descriptor| descriptor.id == game_id)
}

/// The descriptor of `game_id`, or the error that lists the known games.
pub fn known_game(game_id: &str) -> Result<&'static GameDescriptor, SetupError> {
    descriptor(game_id).ok_or_else(|| SetupError::UnknownGame(crate::descriptor::shown(game_id)))
}

/// `options` for `game_id` in their canonical form (see
/// [`GameDescriptor::canonical_options`]): the one function the arena, the
/// CLI and the runner canonicalise options with.
pub fn canonical_options(game_id: &str, options: &GameOptions) -> Result<GameOptions, SetupError> {
    known_game(game_id)?.canonical_options(options)
}

/// A game of any kind, with actions in their text form.
pub trait AnyGame: Debug + Send + Sync {
    fn game_id(&self) -> &'static str;
    fn n_seats(&self) -> usize;
    fn current_seat(&self) -> Option<Seat>;
    fn legal_actions(&self) -> Vec<String>;
    /// [`AnyGame::legal_actions`] written into `texts`, whose strings are
    /// reused: a referee lists them at every decision.
    fn legal_actions_into(&self, texts: &mut Vec<String>);
    /// Reads and applies an action's text form; refuses without change.
    fn apply_text(&mut self, action: &str) -> Result<(), IllegalAction>;
    /// What `viewer` learns of the current seat's `action` (see [`Game::action_seen_by`]).
    fn action_seen_by(&self, action: &str, viewer: Seat) -> Option<String>;
    fn outcome(&self) -> Option<Outcome>;
    /// What the last action made public beyond itself (see [`Game::announcement`]).
    fn announcement(&self) -> Option<String>;
    fn state_hash(&self) -> u64;
    /// Plays uniformly random legal actions until the game ends (a
    /// searching bot's playout), without the text forms.
    fn play_randomly(&mut self, rng: &mut Rng);
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
        let mut texts = Vec::new();
        self.legal_actions_into(&mut texts);
        texts
    }

    fn legal_actions_into(&self, texts: &mut Vec<String>) {
        let mut actions = Vec::new();
        Game::legal_actions(self, &mut actions);
        texts.truncate(actions.len());
        for (index, action) in actions.iter().enumerate() {
            if index == texts.len() {
                // Room for every common action text up front: an empty
                // string starts at 8 bytes and grows, two allocations.
                texts.push(String::with_capacity(32));
            }
            let text = &mut texts[index];
            text.clear();
            // Writing to a String cannot fail.
            let _ = write!(text, "{action}");
        }
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

    fn play_randomly(&mut self, rng: &mut Rng) {
        let mut legal = Vec::new();
        while !Game::is_terminal(self) {
            legal.clear();
            Game::legal_actions(self, &mut legal);
            let action = &legal[rng.below(legal.len())];
            Game::apply_legal(self, action);
        }
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
    match GAMES.iter().find(|game| game.descriptor.id == game_id) {
        Some(game) => (game.setup)(options, n_seats, seed),
        None => Err(SetupError::UnknownGame(crate::descriptor::shown(game_id))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::parse_options;

    /// Every example of every action form reads as an action of its game
    /// and writes back the same text.
    fn examples_read_back<G: Game>() {
        for form in G::DESCRIPTOR.actions {
            assert!(!form.examples.is_empty(), "{}: `{}`", G::ID, form.form);
            for example in form.examples {
                let action: G::Action = example
                    .parse()
                    .unwrap_or_else(|error| panic!("{}: {error}", G::ID));
                assert_eq!(action.to_string(), *example, "{}", G::ID);
                assert_eq!(
                    G::DESCRIPTOR.action_form_of(example).map(|f| f.form),
                    Some(form.form),
                    "{}: `{example}`",
                    G::ID
                );
            }
        }
    }

    #[test]
    fn every_action_example_is_a_real_action_of_its_form() {
        macro_rules! every_game {
            ([] $(($game:ident, $module:ident))*) => {
                $(examples_read_back::<crate::$module::$game>();)*
            };
        }
        crate::for_each_game!(every_game);
    }

    /// Option sets that reach every option and every seat rule.
    fn variants(descriptor: &GameDescriptor) -> Vec<GameOptions> {
        let mut all = vec![GameOptions::new()];
        for spec in descriptor.options {
            let other = match spec.kind {
                crate::descriptor::OptionKind::Bool => "true".to_string(),
                crate::descriptor::OptionKind::Int { max, .. } => max.min(3).to_string(),
            };
            all.push(GameOptions::from([(spec.key.to_string(), other)]));
        }
        all
    }

    #[test]
    fn every_legal_action_of_random_games_has_a_declared_form() {
        let mut rng = Rng::seeded(7);
        for game in GAMES {
            let descriptor = game.descriptor;
            for options in variants(descriptor) {
                let (min, max) = descriptor.seat_bounds();
                for n_seats in min..=max {
                    if descriptor.check_seats(&options, n_seats).is_err() {
                        continue;
                    }
                    for seed in 0..30 {
                        let mut state = new_game(descriptor.id, &options, n_seats, seed).unwrap();
                        while state.current_seat().is_some() {
                            let legal = state.legal_actions();
                            for action in &legal {
                                assert!(
                                    descriptor.action_form_of(action).is_some(),
                                    "{}: `{action}` has no declared form",
                                    descriptor.id
                                );
                            }
                            let pick = legal[rng.below(legal.len())].clone();
                            state.apply_text(&pick).unwrap();
                        }
                    }
                }
            }
        }
    }

    /// One list of texts kept through whole games, as the referee keeps it:
    /// longer and shorter lists over it, and junk left in its strings, never
    /// show through.
    #[test]
    fn legal_actions_written_over_a_kept_list_are_the_fresh_list() {
        let mut rng = Rng::seeded(3);
        let mut kept = vec!["junk left from before".to_string(); 200];
        for game in GAMES {
            let (min, max) = game.descriptor.seat_bounds();
            for n_seats in [min.max(2), max] {
                let mut state =
                    new_game(game.descriptor.id, &GameOptions::new(), n_seats, 9).unwrap();
                while state.current_seat().is_some() {
                    state.legal_actions_into(&mut kept);
                    let fresh = state.legal_actions();
                    assert_eq!(kept, fresh);
                    state.apply_text(&fresh[rng.below(fresh.len())]).unwrap();
                }
            }
        }
    }

    #[test]
    fn a_random_playout_ends_the_game_and_depends_only_on_the_seed() {
        for game in GAMES {
            let (min, _) = game.descriptor.seat_bounds();
            let n_seats = min.max(2);
            for seed in 0..20 {
                let start =
                    new_game(game.descriptor.id, &GameOptions::new(), n_seats, seed).unwrap();
                let mut once = start.clone();
                let mut again = start.clone();
                once.play_randomly(&mut Rng::seeded(seed));
                again.play_randomly(&mut Rng::seeded(seed));
                assert!(once.outcome().is_some(), "{}", game.descriptor.id);
                assert_eq!(once.state_hash(), again.state_hash());
            }
        }
    }

    #[test]
    fn setup_accepts_exactly_the_declared_seats_and_options() {
        for game in GAMES {
            let descriptor = game.descriptor;
            for options in variants(descriptor) {
                for n_seats in 0..=8 {
                    let declared = descriptor.check_seats(&options, n_seats);
                    let real = new_game(descriptor.id, &options, n_seats, 1).map(|_| ());
                    assert_eq!(declared, real, "{} {options:?} {n_seats}", descriptor.id);
                }
            }
        }
    }

    #[test]
    fn an_unknown_key_or_game_lists_what_is_known() {
        let options = parse_options(["tactic=true"]).unwrap();
        let error = new_game("schotten-totten", &options, 2, 0).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown option `tactic` for schotten-totten; known: tactics, expert, rounds"
        );
        let error = new_game("schoten-totten", &GameOptions::new(), 2, 0).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown game `schoten-totten` (known: schotten-totten, lords-of-scotland, bullfrogs)"
        );
        // A key of another game is unknown here.
        let options = parse_options(["solo=true"]).unwrap();
        assert!(matches!(
            canonical_options("schotten-totten", &options),
            Err(SetupError::UnknownOption { .. })
        ));
    }

    #[test]
    fn an_explicit_default_sets_up_the_same_game_as_no_option() {
        let explicit = parse_options(["tactics=false", "expert=false", "rounds=1"]).unwrap();
        assert_eq!(
            canonical_options("schotten-totten", &explicit),
            Ok(GameOptions::new())
        );
        let a = new_game("schotten-totten", &explicit, 2, 9).unwrap();
        let b = new_game("schotten-totten", &GameOptions::new(), 2, 9).unwrap();
        assert_eq!(a.state_hash(), b.state_hash());
    }
}
