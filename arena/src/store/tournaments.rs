//! Tournaments: checked against the engine, planned by their format (see
//! [`crate::format`]: the first round at creation, in chunks, see
//! `plan_chunks.rs`; later rounds as results come, see `rounds.rs`).

use cairn_engine::GameOptions;

use super::accounts::Owner;
use super::Store;
use crate::error::ArenaError;
use crate::format::{self, Format, FormatSpec};
use crate::stats::Sprt;
use crate::store::{BotVersion, Page, PageOf, SeatResult, ValidationState};

/// The format a tournament is asked to have.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FormatRequest {
    /// round-robin (also when empty), gauntlet, swiss or knockout.
    pub name: String,
    /// Swiss: the number of rounds.
    pub rounds: usize,
    /// Ladder: the 95% interval width (elo points) entries play down to.
    pub width: u32,
    /// Gauntlet: the challengers (`name` or `name@N`); entered if the bots
    /// do not name them.
    pub challengers: Vec<String>,
    /// Gauntlet of one challenger at two seats: stop once decided.
    pub sprt: Option<Sprt>,
    /// The forfeit rate past which a version is suspended from the
    /// tournament (see `suspensions.rs`); `None`: never.
    pub max_forfeit_rate: Option<f64>,
}

/// The longest idempotency key taken.
pub const MAX_IDEMPOTENCY_KEY_BYTES: usize = 128;

fn check_idempotency_key(key: &str) -> Result<(), ArenaError> {
    if key.is_empty()
        || key.len() > MAX_IDEMPOTENCY_KEY_BYTES
        || !key.bytes().all(|byte| byte.is_ascii_graphic())
    {
        return Err(ArenaError::invalid(format!(
            "an idempotency key is 1 to {MAX_IDEMPOTENCY_KEY_BYTES} printable ASCII characters"
        )));
    }
    Ok(())
}

/// The owner's tournament created under `key` (none for an empty key).
async fn keyed_tournament<'c>(
    executor: impl sqlx::Executor<'c, Database = sqlx::Any>,
    owner: &Owner,
    key: &str,
) -> Result<Option<i64>, ArenaError> {
    if key.is_empty() {
        return Ok(None);
    }
    Ok(sqlx::query_scalar(
        "SELECT id FROM tournaments WHERE owner_id = $1 AND idempotency_key = $2",
    )
    .bind(owner.id)
    .bind(key)
    .fetch_optional(executor)
    .await?)
}

/// What a tournament is asked to be.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTournament {
    pub game: String,
    pub options: GameOptions,
    /// `name` (latest version) or `name@N`.
    pub bots: Vec<String>,
    pub seats_per_game: usize,
    pub games_per_pairing: usize,
    pub seed: u64,
    pub format: FormatRequest,
}

/// A bot version entered in a tournament.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Entry {
    pub bot_version_id: i64,
    pub bot_name: String,
    pub version: i64,
}

/// A tournament's SPRT and where it stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtStatus {
    pub sprt: Sprt,
    /// The log-likelihood ratio after the last finished match.
    pub llr: f64,
    /// `h0` or `h1` once decided.
    pub verdict: Option<&'static str>,
    /// Deal pairs by the challenger's points over the pair (0, ½, 1, 1½, 2).
    pub pairs: [u64; 5],
}

/// A tournament as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Tournament {
    pub id: i64,
    pub owner: String,
    pub game: String,
    pub options: GameOptions,
    /// The options as `k=v,k=v` (sorted): the leaderboard's variant key.
    pub variant: String,
    pub seats_per_game: usize,
    pub games_per_pairing: usize,
    pub seed: u64,
    pub entries: Vec<Entry>,
    pub created_at: i64,
    pub format: Format,
    pub sprt: Option<SprtStatus>,
    /// The forfeit rate past which a version is suspended; `None`: never.
    pub max_forfeit_rate: Option<f64>,
    /// Set for a validation tournament: the version it validates.
    pub validates: Option<i64>,
}

/// How far a tournament has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TournamentProgress {
    pub tournament_id: i64,
    pub matches_total: i64,
    pub matches_queued: i64,
    pub matches_leased: i64,
    /// Done, including the failed ones.
    pub matches_done: i64,
    /// Given up after too many host faults (never rated).
    pub matches_failed: i64,
    pub games_total: i64,
    pub games_done: i64,
    /// Its owner cancelled it.
    pub cancelled: bool,
}

