//! The arena's log of reports: one structured line per refused report and
//! per forfeit a recorded game holds, with its runner, match, game, bot
//! version and reason (`cairn serve --log-format json` ships them); a
//! recorded game and its forfeits are counted for Prometheus here too
//! (refusals are counted where the call is answered, with those refused
//! before the store is reached).

use super::Runner;
use crate::error::ArenaError;
use crate::metrics::Metrics;
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

/// A recorded game counted, and one structured line per forfeit it holds.
pub(super) fn recorded(metrics: &Metrics, runner: &Runner, match_id: i64, report: &GameReport) {
    let forfeits = report.seats.iter().filter_map(|seat| seat.forfeit.as_ref());
    metrics.game_recorded(forfeits.map(|forfeit| forfeit.reason));
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
