//! Bot folders and bare commands. A bot folder holds `cairn-bot.toml`:
//!
//! ```toml
//! name = "greedy"
//! command = ["python3", "bot.py"]        # argv, run in the folder
//! build = ["cargo", "build", "--release"] # optional, run once before play
//! games = ["schotten-totten"]             # optional, the games it plays
//! ```
//!
//! Anything else given where a bot is expected is a bare command, run by
//! `sh -c` in the current directory and named by its own text.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::launch::LaunchSpec;
use crate::referee::BotEntry;

/// The manifest's file name inside a bot folder.
pub const MANIFEST_NAME: &str = "cairn-bot.toml";

/// `cairn-bot.toml`: the one manifest type, shared with the arena, which
/// checks it the same way when a bot is submitted.
pub use cairn_proto::archive::Manifest as BotManifest;

/// Why a bot could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum BotFolderError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Manifest {
        path: String,
        source: cairn_proto::archive::ArchiveError,
    },
    #[error("bot `{name}` does not play {game} (its games: {games})")]
    WrongGame {
        name: String,
        game: String,
        games: String,
    },
    #[error("building bot `{name}` failed: {detail}")]
    Build { name: String, detail: String },
}

/// A bot ready to launch, and how to build it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedBot {
    pub entry: BotEntry,
    pub manifest: Option<BotManifest>,
}

/// Reads a bot argument: a folder with a manifest, or a bare command.
pub fn load_bot(argument: &str) -> Result<PreparedBot, BotFolderError> {
    let folder = Path::new(argument);
    if folder.join(MANIFEST_NAME).is_file() {
        return load_folder(folder);
    }
    let current = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let launch = LaunchSpec {
        command: vec!["sh".into(), "-c".into(), format!("exec {argument}")],
        bot_dir: current,
        env: Vec::new(),
    };
    Ok(PreparedBot {
        entry: BotEntry {
            name: argument.to_string(),
            launch,
        },
        manifest: None,
    })
}

fn load_folder(folder: &Path) -> Result<PreparedBot, BotFolderError> {
    let path = folder.join(MANIFEST_NAME);
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|source| BotFolderError::Read {
        path: shown.clone(),
        source,
    })?;
    let manifest = BotManifest::parse(&text).map_err(|source| BotFolderError::Manifest {
        path: shown.clone(),
        source,
    })?;
    let bot_dir = folder
        .canonicalize()
        .map_err(|source| BotFolderError::Read {
            path: shown,
            source,
        })?;
    let launch = LaunchSpec {
        command: manifest.command.clone(),
        bot_dir,
        env: Vec::new(),
    };
    Ok(PreparedBot {
        entry: BotEntry {
            name: manifest.name.clone(),
            launch,
        },
        manifest: Some(manifest),
    })
}

impl PreparedBot {
    /// Refuses a game the manifest does not list (no list: any game).
    pub fn check_game(&self, game: &str) -> Result<(), BotFolderError> {
        match self.manifest.as_ref().and_then(|m| m.games.as_ref()) {
            Some(games) if !games.iter().any(|g| g == game) => Err(BotFolderError::WrongGame {
                name: self.entry.name.clone(),
                game: game.to_string(),
                games: games.join(", "),
            }),
            _ => Ok(()),
        }
    }

    /// Runs the manifest's build command in the bot folder, if it has one.
    pub fn build(&self) -> Result<(), BotFolderError> {
        let Some(build) = self.manifest.as_ref().and_then(|m| m.build.as_ref()) else {
            return Ok(());
        };
        let name = self.entry.name.clone();
        let Some((program, args)) = build.split_first() else {
            return Ok(());
        };
        let output = Command::new(program)
            .args(args)
            .current_dir(&self.entry.launch.bot_dir)
            .output()
            .map_err(|e| BotFolderError::Build {
                name: name.clone(),
                detail: format!("cannot run `{program}`: {e}"),
            })?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: String = stderr
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        Err(BotFolderError::Build {
            name,
            detail: format!("{}\n{tail}", output.status),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_with_all_fields_reads_and_unknown_fields_are_refused() {
        let text = "name = \"x\"\ncommand = [\"python3\", \"bot.py\"]\nbuild = [\"make\"]\ngames = [\"schotten-totten\"]\n";
        let manifest: BotManifest = toml::from_str(text).unwrap();
        assert_eq!(manifest.command, vec!["python3", "bot.py"]);
        assert_eq!(
            manifest.games.as_deref(),
            Some(&["schotten-totten".to_string()][..])
        );
        assert!(toml::from_str::<BotManifest>(
            "name = \"x\"\ncommand = [\"a\"]\ncolour = \"red\"\n"
        )
        .is_err());
    }

    #[test]
    fn a_bare_command_runs_through_the_shell_and_plays_any_game() {
        let bot = load_bot("python3 my_bot.py --fast").unwrap();
        assert_eq!(bot.entry.name, "python3 my_bot.py --fast");
        assert_eq!(bot.entry.launch.command[2], "exec python3 my_bot.py --fast");
        assert!(bot.check_game("bullfrogs").is_ok());
    }

    #[test]
    fn a_bot_folder_refuses_games_it_does_not_list() {
        let dir =
            std::env::temp_dir().join(format!("cairn-bot-folder-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(MANIFEST_NAME),
            "name = \"b\"\ncommand = [\"./run\"]\ngames = [\"bullfrogs\"]\n",
        )
        .unwrap();
        let bot = load_bot(dir.to_str().unwrap()).unwrap();
        assert_eq!(bot.entry.name, "b");
        assert!(bot.check_game("bullfrogs").is_ok());
        assert!(matches!(
            bot.check_game("schotten-totten"),
            Err(BotFolderError::WrongGame { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