impl TournamentProgress {
    pub fn finished(&self) -> bool {
        self.matches_done == self.matches_total
    }
}

/// One match of a tournament, with its seating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchSummary {
    pub id: i64,
    pub tournament_id: i64,
    pub match_index: i64,
    /// queued, leased, done or failed.
    pub status: String,
    /// Why it was given up, when it failed.
    pub failure: Option<String>,
    /// Entries by seat.
    pub seats: Vec<Entry>,
    /// The games, in order.
    pub games: Vec<GameSummary>,
}

/// One game of a match, with its result once recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSummary {
    pub game_id: i64,
    pub seed: u64,
    /// By seat; empty until recorded.
    pub result: Vec<SeatResult>,
}

/// The variant key of a set of options (canonical ones: see
/// [`Store::canonical_options`]).
pub fn variant_key(options: &GameOptions) -> String {
    options
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(sqlx::FromRow)]
struct TournamentRow {
    id: i64,
    owner: String,
    game: String,
    options: String,
    variant: String,
    seats_per_game: i64,
    games_per_pairing: i64,
    seed: i64,
    created_at: i64,
    max_forfeit_rate: Option<f64>,
    validates: Option<i64>,
}

impl Store {
    /// Checks, plans and stores a round-robin tournament created by `owner`.
    pub async fn create_tournament(
        &self,
        owner: &Owner,
        request: &NewTournament,
    ) -> Result<Tournament, ArenaError> {
        self.create_tournament_once(owner, request, None).await
    }

    /// [`Store::create_tournament`], once per `key` and owner: a request
    /// repeated with the key the owner gave before (a retry after a lost
    /// answer) returns the tournament the first one created, whatever it
    /// asks; without a key every request creates one.
    pub async fn create_tournament_once(
        &self,
        owner: &Owner,
        request: &NewTournament,
        key: Option<&str>,
    ) -> Result<Tournament, ArenaError> {
        if let Some(key) = key {
            check_idempotency_key(key)?;
            if let Some(id) = keyed_tournament(self.pool(), owner, key).await? {
                return self.tournament(id).await;
            }
        }
        match self.create_tournament_keyed(owner, request, key).await {
            // The same key, in a request that committed meanwhile.
            Err(ArenaError::Database(sqlx::Error::Database(error)))
                if error.is_unique_violation() && key.is_some() =>
            {
                let id = keyed_tournament(self.pool(), owner, key.unwrap_or_default())
                    .await?
                    .ok_or_else(|| ArenaError::Internal(error.to_string()))?;
                self.tournament(id).await
            }
            other => other,
        }
    }

