//! Results, written once per game. A runner reports each game of a match
//! under the lease it was given; the report is checked against the plan and
//! re-refereed ([`crate::verify`]) before the write transaction opens, then
//! stored with every seat's score, rank and forfeit, and rated, in one
//! transaction. The match is done when its last game is recorded.

use cairn_engine::forfeit::ForfeitReason;
use cairn_engine::GameOptions;

use super::accounts::Runner;
use super::leases::LeaseState;
use super::recording::{
    rated_seats, result_steps_columns, write_result, NewResult, Recording, ReportedUnder,
    ResultSteps,
};
use super::{token_hash, BoardPatch, Store, Touch, WriteTransaction};
use crate::error::ArenaError;
use crate::verify::PlannedGame;

pub use crate::report::{
    Forfeit, GameReport, GameReportOutcome, MatchReport, ReportOutcome, SeatResult,
};
pub use crate::verify::MAX_REPLAY_BYTES;

/// A game of a match as planned, with its tournament's game and variant.
#[derive(Debug, Clone)]
pub(crate) struct PlannedResult {
    pub planned: PlannedGame,
    pub game_id: i64,
    pub variant: String,
    pub already_recorded: bool,
    pub tournament_id: i64,
    pub match_index: i64,
    pub steps: ResultSteps,
    /// False for a validation game: recorded, never rated.
    pub rated: bool,
    /// The match's lease when the plan was read.
    pub lease: LeaseState,
}

impl Store {
    /// Records one game of a leased match, once: a game already recorded is
    /// answered `AlreadyRecorded`; a report under a lost lease, or one that
    /// does not follow from its replay, is refused and writes nothing.
    pub async fn report_game(
        &self,
        runner: &Runner,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        // One read before the write transaction: the game's plan and its
        // match's lease.
        let (planned, _) = self
            .planned_and_runner(match_id, report.game_index, None)
            .await?;
        self.record_game(runner, planned, match_id, lease_generation, report)
            .await
    }

    /// [`Store::report_game`] for the runner whose token a call carried,
    /// checked in the read of the game's plan (one round trip fewer than
    /// [`Store::runner_by_token`] first): `Unauthenticated` for a token of
    /// no runner, or of a revoked one, whatever the report says.
    pub async fn report_game_with_token(
        &self,
        token: &str,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        let hash = token_hash(token);
        let found = self
            .planned_and_runner(match_id, report.game_index, Some(&hash))
            .await;
        let (planned, runner) = match found {
            Ok((planned, Some(runner))) => (planned, runner),
            Ok((_, None)) => return Err(ArenaError::Unauthenticated("runner")),
            // No such game: the caller hears that only with a runner's token.
            Err(error) => {
                self.runner_by_token(token).await?;
                return Err(error);
            }
        };
        self.record_game(&runner, planned, match_id, lease_generation, report)
            .await
    }

    /// Records a game of `match_id` as `planned`, for `runner`, then
    /// reviews the runner when the game holds a forfeit only it saw.
    async fn record_game(
        &self,
        runner: &Runner,
        planned: PlannedResult,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        let outcome = self
            .record_game_once(runner, planned, match_id, lease_generation, report)
            .await
            .inspect_err(|error| super::report_log::refusal(runner, match_id, report, error))?;
        if outcome.outcome == ReportOutcome::Recorded {
            super::report_log::recorded(&self.metrics, runner, match_id, report);
            self.review_after_report(runner, report).await?;
        }
        Ok(outcome)
    }

