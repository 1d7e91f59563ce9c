//! A version is checked before it is rated. With validation on, a new
//! version is `validating`: it plays copies of itself at every game and
//! table size it declares, on fixed seeds, through the runners' ordinary
//! leases (each table a validation tournament: `tournaments.validates`
//! names the version). Its reports are re-refereed like any other; its
//! games are never rated, on no leaderboard and in no fit, and listings of
//! tournaments leave them out.
//!
//! When a validation match is done: a forfeit in any of its games makes the
//! version `failed` (the first one, with its game, reason, detail, stderr
//! tail and replay) and drops the validation matches not yet leased; once
//! every validation match is done without one, the version is `ready` and
//! joins the ladders of the games it plays. Only a `ready` version enters a
//! tournament.
//!
//! RULING (ours): a validation match given up after too many host faults
//! fails the validation as the host's (`host_fault`), never as a forfeit;
//! submitting the same contents again starts a fresh validation.

use cairn_engine::GameOptions;
use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;

use super::plan_chunks::insert_games;
use super::tournaments::variant_key;
use super::Store;
use crate::archive::Manifest;
use crate::error::ArenaError;

/// The planned seeds of every validation table: the same for every
/// version (a runner deals from a keyed hash of each, as for any game).
pub const VALIDATION_SEEDS: [u64; 2] = [0x5eed_0001, 0x5eed_0002];

/// Whether new versions are validated before they join anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    /// Every new version plays its validation games first (`cairn serve`'s
    /// default).
    On,
    /// A new version is ready at once (`cairn serve --no-validation`, and
    /// the store's tests that play no validation games).
    Off,
}

/// Where a version's validation stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValidationState {
    Validating,
    Ready,
    Failed(ValidationFailure),
}

impl ValidationState {
    /// `validating`, `ready` or `failed validation`.
    pub fn label(&self) -> &'static str {
        match self {
            ValidationState::Validating => "validating",
            ValidationState::Ready => "ready",
            ValidationState::Failed(_) => "failed validation",
        }
    }
}

/// Why a version failed its validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationFailure {
    pub game: String,
    pub variant: String,
    pub seats: i64,
    /// The game that failed (`cairn match show GAME_ID`); none for a host fault.
    pub game_id: Option<i64>,
    /// The forfeit reason (`timeout`, `protocol_error`, ...), or `host_fault`.
    pub reason: String,
    pub detail: String,
    /// The end of the failing seat's stderr in that game.
    pub stderr_tail: String,
}

/// The reason a validation failed for the host's fault.
pub const HOST_FAULT: &str = "host_fault";

/// Reads a version's stored validation columns.
pub(crate) fn stored_state(
    state: &str,
    failure: Option<&str>,
) -> Result<ValidationState, ArenaError> {
    match (state, failure) {
        ("validating", _) => Ok(ValidationState::Validating),
        ("ready", _) => Ok(ValidationState::Ready),
        ("failed", Some(failure)) => serde_json::from_str(failure)
            .map(ValidationState::Failed)
            .map_err(|error| ArenaError::Internal(format!("stored failure unreadable: {error}"))),
        (other, _) => Err(ArenaError::Internal(format!(
            "stored validation state `{other}` unknown"
        ))),
    }
}

/// Every table a manifest declares: each game it lists (every game when it
/// lists none), at every table size the game takes, with the option that
/// table size needs (a solo table its solo option), else the defaults.
pub fn validation_tables(games: Option<&[String]>) -> Vec<(String, GameOptions, usize)> {
    let games: Vec<&str> = match games {
        Some(games) => games.iter().map(String::as_str).collect(),
        None => cairn_engine::game_ids().collect(),
    };
    let mut tables = Vec::new();
    for game in games {
        let Some(descriptor) = cairn_engine::descriptor(game) else {
            continue;
        };
        for rule in descriptor.seats {
            let mut options = GameOptions::new();
            if let Some((key, value)) = rule.when {
                options.insert(key.to_string(), value.to_string());
            }
            for seats in rule.min..=rule.max {
                // A rule shadowed by an earlier one for these options
                // gives no table of its own.
                if let Ok(canonical) = descriptor.check_setup(&options, seats) {
                    if !tables
                        .iter()
                        .any(|(g, o, s)| g == game && *o == canonical && *s == seats)
                    {
                        tables.push((game.to_string(), canonical, seats));
                    }
                }
            }
        }
    }
    tables
}