    async fn create_tournament_keyed(
        &self,
        owner: &Owner,
        request: &NewTournament,
        key: Option<&str>,
    ) -> Result<Tournament, ArenaError> {
        // Canonical, so an explicit default is the same variant as none.
        let canonical = self.check_game(&request.game, &request.options, request.seats_per_game)?;
        if let Some(rate) = request.format.max_forfeit_rate {
            super::suspensions::check_max_forfeit_rate(rate)?;
        }
        let (entries, format) = self.resolve_format(request).await?;
        let spec = FormatSpec {
            format,
            n_entries: entries.len(),
            seats: request.seats_per_game,
            games_per_pairing: request.games_per_pairing,
            seed: request.seed,
        };
        format::check(&spec)?;
        let expected_matches = format::expected_matches(&spec)?;
        let new_games = (expected_matches * format::games_per_match(&spec)) as i64;
        let challengers = match &spec.format {
            Format::Gauntlet { challengers } => serde_json::to_string(challengers)
                .map_err(|error| ArenaError::Internal(error.to_string()))?,
            _ => "[]".to_string(),
        };
        let rounds = match spec.format {
            Format::Swiss { rounds } => rounds as i64,
            _ => 0,
        };
        let ladder_width = match spec.format {
            Format::Ladder { width } => i64::from(width),
            _ => 0,
        };
        let sprt = request.format.sprt;
        let options = serde_json::to_string(&canonical)
            .map_err(|error| ArenaError::Internal(error.to_string()))?;
        let created = self.write(async |tx| {
            if let Some(id) = keyed_tournament(&mut **tx, owner, key.unwrap_or_default()).await? {
                return Ok(Err(id));
            }
            self.check_tournament_quota(tx, owner, new_games).await?;
            let tournament_id: i64 = sqlx::query_scalar(
                "INSERT INTO tournaments (owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at, planned_matches, planning_done, \
                 format, rounds, ladder_width, challengers, sprt_elo0, sprt_elo1, sprt_alpha, sprt_beta, sprt_model, sprt_pairs, max_forfeit_rate) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING id",
            )
            .bind(owner.id)
            .bind(&request.game)
            .bind(options)
            .bind(variant_key(&canonical))
            .bind(request.seats_per_game as i64)
            .bind(request.games_per_pairing as i64)
            .bind(request.seed as i64)
            .bind(self.now_ms())
            .bind(expected_matches as i64)
            .bind(spec.format.name())
            .bind(rounds)
            .bind(ladder_width)
            .bind(challengers)
            .bind(sprt.map(|sprt| sprt.elo0))
            .bind(sprt.map(|sprt| sprt.elo1))
            .bind(sprt.map(|sprt| sprt.alpha))
            .bind(sprt.map(|sprt| sprt.beta))
            .bind(sprt.map(|sprt| sprt.model.name()))
            // The tally starts at once, so the test decides at the first
            // deal pair that settles it, not when a whole match ends.
            .bind(sprt.map(|_| "[0,0,0,0,0]"))
            .bind(request.format.max_forfeit_rate)
            .fetch_one(&mut **tx)
            .await?;
            for (index, entry) in entries.iter().enumerate() {
                sqlx::query("INSERT INTO tournament_entries (tournament_id, entry_index, bot_version_id) VALUES ($1, $2, $3)")
                    .bind(tournament_id)
                    .bind(index as i64)
                    .bind(entry.id)
                    .execute(&mut **tx)
                    .await?;
            }
            if let Some(key) = key {
                sqlx::query("UPDATE tournaments SET idempotency_key = $1 WHERE id = $2")
                    .bind(key)
                    .bind(tournament_id)
                    .execute(&mut **tx)
                    .await?;
            }
            Ok(Ok(tournament_id))
        }).await?;
        let tournament_id = match created {
            Ok(id) => id,
            Err(existing) => return self.tournament(existing).await,
        };
        // The plan itself, in short transactions (resumed after a restart).
        self.write_plan(tournament_id).await?;
        self.tournament(tournament_id).await
    }

    /// The entries (the bots, then any challenger they do not name) and
    /// the format a request asks for.
    async fn resolve_format(
        &self,
        request: &NewTournament,
    ) -> Result<(Vec<BotVersion>, Format), ArenaError> {
        let asked = &request.format;
        let mut everyone = request.clone();
        let named: Vec<i64> = self
            .resolve_entries(request)
            .await?
            .iter()
            .map(|entry| entry.id)
            .collect();
        for challenger in &asked.challengers {
            let version = self.resolve_bot_version(challenger).await?;
            if !named.contains(&version.id) && !everyone.bots.contains(challenger) {
                everyone.bots.push(challenger.clone());
            }
        }
        let entries = self.resolve_entries(&everyone).await?;
        let format = match asked.name.as_str() {
            "" | "round-robin" => Format::RoundRobin,
            "gauntlet" => {
                let mut challengers = Vec::with_capacity(asked.challengers.len());
                for challenger in &asked.challengers {
                    let version = self.resolve_bot_version(challenger).await?;
                    let index = entries
                        .iter()
                        .position(|entry| entry.id == version.id)
                        .ok_or_else(|| ArenaError::Internal("challenger not entered".into()))?;
                    challengers.push(index);
                }
                Format::Gauntlet { challengers }
            }
            "swiss" => Format::Swiss {
                rounds: asked.rounds,
            },
            "knockout" => Format::Knockout,
            "ladder" => Format::Ladder { width: asked.width },
            other => {
                return Err(ArenaError::invalid(format!(
                    "unknown format `{other}` (round-robin, gauntlet, swiss, knockout or ladder)"
                )))
            }
        };
        if !asked.challengers.is_empty() && !matches!(format, Format::Gauntlet { .. }) {
            return Err(ArenaError::invalid("challengers belong to a gauntlet"));
        }
        if asked.width != 0 && !matches!(format, Format::Ladder { .. }) {
            return Err(ArenaError::invalid("a width belongs to a ladder"));
        }
        if asked.rounds != 0 && !matches!(format, Format::Swiss { .. }) {
            return Err(ArenaError::invalid(
                "--rounds belongs to a swiss tournament (--format swiss)",
            ));
        }
        if asked.sprt.is_some() {
            let one_challenger =
                matches!(&format, Format::Gauntlet { challengers } if challengers.len() == 1);
            if !one_challenger || request.seats_per_game != 2 {
                return Err(ArenaError::invalid(
                    "an sprt belongs to a gauntlet of one challenger at tables of 2 (--format gauntlet --challenger BOT)",
                ));
            }
        }
        Ok((entries, format))
    }