    /// Records a game of `match_id` as `planned`, for `runner`.
    async fn record_game_once(
        &self,
        runner: &Runner,
        planned: PlannedResult,
        match_id: i64,
        lease_generation: i64,
        report: &GameReport,
    ) -> Result<GameReportOutcome, ArenaError> {
        if planned.already_recorded {
            return Ok(GameReportOutcome {
                outcome: ReportOutcome::AlreadyRecorded,
                match_done: planned.lease.status == "done",
            });
        }
        // Refused early, before re-refereeing (the write checks again).
        if !planned
            .lease
            .held_by(runner, lease_generation, self.now_ms())
        {
            let mut connection = self.pool().acquire().await?;
            return Err(super::cancel::lease_lost(&mut connection, match_id).await?);
        }
        (self.verifier)(&planned.planned, report)?;
        // Readers of the board's fit take it as busy until the report ends.
        let _under_way = self
            .reads
            .report_under_way(&planned.planned.game, &planned.variant);
        let result = NewResult {
            game_id: planned.game_id,
            match_id,
            match_index: planned.match_index,
            tournament_id: planned.tournament_id,
            board: (&planned.planned.game, &planned.variant),
            steps: planned.steps,
            report,
            runner_id: Some(runner.id),
            now: self.now_ms(),
            // A validation game is recorded like any other, never rated.
            rated: if planned.rated {
                rated_seats(&report.seats)
            } else {
                Vec::new()
            },
            lease: Some(ReportedUnder {
                runner,
                generation: lease_generation,
            }),
            ends_transaction: true,
        };
        let body = async |tx: &mut WriteTransaction| {
            let (finishes_match, saved) = match write_result(tx, &result).await? {
                Recording::AlreadyRecorded { match_done } => {
                    tx.touches_nothing_cached();
                    return Ok(GameReportOutcome {
                        outcome: ReportOutcome::AlreadyRecorded,
                        match_done,
                    });
                }
                Recording::Recorded {
                    finishes_match,
                    saved,
                    ..
                } => (finishes_match, saved),
            };
            // What `NewResult::touches` says, in its order.
            tx.touches(Touch::Match {
                tournament_id: planned.tournament_id,
                match_index: planned.match_index,
            });
            tx.patches_board(BoardPatch {
                game: planned.planned.game.clone(),
                variant: planned.variant.clone(),
                standings: saved,
            });
            Ok(GameReportOutcome {
                outcome: ReportOutcome::Recorded,
                match_done: finishes_match,
            })
        };
        let recorded = self.write_report(body).await?;
        if recorded.outcome == ReportOutcome::Recorded {
            self.notify_change();
        }
        Ok(recorded)
    }

    /// Reports every game of a match in order, each on its own; stops at
    /// the first refusal. `Recorded` if any game was newly recorded.
    pub async fn report_result(
        &self,
        runner: &Runner,
        report: &MatchReport,
    ) -> Result<ReportOutcome, ArenaError> {
        let mut outcome = ReportOutcome::AlreadyRecorded;
        for game in &report.games {
            let recorded = self
                .report_game(runner, report.match_id, report.lease_generation, game)
                .await?;
            if recorded.outcome == ReportOutcome::Recorded {
                outcome = ReportOutcome::Recorded;
            }
        }
        Ok(outcome)
    }

    /// The plan of one game of a match.
    #[cfg(test)]
    pub(crate) async fn planned_result(
        &self,
        match_id: i64,
        game_index: i64,
    ) -> Result<PlannedResult, ArenaError> {
        Ok(self.planned_and_runner(match_id, game_index, None).await?.0)
    }

