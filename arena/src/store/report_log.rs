//! The arena's log of reports: one structured line per refused report and
//! per forfeit a recorded game holds, with its runner, match, game, bot
//! version and reason (`cairn serve --log-format json` ships them).

use super::Runner;
use crate::error::ArenaError;
use crate::report::GameReport;

/// One structured line per refused report (`--log-format json` ships it).
pub(super) fn refusal(runner: &Runner, match_id: i64, report: &GameReport, error: &ArenaError) {
    tracing::warn!(
        runner = %runner.name,
        match_id,
        game_index = report.game_index,
        reason = %error,
        "report refused"
    );
}

/// One structured line per forfeit a recorded game holds.
pub(super) fn forfeits(runner: &Runner, match_id: i64, report: &GameReport) {
    for (seat, result) in report.seats.iter().enumerate() {
        if let Some(forfeit) = &result.forfeit {
            tracing::info!(
                runner = %runner.name,
                match_id,
                game_index = report.game_index,
                seat,
                bot_version = result.bot_version_id,
                reason = forfeit.reason.as_str(),
                "forfeit"
            );
        }
    }
}
