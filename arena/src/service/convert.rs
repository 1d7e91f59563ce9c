//! Store types to wire messages and back. Wire input is checked here only
//! as far as types go; the store checks meaning.

use cairn_proto::reasons::{end_reason_from_i32, forfeit_reason_from_i32};

use super::pb;
use crate::archive::Manifest;
use crate::error::ArenaError;
use crate::fit::{Estimate, Unidentified};
use crate::format::Format;
use crate::stats::{EloModel, Sprt};
use crate::store::{
    BotSummary, BotVersion, Entry, FitSummary, FittedRow, Forfeit, FormatRequest, GameReport,
    Lease, MatchSummary, NewTournament, SeatResult, SoloRow, SprtStatus, Suspension, Tournament,
    TournamentProgress, TournamentStandings, ValidationState,
};

pub(super) fn manifest(manifest: &Manifest) -> pb::BotManifest {
    pb::BotManifest {
        name: manifest.name.clone(),
        command: manifest.command.clone(),
        build: manifest.build.clone().unwrap_or_default(),
        games: manifest.games.clone().unwrap_or_default(),
    }
}

pub(super) fn bot_version(version: &BotVersion) -> pb::BotVersion {
    pb::BotVersion {
        id: version.id,
        bot_name: version.bot_name.clone(),
        owner: version.owner.clone(),
        version: version.version,
        content_hash: version.content_hash.clone(),
        manifest: Some(manifest(&version.manifest)),
        size_bytes: version.size_bytes,
        created_at_ms: version.created_at,
        broken: version.build_log.is_some(),
        build_log: version.build_log.clone().unwrap_or_default(),
        validation: match version.validation {
            ValidationState::Validating => "validating",
            ValidationState::Ready => "ready",
            ValidationState::Failed(_) => "failed",
        }
        .to_string(),
        validation_failure: match &version.validation {
            ValidationState::Failed(failure) => Some(pb::ValidationFailure {
                game: failure.game.clone(),
                variant: failure.variant.clone(),
                seats: u32::try_from(failure.seats).unwrap_or(0),
                game_id: failure.game_id.unwrap_or(0),
                reason: failure.reason.clone(),
                detail: failure.detail.clone(),
                stderr_tail: failure.stderr_tail.clone(),
            }),
            _ => None,
        },
    }
}

pub(super) fn bot_summary(bot: &BotSummary) -> pb::BotSummary {
    pb::BotSummary {
        id: bot.id,
        name: bot.name.clone(),
        owner: bot.owner.clone(),
        versions: bot.n_versions,
        latest_version: bot.latest_version,
        deleted: bot.deleted,
    }
}

pub(super) fn entry(entry: &Entry) -> pb::Entry {
    pb::Entry {
        bot_version_id: entry.bot_version_id,
        bot_name: entry.bot_name.clone(),
        version: entry.version,
    }
}

pub(super) fn new_tournament(
    request: pb::CreateTournamentRequest,
) -> Result<NewTournament, ArenaError> {
    let sprt = match request.sprt {
        None => None,
        Some(sprt) => {
            let or_default = |p: f64| if p == 0.0 { 0.05 } else { p };
            Some(
                Sprt::new(
                    sprt.elo0,
                    sprt.elo1,
                    or_default(sprt.alpha),
                    or_default(sprt.beta),
                )
                .and_then(|parsed| {
                    let model = match sprt.model.as_str() {
                        "" => EloModel::Logistic,
                        named => EloModel::parse(named)?,
                    };
                    Ok(parsed.with_model(model))
                })
                .map_err(ArenaError::invalid)?,
            )
        }
    };
    Ok(NewTournament {
        game: request.game,
        options: request.options,
        bots: request.bots,
        seats_per_game: if request.seats_per_game == 0 {
            2
        } else {
            request.seats_per_game as usize
        },
        games_per_pairing: request.games_per_pairing as usize,
        seed: request.seed,
        format: FormatRequest {
            name: request.format,
            rounds: request.rounds as usize,
            width: request.ladder_width,
            challengers: request.challengers,
            sprt,
            max_forfeit_rate: Some(
                request
                    .max_forfeit_rate
                    .unwrap_or(crate::store::DEFAULT_MAX_FORFEIT_RATE),
            ),
        },
    })
}

