//! `cairn tournament show`: a tournament's progress, then its standings,
//! its knockout bracket or its SPRT's state; `cairn ladder`: the
//! continuous ladders.

use std::process::ExitCode;

use cairn_arena::stats::Verdict;
use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};
use tonic::transport::Channel;

use crate::client::{connect, status_error, ArenaArgs};
use crate::escape;
use crate::ratings::{game_variant, Footnotes};
use crate::table::Table;
use crate::tournaments::{progress_json, progress_line, tournament_json};

type Client = pb::arena_client::ArenaClient<Channel>;

pub async fn show(client: &mut Client, id: i64, json: bool) -> anyhow::Result<ExitCode> {
    let status = client
        .get_tournament(pb::GetTournamentRequest { tournament_id: id })
        .await
        .map_err(status_error)?
        .into_inner();
    let tournament = status.tournament.clone().unwrap_or_default();
    let progress = status.progress.unwrap_or_default();
    if json {
        let standings: Vec<Value> = status
            .standings
            .iter()
            .map(|row| json!({"position": row.position, "bot": entry_name(row.entry.as_ref()), "score": row.score, "games": row.games}))
            .collect();
        let bracket: Vec<Value> = status
            .bracket
            .iter()
            .map(|tie| json!({"round": tie.round + 1, "first": tie.first.as_ref().map(|e| entry_name(Some(e))), "second": tie.second.as_ref().map(|e| entry_name(Some(e))),
                              "first_points": tie.first_points, "second_points": tie.second_points, "winner": tie.winner.as_ref().map(|e| entry_name(Some(e)))}))
            .collect();
        let sprt = tournament.sprt.as_ref().map(sprt_json);
        let crosstable =
            crate::results_table::crosstable_json(&tournament.entries, &status.crosstable);
        outln!(
            "{}",
            json!({"tournament": tournament_json(&tournament), "progress": progress_json(&progress),
                   "results": crate::results_table::table_json(&status.table), "crosstable": crosstable,
                   "solo": crate::ratings::solo_rows_json(&status.solo),
                   "standings": standings, "bracket": bracket, "sprt": sprt,
                   "suspensions": crate::suspensions::json(&status.suspensions)})
        );
        return Ok(ExitCode::SUCCESS);
    }
    let rounds = if tournament.format == "swiss" {
        format!(" ({} rounds)", tournament.rounds)
    } else {
        String::new()
    };
    outln!(
        "tournament {} · {}{rounds} · {} · seed {}{}",
        tournament.id,
        tournament.format,
        game_variant(&tournament.game, &tournament.variant),
        tournament.seed,
        match tournament.validation {
            true => " · a bot version's validation (never rated)",
            false => "",
        }
    );
    outln!("{}", progress_line(&progress));
    if let Some(sprt) = &tournament.sprt {
        outln!("{}", sprt_line(sprt));
    }
    out!(
        "{}",
        crate::suspensions::text(&tournament, &status.suspensions)
    );
    if !status.bracket.is_empty() {
        out!("{}", bracket_text(&status.bracket));
    }
    if status.solo.is_empty() {
        out!("{}", crate::results_table::table_text(&status.table));
    } else {
        outln!("results (solo: every bot on the same deals, ranked by mean score):");
        out!("{}", crate::ratings::solo_rows_table(&status.solo));
    }
    if tournament.format == "round-robin" {
        if !status.crosstable.is_empty() {
            out!(
                "{}",
                crate::results_table::crosstable_text(
                    &status.table,
                    &tournament.entries,
                    &status.crosstable
                )
            );
        }
        // Across tournaments, the game's leaderboard rates every game.
        outln!("across tournaments: {}", ratings_command(&tournament));
        return Ok(ExitCode::SUCCESS);
    }
    outln!("standings by the format's rules:");
    let mut table = Table::new(&[">#", "bot", ">score", ">games"]);
    for row in &status.standings {
        let challenger = tournament
            .entries
            .iter()
            .position(|e| Some(e) == row.entry.as_ref())
            .is_some_and(|index| tournament.challengers.contains(&(index as u32)));
        let mark = if challenger { " (challenger)" } else { "" };
        table.row(vec![
            row.position.to_string(),
            format!("{}{mark}", entry_name(row.entry.as_ref())),
            format!("{:.2}", row.score),
            row.games.to_string(),
        ]);
    }
    out!("{}", table.render());
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Args)]
pub struct LadderArgs {
    /// Only the ladders of this game.
    #[arg(long)]
    game: Option<String>,
    #[command(flatten)]
    arena: ArenaArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run_ladder(args: LadderArgs) -> anyhow::Result<ExitCode> {
    crate::client::runtime()?.block_on(async {
        let mut client = connect(&args.arena).await?;
        let ladders: Vec<i64> = crate::tournaments::all_tournaments(&mut client)
            .await?
            .into_iter()
            .filter_map(|status| {
                let t = status.tournament?;
                let wanted =
                    t.format == "ladder" && args.game.as_ref().is_none_or(|game| *game == t.game);
                wanted.then_some(t.id)
            })
            .collect();
        let mut shown = Vec::new();
        for id in ladders {
            let status = client
                .get_tournament(pb::GetTournamentRequest { tournament_id: id })
                .await
                .map_err(status_error)?
                .into_inner();
            shown.push(status);
        }
        if args.json {
            let ladders: Vec<Value> = shown.iter().map(ladder_json).collect();
            outln!("{}", serde_json::to_string_pretty(&ladders)?);
        } else if shown.is_empty() {
            outln!(
                "no ladder (create one: cairn tournament create --format ladder --width 100 ...)"
            );
        } else {
            for status in &shown {
                out!("{}", ladder_text(status));
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

fn ladder_json(status: &pb::TournamentStatus) -> Value {
    let tournament = status.tournament.clone().unwrap_or_default();
    let rows: Vec<Value> = status
        .standings
        .iter()
        .map(|row| {
            let rating = row.rating.as_ref();
            let identifiable = rating.is_some_and(|r| r.identifiable);
            let finite = |v: f64| v.is_finite().then_some(v);
            json!({"position": row.position, "bot": entry_name(row.entry.as_ref()), "games": row.games,
                   "rating": rating.filter(|_| identifiable).map(|r| r.rating),
                   "ci95": rating.filter(|_| identifiable).map(|r| [finite(r.low), finite(r.high)]),
                   "not_identifiable": rating.filter(|_| !identifiable).map(|r| r.reason.clone()),
                   "settled": settled(row, tournament.ladder_width)})
        })
        .collect();
    json!({"tournament": tournament_json(&tournament), "progress": status.progress.as_ref().map(progress_json), "rows": rows})
}

/// Whether an entry's interval is narrower than the ladder's width.
fn settled(row: &pb::Standing, width: u32) -> bool {
    row.rating
        .as_ref()
        .is_some_and(|r| r.identifiable && r.high - r.low <= f64::from(width))
}

fn ladder_text(status: &pb::TournamentStatus) -> String {
    let tournament = status.tournament.clone().unwrap_or_default();
    let progress = status.progress.unwrap_or_default();
    let mut notes = Footnotes::default();
    let mut table = Table::new(&[">#", "bot", ">rating", "95% CI", ">games", "state"]);
    for row in &status.standings {
        let (rating, interval) = match &row.rating {
            Some(r) if r.identifiable => (
                format!("{:.0}", r.rating),
                crate::ratings::interval(r.low, r.high),
            ),
            Some(r) => ("-".to_string(), notes.cell(&r.reason)),
            None => (String::new(), String::new()),
        };
        let state = if settled(row, tournament.ladder_width) {
            "settled"
        } else if progress.finished {
            "stopped (game cap)"
        } else {
            "playing"
        };
        table.row(vec![
            row.position.to_string(),
            entry_name(row.entry.as_ref()),
            rating,
            interval,
            row.games.to_string(),
            state.to_string(),
        ]);
    }
    format!(
        "ladder {} · {} · until the 95% CI is at most {} Elo wide\n{}\n{}{}",
        tournament.id,
        game_variant(&tournament.game, &tournament.variant),
        tournament.ladder_width,
        progress_line(&progress),
        table.render(),
        notes.render()
    )
}

/// The `cairn ratings` command line for the tournament's game and variant.
fn ratings_command(tournament: &pb::Tournament) -> String {
    let mut options: Vec<(&String, &String)> = tournament.options.iter().collect();
    options.sort();
    let mut command = format!("cairn ratings --game {}", tournament.game);
    for (key, value) in options {
        command.push_str(&format!(
            " --opt {}",
            escape::line(&format!("{key}={value}"))
        ));
    }
    command
}

fn entry_name(entry: Option<&pb::Entry>) -> String {
    entry.map_or_else(
        || "bye".to_string(),
        |e| escape::line(&format!("{}@{}", e.bot_name, e.version)).into_owned(),
    )
}

/// `sprt elo0=0 elo1=10 alpha=0.05 beta=0.05: H1 accepted: ...; llr 2.97 (bounds -2.94 .. 2.94); ...`
fn sprt_line(sprt: &pb::SprtState) -> String {
    let p = sprt.parameters.clone().unwrap_or_default();
    let bounds = (p.elo0, p.elo1);
    let verdict = match sprt.verdict.as_str() {
        "h1" => crate::play::verdict_text(Verdict::AcceptH1, bounds, "the challenger", ""),
        "h0" => crate::play::verdict_text(Verdict::AcceptH0, bounds, "the challenger", ""),
        _ => "undecided".to_string(),
    };
    let pairs: Vec<String> = sprt.pentanomial.iter().map(u64::to_string).collect();
    format!(
        "sprt elo0={} elo1={} alpha={} beta={}{}: {verdict}; llr {:.2} (bounds {:.2} .. {:.2}); deal pairs 0/½/1/1½/2: {}",
        p.elo0,
        p.elo1,
        p.alpha,
        p.beta,
        match p.model.as_str() {
            "" | "logistic" => String::new(),
            model => format!(" model={model}"),
        },
        sprt.llr,
        sprt.lower_bound,
        sprt.upper_bound,
        pairs.join(" ")
    )
}

fn sprt_json(sprt: &pb::SprtState) -> Value {
    let p = sprt.parameters.clone().unwrap_or_default();
    json!({"elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta, "model": p.model, "llr": sprt.llr,
           "lower_bound": sprt.lower_bound, "upper_bound": sprt.upper_bound, "verdict": sprt.verdict, "pentanomial": sprt.pentanomial})
}

/// One line per tie, round by round:
/// `round 1: greedy@1 2.0 - 0.0 random@1 -> greedy@1`.
fn bracket_text(bracket: &[pb::BracketTie]) -> String {
    let mut text = String::new();
    for tie in bracket {
        let (first, second) = (
            entry_name(tie.first.as_ref()),
            entry_name(tie.second.as_ref()),
        );
        let winner = tie
            .winner
            .as_ref()
            .map_or_else(|| "undecided".to_string(), |e| entry_name(Some(e)));
        let line = if tie.first.is_none() || tie.second.is_none() {
            format!("round {}: {winner} has a bye\n", tie.round + 1)
        } else {
            format!(
                "round {}: {first} {:.1} - {:.1} {second} -> {winner}\n",
                tie.round + 1,
                tie.first_points,
                tie.second_points
            )
        };
        text.push_str(&line);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> Option<pb::Entry> {
        Some(pb::Entry {
            bot_version_id: 1,
            bot_name: name.into(),
            version: 1,
        })
    }

    #[test]
    fn the_bracket_draws_a_line_per_tie_with_byes_and_winners() {
        let bracket = [
            pb::BracketTie {
                round: 0,
                first: entry("greedy"),
                second: None,
                winner: entry("greedy"),
                ..Default::default()
            },
            pb::BracketTie {
                round: 1,
                first: entry("greedy"),
                second: entry("ra\x1bndom"),
                first_points: 1.5,
                second_points: 0.5,
                winner: entry("greedy"),
            },
        ];
        assert_eq!(
            bracket_text(&bracket),
            "round 1: greedy@1 has a bye\nround 2: greedy@1 1.5 - 0.5 ra\\u{1b}ndom@1 -> greedy@1\n"
        );
    }
}
