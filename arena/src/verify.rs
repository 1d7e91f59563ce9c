//! Reported games are not trusted: the arena re-referees every replay with
//! the engine ([`cairn_engine::forfeit::referee_replay`], the very code the
//! runner scored it with) and accepts a report only if its scores, ranks,
//! forfeits and end reason are the ones that follow from the replay.
//!
//! Pure: the store calls [`verify_game`] before it opens its write
//! transaction, so a refusal writes nothing and re-simulation never holds
//! the write lock.

use cairn_engine::forfeit::{ForfeitReason, MAX_FORFEIT_DETAIL_BYTES};
use cairn_engine::GameOptions;
use cairn_proto::record::ReplayFile;

use crate::error::ArenaError;
use crate::report::GameReport;

/// The largest replay kept per game.
pub const MAX_REPLAY_BYTES: usize = 4 * 1024 * 1024;

/// What the plan says of one game: the report is checked against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedGame {
    pub game: String,
    pub options: GameOptions,
    pub game_index: i64,
    pub seed: u64,
    /// Bot version ids by seat.
    pub seats: Vec<i64>,
    /// Each seat's bot as a replay names it (`name@version`), by seat.
    pub seat_names: Vec<String>,
}

/// Checks a reported game against the plan and against its own replay.
pub type GameVerifier = fn(&PlannedGame, &GameReport) -> Result<(), ArenaError>;

/// Checks a reported game with the engine: the plan's seats, the replay's
/// game, options, seed and seat count, every action and hash, the forfeits'
/// places, and then every seat's score, rank and forfeit and the end reason.
pub fn verify_game(planned: &PlannedGame, report: &GameReport) -> Result<(), ArenaError> {
    check_against_plan(planned, report)?;
    let index = planned.game_index;
    let invalid = |what: String| ArenaError::invalid(format!("game {index}: {what}"));
    let text = std::str::from_utf8(&report.replay)
        .map_err(|_| invalid("the replay is not UTF-8 JSON".into()))?;
    let file = ReplayFile::from_json(text).map_err(|error| invalid(error.to_string()))?;
    let [record] = file.games.as_slice() else {
        return Err(invalid(format!(
            "the replay holds {} games, not 1",
            file.games.len()
        )));
    };
    if record.game != planned.game
        // Compared canonical: a tournament stored before options were
        // canonical may plan `tactics=false` where the runner records `{}`.
        || cairn_engine::canonical_options(&record.game, &record.options).ok()
            != cairn_engine::canonical_options(&planned.game, &planned.options).ok()
        || record.seed != planned.seed
        || record.seats.len() != planned.seats.len()
    {
        return Err(invalid(
            "the replay is not of the planned game, options, seed and seats".into(),
        ));
    }
    // The replay is kept and shown as it came: its names must be the
    // seated bots', or it would credit a game to another bot.
    if record.seats != planned.seat_names {
        return Err(invalid(format!(
            "the replay's seats are not the seated bots ({})",
            planned.seat_names.join(", ")
        )));
    }
    if let Some(forfeit) = record
        .forfeits
        .iter()
        .find(|forfeit| forfeit.detail.len() > MAX_FORFEIT_DETAIL_BYTES)
    {
        return Err(invalid(format!(
            "the forfeit detail of seat {} is over {MAX_FORFEIT_DETAIL_BYTES} bytes",
            forfeit.seat
        )));
    }
    record
        .verify(0)
        .map_err(|error| invalid(format!("the replay does not hold up: {error}")))?;
    if report.ended_by != record.score.ended_by {
        return Err(invalid(format!(
            "the report says it ended by {}, the replay by {}",
            report.ended_by.as_str(),
            record.score.ended_by.as_str()
        )));
    }
    for (seat, result) in report.seats.iter().enumerate() {
        let forfeit = record.forfeits.iter().find(|forfeit| forfeit.seat == seat);
        let derived = (
            i64::from(record.score.scores[seat]),
            record.score.ranks[seat],
            forfeit.map(|forfeit| (forfeit.reason, forfeit.detail.as_str())),
        );
        let reported = (
            result.score,
            result.rank,
            result
                .forfeit
                .as_ref()
                .map(|forfeit| (forfeit.reason, forfeit.detail.as_str())),
        );
        if derived != reported {
            return Err(invalid(format!(
                "seat {seat} is reported with score {}, rank {}{}; the replay gives score {}, rank {}{}",
                reported.0,
                reported.1,
                forfeit_text(reported.2),
                derived.0,
                derived.1,
                forfeit_text(derived.2),
            )));
        }
    }
    Ok(())
}

fn forfeit_text(forfeit: Option<(ForfeitReason, &str)>) -> String {
    forfeit.map_or_else(String::new, |(reason, _)| {
        format!(", forfeit {}", reason.as_str())
    })
}

/// The checks that need no replay: seats, bot versions, sizes.
pub fn check_against_plan(planned: &PlannedGame, report: &GameReport) -> Result<(), ArenaError> {
    let index = planned.game_index;
    let n_seats = planned.seats.len();
    if report.seats.len() != n_seats {
        return Err(ArenaError::invalid(format!(
            "game {index} has {n_seats} seats, the report has {}",
            report.seats.len()
        )));
    }
    if report.replay.len() > MAX_REPLAY_BYTES {
        return Err(ArenaError::TooLarge(format!(
            "the replay of game {index} is {} bytes, more than the {MAX_REPLAY_BYTES} allowed",
            report.replay.len()
        )));
    }
    for (seat, (result, &expected)) in report.seats.iter().zip(&planned.seats).enumerate() {
        if result.bot_version_id != expected {
            return Err(ArenaError::invalid(format!(
                "game {index} seat {seat} is bot version {expected}, not {}",
                result.bot_version_id
            )));
        }
        if result.rank == 0 || result.rank as usize > n_seats {
            return Err(ArenaError::invalid(format!(
                "game {index} seat {seat} has rank {}, not 1 to {n_seats}",
                result.rank
            )));
        }
        if let Some(forfeit) = &result.forfeit {
            // A failed build is the arena's to record, after a second runner
            // confirms it (`ReportBuildFailure`); in a game report it would
            // charge a bot on one runner's word.
            if forfeit.reason == ForfeitReason::BuildFailed {
                return Err(ArenaError::invalid(format!(
                    "game {index} seat {seat}: a failed build is reported with ReportBuildFailure, not as a forfeit in a game"
                )));
            }
            if forfeit.detail.len() > MAX_FORFEIT_DETAIL_BYTES {
                return Err(ArenaError::invalid(format!(
                    "game {index} seat {seat}: the forfeit detail is over {MAX_FORFEIT_DETAIL_BYTES} bytes"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