/// Starts the validation of a version just stored, in its transaction:
/// one validation tournament, entry, match and games per table.
pub(crate) async fn start(
    tx: &mut AnyConnection,
    version_id: i64,
    manifest: &Manifest,
    now: i64,
) -> Result<(), ArenaError> {
    sqlx::query("UPDATE bot_versions SET validation = 'validating', validation_failure = NULL WHERE id = $1")
        .bind(version_id)
        .execute(&mut *tx)
        .await?;
    for (game, options, seats) in validation_tables(manifest.games.as_deref()) {
        let options_json = serde_json::to_string(&options)
            .map_err(|error| ArenaError::Internal(error.to_string()))?;
        let tournament_id: i64 = sqlx::query_scalar(
            "INSERT INTO tournaments (owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at, \
             planned_matches, planning_done, validates) \
             SELECT b.owner_id, $1, $2, $3, $4, $5, $6, $7, 1, 1, v.id FROM bot_versions v JOIN bots b ON b.id = v.bot_id \
             WHERE v.id = $8 RETURNING id",
        )
        .bind(&game)
        .bind(options_json)
        .bind(variant_key(&options))
        .bind(seats as i64)
        .bind(VALIDATION_SEEDS.len() as i64)
        .bind(VALIDATION_SEEDS[0] as i64)
        .bind(now)
        .bind(version_id)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO tournament_entries (tournament_id, entry_index, bot_version_id) VALUES ($1, 0, $2)")
            .bind(tournament_id)
            .bind(version_id)
            .execute(&mut *tx)
            .await?;
        let match_id: i64 = sqlx::query_scalar(
            "INSERT INTO matches (tournament_id, match_index, status) VALUES ($1, 0, 'queued') RETURNING id",
        )
        .bind(tournament_id)
        .fetch_one(&mut *tx)
        .await?;
        for seat in 0..seats {
            sqlx::query("INSERT INTO seats (match_id, seat, bot_version_id) VALUES ($1, $2, $3)")
                .bind(match_id)
                .bind(seat as i64)
                .bind(version_id)
                .execute(&mut *tx)
                .await?;
        }
        insert_games(tx, match_id, 0, &VALIDATION_SEEDS).await?;
    }
    Ok(())
}

/// The step after a validation match of `tournament_id` is done (its
/// format's step): fails or readies the version it validates.
pub(crate) async fn after_match_done(
    tx: &mut AnyConnection,
    tournament_id: i64,
    version_id: i64,
) -> Result<(), ArenaError> {
    let state: String = sqlx::query_scalar("SELECT validation FROM bot_versions WHERE id = $1")
        .bind(version_id)
        .fetch_one(&mut *tx)
        .await?;
    if state != "validating" {
        return Ok(());
    }
    if let Some(failure) = first_failure(tx, tournament_id).await? {
        tracing::debug!(version_id, reason = %failure.reason, "a version failed its validation");
        let failure = serde_json::to_string(&failure)
            .map_err(|error| ArenaError::Internal(error.to_string()))?;
        sqlx::query(
            "UPDATE bot_versions SET validation = 'failed', validation_failure = $1 WHERE id = $2",
        )
        .bind(failure)
        .bind(version_id)
        .execute(&mut *tx)
        .await?;
        let others: Vec<i64> =
            sqlx::query_scalar("SELECT id FROM tournaments WHERE validates = $1 ORDER BY id")
                .bind(version_id)
                .fetch_all(&mut *tx)
                .await?;
        for other in others {
            super::rounds::drop_unplayed_matches(tx, other).await?;
        }
        return Ok(());
    }
    let unfinished: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM matches m JOIN tournaments t ON t.id = m.tournament_id \
         WHERE t.validates = $1 AND m.status != 'done'",
    )
    .bind(version_id)
    .fetch_one(&mut *tx)
    .await?;
    if unfinished == 0 {
        tracing::debug!(version_id, "a version passed its validation");
        sqlx::query("UPDATE bot_versions SET validation = 'ready' WHERE id = $1")
            .bind(version_id)
            .execute(&mut *tx)
            .await?;
        super::rounds::enter_ladders_in(tx, version_id).await?;
    }
    Ok(())
}

