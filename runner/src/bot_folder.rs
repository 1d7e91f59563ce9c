//! Bot folders and bare commands. A bot folder holds `cairn-bot.toml`:
//!
//! ```toml
//! name = "greedy"
//! command = ["python3", "bot.py"]        # argv, run in the folder
//! build = ["make"]                       # optional, run once before play (sandboxed, see crate::build)
//! games = ["schotten-totten"]             # optional, the games it plays
//! ```
//!
//! Anything else given where a bot is expected is a bare command, run by
//! `sh -c` in the current directory and named by its own text.

use std::path::{Path, PathBuf};

use cairn_proto::archive::{check_archive, pack_folder, unpack_archive, PackError};

use crate::build::{build_folder, BuildError, BuildLog, Builder};
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
        command: bare_command(argument),
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

/// How a bare command runs: through `sh -c`, in the current folder, or,
/// when it is an absolute path to a program followed by plain words (no
/// shell syntax), as that program itself. The sandbox then shows the
/// program's folder read-only, as it does an interpreter a manifest names
/// outside the system's folders, so `cmd:/home/me/engines/mybot` plays
/// sandboxed: through `sh -c`, a program outside the current folder and
/// the system's is not there to start.
fn bare_command(argument: &str) -> Vec<String> {
    let plain = argument
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || "/._,:@%+=-".contains(c));
    let words: Vec<String> = argument.split_whitespace().map(str::to_string).collect();
    match words.first() {
        Some(program) if plain && program.starts_with('/') && Path::new(program).is_file() => words,
        _ => vec!["sh".into(), "-c".into(), shell_line(argument)],
    }
}

/// Words that start a line the shell must run itself: `exec` before them
/// would look for a program of that name (`cd`, `export`) or be a syntax
/// error (`if`, `(`).
const SHELL_WORDS: &[&str] = &[
    "cd", "export", "set", "unset", ".", "source", "eval", "exec", "ulimit", "umask", "trap",
    "alias", "if", "for", "while", "until", "case", "!", "{", "(",
];

/// The `sh -c` line of a bare command: a simple command gets `exec`, so the
/// bot replaces the shell (signals reach it, no shell lingers); a line of
/// several commands (`cd bot && python3 bot.py`), an assignment
/// (`HASH=64 ./engine`) or one that starts with a shell word runs as
/// written.
fn shell_line(argument: &str) -> String {
    let compound = argument.contains([';', '&', '|', '\n', '(', ')', '{', '}']);
    let first = argument.split_whitespace().next().unwrap_or("");
    let shell_first = first.contains('=') || SHELL_WORDS.contains(&first);
    match compound || shell_first {
        true => argument.to_string(),
        false => format!("exec {argument}"),
    }
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

    /// The manifest's build command, if it has one.
    pub fn build_command(&self) -> Option<&[String]> {
        self.manifest.as_ref().and_then(|m| m.build.as_deref())
    }

    /// Runs the build command in the bot folder itself, which becomes the
    /// artifact (the runner's freshly unpacked copy); `None` without one.
    pub fn build_in_place(&self, builder: &Builder) -> Result<Option<BuildLog>, BuildError> {
        match self.build_command() {
            Some(command) => self
                .timed(|| build_folder(&self.entry.launch.bot_dir, command, builder))
                .map(Some),
            None => Ok(None),
        }
    }

    /// Runs a build, saying when it starts and how long it took (a build
    /// may take minutes: a silent one looks stuck).
    fn timed<T>(&self, build: impl FnOnce() -> Result<T, BuildError>) -> Result<T, BuildError> {
        let name = &self.entry.name;
        tracing::info!("building bot `{name}`...");
        let started = std::time::Instant::now();
        let built = build();
        let seconds = started.elapsed().as_secs_f64();
        match &built {
            Ok(_) => tracing::info!("built bot `{name}` in {seconds:.1} s"),
            Err(_) => tracing::info!("the build of bot `{name}` failed after {seconds:.1} s"),
        }
        built
    }

    /// Why the bot can run only from its place in a source tree: its
    /// command names a program outside its folder (`../../../target/...`,
    /// as the bundled Rust bots in `sdk/bots/rust-*` do). Such a bot cannot
    /// be uploaded, nor built in a sandbox that sees only its folder.
    pub fn outside_its_folder(&self) -> Option<String> {
        let program = self.manifest.as_ref()?.command.first()?;
        let mut depth: i32 = 0;
        for part in Path::new(program).components() {
            match part {
                std::path::Component::ParentDir => depth -= 1,
                std::path::Component::Normal(_) => depth += 1,
                _ => {}
            }
            if depth < 0 {
                return Some(format!(
                    "bot `{}` runs `{program}`, outside its folder: it is workspace-only \
                     (like the bundled sdk/bots/rust-* bots), so it cannot be uploaded or \
                     built in the sandbox; run it from its place with `cairn play --no-sandbox`, \
                     or put the program (or its source and a build command) in the folder",
                    self.entry.name
                ));
            }
        }
        None
    }

    /// The bot, built, for `cairn play`. Sandboxed, the folder is packed as
    /// `bot add` would, unpacked into `cache_root/<content hash>` and built
    /// there, so the build never writes into the author's folder and a
    /// folder already built is not built again. A trusted (plain) build runs
    /// in the folder itself, as the author would run it.
    pub fn built(&self, cache_root: &Path, builder: &Builder) -> Result<PreparedBot, BuildError> {
        let Some(command) = self.build_command() else {
            return Ok(self.clone());
        };
        if !builder.sandboxed {
            self.timed(|| build_folder(&self.entry.launch.bot_dir, command, builder))?;
            return Ok(self.clone());
        }
        if let Some(detail) = self.outside_its_folder() {
            return Err(BuildError::Failed {
                detail,
                log_tail: String::new(),
            });
        }
        let archive = pack_folder(&self.entry.launch.bot_dir).map_err(|error| match error {
            PackError::Io { .. } => BuildError::Host(error.to_string()),
            other => BuildError::Failed {
                detail: other.to_string(),
                log_tail: String::new(),
            },
        })?;
        let hash = check_archive(&archive)
            .map_err(|error| BuildError::Host(error.to_string()))?
            .content_hash;
        let folder = cache_root.join(&hash);
        if !folder.is_dir() {
            self.timed(|| build_into_cache(&archive, cache_root, &hash, command, builder))?;
        }
        let mut built = self.clone();
        built.entry.launch.bot_dir = folder;
        Ok(built)
    }
}

