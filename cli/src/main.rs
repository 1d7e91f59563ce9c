//! # cairn
//!
//! The `cairn` command. Thin: each subcommand parses its arguments and
//! calls into the library crates.
//!
//! # Layout
//! - [`play`]: `cairn play`, a local match between bot folders or commands.
//! - [`doctor`]: `cairn doctor`, the sandbox layers on this machine.
//! - [`replay`]: `cairn replay`, print and verify a replay file.
//! - [`table`]: aligned text tables.

mod doctor;
mod play;
mod replay;
mod table;

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
    /// Play a local match between bots and print the results.
    Play(play::PlayArgs),
    /// Print a replay file and verify it by re-simulation.
    Replay(replay::ReplayArgs),
    /// List every sandbox layer as active or unavailable (exit 0 when all are active).
    Doctor(doctor::DoctorArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(args) => play::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Doctor(args) => doctor::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::from(2)
        }
    }
}
