//! Refereeing with forfeits: a misbehaving bot is data, not an error. It
//! forfeits the game with a reason. Two seats: the opponent wins. Three or
//! more: the seat is out, ranked last, and the game goes on without it (the
//! engine plays its turns with its first legal action).
//!
//! The runner scores its games here and the arena re-scores every reported
//! game here ([`referee_replay`]), so both read a game the same way.

use serde::{Deserialize, Serialize};

use crate::game::{EndReason, Outcome, Seat, SetupError};
use crate::registry::new_game;
use crate::replay::Replay;

/// The longest forfeit detail kept (bytes); longer ones are cut at a
/// character boundary by [`Forfeit::new`], and refused by the arena.
pub const MAX_FORFEIT_DETAIL_BYTES: usize = 4096;

/// Why a seat lost by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    /// Its CPU bank ran out, or the wall-clock backstop fired.
    Timeout,
    /// The process died from a signal.
    Crash,
    /// The process exited, or closed its stdout.
    Exit,
    /// Output that is not the expected message.
    ProtocolError,
    /// An action that is not legal.
    IllegalAction,
    /// The sandbox stopped it for breaking a resource limit.
    ResourceLimit,
    /// Its `build` command failed: the bot version is broken.
    BuildFailed,
    /// Its process could not be started.
    StartFailed,
}

impl ForfeitReason {
    /// Every reason, in the order of their wire numbers.
    pub const ALL: [ForfeitReason; 8] = [
        ForfeitReason::Timeout,
        ForfeitReason::Crash,
        ForfeitReason::Exit,
        ForfeitReason::ProtocolError,
        ForfeitReason::IllegalAction,
        ForfeitReason::ResourceLimit,
        ForfeitReason::BuildFailed,
        ForfeitReason::StartFailed,
    ];

    /// The text form (what the store keeps and people read).
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::Timeout => "timeout",
            ForfeitReason::Crash => "crash",
            ForfeitReason::Exit => "exit",
            ForfeitReason::ProtocolError => "protocol_error",
            ForfeitReason::IllegalAction => "illegal_action",
            ForfeitReason::ResourceLimit => "resource_limit",
            ForfeitReason::BuildFailed => "build_failed",
            ForfeitReason::StartFailed => "start_failed",
        }
    }

    /// The reason a text form names.
    pub fn from_name(name: &str) -> Option<ForfeitReason> {
        ForfeitReason::ALL
            .into_iter()
            .find(|reason| reason.as_str() == name)
    }
}

/// A seat's forfeit of one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forfeit {
    pub seat: Seat,
    pub reason: ForfeitReason,
    pub detail: String,
    /// How many actions had been played when it happened.
    pub after_actions: usize,
}

impl Forfeit {
    /// A forfeit whose detail is cut to [`MAX_FORFEIT_DETAIL_BYTES`].
    pub fn new(
        seat: Seat,
        reason: ForfeitReason,
        detail: impl Into<String>,
        after_actions: usize,
    ) -> Forfeit {
        Forfeit {
            seat,
            reason,
            detail: capped(detail.into(), MAX_FORFEIT_DETAIL_BYTES),
            after_actions,
        }
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
pub fn capped(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    /// The rules ended it (forfeited seats, if any, were out before).
    Finished,
    /// The engine's safety cap on decisions ended it.
    MoveLimit,
    /// Forfeits left fewer than two seats in, so it stopped early (or a
    /// bot could not be built, so it never started).
    Forfeit,
}

impl EndedBy {
    pub const ALL: [EndedBy; 3] = [EndedBy::Finished, EndedBy::MoveLimit, EndedBy::Forfeit];

    pub fn as_str(self) -> &'static str {
        match self {
            EndedBy::Finished => "finished",
            EndedBy::MoveLimit => "move_limit",
            EndedBy::Forfeit => "forfeit",
        }
    }

    pub fn from_name(name: &str) -> Option<EndedBy> {
        EndedBy::ALL.into_iter().find(|end| end.as_str() == name)
    }
}

/// The scored result of a game, forfeits included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalScore {
    pub scores: Vec<i32>,
    pub ranks: Vec<u32>,
    pub ended_by: EndedBy,
}

