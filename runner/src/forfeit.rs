//! A misbehaving bot is data, not an error: it forfeits the game with a
//! reason. Two seats: the opponent wins. Three or more: the seat is out,
//! ranked last, and the game goes on without it.

use cairn_engine::{EndReason, Outcome, Seat};
use cairn_proto::game::v1 as wire;
use serde::{Deserialize, Serialize};

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
    /// Its command could not be started (missing, not executable, empty):
    /// the bot's fault, never the host's and never a `crash`.
    StartFailed,
}

impl ForfeitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::Timeout => "timeout",
            ForfeitReason::Crash => "crash",
            ForfeitReason::Exit => "exit",
            ForfeitReason::ProtocolError => "protocol_error",
            ForfeitReason::IllegalAction => "illegal_action",
            ForfeitReason::ResourceLimit => "resource_limit",
            ForfeitReason::StartFailed => "start_failed",
        }
    }

    pub fn to_wire(self) -> wire::ForfeitReason {
        match self {
            ForfeitReason::Timeout => wire::ForfeitReason::Timeout,
            ForfeitReason::Crash => wire::ForfeitReason::Crash,
            ForfeitReason::Exit => wire::ForfeitReason::Exit,
            ForfeitReason::ProtocolError => wire::ForfeitReason::ProtocolError,
            ForfeitReason::IllegalAction => wire::ForfeitReason::IllegalAction,
            ForfeitReason::ResourceLimit => wire::ForfeitReason::ResourceLimit,
            ForfeitReason::StartFailed => wire::ForfeitReason::StartFailed,
        }
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

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    /// The rules ended it (forfeited seats, if any, were out before).
    Finished,
    /// The engine's safety cap on decisions ended it.
    MoveLimit,
    /// Forfeits left fewer than two seats in, so it stopped early.
    Forfeit,
}

impl EndedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            EndedBy::Finished => "finished",
            EndedBy::MoveLimit => "move_limit",
            EndedBy::Forfeit => "forfeit",
        }
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
/// dropped out the better it ranks, and a game stopped by forfeits scores
/// zero points for everyone (the ranks carry the result).
pub fn final_score(engine: Option<&Outcome>, n_seats: usize, forfeits: &[Forfeit]) -> FinalScore {
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
    for (order, forfeit) in forfeits.iter().enumerate() {
        ranks[forfeit.seat] = (n_seats - order) as u32;
    }
    let ended_by = match engine.map(|o| o.reason) {
        Some(EndReason::Finished) => EndedBy::Finished,
        Some(EndReason::MoveLimit) => EndedBy::MoveLimit,
        None => EndedBy::Forfeit,
    };
    let scores = engine.map_or_else(|| vec![0; n_seats], |o| o.scores.clone());
    FinalScore {
        scores,
        ranks,
        ended_by,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forfeit(seat: Seat) -> Forfeit {
        Forfeit {
            seat,
            reason: ForfeitReason::Timeout,
            detail: String::new(),
            after_actions: 0,
        }
    }

    #[test]
    fn in_a_two_seat_game_the_opponent_of_a_forfeit_wins() {
        let score = final_score(None, 2, &[forfeit(0)]);
        assert_eq!(score.ranks, vec![2, 1]);
        assert_eq!(score.scores, vec![0, 0]);
        assert_eq!(score.ended_by, EndedBy::Forfeit);
    }

    #[test]
    fn forfeited_seats_rank_last_and_the_earliest_forfeit_lowest() {
        let engine = Outcome::from_scores(vec![9, 5, 7, 1], EndReason::Finished);
        let score = final_score(Some(&engine), 4, &[forfeit(0), forfeit(2)]);
        assert_eq!(score.ranks, vec![4, 1, 3, 2]);
        assert_eq!(score.scores, vec![9, 5, 7, 1]);
        assert_eq!(score.ended_by, EndedBy::Finished);
    }

    #[test]
    fn without_forfeits_the_engine_ranks_stand() {
        let engine = Outcome::from_scores(vec![3, 3, 1], EndReason::Finished);
        assert_eq!(final_score(Some(&engine), 3, &[]).ranks, vec![1, 1, 3]);
    }
}
