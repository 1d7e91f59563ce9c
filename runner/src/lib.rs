//! # cairn-runner
//!
//! Where bot programs meet the referee: starting bot processes, speaking
//! the line protocol with them under a time control, playing matches with
//! the engine as referee, and writing / verifying replays. The only crate
//! that spawns processes.
//!
//! # Layout
//! - [`launch`]: the launch seam ([`BotLauncher`], [`BotProcess`]) and the
//!   plain, unsandboxed launcher.
//! - [`pipe`], [`stderr`]: non-blocking line I/O with deadlines and caps;
//!   the capped stderr log.
//! - [`connection`]: one live bot; every failure becomes a forfeit reason.
//! - [`hints`]: forfeit details that name the fix for common mistakes.
//! - [`time_control`]: per-decision CPU limit plus a bank, wall backstop.
//! - [`forfeit`]: forfeit reasons and scoring a game with forfeits.
//! - [`seating`]: each game's seed and seating.
//! - [`referee`]: the match loop, [`play_match`]; [`stop`]: stopping it
//!   from another thread ([`play_match_until`]).
//! - [`placement`]: where threads run and at what priority; keeping a
//!   match (loop and bots) on one CPU.
//! - [`record`]: the replay file and its verification by re-simulation.
//! - [`bot_folder`]: `cairn-bot.toml` bot folders and bare commands.
//! - [`build`]: a bot's `build` command, sandboxed, its output the artifact.
//! - [`sandbox`]: starts one untrusted bot process in a layered sandbox
//!   (namespaces, private root, unprivileged uid, rlimits, cgroups, Landlock,
//!   seccomp), reports how it ended and which limit it broke, and puts
//!   itself behind the launch seam ([`SandboxLauncher`]).
//! - [`remote`]: `cairn runner`: leasing matches from an arena over gRPC,
//!   fetching and building bots, playing with [`play_match`], reporting.
//!
//! # Example
//! ```no_run
//! use cairn_runner::{bot_folder, play_match, rotating_plan, MatchSpec, PlainLauncher};
//!
//! let bots = ["sdk/bots/python-random", "sdk/bots/js-random"]
//!     .iter()
//!     .map(|path| bot_folder::load_bot(path).map(|bot| bot.entry))
//!     .collect::<Result<Vec<_>, _>>()
//!     .unwrap();
//! let spec = MatchSpec {
//!     game: "schotten-totten".into(),
//!     options: Default::default(),
//!     games: rotating_plan(2, 7, bots.len()),
//!     bots,
//!     time_control: Default::default(),
//!     limits: Default::default(),
//!     cpu: None,
//! };
//! let result = play_match(&spec, &PlainLauncher).unwrap();
//! assert_eq!(result.games.len(), 2);
//! ```

pub mod bot_folder;
pub mod build;
pub mod connection;
pub mod hints;
pub mod launch;
pub mod pipe;
pub mod placement;
pub mod python_package;
pub mod referee;
pub mod remote;
pub mod sandbox;
pub mod seating;
pub mod stderr;
pub mod stop;
pub mod time_control;

pub use connection::IoLimits;
pub use launch::{BotLauncher, BotProcess, LaunchSpec, PlainLauncher};
pub use referee::{
    play_match, play_match_until, seeded_bots, BotEntry, DecisionTiming, GameResult, MatchError,
    MatchResult, MatchSpec, SeatResult,
};
pub use sandbox::SandboxLauncher;
pub use seating::{deal_seed, mirrored_plan, rotating_plan, GamePlan};
pub use stop::MatchStop;
pub use time_control::TimeControl;
