//! Games played in-process between [`Bot`]s, each seeing what the runner
//! would send it (the same observation encoder, legal actions in the
//! engine's order, the events of other seats' actions): for bot tests and
//! the strength benchmark, without processes. A real match is `cairn play`.

use cairn_engine::{new_game, GameOptions, Outcome, Seat, SetupError};
use cairn_proto::convert;
use cairn_proto::game::v1::{Event, TimeControl};

use crate::{Bot, Hello, Request};

/// Why a local game stopped early.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Convert(#[from] convert::ConvertError),
    #[error("seat {seat} answered `{action}`, which is not legal")]
    Illegal { seat: Seat, action: String },
    #[error("the game ended without an outcome")]
    NoOutcome,
}

/// Plays one game of `game` with `bots[seat]` at each seat, every seat
/// told it has `per_decision_ms` per decision and no bank.
pub fn play_local(
    game: &str,
    options: &GameOptions,
    seed: u64,
    per_decision_ms: u32,
    bots: &mut [Box<dyn Bot>],
) -> Result<Outcome, LocalError> {
    let n_seats = bots.len();
    let mut state = new_game(game, options, n_seats, seed)?;
    for (seat, bot) in bots.iter_mut().enumerate() {
        bot.hello(&Hello {
            protocol_version: cairn_proto::PROTOCOL_VERSION as i32,
            game: game.to_string(),
            options: options.clone(),
            seat: seat as u32,
            n_seats: n_seats as u32,
            time_control: Some(TimeControl {
                per_decision_ms,
                bank_ms: 0,
            }),
            game_index: 0,
            n_games: 1,
        });
    }
    let mut pending: Vec<Vec<Event>> = vec![Vec::new(); n_seats];
    let mut decision_id = 0;
    while let Some(seat) = state.current_seat() {
        decision_id += 1;
        let request = Request {
            decision_id,
            events: std::mem::take(&mut pending[seat]),
            observation: Some(convert::observation(state.as_ref(), seat)?),
            legal_actions: state.legal_actions(),
            bank_left_ms: 0,
        };
        let action = bots[seat].decide(&request);
        if !request.legal_actions.contains(&action) {
            return Err(LocalError::Illegal { seat, action });
        }
        for viewer in (0..n_seats).filter(|&viewer| viewer != seat) {
            let seen = state.action_seen_by(&action, viewer).unwrap_or_default();
            pending[viewer].push(Event {
                seat: seat as u32,
                action: seen,
            });
        }
        state
            .apply_text(&action)
            .map_err(|_| LocalError::Illegal { seat, action })?;
        if let Some(announced) = state.announcement() {
            for events in &mut pending {
                events.push(Event {
                    seat: seat as u32,
                    action: announced.clone(),
                });
            }
        }
    }
    state.outcome().ok_or(LocalError::NoOutcome)
}
