//! `cairn match list|show`: a tournament's matches and one game's result and replay.

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};

use crate::client::{connect, status_error, ArenaArgs};
use crate::table::Table;
use cairn_arena::game_name::{GameName, GameRef};

#[derive(Debug, clap::Subcommand)]
pub enum MatchCommand {
    /// List a tournament's matches, their games and results.
    List {
        /// The tournament id.
        tournament: i64,
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show one game's result and replay.
    Show {
        /// The game: TOURNAMENT/MATCH/GAME (as `cairn match list` and the web
        /// pages name it, e.g. 3/12/1), or its game id.
        game: cairn_arena::game_name::GameRef,
        /// Also write the replay file here (readable by `cairn replay`).
        #[arg(long, value_name = "PATH")]
        replay: Option<PathBuf>,
        #[command(flatten)]
        view: crate::view::ViewArgs,
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn run_match(command: MatchCommand) -> anyhow::Result<ExitCode> {
    crate::client::runtime()?.block_on(async {
        match command {
            MatchCommand::List { tournament, arena, json } => {
                let matches = all_matches(&arena, tournament).await?;
                if json {
                    let rows: Vec<Value> = matches.iter().map(|m| match_json(tournament, m)).collect();
                    outln!("{}", serde_json::to_string_pretty(&rows)?);
                } else {
                    out!("{}", matches_table(tournament, &matches));
                }
                Ok(ExitCode::SUCCESS)
            }
            MatchCommand::Show { game, replay, view, arena, json } => {
                let game = game_id(&arena, game).await?;
                let answer = connect(&arena).await?.get_replay(pb::GetReplayRequest { game_id: game }).await.map_err(status_error)?.into_inner();
                if let Some(path) = &replay {
                    if answer.replay.is_empty() {
                        anyhow::bail!("game {game} has no replay to write: {}", NOT_PLAYED);
                    }
                    std::fs::write(path, labelled_replay(&answer))?;
                    eprintln!("replay of game {game} written to {}", path.display());
                }
                if view.wants_board() {
                    if answer.replay.is_empty() {
                        anyhow::bail!("game {game} has no replay to show: {}", NOT_PLAYED);
                    }
                    let file = cairn_proto::record::ReplayFile::from_json(&String::from_utf8_lossy(&answer.replay))?;
                    return crate::view::show(&file, &view);
                }
                let replay_json: Value = serde_json::from_slice(&answer.replay).unwrap_or(Value::Null);
                if json {
                    outln!("{}", serde_json::to_string_pretty(&json!({"game_id": answer.game_id, "game_index": answer.game_index, "result": seats_json(&answer.result), "replay": replay_json}))?);
                } else {
                    out!("{}", game_text(&answer, &replay_json));
                }
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

/// Every match of a tournament, a page at a time.
/// The game id a user's reference stands for.
async fn game_id(arena: &ArenaArgs, game: GameRef) -> anyhow::Result<i64> {
    let name = match game {
        GameRef::Id(id) => return Ok(id),
        GameRef::Name(name) => name,
    };
    let matches = all_matches(arena, name.tournament_id).await?;
    matches
        .iter()
        .find(|m| m.match_index == name.match_number - 1)
        .and_then(|m| m.games.get(usize::try_from(name.game_number - 1).ok()?))
        .map(|game| game.game_id)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "game {name} not found (`cairn match list {}` lists its games)",
                name.tournament_id
            )
        })
}

async fn all_matches(
    arena: &ArenaArgs,
    tournament_id: i64,
) -> anyhow::Result<Vec<pb::MatchSummary>> {
    let mut client = connect(arena).await?;
    let (mut matches, mut page_token) = (Vec::new(), String::new());
    loop {
        let request = pb::ListMatchesRequest {
            tournament_id,
            page_size: crate::client::PAGE_SIZE,
            page_token,
            with_games: true,
        };
        let page = client
            .list_matches(request)
            .await
            .map_err(status_error)?
            .into_inner();
        matches.extend(page.matches);
        if page.next_page_token.is_empty() {
            return Ok(matches);
        }
        page_token = page.next_page_token;
    }
}

/// A forfeit reason's text form (`unknown` for a number this build does not know).
fn reason_name(reason: i32) -> &'static str {
    cairn_proto::reasons::forfeit_reason_from_i32(reason)
        .map_or("unknown", |reason| reason.as_str())
}

/// The replay file as the arena keeps it, labelled with the game's index in
/// its match (replays stored before the label was written lack it).
fn labelled_replay(answer: &pb::Replay) -> Vec<u8> {
    let text = String::from_utf8_lossy(&answer.replay);
    match cairn_proto::record::ReplayFile::from_json(&text) {
        Ok(mut file) if file.games.len() == 1 => {
            file.first_game_index = u64::try_from(answer.game_index).unwrap_or_default();
            file.to_json().into_bytes()
        }
        _ => answer.replay.clone(),
    }
}

fn seats_json(seats: &[pb::SeatResult]) -> Value {
    seats
        .iter()
        .map(|s| json!({"bot_version_id": s.bot_version_id, "score": s.score, "rank": s.rank, "forfeit": s.forfeit.as_ref().map(|f| json!({"reason": reason_name(f.reason), "detail": f.detail})), "stderr_tail": String::from_utf8_lossy(&s.stderr_tail)}))
        .collect()
}

fn match_json(tournament_id: i64, m: &pb::MatchSummary) -> Value {
    let seats: Vec<Value> = m.seats.iter().map(|e| json!({"bot_version_id": e.bot_version_id, "bot": e.bot_name, "version": e.version})).collect();
    let games: Vec<Value> = m
        .games
        .iter()
        .enumerate()
        .map(|(index, g)| {
            let name = GameName::of(tournament_id, m.match_index, index as i64).to_string();
            json!({"name": name, "game_id": g.game_id, "seed": g.seed, "result": seats_json(&g.result)})
        })
        .collect();
    json!({"match_id": m.match_id, "match_index": m.match_index, "status": m.status, "failure": m.failure, "seats": seats, "games": games})
}

fn matches_table(tournament_id: i64, matches: &[pb::MatchSummary]) -> String {
    let mut table = Table::new(&[
        "game", ">match", "status", "seats", ">game id", ">seed", "scores",
    ]);
    for m in matches {
        let seats: Vec<String> = m
            .seats
            .iter()
            .map(|e| format!("{}@{}", e.bot_name, e.version))
            .collect();
        for (index, game) in m.games.iter().enumerate() {
            let scores: Vec<String> = game
                .result
                .iter()
                .map(|s| {
                    if s.forfeit.is_some() {
                        format!("{} (forfeit)", s.score)
                    } else {
                        s.score.to_string()
                    }
                })
                .collect();
            table.row(vec![
                GameName::of(tournament_id, m.match_index, index as i64).to_string(),
                m.match_id.to_string(),
                m.status.clone(),
                seats.join(" vs "),
                game.game_id.to_string(),
                game.seed.to_string(),
                scores.join(" : "),
            ]);
        }
    }
    table.render()
}

/// Why a game has no replay.
const NOT_PLAYED: &str = "it was never played (a seat forfeited before it began)";

fn game_text(answer: &pb::Replay, replay: &Value) -> String {
    let record = &replay["games"][0];
    // The replay's names; a game never played has none, the arena's do.
    let names: Vec<String> = record["seats"]
        .as_array()
        .map(|seats| {
            seats
                .iter()
                .map(|s| s.as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_else(|| answer.seat_bots.clone());
    let mut table = Table::new(&[">seat", "bot", ">score", ">rank", "forfeit"]);
    for (seat, result) in answer.result.iter().enumerate() {
        let forfeit = result.forfeit.as_ref().map_or(String::new(), |f| {
            format!("{} ({})", reason_name(f.reason), f.detail)
        });
        let name = names
            .get(seat)
            .cloned()
            .unwrap_or_else(|| result.bot_version_id.to_string());
        table.row(vec![
            seat.to_string(),
            name,
            result.score.to_string(),
            result.rank.to_string(),
            forfeit,
        ]);
    }
    let n_actions = record["actions"].as_array().map_or(0, Vec::len);
    // Numbered from 1, as TOURNAMENT/MATCH/GAME numbers it.
    let number_in_match = answer.game_index + 1;
    let mut text = match answer.replay.is_empty() {
        true => format!(
            "game {} (game {number_in_match} of its match) · no replay: {NOT_PLAYED}\n{}",
            answer.game_id,
            table.render()
        ),
        false => format!(
            "game {} (game {number_in_match} of its match) · {} · dealt from seed {} · {n_actions} actions\n{}",
            answer.game_id,
            record["game"].as_str().unwrap_or("?"),
            record["seed"],
            table.render()
        ),
    };
    for (seat, result) in answer.result.iter().enumerate() {
        let tail = String::from_utf8_lossy(&result.stderr_tail);
        let tail = tail.trim_end();
        if !tail.is_empty() {
            let name = names.get(seat).map_or("?", String::as_str);
            text.push_str(&format!(
                "\nstderr of seat {seat} ({}), the end of what it wrote during this game:\n{}\n",
                crate::escape::line(name),
                crate::escape::block(tail)
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use cairn_proto::arena::v1 as pb;
    use serde_json::Value;

    #[test]
    fn a_games_number_in_its_match_counts_from_one_as_its_name_does() {
        let answer = pb::Replay {
            game_id: 7,
            game_index: 0,
            ..Default::default()
        };
        let text = super::game_text(&answer, &Value::Null);
        assert!(text.starts_with("game 7 (game 1 of its match)"), "{text}");
    }
}
