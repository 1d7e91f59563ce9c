//! A replay, step by step, as the viewers draw it: re-simulates a replay and
//! keeps, after every action, what each seat could see (its observation as
//! a wire message) and what each seat learned of the action itself. The
//! terminal viewer (`cairn replay --show`) reads the messages; the arena's
//! web pages read [`ReplaySteps::to_json`].
//!
//! The omniscient view is every seat's observation side by side: together
//! they hold every hand, and the public parts are the same in each. Nothing
//! else is hidden from all seats that a viewer needs (deck sizes are public;
//! deck order is of no use to a person following the game).

use cairn_engine::{AnyGame, GameOptions, Outcome, Replay, Seat};
use serde::Serialize;

use crate::convert::{self, ConvertError};
use crate::game::v1::observation::Game as Which;
use crate::game::v1::Observation;

/// Every state of one game.
#[derive(Debug, Clone)]
pub struct ReplaySteps {
    pub game: String,
    pub options: GameOptions,
    pub seed: u64,
    pub n_seats: usize,
    /// `steps[0]` is the deal; `steps[i]` follows action `i - 1`.
    pub steps: Vec<Step>,
    /// The final result, when the game was played to its end.
    pub outcome: Option<Outcome>,
    /// Why re-simulation stopped early (a corrupt or hostile replay): the
    /// steps before it are still shown.
    pub error: Option<String>,
}

/// One state of the game and the action that led to it.
#[derive(Debug, Clone)]
pub struct Step {
    /// How many actions have been applied.
    pub index: usize,
    /// The action that led here (none for the deal).
    pub action: Option<String>,
    /// The seat that took it.
    pub actor: Option<Seat>,
    /// Per seat, what it learned of that action (a hidden part masked).
    pub action_seen: Vec<String>,
    /// The seat to decide now; none once the game is over.
    pub to_move: Option<Seat>,
    /// Per seat, its observation of this state.
    pub views: Vec<Which>,
    /// The CPU time in microseconds the actor's bot took to choose the
    /// action, when the replay recorded it (see [`ReplaySteps::with_times`]).
    pub cpu_us: Option<u64>,
}

/// Why a replay cannot be shown at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepsError {
    #[error(transparent)]
    Setup(#[from] cairn_engine::SetupError),
    #[error(transparent)]
    Convert(#[from] ConvertError),
}

/// Re-simulates `replay` and records every step. An action that does not
/// apply ends the steps there, with [`ReplaySteps::error`] saying why.
pub fn replay_steps(replay: &Replay) -> Result<ReplaySteps, StepsError> {
    let mut state =
        cairn_engine::new_game(&replay.game, &replay.options, replay.n_seats, replay.seed)?;
    let n_seats = state.n_seats();
    let mut steps = Vec::with_capacity(replay.actions.len() + 1);
    steps.push(step(state.as_ref(), 0, None, None, Vec::new())?);
    let mut error = None;
    for (index, action) in replay.actions.iter().enumerate() {
        let Some(actor) = state.current_seat() else {
            error = Some(format!(
                "action {index} `{}` comes after the game ended",
                shown(action)
            ));
            break;
        };
        let seen: Vec<String> = (0..n_seats)
            .map(|viewer| state.action_seen_by(action, viewer).unwrap_or_default())
            .collect();
        if state.apply_text(action).is_err() {
            error = Some(format!(
                "action {index} `{}` is illegal at that point",
                shown(action)
            ));
            break;
        }
        steps.push(step(
            state.as_ref(),
            index + 1,
            Some(action.clone()),
            Some(actor),
            seen,
        )?);
    }
    Ok(ReplaySteps {
        game: replay.game.clone(),
        options: replay.options.clone(),
        seed: replay.seed,
        n_seats,
        steps,
        outcome: state.outcome(),
        error,
    })
}

/// At most 80 characters of an action that came from a stored replay.
fn shown(action: &str) -> String {
    action.chars().take(80).collect()
}

fn step(
    state: &dyn AnyGame,
    index: usize,
    action: Option<String>,
    actor: Option<Seat>,
    action_seen: Vec<String>,
) -> Result<Step, ConvertError> {
    let views = (0..state.n_seats())
        .map(|seat| {
            convert::observation(state, seat).map(|Observation { game }| {
                game.ok_or_else(|| ConvertError::UnknownGame(state.game_id().to_string()))
            })?
        })
        .collect::<Result<Vec<Which>, ConvertError>>()?;
    Ok(Step {
        index,
        action,
        actor,
        action_seen,
        to_move: state.current_seat(),
        views,
        cpu_us: None,
    })
}

impl ReplaySteps {
    /// Gives each step the time of the decision that led to it: `cpu_us[i]`
    /// belongs to action `i` (a replay's `cpu_us`, possibly empty).
    pub fn with_times(mut self, cpu_us: &[Option<u64>]) -> ReplaySteps {
        for step in self.steps.iter_mut().skip(1) {
            step.cpu_us = cpu_us.get(step.index - 1).copied().flatten();
        }
        self
    }

    /// The steps as the web pages read them: per step the action, its actor,
    /// the seat to move, what each seat saw of the action, and each seat's
    /// observation in the proto3 JSON mapping (the same JSON bots read);
    /// `cpu_us`, the decision's CPU time when recorded; in Bullfrogs solo, `isaac_roll` names the movement die's face.
    /// Written straight to text: building a `serde_json::Value` first took
    /// most of the time.
    pub fn to_json_string(&self) -> String {
        let document = StepsJson {
            game: &self.game,
            options: &self.options,
            seed: self.seed.to_string(),
            n_seats: self.n_seats,
            steps: self.steps.iter().map(StepJson::of).collect(),
            outcome: self.outcome.as_ref().map(|outcome| OutcomeJson {
                scores: &outcome.scores,
                ranks: &outcome.ranks,
            }),
            error: self.error.as_deref(),
        };
        // Strings, numbers and generated messages: serialising cannot fail.
        serde_json::to_string(&document).unwrap_or_default()
    }
}

#[derive(Serialize)]
struct StepsJson<'a> {
    game: &'a str,
    options: &'a GameOptions,
    seed: String,
    n_seats: usize,
    steps: Vec<StepJson<'a>>,
    outcome: Option<OutcomeJson<'a>>,
    error: Option<&'a str>,
}

