//! Cancelling a tournament (issue 10): its owner stops it. Matches not yet
//! played (queued, or leased to a runner) are given up with the failure
//! `cancelled` and never leased again; a runner's later report for one is
//! refused with its own message; games already recorded stay, rated.

use sqlx::AnyConnection;

use super::{Owner, Store};
use crate::error::ArenaError;

/// The failure a cancelled match is given up with (written out in
/// `shown_match_status!`).
pub(crate) const CANCELLED: &str = "cancelled";

impl Store {
    /// Cancels tournament `tournament_id` of `owner`; the number of matches
    /// given up (zero when it was finished or cancelled already).
    pub async fn cancel_tournament(
        &self,
        owner: &Owner,
        tournament_id: i64,
    ) -> Result<i64, ArenaError> {
        let now = self.now_ms();
        let dropped = self.write(async |tx| {
            let row: Option<(i64, super::Flag, super::Flag, Option<i64>, super::Flag)> = sqlx::query_as(
                "SELECT owner_id, planning_done, cancelled_at IS NOT NULL, planned_matches, validates IS NOT NULL FROM tournaments WHERE id = $1",
            )
            .bind(tournament_id)
            .fetch_optional(&mut **tx)
            .await?;
            let Some((owner_id, super::Flag(planning_done), super::Flag(cancelled), planned_matches, super::Flag(validation))) =
                row
            else {
                return Err(ArenaError::not_found("tournament", tournament_id));
            };
            // A version's validation is the arena's, not its owner's to skip.
            if validation {
                return Err(ArenaError::FailedPrecondition(format!(
                    "tournament {tournament_id} validates a bot version: it cannot be cancelled"
                )));
            }
            if owner_id != owner.id {
                return Err(ArenaError::PermissionDenied(format!(
                    "tournament {tournament_id} belongs to another owner"
                )));
            }
            // RULING (ours): a plan still being written is not cancelled under
            // its writer's feet (it would queue the matches it writes next);
            // planning takes seconds, so the owner cancels once it is written.
            if !planning_done {
                return Err(ArenaError::FailedPrecondition(format!(
                    "tournament {tournament_id} is still being planned: cancel it when its plan is written"
                )));
            }
            let dropped = sqlx::query(
                "UPDATE matches SET status = 'done', failure = $1, finished_at = $2, lease_holder = NULL, lease_expires_at = NULL \
                 WHERE tournament_id = $3 AND status IN ('queued', 'leased')",
            )
            .bind(CANCELLED)
            .bind(now)
            .bind(tournament_id)
            .execute(&mut **tx)
            .await?
            .rows_affected();
            // Finished as `tournament show` says it (every planned match
            // exists and none is left to play): its history stays as it is.
            if dropped == 0 && !cancelled {
                let matches: i64 =
                    sqlx::query_scalar("SELECT COUNT(*) FROM matches WHERE tournament_id = $1")
                        .bind(tournament_id)
                        .fetch_one(&mut **tx)
                        .await?;
                if matches >= planned_matches.unwrap_or(0) {
                    return Err(ArenaError::FailedPrecondition(format!(
                        "tournament {tournament_id} is finished: nothing to cancel"
                    )));
                }
            }
            sqlx::query(
                "UPDATE tournaments SET cancelled_at = COALESCE(cancelled_at, $1) WHERE id = $2",
            )
            .bind(now)
            .bind(tournament_id)
            .execute(&mut **tx)
            .await?;
            Ok(dropped)
        }).await?;
        self.notify_change();
        Ok(dropped as i64)
    }
}

/// Why a runner no longer holds `match_id`: cancelled with its tournament,
/// or its lease lost.
pub(crate) async fn lease_lost(
    connection: &mut AnyConnection,
    match_id: i64,
) -> Result<ArenaError, ArenaError> {
    let failure: Option<Option<String>> =
        sqlx::query_scalar("SELECT failure FROM matches WHERE id = $1")
            .bind(match_id)
            .fetch_optional(&mut *connection)
            .await?;
    Ok(match failure.flatten().as_deref() {
        Some(CANCELLED) => ArenaError::FailedPrecondition(format!(
            "match {match_id} was cancelled with its tournament: its games are not needed"
        )),
        _ => ArenaError::LeaseLost { match_id },
    })
}
