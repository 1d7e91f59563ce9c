//! `cairn owner register` and `cairn bot add|list|show`.

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};

use crate::client::{authorized, connect, status_error, ArenaArgs, OwnerArgs};
use crate::table::Table;

#[derive(Debug, clap::Subcommand)]
pub enum OwnerCommand {
    /// Register an owner and print its token (shown once: keep it).
    Register {
        /// The owner's name (letters, digits, `-`, `_`, `.`).
        name: String,
        #[command(flatten)]
        arena: ArenaArgs,
        /// The arena's admin token, when registration is not open.
        #[arg(long, env = "CAIRN_ADMIN_TOKEN", hide_env_values = true)]
        admin_token: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum BotCommand {
    /// Pack a bot folder (holding cairn-bot.toml) into a tar.gz and submit it as a new version.
    /// The arena validates a new version (copies of it play every game and
    /// table size it declares) before it joins any tournament.
    Add {
        /// The bot folder.
        folder: PathBuf,
        #[command(flatten)]
        owner: OwnerArgs,
        /// Wait until the version is validated; exit non-zero if it failed.
        #[arg(long)]
        wait: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List every bot.
    List {
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Delete one of your bots: it joins no new tournament; its games,
    /// ratings and replays stay (finished tournaments keep their history),
    /// and matches already planned for it are still played.
    Delete {
        /// The bot's name.
        name: String,
        #[command(flatten)]
        owner: OwnerArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show a bot and its versions.
    Show {
        /// The bot's name.
        name: String,
        #[command(flatten)]
        arena: ArenaArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

pub fn run_owner(command: OwnerCommand) -> anyhow::Result<ExitCode> {
    let OwnerCommand::Register {
        name,
        arena,
        admin_token,
        json,
    } = command;
    crate::client::runtime()?.block_on(async {
        let mut client = connect(&arena).await?;
        let request = pb::RegisterOwnerRequest { name: name.clone() };
        let request = match admin_token.as_deref().filter(|token| !token.is_empty()) {
            Some(token) => authorized(request, token),
            None => tonic::Request::new(request),
        };
        let answer = client
            .register_owner(request)
            .await
            .map_err(status_error)?
            .into_inner();
        if json {
            outln!(
                "{}",
                json!({"owner": name, "owner_id": answer.owner_id, "token": answer.token})
            );
        } else {
            outln!(
                "registered owner `{name}`; token (shown once, use --token or CAIRN_TOKEN):\n{}",
                answer.token
            );
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn run(command: BotCommand) -> anyhow::Result<ExitCode> {
    crate::client::runtime()?.block_on(async {
        match command {
            BotCommand::Add {
                folder,
                owner,
                wait,
                json,
            } => add(&folder, &owner, wait, json).await,
            BotCommand::List { arena, json } => list(&arena, json).await,
            BotCommand::Show { name, arena, json } => show(&name, &arena, json).await,
            BotCommand::Delete { name, owner, json } => delete(&name, &owner, json).await,
        }
    })
}

async fn delete(name: &str, owner: &OwnerArgs, json: bool) -> anyhow::Result<ExitCode> {
    let token = owner.token()?;
    let request = pb::DeleteBotRequest { name: name.into() };
    connect(&owner.arena)
        .await?
        .delete_bot(authorized(request, token))
        .await
        .map_err(status_error)?;
    if json {
        outln!("{}", json!({"deleted": name}));
    } else {
        outln!("deleted {name}: it joins no new tournament; its games and ratings stay");
    }
    Ok(ExitCode::SUCCESS)
}

async fn add(
    folder: &std::path::Path,
    owner: &OwnerArgs,
    wait: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let token = owner.token()?;
    let manifest = cairn_runner::bot_folder::MANIFEST_NAME;
    if !folder.is_dir() {
        anyhow::bail!(
            "no such bot folder `{}`: a bot is a folder holding {manifest} (see sdk/PROTOCOL.md)",
            crate::escape::line(&folder.display().to_string())
        );
    }
    if !folder.join(manifest).is_file() {
        anyhow::bail!(
            "bot folder `{}` has no {manifest} (see sdk/PROTOCOL.md)",
            crate::escape::line(&folder.display().to_string())
        );
    }
    if let Ok(bot) = cairn_runner::bot_folder::load_bot(&folder.to_string_lossy()) {
        if let Some(why) = bot.outside_its_folder() {
            anyhow::bail!("{why}");
        }
    }
    // The error names the file and the cause once (its source repeats it).
    let archive = cairn_proto::archive::pack_folder(folder)
        .map_err(|error| anyhow::anyhow!("cannot pack {}: {error}", folder.display()))?;
    let mut client = connect(&owner.arena).await?;
    let answer = client
        .submit_bot_version(authorized(pb::SubmitBotVersionRequest { archive }, token))
        .await
        .map_err(status_error)?
        .into_inner();
    let mut version = answer.version.unwrap_or_default();
    if wait && version.validation == "validating" {
        if !json {
            eprintln!(
                "validating {}@{}: runners play copies of it at every game and table size it declares...",
                version.bot_name, version.version
            );
        }
        version = crate::validation::wait_until_validated(
            &mut client,
            &version.bot_name,
            version.version,
        )
        .await?;
    }
    let code = match version.validation.as_str() {
        "failed" if wait => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    };
    if json {
        outln!(
            "{}",
            json!({"created": answer.created, "version": version_json(&version)})
        );
    } else if answer.created {
        outln!(
            "added {}@{} ({})",
            version.bot_name,
            version.version,
            &version.content_hash[..12.min(version.content_hash.len())]
        );
    } else {
        outln!(
            "unchanged: {}@{} already has these contents",
            version.bot_name,
            version.version
        );
    }
    if !json {
        match crate::validation::failure_text(&version) {
            Some(failure) => outln!("{failure}"),
            None => outln!("state: {}", crate::validation::state(&version)),
        }
    }
    Ok(code)
}

async fn list(arena: &ArenaArgs, json: bool) -> anyhow::Result<ExitCode> {
    let mut client = connect(arena).await?;
    let (mut bots, mut page_token) = (Vec::new(), String::new());
    loop {
        let page = client
            .list_bots(pb::ListBotsRequest {
                page_size: crate::client::PAGE_SIZE,
                page_token,
            })
            .await
            .map_err(status_error)?
            .into_inner();
        bots.extend(page.bots);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    if json {
        let rows: Vec<Value> = bots.iter().map(summary_json).collect();
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(&["bot", "owner", ">versions", ">latest", "deleted"]);
    for bot in &bots {
        let deleted = if bot.deleted { "yes" } else { "" };
        table.row(vec![
            bot.name.clone(),
            bot.owner.clone(),
            bot.versions.to_string(),
            bot.latest_version.to_string(),
            deleted.into(),
        ]);
    }
    out!("{}", table.render());
    Ok(ExitCode::SUCCESS)
}

async fn show(name: &str, arena: &ArenaArgs, json: bool) -> anyhow::Result<ExitCode> {
    let answer = connect(arena)
        .await?
        .show_bot(pb::ShowBotRequest { name: name.into() })
        .await
        .map_err(status_error)?
        .into_inner();
    if json {
        let versions: Vec<Value> = answer.versions.iter().map(version_json).collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"bot": answer.bot.as_ref().map(summary_json), "versions": versions})
            )?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(&[
        ">version",
        ">id",
        "content hash",
        ">bytes",
        "command",
        "games",
        "state",
    ]);
    for version in &answer.versions {
        let manifest = version.manifest.clone().unwrap_or_default();
        let games = if manifest.games.is_empty() {
            "any".to_string()
        } else {
            manifest.games.join(",")
        };
        let hash = version.content_hash.chars().take(12).collect();
        table.row(vec![
            version.version.to_string(),
            version.id.to_string(),
            hash,
            version.size_bytes.to_string(),
            manifest.command.join(" "),
            games,
            crate::validation::state(version),
        ]);
    }
    let owner = answer.bot.as_ref().map_or("", |bot| bot.owner.as_str());
    outln!(
        "bot {} (owner {})\n",
        crate::escape::line(name),
        crate::escape::line(owner)
    );
    out!("{}", table.render());
    for failure in answer
        .versions
        .iter()
        .filter_map(crate::validation::failure_text)
    {
        outln!("\n{failure}");
    }
    for version in answer.versions.iter().filter(|version| version.broken) {
        outln!(
            "\nversion {} is broken: its build failed; the log ends with:\n{}",
            version.version,
            crate::escape::block(&version.build_log)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn summary_json(bot: &pb::BotSummary) -> Value {
    json!({"id": bot.id, "name": bot.name, "owner": bot.owner, "versions": bot.versions, "latest_version": bot.latest_version, "deleted": bot.deleted})
}

fn version_json(version: &pb::BotVersion) -> Value {
    let manifest = version.manifest.clone().unwrap_or_default();
    json!({
        "id": version.id, "bot": version.bot_name, "owner": version.owner, "version": version.version,
        "content_hash": version.content_hash, "size_bytes": version.size_bytes, "created_at_ms": version.created_at_ms,
        "broken": version.broken, "build_log": version.build_log,
        "validation": crate::validation::json(version),
        "manifest": {"name": manifest.name, "command": manifest.command, "build": manifest.build, "games": manifest.games},
    })
}
