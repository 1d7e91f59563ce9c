//! What a runner reports of a game and what became of it: plain values,
//! read by the store (which records them) and by [`crate::verify`] (which
//! re-referees them), so neither imports the other.

use cairn_engine::forfeit::{EndedBy, ForfeitReason};

/// A runner's report of a whole match (a convenience: each game is
/// reported and recorded on its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchReport {
    pub match_id: i64,
    pub lease_generation: i64,
    pub games: Vec<GameReport>,
}

/// One finished game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameReport {
    pub game_index: i64,
    /// By seat.
    pub seats: Vec<SeatResult>,
    /// The replay as the runner wrote it (JSON bytes), kept as is.
    pub replay: Vec<u8>,
    pub ended_by: EndedBy,
    /// By seat, the end of its bot's stderr during the game (may be short
    /// or empty: a seat without one keeps none).
    pub stderr_tails: Vec<String>,
}

/// One seat's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatResult {
    pub bot_version_id: i64,
    pub score: i64,
    /// 1 is best; tied seats share a rank.
    pub rank: u32,
    pub forfeit: Option<Forfeit>,
}

/// Why a seat lost by forfeit. The store keeps the reason's text form
/// ([`ForfeitReason::as_str`]) and reads it back through the enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forfeit {
    pub reason: ForfeitReason,
    pub detail: String,
}

/// What became of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportOutcome {
    Recorded,
    /// The game was already recorded: nothing changed.
    AlreadyRecorded,
}

/// What became of one game's report, and whether its match is now done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameReportOutcome {
    pub outcome: ReportOutcome,
    pub match_done: bool,
}