    /// The versions a request names: each once, not deleted, playing the game.
    async fn resolve_entries(
        &self,
        request: &NewTournament,
    ) -> Result<Vec<BotVersion>, ArenaError> {
        let mut entries: Vec<BotVersion> = Vec::with_capacity(request.bots.len());
        for reference in &request.bots {
            let version = self.resolve_bot_version(reference).await?;
            if entries.iter().any(|entry| entry.id == version.id) {
                return Err(ArenaError::invalid(format!(
                    "`{reference}` is entered twice"
                )));
            }
            if self.bot_is_deleted(&version.bot_name).await? {
                return Err(ArenaError::invalid(format!(
                    "bot `{}` has been deleted (its owner brings it back with `cairn bot add`)",
                    version.bot_name
                )));
            }
            match &version.validation {
                ValidationState::Ready => {}
                ValidationState::Validating => {
                    return Err(ArenaError::invalid(format!(
                        "bot `{}` version {} is still validating (`cairn bot add --wait` waits for it; \
                         `cairn bot show {}` tells when it is ready)",
                        version.bot_name, version.version, version.bot_name
                    )))
                }
                ValidationState::Failed(failure) => {
                    return Err(ArenaError::invalid(format!(
                        "bot `{}` version {} failed its validation ({} at {}, {} seats): it joins no tournament",
                        version.bot_name, version.version, failure.reason, failure.game, failure.seats
                    )))
                }
            }
            if !version.manifest.plays(&request.game) {
                return Err(ArenaError::invalid(format!(
                    "bot `{reference}` does not list `{}` among its games",
                    request.game
                )));
            }
            entries.push(version);
        }
        Ok(entries)
    }

    /// A tournament by id.
    pub async fn tournament(&self, tournament_id: i64) -> Result<Tournament, ArenaError> {
        let row: Option<TournamentRow> = sqlx::query_as(
            "SELECT t.id, o.name AS owner, t.game, t.options, t.variant, t.seats_per_game, t.games_per_pairing, t.seed, t.created_at, \
             t.max_forfeit_rate, t.validates \
             FROM tournaments t JOIN owners o ON o.id = t.owner_id WHERE t.id = $1",
        )
        .bind(tournament_id)
        .fetch_optional(self.pool())
        .await?;
        let row = row.ok_or_else(|| ArenaError::not_found("tournament", tournament_id))?;
        let entries = sqlx::query_as(
            "SELECT e.bot_version_id, b.name AS bot_name, v.version FROM tournament_entries e \
             JOIN bot_versions v ON v.id = e.bot_version_id JOIN bots b ON b.id = v.bot_id \
             WHERE e.tournament_id = $1 ORDER BY e.entry_index",
        )
        .bind(tournament_id)
        .fetch_all(self.pool())
        .await?;
        let options = serde_json::from_str(&row.options)
            .map_err(|error| ArenaError::Internal(format!("stored options unreadable: {error}")))?;
        let (format, sprt) = self.format_status(tournament_id).await?;
        Ok(Tournament {
            id: row.id,
            owner: row.owner,
            game: row.game,
            options,
            variant: row.variant,
            seats_per_game: row.seats_per_game as usize,
            games_per_pairing: row.games_per_pairing as usize,
            seed: row.seed as u64,
            entries,
            created_at: row.created_at,
            format,
            sprt,
            max_forfeit_rate: row.max_forfeit_rate,
            validates: row.validates,
        })
    }