/// Scores a game from the engine's outcome (`None` when it stopped early)
/// and the forfeits in the order they happened. Seats still in rank first,
/// by the engine's ranks (all first when it stopped early); forfeited seats
/// rank after them, the earliest forfeit last. Scores are the engine's, or
/// zero for everyone when the game stopped early.
///
/// RULING (ours): "ranked last" for several forfeits means the later a seat
/// dropped out the better it ranks; seats that forfeit at the same step
/// (both bots of a game failing to start) share their rank, so two bots
/// that never moved draw instead of one winning a race between two
/// failures (issue 29). A game stopped by forfeits scores
/// zero points for everyone (the ranks carry the result). A solo game has
/// no one to rank against: its forfeited seat scores the game's
/// `solo_forfeit_score` (see the Bullfrogs ruling there).
pub fn final_score(
    game: &str,
    engine: Option<&Outcome>,
    n_seats: usize,
    forfeits: &[Forfeit],
) -> FinalScore {
    let out: Vec<bool> = (0..n_seats)
        .map(|seat| forfeits.iter().any(|f| f.seat == seat))
        .collect();
    let engine_rank = |seat: Seat| engine.map_or(1, |o| o.ranks[seat]);
    let mut ranks: Vec<u32> = (0..n_seats)
        .map(|seat| {
            1 + (0..n_seats)
                .filter(|&other| !out[other] && engine_rank(other) < engine_rank(seat))
                .count() as u32
        })
        .collect();
    let n_in = out.iter().filter(|out| !**out).count();
    for forfeit in forfeits {
        let later = forfeits
            .iter()
            .filter(|other| other.after_actions > forfeit.after_actions)
            .count();
        ranks[forfeit.seat] = (1 + n_in + later) as u32;
    }
    let ended_by = match engine.map(|o| o.reason) {
        Some(EndReason::Finished) => EndedBy::Finished,
        Some(EndReason::MoveLimit) => EndedBy::MoveLimit,
        None => EndedBy::Forfeit,
    };
    let mut scores = engine.map_or_else(|| vec![0; n_seats], |o| o.scores.clone());
    if let Some(floor) = solo_forfeit_score(game, n_seats) {
        for forfeit in forfeits {
            scores[forfeit.seat] = floor;
        }
    }
    FinalScore {
        scores,
        ranks,
        ended_by,
    }
}

/// The score of a forfeited seat when `n_seats` is one and `game` has a
/// solo mode.
fn solo_forfeit_score(game: &str, n_seats: usize) -> Option<i32> {
    (n_seats == 1)
        .then(|| crate::registry::descriptor(game)?.solo_forfeit_score)
        .flatten()
}

/// The score of a game that never started because some seats' bots could
/// not be built (`broken[seat]`).
///
/// RULING (ours): a seat whose bot cannot be built forfeits with
/// `build_failed`; the game is not played. The broken seats share the last
/// rank, the others share first, and everyone scores 0: no seat earned
/// points, and a seat with a working bot is not charged for another's (a
/// solo seat scores as a forfeited solo game, as in [`final_score`]).
pub fn build_failed_score(game: &str, broken: &[bool]) -> FinalScore {
    let n_working = broken.iter().filter(|broken| !**broken).count() as u32;
    let floor = solo_forfeit_score(game, broken.len());
    FinalScore {
        scores: broken
            .iter()
            .map(|&broken| floor.filter(|_| broken).unwrap_or(0))
            .collect(),
        ranks: broken
            .iter()
            .map(|&broken| if broken { n_working + 1 } else { 1 })
            .collect(),
        ended_by: EndedBy::Forfeit,
    }
}

