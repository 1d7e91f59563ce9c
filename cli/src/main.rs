//! # cairn
//!
//! The `cairn` command. Thin: each subcommand parses its arguments and
//! calls into the library crates.
//!
//! # Layout
//! - [`serve`]: `cairn serve`, the arena on a SQLite file.
//! - [`runner_cmd`]: `cairn runner`, leasing and playing matches.
//! - [`bots`]: `cairn owner register`, `cairn bot add|list|show`.
//! - [`tournaments`]: `cairn tournament create|status|watch|list`.
//! - [`ratings`]: `cairn ratings`, `cairn match list|show`.
//! - [`demo`]: `cairn demo`, everything on one machine.
//! - [`play`]: `cairn play`, a local match between bot folders or commands.
//! - [`games`]: `cairn games`, every game's seats, options and actions;
//!   `--game` and `--opt` checked against the game's descriptor.
//! - [`doctor`]: `cairn doctor`, the sandbox layers on this machine.
//! - [`replay`]: `cairn replay`, print and verify a replay file.
//! - [`view`]: the terminal replay viewer (`--show`), one board per game.
//! - [`client`]: arena address, tokens, error lines.
//! - [`table`]: aligned text tables.
//! - [`out`]: printing on stdout without panicking on a broken pipe.

// First: the other modules print through its macros.
#[macro_use]
mod out;

mod backup;
mod bots;
mod client;
mod demo;
#[cfg(test)]
mod doc_commands;
mod doctor;
mod escape;
mod games;
mod matches;
mod play;
mod quota_args;
mod ratings;
mod replay;
mod results_table;
mod runner_cmd;
mod runners;
mod serve;
mod standings;
mod suspensions;
mod table;
mod tournaments;
mod validation;
mod view;

/// mimalloc in place of glibc's malloc, for every role of the binary (arena,
/// runner, bundled bots): glibc's malloc was a large share of the arena's
/// CPU per read (figures in docs/performance.md, "mimalloc"). The benches
/// that run this code in their own process set it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

/// cairn: a tournament arena for game-playing bots.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the arena (gRPC) on a SQLite or PostgreSQL database until Ctrl-C.
    Serve(serve::ServeArgs),
    /// Lease matches from an arena, play them in the sandbox, report results.
    Runner(runner_cmd::RunnerArgs),
    /// Copy a live SQLite arena to a new file, consistently, while it serves.
    Backup(backup::BackupArgs),
    /// Add, list and revoke the runners allowed to play (on the arena's database file).
    #[command(subcommand)]
    Runners(runners::RunnersCommand),
    /// Register an owner (who submits bots and creates tournaments).
    #[command(subcommand)]
    Owner(bots::OwnerCommand),
    /// Submit, list, show and delete bots.
    #[command(subcommand)]
    Bot(bots::BotCommand),
    /// Create, show, follow, list and cancel tournaments.
    #[command(subcommand)]
    Tournament(tournaments::TournamentCommand),
    /// Print a game's leaderboard.
    Ratings(ratings::RatingsArgs),
    /// Show the continuous ladders (tournament create --format ladder):
    /// every bot version by fitted rating, until its interval is narrow.
    Ladder(standings::LadderArgs),
    /// List a tournament's matches, show a game and its replay.
    #[command(name = "match", subcommand)]
    Match(matches::MatchCommand),
    /// Run an arena, a runner and the bundled bots: a round robin for every game, then the leaderboards.
    Demo(demo::DemoArgs),
    /// Play a local match between bots and print the results.
    #[command(after_help = bundled_bots_help())]
    Play(play::PlayArgs),
    /// Print a replay file and verify it by re-simulation.
    Replay(replay::ReplayArgs),
    /// List every game: seats, options (type, default, meaning), the action grammar with examples.
    Games(games::GamesArgs),
    /// List every sandbox layer as active or unavailable (exit 0 when all are active).
    Doctor(doctor::DoctorArgs),
    /// Run a bundled reference bot on stdin / stdout.
    #[command(after_help = bundled_bots_help())]
    BotRun {
        /// The bundled bot's name (listed below).
        name: String,
    },
}