#[derive(Serialize)]
struct OutcomeJson<'a> {
    scores: &'a [i32],
    ranks: &'a [u32],
}

#[derive(Serialize)]
struct StepJson<'a> {
    index: usize,
    action: Option<&'a str>,
    actor: Option<Seat>,
    action_seen: &'a [String],
    to_move: Option<Seat>,
    views: Vec<ViewJson<'a>>,
    isaac_roll: Option<&'static str>,
    cpu_us: Option<u64>,
}

impl<'a> StepJson<'a> {
    fn of(step: &'a Step) -> StepJson<'a> {
        let isaac_roll = match step.views.first() {
            Some(Which::Bullfrogs(seen)) => seen.roll_face.map(movement_face_name),
            _ => None,
        };
        StepJson {
            index: step.index,
            action: step.action.as_deref(),
            actor: step.actor,
            action_seen: &step.action_seen,
            to_move: step.to_move,
            views: step.views.iter().map(ViewJson).collect(),
            isaac_roll,
            cpu_us: step.cpu_us,
        }
    }
}

/// One observation's game message (without the `oneof` wrapper).
struct ViewJson<'a>(&'a Which);

impl Serialize for ViewJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        macro_rules! views {
            ([$view:ident, $serializer:ident] $(($game:ident, $module:ident))*) => {
                match $view {
                    $(Which::$game(seen) => seen.serialize($serializer),)*
                }
            };
        }
        let view = self.0;
        cairn_engine::for_each_game!(views, view, serializer)
    }
}