/// The first forfeit of a validation tournament's games, or its match
/// given up for the host's faults; `None` when it passed.
async fn first_failure(
    tx: &mut AnyConnection,
    tournament_id: i64,
) -> Result<Option<ValidationFailure>, ArenaError> {
    let (game, variant, seats): (String, String, i64) =
        sqlx::query_as("SELECT game, variant, seats_per_game FROM tournaments WHERE id = $1")
            .bind(tournament_id)
            .fetch_one(&mut *tx)
            .await?;
    let forfeit: Option<(i64, String, Option<String>, Option<String>)> = sqlx::query_as(
        "SELECT rs.game_id, rs.forfeit_reason, rs.forfeit_detail, rs.stderr_tail FROM result_seats rs \
         JOIN games g ON g.id = rs.game_id JOIN matches m ON m.id = g.match_id \
         WHERE m.tournament_id = $1 AND rs.forfeit_reason IS NOT NULL \
         ORDER BY g.game_index, rs.seat LIMIT 1",
    )
    .bind(tournament_id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((game_id, reason, detail, stderr_tail)) = forfeit {
        return Ok(Some(ValidationFailure {
            game,
            variant,
            seats,
            game_id: Some(game_id),
            reason,
            detail: detail.unwrap_or_default(),
            stderr_tail: stderr_tail.unwrap_or_default(),
        }));
    }
    let given_up: Option<Option<String>> = sqlx::query_scalar(
        "SELECT failure FROM matches WHERE tournament_id = $1 AND failure IS NOT NULL LIMIT 1",
    )
    .bind(tournament_id)
    .fetch_optional(&mut *tx)
    .await?;
    Ok(given_up.map(|failure| ValidationFailure {
        game,
        variant,
        seats,
        game_id: None,
        reason: HOST_FAULT.to_string(),
        detail: format!(
            "the runners could not play this validation game (not the bot's fault): {}",
            failure.unwrap_or_default()
        ),
        stderr_tail: String::new(),
    }))
}

impl Store {
    /// Whether this store validates new versions.
    pub fn validation(&self) -> Validation {
        self.validation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(games: Option<&[&str]>) -> Manifest {
        Manifest {
            name: "b".into(),
            command: vec!["./b".into()],
            build: None,
            games: games.map(|games| games.iter().map(|g| g.to_string()).collect()),
        }
    }

    #[test]
    fn a_bot_is_validated_at_every_table_size_of_the_games_it_lists() {
        let tables = validation_tables(manifest(Some(&["bullfrogs"])).games.as_deref());
        let sizes: Vec<usize> = tables.iter().map(|(_, _, seats)| *seats).collect();
        assert_eq!(sizes, [1, 2, 3, 4]);
        assert_eq!(tables[0].1.get("solo").map(String::as_str), Some("true"));
        assert!(
            tables[1].1.is_empty(),
            "the default options: {:?}",
            tables[1].1
        );
    }

    #[test]
    fn a_bot_that_lists_no_games_is_validated_at_every_game() {
        let tables = validation_tables(manifest(None).games.as_deref());
        for game in cairn_engine::game_ids() {
            assert!(tables.iter().any(|(listed, _, _)| listed == game), "{game}");
        }
        assert!(tables
            .iter()
            .any(|(g, _, s)| g == "schotten-totten" && *s == 2));
    }

    #[test]
    fn a_stored_state_reads_back() {
        let failure = ValidationFailure {
            game: "schotten-totten".into(),
            variant: String::new(),
            seats: 2,
            game_id: Some(7),
            reason: "timeout".into(),
            detail: "it took too long".into(),
            stderr_tail: "oops".into(),
        };
        let text = serde_json::to_string(&failure).unwrap();
        assert_eq!(
            stored_state("failed", Some(&text)).unwrap(),
            ValidationState::Failed(failure)
        );
        assert_eq!(stored_state("ready", None).unwrap(), ValidationState::Ready);
        assert!(stored_state("bogus", None).is_err());
    }
}

#[cfg(test)]
#[path = "validation/store_tests.rs"]
mod store_tests;