/// The bundled bots' names, for the helps of `play` and `bot-run`: the list
/// `bot-run` itself runs.
fn bundled_bots_help() -> String {
    format!(
        "Bundled bots, run by `cairn bot-run NAME` (for `cairn play`, a bot folder whose \
         cairn-bot.toml says command = [\"cairn\", \"bot-run\", \"NAME\"]): {}",
        cairn_sdk::bots::BUNDLED_BOTS.join(", ")
    )
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    install_logging(match &cli.command {
        Command::Serve(args) => args.log_format,
        Command::Runner(args) => args.log_format,
        _ => LogFormat::Text,
    });
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Runner(args) => runner_cmd::run(args),
        Command::Backup(args) => backup::run(args),
        Command::Runners(command) => runners::run(command),
        Command::Owner(command) => bots::run_owner(command),
        Command::Bot(command) => bots::run(command),
        Command::Tournament(command) => tournaments::run(command),
        Command::Ratings(args) => ratings::run(args),
        Command::Ladder(args) => standings::run_ladder(args),
        Command::Match(command) => matches::run_match(command),
        Command::Demo(args) => demo::run(args),
        Command::Play(args) => play::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Games(args) => games::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::BotRun { name } => bot_run(&name),
    };
    match result {
        Ok(code) => code,
        // The reader of our output left (`cairn replay f.json | head`).
        Err(error) if out::is_broken_pipe(&error) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", error_text(&error));
            std::process::ExitCode::from(2)
        }
    }
}

/// An error and its causes, each said once: many errors already end with
/// their cause's text (`cannot read F: No such file...`), which `{:#}`
/// would repeat.
fn error_text(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.ends_with(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// How `serve` and `runner` write their log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Library crates (arena, runner) log through `tracing`; their events go to
/// stderr as bare lines, like the command's own messages, or as JSON
/// objects with their time, level and fields.
fn install_logging(format: LogFormat) {
    let builder = tracing_subscriber::fmt().with_writer(std::io::stderr);
    let _already_installed = match format {
        LogFormat::Text => builder
            .without_time()
            .with_target(false)
            .with_level(false)
            .try_init(),
        LogFormat::Json => builder.json().with_current_span(false).try_init(),
    };
}

// A sandboxed `cairn bot-run NAME` runs in the fork server's image of this
// binary, confined as any bot, without executing the binary again.
cairn_runner::in_image_programs!(cairn_runner::sandbox::InImagePrograms {
    subcommand: "bot-run",
    names: cairn_sdk::bots::BUNDLED_BOTS,
    run: bot_run_in_image,
});

/// `cairn bot-run NAME` in a sandbox's image: what `main` would print and
/// return.
fn bot_run_in_image(name: &str) -> i32 {
    match bot_run(name) {
        Ok(_) => 0,
        Err(error) if out::is_broken_pipe(&error) => 0,
        Err(error) => {
            eprintln!("error: {}", error_text(&error));
            2
        }
    }
}

fn bot_run(name: &str) -> anyhow::Result<std::process::ExitCode> {
    match cairn_sdk::bots::run_bundled(name) {
        Some(result) => result
            .map(|()| std::process::ExitCode::SUCCESS)
            .map_err(|error| anyhow::anyhow!("{error}")),
        None => anyhow::bail!(
            "no bundled bot `{name}` (known: {})",
            cairn_sdk::bots::BUNDLED_BOTS.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Clap checks a command's arguments (unique names, valid requirements)
    /// only when that command is parsed: check every one of them here.
    #[test]
    fn every_command_is_well_formed() {
        super::Cli::command().debug_assert();
    }

    #[test]
    fn the_helps_of_play_and_bot_run_name_every_bundled_bot() {
        let mut cli = super::Cli::command();
        for subcommand in ["play", "bot-run"] {
            let help = cli
                .find_subcommand_mut(subcommand)
                .unwrap()
                .render_long_help()
                .to_string();
            for name in cairn_sdk::bots::BUNDLED_BOTS {
                assert!(
                    help.contains(name),
                    "`cairn {subcommand} --help` lacks {name}"
                );
            }
        }
    }

    #[test]
    fn an_error_says_each_cause_once() {
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let said_with_cause = anyhow::Error::new(missing).context(format!(
            "cannot read f.json: {}",
            std::io::Error::from(std::io::ErrorKind::NotFound)
        ));
        assert_eq!(
            super::error_text(&said_with_cause),
            "cannot read f.json: entity not found"
        );
        let said_apart = anyhow::anyhow!("entity not found").context("cannot start the bot `x`");
        assert_eq!(
            super::error_text(&said_apart),
            "cannot start the bot `x`: entity not found"
        );
    }
}
