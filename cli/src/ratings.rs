//! `cairn ratings`: a game's leaderboard.

use std::process::ExitCode;

use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};

use crate::client::{connect, status_error, ArenaArgs};
use crate::table::Table;

#[derive(Debug, clap::Args)]
pub struct RatingsArgs {
    /// The game id: schotten-totten, lords-of-scotland, bullfrogs.
    #[arg(long)]
    game: String,
    /// A game option selecting the variant, e.g. --opt tactics=true (repeatable).
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// elo, glicko2 or weng-lin [default: glicko2 for two seats, else weng-lin].
    #[arg(long)]
    model: Option<String>,
    #[command(flatten)]
    arena: ArenaArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: RatingsArgs) -> anyhow::Result<ExitCode> {
    crate::client::runtime()?.block_on(async {
        let request = pb::GetLeaderboardRequest {
            game: args.game,
            options: crate::client::options(&args.options)?,
            model: args.model.unwrap_or_default(),
        };
        let board = connect(&args.arena)
            .await?
            .get_leaderboard(request)
            .await
            .map_err(status_error)?
            .into_inner();
        if args.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&leaderboard_json(&board))?
            );
        } else {
            print!("{}", leaderboard_table(&board));
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn leaderboard_table(board: &pb::Leaderboard) -> String {
    let mut table = Table::new(&[
        ">#",
        "bot",
        "owner",
        ">rating",
        ">±",
        ">games",
        ">W",
        ">D",
        ">L",
        ">forfeits",
        "provisional",
    ]);
    // Weng-Lin ratings live around 25, Elo and Glicko-2 around 1500.
    let decimals = if board.model == "weng-lin" { 1 } else { 0 };
    for row in &board.rows {
        table.row(vec![
            row.position.to_string(),
            format!("{}@{}", row.bot_name, row.version),
            row.owner.clone(),
            format!("{:.decimals$}", row.rating),
            format!("{:.decimals$}", row.uncertainty),
            row.games.to_string(),
            row.wins.to_string(),
            row.draws.to_string(),
            row.losses.to_string(),
            row.forfeits.to_string(),
            if row.provisional {
                "yes".into()
            } else {
                String::new()
            },
        ]);
    }
    format!(
        "{} {} ({})\n{}",
        board.game,
        board.variant,
        board.model,
        table.render()
    )
}

pub fn leaderboard_json(board: &pb::Leaderboard) -> Value {
    let rows: Vec<Value> = board
        .rows
        .iter()
        .map(|r| {
            json!({"position": r.position, "bot_version_id": r.bot_version_id, "bot": r.bot_name, "version": r.version, "owner": r.owner,
                   "rating": r.rating, "uncertainty": r.uncertainty, "games": r.games, "wins": r.wins, "draws": r.draws,
                   "losses": r.losses, "forfeits": r.forfeits, "provisional": r.provisional})
        })
        .collect();
    json!({"game": board.game, "variant": board.variant, "model": board.model, "rows": rows})
}
