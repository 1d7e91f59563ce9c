//! The versions a tournament suspended for forfeiting too often, as
//! `cairn tournament show` prints them (a block of its own).

use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};

/// The suspensions block: nothing when there are none.
pub fn text(tournament: &pb::Tournament, suspensions: &[pb::Suspension]) -> String {
    let policy = match tournament.max_forfeit_rate {
        Some(rate) if rate < 1.0 => format!(
            "a version forfeiting more than {:.0}% of its games (after {}) is suspended",
            100.0 * rate,
            cairn_arena::store::MIN_GAMES_BEFORE_SUSPENSION
        ),
        _ => return String::new(),
    };
    if suspensions.is_empty() {
        return format!("forfeit policy: {policy}; none so far\n");
    }
    let mut text = format!("forfeit policy: {policy}\nsuspended:\n");
    for suspension in suspensions {
        let name = suspension
            .entry
            .as_ref()
            .map_or(String::new(), |e| format!("{}@{}", e.bot_name, e.version));
        text.push_str(&format!(
            "  {}: {}\n",
            crate::escape::line(&name),
            crate::escape::line(&suspension.reason)
        ));
    }
    text.push_str("  (their played games are kept, their unplayed ones dropped)\n");
    text
}

/// The suspensions as JSON.
pub fn json(suspensions: &[pb::Suspension]) -> Value {
    suspensions
        .iter()
        .map(|suspension| {
            let entry = suspension.entry.clone().unwrap_or_default();
            json!({"bot": entry.bot_name, "version": entry.version, "games": suspension.games,
                   "forfeits": suspension.forfeits, "reason": suspension.reason,
                   "suspended_at_ms": suspension.suspended_at_ms})
        })
        .collect()
}