/// The name of a face of Bullfrogs' solo movement die, by its index in the
/// observation's `roll_face`.
pub fn movement_face_name(face: u32) -> &'static str {
    use cairn_engine::bullfrogs::cards::{MovementFace, MOVEMENT_DIE};
    match MOVEMENT_DIE.get(face as usize) {
        Some(MovementFace::Up) => "up",
        Some(MovementFace::Down) => "down",
        Some(MovementFace::Left) => "left",
        Some(MovementFace::Right) => "right",
        Some(MovementFace::AnyDirection) => "any direction",
        Some(MovementFace::Blank) => "blank",
        None => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use cairn_engine::game::parse_options;
    use cairn_engine::{new_game, Replay};

    use super::*;

    /// A replay of `n_actions` first-legal actions (or until the end).
    fn first_moves(game: &str, options: &[&str], n_seats: usize, n_actions: usize) -> Replay {
        let options = parse_options(options.iter().copied()).unwrap();
        let mut state = new_game(game, &options, n_seats, 11).unwrap();
        let mut actions = Vec::new();
        while actions.len() < n_actions {
            let Some(first) = state.legal_actions().into_iter().next() else {
                break;
            };
            state.apply_text(&first).unwrap();
            actions.push(first);
        }
        Replay {
            game: game.to_string(),
            options,
            seed: 11,
            n_seats,
            actions,
        }
    }

    #[test]
    fn every_action_gives_one_step_with_a_view_per_seat_and_its_actor() {
        let replay = first_moves("lords-of-scotland", &[], 3, 20);
        let steps = replay_steps(&replay).unwrap();
        assert_eq!(steps.steps.len(), 21);
        assert_eq!(steps.error, None);
        for (index, step) in steps.steps.iter().enumerate() {
            assert_eq!(step.index, index);
            assert_eq!(step.views.len(), 3);
        }
        assert_eq!(steps.steps[0].action, None);
        assert_eq!(steps.steps[1].action.as_deref(), Some(&*replay.actions[0]));
        assert_eq!(steps.steps[1].actor, steps.steps[0].to_move);
        assert_eq!(steps.steps[1].action_seen.len(), 3);
    }

    #[test]
    fn a_full_game_ends_with_its_outcome_and_no_seat_to_move() {
        let replay = first_moves("schotten-totten", &[], 2, usize::MAX);
        let steps = replay_steps(&replay).unwrap();
        assert_eq!(steps.steps.last().unwrap().to_move, None);
        let outcome = steps.outcome.as_ref().expect("the game ended");
        assert_eq!(outcome.ranks.len(), 2);
        let json: serde_json::Value = serde_json::from_str(&steps.to_json_string()).unwrap();
        assert_eq!(json["outcome"]["ranks"].as_array().unwrap().len(), 2);
        assert_eq!(json["steps"][0]["views"][1]["seat"], 1);
    }

    #[test]
    fn an_illegal_action_stops_the_steps_with_the_reason() {
        let mut replay = first_moves("bullfrogs", &[], 2, 4);
        replay.actions.insert(2, "\u{1b}[2J nonsense".to_string());
        let steps = replay_steps(&replay).unwrap();
        assert_eq!(steps.steps.len(), 3);
        let error = steps.error.unwrap();
        assert!(error.starts_with("action 2 "), "{error}");
    }

    #[test]
    fn a_huge_action_is_quoted_short_in_the_reason() {
        let mut replay = first_moves("schotten-totten", &[], 2, 2);
        replay.actions.push("x".repeat(1 << 20));
        let steps = replay_steps(&replay).unwrap();
        assert_eq!(steps.steps.len(), 3);
        assert!(steps.error.unwrap().len() < 200);
    }

    #[test]
    fn an_unknown_game_or_seat_count_is_refused() {
        let mut replay = first_moves("schotten-totten", &[], 2, 0);
        replay.n_seats = 9;
        assert!(replay_steps(&replay).is_err());
        replay.game = "chess".into();
        assert!(replay_steps(&replay).is_err());
    }

    #[test]
    fn each_decision_carries_its_recorded_time_and_the_deal_none() {
        let replay = first_moves("bullfrogs", &[], 2, 3);
        let steps = replay_steps(&replay)
            .unwrap()
            .with_times(&[Some(1500), None, Some(7)]);
        let times: Vec<Option<u64>> = steps.steps.iter().map(|step| step.cpu_us).collect();
        assert_eq!(times, [None, Some(1500), None, Some(7)]);
        let json: serde_json::Value = serde_json::from_str(&steps.to_json_string()).unwrap();
        assert_eq!(json["steps"][1]["cpu_us"], 1500);
        assert!(json["steps"][2]["cpu_us"].is_null());
        let untimed = replay_steps(&replay).unwrap().with_times(&[]);
        assert!(untimed.steps.iter().all(|step| step.cpu_us.is_none()));
    }

    #[test]
    fn a_seat_sees_its_own_hand_and_not_the_others() {
        let replay = first_moves("schotten-totten", &[], 2, 3);
        let steps = replay_steps(&replay).unwrap();
        let json: serde_json::Value = serde_json::from_str(&steps.to_json_string()).unwrap();
        let zero = &json["steps"][3]["views"][0];
        let one = &json["steps"][3]["views"][1];
        assert_ne!(zero["hand"], one["hand"]);
        assert_eq!(zero["stones"], one["stones"]);
    }
}