fn sprt_parameters(sprt: &Sprt) -> pb::SprtParameters {
    pb::SprtParameters {
        elo0: sprt.elo0,
        elo1: sprt.elo1,
        alpha: sprt.alpha,
        beta: sprt.beta,
        model: sprt.model.name().to_string(),
    }
}

pub(super) fn sprt_state(status: &SprtStatus) -> pb::SprtState {
    pb::SprtState {
        parameters: Some(sprt_parameters(&status.sprt)),
        llr: status.llr,
        lower_bound: status.sprt.lower_bound(),
        upper_bound: status.sprt.upper_bound(),
        verdict: status.verdict.unwrap_or("continue").to_string(),
        pentanomial: status.pairs.to_vec(),
    }
}

/// Standings and bracket, entries named from the tournament's list.
pub(super) fn standings(
    tournament: &Tournament,
    standings: &TournamentStandings,
) -> (Vec<pb::Standing>, Vec<pb::BracketTie>) {
    let named = |index: Option<usize>| index.and_then(|i| tournament.entries.get(i)).map(entry);
    let rows = standings
        .standings
        .iter()
        .enumerate()
        .map(|(position, row)| pb::Standing {
            position: position as u32 + 1,
            entry: named(Some(row.entry)),
            score: row.score,
            games: row.games as i64,
            rating: row.rating.map(fitted_rating),
        })
        .collect();
    let bracket = standings
        .bracket
        .iter()
        .flatten()
        .map(|tie| pb::BracketTie {
            round: tie.round as u32,
            first: named(tie.first),
            second: named(tie.second),
            first_points: tie.first_points,
            second_points: tie.second_points,
            winner: named(tie.winner),
        })
        .collect();
    (rows, bracket)
}

/// A tournament's results table and crosstable on the wire.
pub(super) fn results_table(
    tournament: &Tournament,
    table: &crate::store::ResultsTable,
) -> (Vec<pb::TableRow>, Vec<pb::CrossCell>) {
    let rows = table
        .rows
        .iter()
        .enumerate()
        .map(|(position, row)| pb::TableRow {
            position: position as u32 + 1,
            entry: tournament.entries.get(row.entry).map(entry),
            games: row.games as i64,
            wins: row.wins as i64,
            draws: row.draws as i64,
            losses: row.losses as i64,
            points: row.points,
            score: row.estimate.map(|e| e.score),
            elo: row.estimate.map(|e| e.elo),
            elo_low: row.estimate.map(|e| e.elo_low),
            elo_high: row.estimate.map(|e| e.elo_high),
        })
        .collect();
    let cells = table
        .crosstable
        .iter()
        .map(|cell| pb::CrossCell {
            row: cell.row as u32,
            column: cell.column as u32,
            wins: cell.wins as i64,
            draws: cell.draws as i64,
            losses: cell.losses as i64,
        })
        .collect();
    (rows, cells)
}

pub(super) fn tournament(tournament: &Tournament) -> pb::Tournament {
    pb::Tournament {
        id: tournament.id,
        owner: tournament.owner.clone(),
        game: tournament.game.clone(),
        options: tournament.options.clone(),
        variant: tournament.variant.clone(),
        seats_per_game: tournament.seats_per_game as u32,
        games_per_pairing: tournament.games_per_pairing as u32,
        seed: tournament.seed,
        entries: tournament.entries.iter().map(entry).collect(),
        created_at_ms: tournament.created_at,
        format: tournament.format.name().to_string(),
        rounds: match tournament.format {
            Format::Swiss { rounds } => rounds as u32,
            _ => 0,
        },
        challengers: match &tournament.format {
            Format::Gauntlet { challengers } => {
                challengers.iter().map(|&index| index as u32).collect()
            }
            _ => Vec::new(),
        },
        sprt: tournament.sprt.as_ref().map(sprt_state),
        ladder_width: match tournament.format {
            Format::Ladder { width } => width,
            _ => 0,
        },
        max_forfeit_rate: tournament.max_forfeit_rate,
        validation: tournament.validates.is_some(),
    }
}

pub(super) fn suspension(suspension: &Suspension) -> pb::Suspension {
    pb::Suspension {
        entry: Some(pb::Entry {
            bot_version_id: suspension.bot_version_id,
            bot_name: suspension.bot_name.clone(),
            version: suspension.version,
        }),
        games: suspension.games,
        forfeits: suspension.forfeits,
        reason: suspension.reason.clone(),
        suspended_at_ms: suspension.suspended_at,
    }
}