    /// The plan of one game of a match, and the unrevoked runner whose
    /// token hashes to `token_hash` (`None` without one): one statement.
    async fn planned_and_runner(
        &self,
        match_id: i64,
        game_index: i64,
        token_hash: Option<&str>,
    ) -> Result<(PlannedResult, Option<Runner>), ArenaError> {
        let row = sqlx::query_as(concat!(
            "SELECT rn.id AS runner_id, rn.name AS runner_name, g.id AS game_id, g.seed, t.game, t.options, t.variant, \
             EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.id) AS already_recorded, t.id AS tournament_id, m.match_index, ",
            result_steps_columns!(),
            ", t.validates IS NULL AS rated, m.status, m.lease_generation, m.lease_holder, m.lease_expires_at, \
             (SELECT string_agg(CAST(s.bot_version_id AS TEXT), ',' ORDER BY s.seat) FROM seats s WHERE s.match_id = m.id) AS seats, \
             (SELECT string_agg(b.name || '@' || CAST(v.version AS TEXT), ',' ORDER BY s.seat) FROM seats s \
              JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id WHERE s.match_id = m.id) AS seat_names \
             FROM games g JOIN matches m ON m.id = g.match_id JOIN tournaments t ON t.id = m.tournament_id \
             LEFT JOIN runners rn ON rn.token_hash = $3 AND rn.revoked_at IS NULL \
             WHERE g.match_id = $1 AND g.game_index = $2",
        ))
        .bind(match_id)
        .bind(game_index)
        .bind(token_hash);
        let row: Option<PlannedRow> = self
            .runner_read(async |connection| row.fetch_optional(connection).await)
            .await?;
        let Some(PlannedRow {
            runner_id,
            runner_name,
            game_id,
            seed,
            game,
            options,
            variant,
            already_recorded,
            tournament_id,
            match_index,
            steps,
            rated,
            lease,
            seats,
            seat_names,
        }) = row
        else {
            return Err(ArenaError::not_found(
                "game of match",
                format!("{match_id}/{game_index}"),
            ));
        };
        let options: GameOptions = serde_json::from_str(&options)
            .map_err(|error| ArenaError::Internal(format!("stored options unreadable: {error}")))?;
        // The seats in one column (the Any driver reads no arrays).
        let seats = seats
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .filter(|id| !id.is_empty())
            .map(|id| {
                id.parse().map_err(|error| {
                    ArenaError::Internal(format!("stored seat `{id}` unreadable: {error}"))
                })
            })
            .collect::<Result<Vec<i64>, ArenaError>>()?;
        // Names hold no comma (letters, digits, `-`, `_`, `.`); the SQL
        // writes each as `seat_label` does.
        let seat_names = seat_names
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        let runner = runner_id
            .zip(runner_name)
            .map(|(id, name)| Runner { id, name });
        let planned = PlannedResult {
            planned: PlannedGame {
                game,
                options,
                game_index,
                // Reports are re-refereed on the deal the lease carried.
                seed: self.deal_seed(tournament_id, seed as u64),
                seats,
                seat_names,
            },
            game_id,
            variant,
            already_recorded,
            tournament_id,
            match_index,
            steps,
            rated,
            lease,
        };
        Ok((planned, runner))
    }
}

#[derive(sqlx::FromRow)]
struct PlannedRow {
    runner_id: Option<i64>,
    runner_name: Option<String>,
    game_id: i64,
    seed: i64,
    game: String,
    options: String,
    variant: String,
    #[sqlx(try_from = "super::Flag")]
    already_recorded: bool,
    tournament_id: i64,
    match_index: i64,
    #[sqlx(flatten)]
    steps: ResultSteps,
    #[sqlx(try_from = "super::Flag")]
    rated: bool,
    #[sqlx(flatten)]
    lease: LeaseState,
    seats: Option<String>,
    seat_names: Option<String>,
}

/// A stored seat result, its reason read back through the enum.
pub(crate) fn seat_result(
    bot_version_id: i64,
    score: i64,
    rank: i64,
    forfeit_reason: Option<String>,
    forfeit_detail: Option<String>,
) -> Result<SeatResult, ArenaError> {
    let forfeit = match forfeit_reason {
        None => None,
        Some(name) => Some(Forfeit {
            reason: ForfeitReason::from_name(&name).ok_or_else(|| {
                ArenaError::Internal(format!("stored forfeit reason `{name}` is unknown"))
            })?,
            detail: forfeit_detail.unwrap_or_default(),
        }),
    };
    Ok(SeatResult {
        bot_version_id,
        score,
        rank: rank as u32,
        forfeit,
    })
}
