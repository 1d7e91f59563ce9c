//! `cairn tournament create|status|watch|list`.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};
use tonic::transport::Channel;

use cairn_arena::stats::Sprt;

use crate::client::{authorized, connect, status_error, ArenaArgs, OwnerArgs};
use crate::table::Table;

type Client = pb::arena_client::ArenaClient<Channel>;

#[derive(Debug, clap::Subcommand)]
pub enum TournamentCommand {
    /// Create a tournament between bots and queue its first matches.
    Create {
        /// The game id (`cairn games` lists them).
        #[arg(long, value_parser = crate::games::game_id)]
        game: String,
        /// A game option, e.g. --opt tactics=true (repeatable; `cairn games`
        /// lists them).
        #[arg(long = "opt", value_name = "KEY=VALUE")]
        options: Vec<String>,
        /// Seats at each table.
        #[arg(long, default_value_t = 2)]
        seats: u32,
        /// Games each table plays over all its balanced seatings: a multiple of their
        /// count, n(n-1) at n seats (2 at two, 6 at three, 12 at four, 20 at five; 1 alone).
        #[arg(long, default_value_t = 2)]
        games_per_pairing: u32,
        /// The tournament seed: plans the table draws and each game's seed (public;
        /// the arena deals from a keyed hash of it under its database's secret).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// round-robin, gauntlet (challengers against the field), swiss
        /// (--rounds rounds, tables by score), knockout (a seeded bracket,
        /// bots in seeding order) or ladder (continuous, see --width).
        #[arg(long, default_value = "round-robin")]
        format: String,
        /// Swiss (required there): the number of rounds.
        #[arg(long, default_value_t = 0, hide_default_value = true)]
        rounds: u32,
        /// Ladder (required there): new versions of bots that play the game
        /// join and play until their 95% interval is at most this many Elo
        /// points wide, e.g. 150.
        #[arg(long, default_value_t = 0, hide_default_value = true)]
        width: u32,
        /// Gauntlet: a challenger, `name` or `name@N` (repeatable; entered
        /// if not among the bots).
        #[arg(long = "challenger", value_name = "BOT")]
        challengers: Vec<String>,
        /// Gauntlet of one challenger at two seats: stop as soon as this
        /// SPRT over deal pairs decides, e.g. --sprt elo0=0 elo1=10
        /// alpha=0.05 beta=0.05 (alpha and beta default to 0.05).
        #[arg(long, num_args = 2.., value_name = "KEY=VALUE")]
        sprt: Vec<String>,
        /// A version whose forfeit rate here exceeds this after at least 10
        /// games is suspended from the tournament: its unplayed games
        /// dropped, its played ones kept (1 never suspends). Forfeits
        /// caused by the host never count.
        #[arg(long, default_value_t = cairn_arena::store::DEFAULT_MAX_FORFEIT_RATE, value_name = "P")]
        max_forfeit_rate: f64,
        /// Bots as `name` (latest version) or `name@N`.
        #[arg(num_args = 0.., value_name = "BOT")]
        bots: Vec<String>,
        #[command(flatten)]
        owner: OwnerArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show a tournament's progress.
    Status {
        /// The tournament id.
        id: i64,
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show a tournament: its progress, then the standings, the knockout
    /// bracket or the SPRT's state.
    Show {
        /// The tournament id.
        id: i64,
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Follow a tournament with a progress bar until it finishes.
    Watch {
        /// The tournament id.
        id: i64,
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print one JSON line per update instead of a bar.
        #[arg(long)]
        json: bool,
    },
    /// Cancel one of your tournaments: matches not yet played are dropped,
    /// games already played stay rated.
    Cancel {
        /// The tournament id.
        id: i64,
        #[command(flatten)]
        owner: OwnerArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List every tournament.
    List {
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: TournamentCommand) -> anyhow::Result<ExitCode> {
    crate::client::runtime()?.block_on(async {
        match command {
            TournamentCommand::Create {
                game,
                options,
                seats,
                games_per_pairing,
                seed,
                format,
                rounds,
                width,
                challengers,
                sprt,
                max_forfeit_rate,
                bots,
                owner,
                json,
            } => {
                // `--sprt` takes what follows it; the words that are not
                // `key=value` are the bots.
                let (sprt, named): (Vec<String>, Vec<String>) =
                    sprt.into_iter().partition(|item| item.contains('='));
                let bots: Vec<String> = named.into_iter().chain(bots).collect();
                if bots.is_empty() {
                    anyhow::bail!("name the bots of the tournament");
                }
                let sprt = if sprt.is_empty() {
                    None
                } else {
                    let sprt =
                        Sprt::parse(sprt.iter().map(String::as_str)).map_err(anyhow::Error::msg)?;
                    Some(pb::SprtParameters {
                        elo0: sprt.elo0,
                        elo1: sprt.elo1,
                        alpha: sprt.alpha,
                        beta: sprt.beta,
                        model: sprt.model.name().to_string(),
                    })
                };
                let request = pb::CreateTournamentRequest {
                    options: crate::games::options(&game, &options)?,
                    game,
                    bots,
                    seats_per_game: seats,
                    games_per_pairing,
                    seed,
                    format,
                    rounds,
                    challengers,
                    sprt,
                    ladder_width: width,
                    max_forfeit_rate: Some(max_forfeit_rate),
                    idempotency_key: idempotency_key()?,
                };
                let created = create_once(&owner, request).await?;
                if json {
                    outln!("{}", tournament_json(&created));
                } else {
                    outln!(
                        "created tournament {} ({} {}, {} bots)",
                        created.id,
                        created.format,
                        crate::ratings::game_variant(&created.game, &created.variant),
                        created.entries.len()
                    );
                }
                Ok(ExitCode::SUCCESS)
            }
            TournamentCommand::Status { id, arena, json } => {
                status(&mut connect(&arena).await?, id, json).await
            }
            TournamentCommand::Show { id, arena, json } => {
                crate::standings::show(&mut connect(&arena).await?, id, json).await
            }
            TournamentCommand::Watch { id, arena, json } => {
                watch(&mut connect(&arena).await?, id, json, "").await?;
                Ok(ExitCode::SUCCESS)
            }
            TournamentCommand::List { arena, json } => {
                list(&mut connect(&arena).await?, json).await
            }
            TournamentCommand::Cancel { id, owner, json } => cancel(id, &owner, json).await,
        }
    })
}

async fn cancel(id: i64, owner: &OwnerArgs, json: bool) -> anyhow::Result<ExitCode> {
    let token = owner.token()?;
    let request = pb::CancelTournamentRequest { tournament_id: id };
    let answer = connect(&owner.arena)
        .await?
        .cancel_tournament(authorized(request, token))
        .await
        .map_err(status_error)?
        .into_inner();
    if json {
        outln!(
            "{}",
            json!({"tournament_id": id, "matches_dropped": answer.matches_dropped})
        );
    } else {
        outln!(
            "cancelled tournament {id}: {} unplayed match(es) dropped; played games stay rated",
            answer.matches_dropped
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn status(client: &mut Client, id: i64, json: bool) -> anyhow::Result<ExitCode> {
    let status = client
        .get_tournament(pb::GetTournamentRequest { tournament_id: id })
        .await
        .map_err(status_error)?
        .into_inner();
    let tournament = status.tournament.unwrap_or_default();
    let progress = status.progress.unwrap_or_default();
    if json {
        outln!(
            "{}",
            json!({"tournament": tournament_json(&tournament), "progress": progress_json(&progress)})
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "tournament {} · {} · seed {}",
        tournament.id,
        crate::ratings::game_variant(&tournament.game, &tournament.variant),
        tournament.seed
    );
    let names: Vec<String> = tournament
        .entries
        .iter()
        .map(|e| format!("{}@{}", e.bot_name, e.version))
        .collect();
    outln!("bots: {}", names.join(", "));
    outln!("{}", progress_line(&progress));
    Ok(ExitCode::SUCCESS)
}

/// Every tournament, newest first, page by page.
pub(crate) async fn all_tournaments(
    client: &mut Client,
) -> anyhow::Result<Vec<pb::TournamentStatus>> {
    let (mut tournaments, mut page_token) = (Vec::new(), String::new());
    loop {
        let page = client
            .list_tournaments(pb::ListTournamentsRequest {
                page_size: crate::client::PAGE_SIZE,
                page_token,
            })
            .await
            .map_err(status_error)?
            .into_inner();
        tournaments.extend(page.tournaments);
        if page.next_page_token.is_empty() {
            return Ok(tournaments);
        }
        page_token = page.next_page_token;
    }
}

async fn list(client: &mut Client, json: bool) -> anyhow::Result<ExitCode> {
    let tournaments = all_tournaments(client).await?;
    if json {
        let rows: Vec<Value> = tournaments
            .iter()
            .map(|s| json!({"tournament": tournament_json(&s.tournament.clone().unwrap_or_default()), "progress": progress_json(&s.progress.unwrap_or_default())}))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(&[
        ">id", "format", "game", "variant", ">bots", ">games", ">done", "state",
    ]);
    for status in &tournaments {
        let (t, p) = (
            status.tournament.clone().unwrap_or_default(),
            status.progress.unwrap_or_default(),
        );
        let state = match (p.cancelled, p.finished) {
            (true, _) => "cancelled",
            (false, true) => "finished",
            (false, false) => "running",
        };
        table.row(vec![
            t.id.to_string(),
            t.format,
            t.game,
            t.variant,
            t.entries.len().to_string(),
            p.games_total.to_string(),
            p.games_done.to_string(),
            state.into(),
        ]);
    }
    out!("{}", table.render());
    Ok(ExitCode::SUCCESS)
}

/// Follows progress until the tournament finishes; `label` prefixes the bar.
pub async fn watch(
    client: &mut Client,
    id: i64,
    json: bool,
    label: &str,
) -> anyhow::Result<pb::TournamentProgress> {
    let mut stream = client
        .watch_tournament(pb::WatchTournamentRequest { tournament_id: id })
        .await
        .map_err(status_error)?
        .into_inner();
    let terminal = std::io::stderr().is_terminal();
    let mut last = pb::TournamentProgress::default();
    while let Some(progress) = stream.message().await.map_err(status_error)? {
        if json {
            outln!("{}", progress_json(&progress));
        } else if terminal {
            eprint!("\r{label}{}", progress_bar(&progress));
            let _ = std::io::stderr().flush();
        }
        last = progress;
        if last.finished {
            break;
        }
    }
    if !json {
        if terminal {
            eprintln!();
        } else {
            eprintln!("{label}{}", progress_bar(&last));
        }
    }
    Ok(last)
}

/// `[#########-----------]  45% 18/40 games`
pub fn progress_bar(progress: &pb::TournamentProgress) -> String {
    const WIDTH: i64 = 30;
    let total = progress.games_total.max(1);
    let filled = (progress.games_done * WIDTH / total).clamp(0, WIDTH) as usize;
    let percent = progress.games_done * 100 / total;
    format!(
        "[{}{}] {percent:>3}% {}/{} games",
        "#".repeat(filled),
        "-".repeat(WIDTH as usize - filled),
        progress.games_done,
        progress.games_total
    )
}

pub(crate) fn progress_line(p: &pb::TournamentProgress) -> String {
    if p.cancelled {
        // Dropped matches are closed, not played: only games count.
        return format!(
            "cancelled: {} of {} games played, the others dropped",
            p.games_done, p.games_total
        );
    }
    let state = match (p.finished, p.matches_failed) {
        (true, 0) => "finished".to_string(),
        (true, 1) => "finished, 1 match failed".to_string(),
        (true, failed) => format!("finished, {failed} matches failed"),
        (false, _) => "running".to_string(),
    };
    format!(
        "{state}: {}/{} games; matches {} queued, {} leased, {} done of {}",
        p.games_done,
        p.games_total,
        p.matches_queued,
        p.matches_leased,
        p.matches_done,
        p.matches_total
    )
}

pub(crate) fn tournament_json(t: &pb::Tournament) -> Value {
    let entries: Vec<Value> = t.entries.iter().map(|e| json!({"bot_version_id": e.bot_version_id, "bot": e.bot_name, "version": e.version})).collect();
    json!({"id": t.id, "owner": t.owner, "game": t.game, "options": t.options, "variant": t.variant, "seats_per_game": t.seats_per_game,
           "games_per_pairing": t.games_per_pairing, "seed": t.seed, "entries": entries, "created_at_ms": t.created_at_ms,
           "format": t.format, "rounds": t.rounds, "challengers": t.challengers, "ladder_width": t.ladder_width, "max_forfeit_rate": t.max_forfeit_rate,
           "validation": t.validation})
}

pub fn progress_json(p: &pb::TournamentProgress) -> Value {
    json!({"tournament_id": p.tournament_id, "matches_total": p.matches_total, "matches_queued": p.matches_queued, "matches_leased": p.matches_leased,
           "matches_done": p.matches_done, "matches_failed": p.matches_failed, "games_total": p.games_total, "games_done": p.games_done, "finished": p.finished, "cancelled": p.cancelled})
}

/// A fresh idempotency key: 16 random bytes in hex.
fn idempotency_key() -> anyhow::Result<String> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|error| anyhow::anyhow!("no randomness for an idempotency key: {error}"))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// How often `tournament create` asks again when the arena could not be
/// reached or its answer was lost, and how long it waits between.
const CREATE_ATTEMPTS: u32 = 4;
const CREATE_RETRY_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Creates the tournament, asking again with the same request (and so
/// the same idempotency key) when the answer was lost: the arena then
/// returns the tournament the first request created, if it did.
async fn create_once(
    owner: &OwnerArgs,
    request: pb::CreateTournamentRequest,
) -> anyhow::Result<pb::Tournament> {
    let token = owner.token()?;
    let mut attempt = 1;
    loop {
        // An arena that cannot be reached (restarting) is asked again too.
        let answer = match connect(&owner.arena).await {
            Ok(mut client) => client
                .create_tournament(authorized(request.clone(), token))
                .await
                .map(tonic::Response::into_inner)
                .map_err(|status| {
                    let lost = answer_lost(&status);
                    (status_error(status), lost)
                }),
            Err(error) => Err((error, true)),
        };
        match answer {
            Ok(created) => return Ok(created),
            Err((error, again)) if !again || attempt >= CREATE_ATTEMPTS => return Err(error),
            Err(_) => {
                attempt += 1;
                tokio::time::sleep(CREATE_RETRY_WAIT).await;
            }
        }
    }
}

/// Whether a failed call may have been carried out with its answer lost.
fn answer_lost(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::DeadlineExceeded
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_fills_in_proportion_to_games_done() {
        let progress = pb::TournamentProgress {
            games_total: 40,
            games_done: 20,
            ..Default::default()
        };
        assert_eq!(
            progress_bar(&progress),
            format!("[{}{}]  50% 20/40 games", "#".repeat(15), "-".repeat(15))
        );
    }

    #[test]
    fn a_cancelled_tournament_counts_games_played_not_dropped_matches_as_done() {
        let progress = pb::TournamentProgress {
            games_total: 300,
            games_done: 4,
            matches_total: 6,
            matches_done: 6,
            finished: true,
            cancelled: true,
            ..Default::default()
        };
        assert_eq!(
            progress_line(&progress),
            "cancelled: 4 of 300 games played, the others dropped"
        );
    }
}