/// Unpacks and builds in a private folder, renamed into place only when built.
fn build_into_cache(
    archive: &[u8],
    cache_root: &Path,
    hash: &str,
    command: &[String],
    builder: &Builder,
) -> Result<(), BuildError> {
    let host = |error: &dyn std::fmt::Display| BuildError::Host(error.to_string());
    std::fs::create_dir_all(cache_root).map_err(|e| host(&e))?;
    let staging = cache_root.join(format!(".{hash}.{}.staging", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(|e| host(&e))?;
    }
    unpack_archive(archive, &staging).map_err(|e| host(&e))?;
    let built = build_folder(&staging, command, builder).and_then(|_| {
        match std::fs::rename(&staging, cache_root.join(hash)) {
            Ok(()) => Ok(()),
            // Another `cairn play` built the same folder first.
            Err(_) if cache_root.join(hash).is_dir() => Ok(()),
            Err(error) => Err(host(&error)),
        }
    });
    let _ = std::fs::remove_dir_all(&staging);
    built
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
    fn a_simple_command_replaces_the_shell_and_a_line_of_several_runs_as_written() {
        let line = |argument: &str| load_bot(argument).unwrap().entry.launch.command[2].clone();
        assert_eq!(line("python3 bot.py"), "exec python3 bot.py");
        for as_written in [
            "cd heur && python3 heur_bot.py",
            "cd heur; python3 heur_bot.py",
            "HASH=64 ./engine",
            "export X=1",
            "python3 gen.py | ./bot",
            "(cd x; ./bot)",
        ] {
            assert_eq!(line(as_written), as_written);
        }
    }

    #[test]
    fn an_absolute_program_with_plain_words_runs_without_the_shell() {
        let direct = load_bot("/bin/sh -e my_bot.sh --depth=3").unwrap();
        assert_eq!(
            direct.entry.launch.command,
            ["/bin/sh", "-e", "my_bot.sh", "--depth=3"]
        );
        for shell_syntax in [
            "/bin/sh -c 'echo hi'",
            "/bin/sh bot.sh > log",
            "/bin/sh $HOME/bot.sh",
            "/no/such/program --flag",
            "./bot --flag",
        ] {
            let bot = load_bot(shell_syntax).unwrap();
            assert_eq!(
                bot.entry.launch.command[..2],
                ["sh", "-c"],
                "`{shell_syntax}` should run through the shell"
            );
        }
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