pub(super) fn progress(progress: &TournamentProgress) -> pb::TournamentProgress {
    pb::TournamentProgress {
        tournament_id: progress.tournament_id,
        matches_total: progress.matches_total,
        matches_queued: progress.matches_queued,
        matches_leased: progress.matches_leased,
        matches_done: progress.matches_done,
        matches_failed: progress.matches_failed,
        games_total: progress.games_total,
        games_done: progress.games_done,
        finished: progress.finished(),
        cancelled: progress.cancelled,
    }
}

/// A match, with its games when `with_games` (else only their counts).
pub(super) fn match_summary(summary: &MatchSummary, with_games: bool) -> pb::MatchSummary {
    let games = if with_games {
        summary
            .games
            .iter()
            .map(|game| pb::GameSummary {
                game_id: game.game_id,
                seed: game.seed,
                result: game.result.iter().map(seat_result).collect(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let done = summary
        .games
        .iter()
        .filter(|game| !game.result.is_empty())
        .count();
    pb::MatchSummary {
        games_total: count(summary.games.len()),
        games_done: count(done),
        match_id: summary.id,
        match_index: summary.match_index,
        status: summary.status.clone(),
        failure: summary.failure.clone().unwrap_or_default(),
        seats: summary.seats.iter().map(entry).collect(),
        games,
    }
}

pub(super) fn seat_result(result: &SeatResult) -> pb::SeatResult {
    pb::SeatResult {
        bot_version_id: result.bot_version_id,
        score: result.score,
        rank: result.rank,
        forfeit: result.forfeit.as_ref().map(|forfeit| pb::Forfeit {
            reason: pb::ForfeitReason::from(forfeit.reason) as i32,
            detail: forfeit.detail.clone(),
        }),
        stderr_tail: Vec::new(),
    }
}

pub(super) fn leaderboard_row(line: &FittedRow) -> pb::LeaderboardRow {
    let row = &line.row;
    let standing = &row.standing;
    pb::LeaderboardRow {
        position: row.position as u32,
        bot_version_id: row.bot_version_id,
        bot_name: row.bot_name.clone(),
        version: row.version,
        owner: row.owner.clone(),
        rating: standing.rating.value,
        uncertainty: standing.rating.uncertainty,
        games: standing.games,
        wins: standing.wins,
        draws: standing.draws,
        losses: standing.losses,
        forfeits: standing.forfeits,
        provisional: row.provisional,
        fitted: line.fitted.map(|fitted| pb::FittedRating {
            bound: line.bound,
            ..fitted_rating(fitted)
        }),
        live: line.live,
        fitted_games: line.fitted_games as i64,
        fitted_deals: line.fitted_deals as i64,
    }
}

fn fitted_rating(fitted: Result<Estimate, Unidentified>) -> pb::FittedRating {
    match fitted {
        Ok(estimate) => pb::FittedRating {
            identifiable: true,
            rating: estimate.rating,
            low: estimate.low,
            high: estimate.high,
            ..Default::default()
        },
        Err(reason) => pb::FittedRating {
            identifiable: false,
            not_identifiable: reason.id().to_string(),
            reason: reason.to_string(),
            ..Default::default()
        },
    }
}

pub(super) fn seat_share(share: &crate::stats::seats::SeatShare) -> pb::SeatShare {
    pb::SeatShare {
        table_size: share.table_size,
        seat: share.seat,
        games: share.games as i64,
        deals: share.deals as i64,
        share: share.share,
        low: share.low,
        high: share.high,
    }
}

pub(super) fn fit_summary(summary: &FitSummary) -> pb::FitSummary {
    pb::FitSummary {
        method: summary.method.id().to_string(),
        games: summary.games as i64,
        deals: summary.deals as i64,
        anchor_bot: summary.anchor_bot.clone().unwrap_or_default(),
        anchor_rating: summary.anchor_rating,
        table_sizes: summary.table_sizes.clone(),
    }
}

pub(super) fn lease(lease: &Lease) -> pb::MatchLease {
    pb::MatchLease {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        expires_at_ms: lease.expires_at,
        tournament_id: lease.tournament_id,
        game: lease.game.clone(),
        options: lease.options.clone(),
        seats: lease
            .seats
            .iter()
            .map(|seat| pb::LeasedSeat {
                bot_version_id: seat.bot_version_id,
                bot_name: seat.bot_name.clone(),
                version: seat.version,
                content_hash: seat.content_hash.clone(),
                manifest: Some(manifest(&seat.manifest)),
            })
            .collect(),
        games: lease
            .games
            .iter()
            .map(|game| pb::LeasedGame {
                game_id: game.game_id,
                game_index: game.game_index,
                seed: game.seed,
            })
            .collect(),
    }
}

pub(super) fn game_report(game: pb::GameResult) -> Result<GameReport, ArenaError> {
    let ended_by = end_reason_from_i32(game.end_reason)
        .map_err(|error| ArenaError::invalid(error.to_string()))?;
    let stderr_tails = game
        .seats
        .iter()
        .enumerate()
        .map(|(seat, result)| stderr_tail(seat, &result.stderr_tail))
        .collect::<Result<_, ArenaError>>()?;
    Ok(GameReport {
        game_index: game.game_index,
        seats: game
            .seats
            .into_iter()
            .map(report_seat)
            .collect::<Result<_, ArenaError>>()?,
        replay: known_fields_only(game.replay),
        ended_by,
        stderr_tails,
    })
}

/// A reported replay as the arena keeps and serves it: what the replay
/// format holds, written anew, so a runner cannot publish anything else
/// (unknown fields, padding) under a game. A replay that does not parse
/// is kept as it came: its verification refuses it.
fn known_fields_only(replay: Vec<u8>) -> Vec<u8> {
    let parsed = std::str::from_utf8(&replay)
        .ok()
        .and_then(|text| cairn_proto::record::ReplayFile::from_json(text).ok());
    match parsed {
        Some(file) => file.to_json().into_bytes(),
        None => replay,
    }
}

/// A reported stderr tail: refused over the cap our runners keep to; kept
/// as text, since a bot's bytes (or a cut in a character) need not be UTF-8.
fn stderr_tail(seat: usize, tail: &[u8]) -> Result<String, ArenaError> {
    if tail.len() > cairn_proto::STDERR_TAIL_CAP {
        return Err(ArenaError::invalid(format!(
            "the stderr tail of seat {seat} is {} bytes, at most {} allowed",
            tail.len(),
            cairn_proto::STDERR_TAIL_CAP
        )));
    }
    Ok(String::from_utf8_lossy(tail).into_owned())
}

fn report_seat(seat: pb::SeatResult) -> Result<SeatResult, ArenaError> {
    let forfeit = match seat.forfeit {
        None => None,
        Some(forfeit) => Some(Forfeit {
            reason: forfeit_reason_from_i32(forfeit.reason)
                .map_err(|error| ArenaError::invalid(error.to_string()))?,
            detail: forfeit.detail,
        }),
    };
    Ok(SeatResult {
        bot_version_id: seat.bot_version_id,
        score: seat.score,
        rank: seat.rank,
        forfeit,
    })
}

pub(super) fn solo_row((index, row): (usize, &SoloRow)) -> pb::SoloRow {
    pb::SoloRow {
        position: index as u32 + 1,
        bot_version_id: row.bot_version_id,
        bot_name: row.bot_name.clone(),
        version: row.version,
        deals: row.standing.deals as i64,
        mean: row.standing.score.rating,
        low: row.standing.score.low,
        high: row.standing.score.high,
        title: row.title.unwrap_or_default().to_string(),
        ahead_of_next: row.ahead_of_next.map(|difference| pb::PairedDifference {
            mean: difference.rating,
            low: difference.low,
            high: difference.high,
        }),
    }
}

#[cfg(test)]
mod tests {
    use cairn_proto::record::ReplayFile;

    #[test]
    fn a_reported_replay_keeps_only_the_fields_of_the_replay_format() {
        let honest = ReplayFile::new(Vec::new()).to_json();
        let mut padded: serde_json::Value = serde_json::from_str(&honest).unwrap();
        padded["smuggled"] = serde_json::json!("x".repeat(100_000));
        let padded = format!("{}{}", padded, " ".repeat(100_000)).into_bytes();
        assert_eq!(super::known_fields_only(padded), honest.as_bytes());
        let not_a_replay = br#"{"seed": 1}"#.to_vec();
        assert_eq!(super::known_fields_only(not_a_replay.clone()), not_a_replay);
    }
}
