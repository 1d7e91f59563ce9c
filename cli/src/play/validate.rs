//! `cairn play --validate BOTDIR`: the arena's validation, run locally
//! first (fastchess's `--compliance` habit). Copies of the bot play every
//! game and table size its manifest declares (every game when it lists
//! none), a few seeds each, under the same match loop a runner uses, so
//! the same protocol checks apply: the hello, one answer per request, only
//! legal actions, flushed lines, nothing else on stdout. The first forfeit
//! is named with the runner's hint, and the exit status is 1.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::bail;
use cairn_arena::store::validation_tables;
use cairn_runner::{rotating_plan, BotLauncher, MatchResult, MatchSpec, TimeControl};

use super::PlayArgs;
use crate::escape;

/// Seeds each table plays unless `--games` says otherwise.
const DEFAULT_SEEDS: u32 = 3;

/// The first forfeit of a validation match: (game index, seat, text).
fn first_failure(result: &MatchResult) -> Option<(u32, usize, String)> {
    result.games.iter().find_map(|game| {
        game.seats.iter().enumerate().find_map(|(seat, result)| {
            let forfeit = result.forfeit.as_ref()?;
            let mut text = format!(
                "{}: {}",
                forfeit.reason.as_str(),
                escape::line(&forfeit.detail)
            );
            let tail = String::from_utf8_lossy(&result.stderr_tail);
            if !tail.trim().is_empty() {
                text.push_str(&format!(
                    "\nits stderr ended with:\n{}",
                    escape::block(&tail)
                ));
            }
            Some((game.index, seat, text))
        })
    })
}

/// Runs the validation of `args.validate`'s bot; 0 when every table passed.
pub(super) fn run(args: &PlayArgs, launcher: &dyn BotLauncher) -> anyhow::Result<ExitCode> {
    let Some(folder) = &args.validate else {
        bail!("--validate needs a bot folder");
    };
    let bot = super::prepare_bot(args, &folder.to_string_lossy(), None)?;
    let games = bot.manifest.as_ref().and_then(|m| m.games.as_deref());
    let tables = validation_tables(games);
    let n_seeds = args.games.unwrap_or(DEFAULT_SEEDS);
    if n_seeds == 0 {
        bail!("--games must be at least 1");
    }
    let time_control = TimeControl {
        per_decision: Duration::from_millis(args.decision_ms),
        bank: Duration::from_millis(args.bank_ms),
        ..TimeControl::default()
    };
    eprintln!("{}", launcher.describe());
    for (game, options, seats) in &tables {
        let table = table_name(game, options, *seats);
        let spec = MatchSpec {
            game: game.clone(),
            options: options.clone(),
            games: rotating_plan(n_seeds, args.seed, *seats),
            bots: vec![bot.entry.clone(); *seats],
            time_control,
            limits: Default::default(),
            cpu: cairn_runner::placement::current_cpu(),
        };
        let result = match cairn_runner::play_match(&spec, launcher) {
            Ok(result) => result,
            Err(error) if error.is_host_fault() => bail!(
                "{table}: {} (not the bot's fault: check `cairn doctor`; --no-sandbox runs trusted bots without it)",
                escape::line(&error.to_string())
            ),
            Err(error) => bail!("{table}: the match could not be played: {error}"),
        };
        if let Some((index, seat, text)) = first_failure(&result) {
            outln!(
                "FAIL {table}, game {index} (seed {}), seat {seat}: {text}",
                args.seed + u64::from(index)
            );
            outln!(
                "(the arena would fail this version's validation the same way: fix it before `cairn bot add`)"
            );
            return Ok(ExitCode::FAILURE);
        }
        outln!("ok   {table}: {} game(s)", result.games.len());
    }
    outln!(
        "valid: {} passed every declared game and table size ({} table(s), {n_seeds} seed(s) each)",
        escape::line(&bot.entry.name),
        tables.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `bullfrogs (solo=true) at 1 seat`.
fn table_name(game: &str, options: &cairn_engine::GameOptions, seats: usize) -> String {
    let variant = cairn_arena::store::variant_key(options);
    let seats = match seats {
        1 => "1 seat".to_string(),
        n => format!("{n} seats"),
    };
    match variant.as_str() {
        "" => format!("{game} at {seats}"),
        variant => format!("{game} ({variant}) at {seats}"),
    }
}