/// Why a refereed game does not hold up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefereeError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("forfeit of seat {seat}: the game has {n_seats} seats")]
    ForfeitSeat { seat: Seat, n_seats: usize },
    #[error("seat {0} forfeits twice")]
    ForfeitTwice(Seat),
    #[error("forfeit of seat {seat} after {after} actions: the forfeits are out of order or past the last action")]
    ForfeitOrder { seat: Seat, after: usize },
    #[error("forfeit of seat {seat} after {after} actions: the game was over")]
    ForfeitAfterEnd { seat: Seat, after: usize },
    #[error("action {index} `{action}` is illegal at that point")]
    IllegalAction { index: usize, action: String },
    #[error("action {index} `{action}` comes after the game ended")]
    AfterEnd { index: usize, action: String },
    #[error("action {index} `{action}` is played for seat {seat}, which is out: an out seat plays its first legal action")]
    OutSeatAction {
        index: usize,
        action: String,
        seat: Seat,
    },
    #[error("action {index} comes after forfeits stopped the game")]
    AfterStop { index: usize },
    #[error("the game stops after {0} actions with two or more seats still in")]
    Unfinished(usize),
}

/// A re-refereed game: the hash after each action and the score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refereed {
    /// `hashes[i]` follows action `i`.
    pub hashes: Vec<u64>,
    pub score: FinalScore,
}

/// Re-referees a game from its replay and forfeits, as the runner's match
/// loop plays it: forfeits at their place, an out seat's turns played with
/// its first legal action, the game stopped once fewer than two seats are
/// in. Refuses a game that could not have been played that way.
pub fn referee_replay(replay: &Replay, forfeits: &[Forfeit]) -> Result<Refereed, RefereeError> {
    let n_seats = replay.n_seats;
    check_forfeits(forfeits, n_seats, replay.actions.len())?;
    let mut state = new_game(&replay.game, &replay.options, n_seats, replay.seed)?;
    let mut out = vec![false; n_seats];
    let mut next_forfeit = 0;
    let mut hashes = Vec::with_capacity(replay.actions.len());
    for index in 0..=replay.actions.len() {
        while let Some(forfeit) = forfeits
            .get(next_forfeit)
            .filter(|f| f.after_actions == index)
        {
            if state.current_seat().is_none() {
                return Err(RefereeError::ForfeitAfterEnd {
                    seat: forfeit.seat,
                    after: index,
                });
            }
            out[forfeit.seat] = true;
            next_forfeit += 1;
        }
        let left = out.iter().filter(|out| !**out).count();
        let stopped = left == 0 || (n_seats > 1 && left == 1);
        let Some(action) = replay.actions.get(index) else {
            if state.current_seat().is_some() && !stopped {
                return Err(RefereeError::Unfinished(index));
            }
            break;
        };
        let Some(seat) = state.current_seat() else {
            return Err(RefereeError::AfterEnd {
                index,
                action: action.clone(),
            });
        };
        if stopped {
            return Err(RefereeError::AfterStop { index });
        }
        if out[seat] && state.legal_actions().first() != Some(action) {
            return Err(RefereeError::OutSeatAction {
                index,
                action: action.clone(),
                seat,
            });
        }
        state
            .apply_text(action)
            .map_err(|_| RefereeError::IllegalAction {
                index,
                action: action.clone(),
            })?;
        hashes.push(state.state_hash());
    }
    let score = final_score(&replay.game, state.outcome().as_ref(), n_seats, forfeits);
    Ok(Refereed { hashes, score })
}

fn check_forfeits(
    forfeits: &[Forfeit],
    n_seats: usize,
    n_actions: usize,
) -> Result<(), RefereeError> {
    let mut previous = 0;
    for (order, forfeit) in forfeits.iter().enumerate() {
        let (seat, after) = (forfeit.seat, forfeit.after_actions);
        if seat >= n_seats {
            return Err(RefereeError::ForfeitSeat { seat, n_seats });
        }
        if forfeits[..order].iter().any(|earlier| earlier.seat == seat) {
            return Err(RefereeError::ForfeitTwice(seat));
        }
        if after < previous || after > n_actions {
            return Err(RefereeError::ForfeitOrder { seat, after });
        }
        previous = after;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