    /// A tournament's format, and its SPRT's state when it has one.
    async fn format_status(
        &self,
        tournament_id: i64,
    ) -> Result<(Format, Option<SprtStatus>), ArenaError> {
        let mut connection = self.pool().acquire().await?;
        let stored = super::rounds::stored_format(&mut connection, tournament_id).await?;
        let sprt = match (&stored.sprt, &stored.spec.format) {
            (Some(sprt), Format::Gauntlet { challengers }) => {
                // The tally once the first check has counted (a listing
                // reads five numbers), else counted here.
                let pairs = match (stored.sprt_pairs, challengers.first()) {
                    (Some(pairs), _) => pairs,
                    (None, Some(&challenger)) => {
                        super::rounds::stored_deal_pairs(&mut connection, tournament_id, challenger)
                            .await?
                    }
                    (None, None) => [0; 5],
                };
                Some(SprtStatus {
                    sprt: *sprt,
                    llr: stored.sprt_llr.unwrap_or(0.0),
                    verdict: match stored.sprt_verdict.as_deref() {
                        Some("h0") => Some("h0"),
                        Some("h1") => Some("h1"),
                        _ => None,
                    },
                    pairs,
                })
            }
            _ => None,
        };
        Ok((stored.spec.format, sprt))
    }

    /// A page of tournament ids, newest first.
    pub async fn list_tournament_ids(&self, page: &Page<i64>) -> Result<PageOf<i64>, ArenaError> {
        let ids = sqlx::query_scalar(
            "SELECT id FROM tournaments WHERE id < $1 AND validates IS NULL ORDER BY id DESC LIMIT $2",
        )
        .bind(page.after.unwrap_or(i64::MAX))
        .bind(page.limit())
        .fetch_all(self.pool())
        .await?;
        Ok(page.finish(ids, |id| *id))
    }

    /// How far a tournament has got.
    pub async fn tournament_progress(
        &self,
        tournament_id: i64,
    ) -> Result<TournamentProgress, ArenaError> {
        let (planned_matches, super::Flag(planning_done), games_per_match, super::Flag(cancelled)): (Option<i64>, super::Flag, i64, super::Flag) =
            sqlx::query_as(concat!("SELECT planned_matches, planning_done, ", super::games_per_match_sql!(), ", cancelled_at IS NOT NULL FROM tournaments WHERE id = $1"))
                .bind(tournament_id)
                .fetch_optional(self.pool())
                .await?
                .ok_or_else(|| ArenaError::not_found("tournament", tournament_id))?;
        let (matches_total, matches_queued, matches_leased, matches_done, matches_failed): (i64, i64, i64, i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN status = 'queued' THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN status = 'leased' THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), 0), COUNT(failure) \
             FROM matches WHERE tournament_id = $1",
        )
        .bind(tournament_id)
        .fetch_one(self.pool())
        .await?;
        // While the plan is being written, the total is the plan's; once
        // cancelled, it is what was written (later rounds never come).
        let matches_total = if cancelled {
            matches_total
        } else {
            matches_total.max(planned_matches.unwrap_or(0))
        };
        let matches_done = if planning_done {
            matches_done
        } else {
            matches_done.min(matches_total - 1)
        };
        let (games_total, games_done): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(g.id), COUNT(r.id) FROM games g JOIN matches m ON m.id = g.match_id \
             LEFT JOIN results r ON r.game_id = g.id WHERE m.tournament_id = $1",
        )
        .bind(tournament_id)
        .fetch_one(self.pool())
        .await?;
        // Rounds not planned yet count with the games they will have (while
        // a first round is being written, the total is what is written; once
        // cancelled, later rounds never come).
        let games_total = if planning_done && !cancelled {
            games_total.max(matches_total * games_per_match)
        } else {
            games_total
        };
        Ok(TournamentProgress {
            tournament_id,
            matches_total,
            matches_queued,
            matches_leased,
            matches_done,
            matches_failed,
            games_total,
            games_done,
            cancelled,
        })
    }
}

#[cfg(test)]
#[path = "tournaments_idempotency_tests.rs"]
mod idempotency_tests;
