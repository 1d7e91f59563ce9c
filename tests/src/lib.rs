//! # cairn-tests
//!
//! End-to-end tests with real processes. This library holds what the tests
//! share: where the workspace is, the SDK's Rust bots (built on first use),
//! the Python and JavaScript bots, the hostile bots, and match specs.
//!
//! # Layout
//! - `tests/languages.rs`: Rust, Python and JS bots play every variant;
//!   first-action bots in all three write byte-identical replays.
//! - `tests/hostile.rs`: misbehaving bots forfeit with the right reason.
//! - `tests/hello.rs`: a seat silent at hello forfeits alone, at every size.
//! - `tests/start_faults.rs`: `start_failed` vs `crash` vs the host's error.
//! - `tests/play_builds.rs`: `cairn play` builds sandboxed, from its cache.
//! - `tests/arena_builds.rs`: a hostile build on a real sandboxed runner.
//! - `tests/arena_archives.rs`: what a runner cannot unpack, the arena refuses.
//! - `tests/events.rs`: every seat sees every action once, in order.
//! - `tests/sandboxed.rs`: the same through the sandbox.
//! - `tests/sandboxed_hostile.rs`: every hostile act of issue 5 through the
//!   sandboxed match loop: stopped with the right reason, or denied.
//! - `tests/greedy.rs`: the greedy Rust bots beat the random bot clearly.
//! - `bots/`: the hostile bots, a sandbox prober that reports whether an
//!   escape worked, and a recording bot (small Python scripts).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use cairn_engine::game::parse_options;
use cairn_runner::{BotEntry, LaunchSpec, MatchSpec, TimeControl};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The directory cargo puts this build's binaries in (next to `deps/`).
fn binary_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let deps = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    deps.parent().map(Path::to_path_buf).unwrap_or(deps)
}

/// A binary of the `cairn-sdk` package, built once per test run with the
/// same profile as the tests (cargo builds only test targets for `-p cairn-tests`).
pub fn sdk_binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    let dir = binary_dir();
    BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .args(["build", "--quiet", "-p", "cairn-sdk", "--bins"])
            .current_dir(workspace_root());
        if dir.file_name().is_some_and(|n| n == "release") {
            command.arg("--release");
        }
        let status = command.status().expect("cargo runs");
        assert!(status.success(), "building the sdk bots failed");
    });
    dir.join(name)
}

/// A bot run as `command` in `dir`, named `name`.
pub fn bot(name: &str, dir: &Path, command: &[&str]) -> BotEntry {
    let launch = LaunchSpec {
        command: command.iter().map(|s| s.to_string()).collect(),
        bot_dir: dir.to_path_buf(),
        env: vec![],
    };
    BotEntry {
        name: name.to_string(),
        launch,
    }
}

/// The SDK's Rust bot `binary`.
pub fn rust_bot(name: &str, binary: &str) -> BotEntry {
    let path = sdk_binary(binary);
    bot(name, &binary_dir(), &[path.to_str().unwrap_or_default()])
}

/// `script` from `sdk/python`.
pub fn python_bot(name: &str, script: &str) -> BotEntry {
    bot(
        name,
        &workspace_root().join("sdk/python"),
        &["python3", script],
    )
}

/// `script` from `sdk/js`.
pub fn js_bot(name: &str, script: &str) -> BotEntry {
    bot(name, &workspace_root().join("sdk/js"), &["node", script])
}

/// A hostile bot from `tests/bots`, with extra arguments.
pub fn hostile_bot(script: &str, args: &[&str]) -> BotEntry {
    let mut command = vec!["python3", script];
    command.extend_from_slice(args);
    bot(script, &workspace_root().join("tests/bots"), &command)
}

/// A Schotten Totten match with `options` (`key=value` words).
pub fn schotten_totten(
    options: &[&str],
    n_games: u32,
    seed: u64,
    bots: Vec<BotEntry>,
) -> MatchSpec {
    match_of("schotten-totten", options, n_games, seed, bots)
}

/// A match of `game` with `options` (`key=value` words), seats rotating.
pub fn match_of(
    game: &str,
    options: &[&str],
    n_games: u32,
    seed: u64,
    bots: Vec<BotEntry>,
) -> MatchSpec {
    MatchSpec {
        game: game.into(),
        options: parse_options(options.iter().copied()).expect("test options are well formed"),
        games: cairn_runner::rotating_plan(n_games, seed, bots.len()),
        bots,
        time_control: TimeControl::default(),
        limits: Default::default(),
        cpu: None,
    }
}

/// A tight time control for hostile bots: 50 ms a decision, 50 ms bank
/// (so a wall backstop of 1.4 s).
pub fn tight_time_control() -> TimeControl {
    TimeControl {
        per_decision: Duration::from_millis(50),
        bank: Duration::from_millis(50),
        setup: Duration::from_secs(20),
    }
}

/// Whether any process that can still run has `marker` in its command
/// line. Zombies and processes with a SIGKILL pending are dead already:
/// the kernel finishes them the next time they are scheduled.
pub fn process_with_marker_exists(marker: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        let has_marker = std::fs::read(path.join("cmdline")).is_ok_and(|cmdline| {
            cmdline
                .windows(marker.len())
                .any(|window| window == marker.as_bytes())
        });
        has_marker
            && std::fs::read_to_string(path.join("status"))
                .is_ok_and(|status| can_still_run(&status))
    })
}

fn can_still_run(status: &str) -> bool {
    const SIGKILL_BIT: u64 = 1 << (9 - 1);
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .map(str::trim)
    };
    let zombie =
        field("State:").is_some_and(|state| state.starts_with('Z') || state.starts_with('X'));
    let kill_pending = ["SigPnd:", "ShdPnd:"]
        .iter()
        .filter_map(|name| field(name))
        .any(|mask| u64::from_str_radix(mask, 16).is_ok_and(|bits| bits & SIGKILL_BIT != 0));
    !zombie && !kill_pending
}

/// Every file under `dir` whose bytes hold `needle` (links not followed;
/// unreadable files count as empty).
pub fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        if meta.is_dir() {
            pending.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else if meta.is_file()
            && String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).contains(needle)
        {
            found.push(path);
        }
    }
    found
}

/// The Python interpreter of the virtual environment the tests own
/// (`target/python-env`, made by `.ci/test` with maturin in it, or
/// `CAIRN_PYTHON_ENV`), with `cairn_engine` built into it by `maturin
/// develop --release` once per test run. `None` after saying loudly what is
/// skipped when the environment is missing, outside CI only.
pub fn python_with_engine() -> Option<PathBuf> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let env = std::env::var_os("CAIRN_PYTHON_ENV")
                .map(PathBuf::from)
                .unwrap_or_else(|| workspace_root().join("target/python-env"));
            let maturin = env.join("bin/maturin");
            if !maturin.is_file() {
                let message = format!(
                    "no maturin in {} (.ci/test makes that environment)",
                    env.display()
                );
                assert!(
                    std::env::var_os("CI").is_none(),
                    "{message}; CI must test the Python package"
                );
                eprintln!("\n!!!!!!!! SKIPPED the Python package tests: {message} !!!!!!!!\n");
                return None;
            }
            // Release: the agreement test plays thousands of games through it.
            let status = Command::new(&maturin)
                .args(["develop", "--quiet", "--release", "-m", "python/Cargo.toml"])
                .env("VIRTUAL_ENV", &env)
                .current_dir(workspace_root())
                .status()
                .expect("maturin runs");
            assert!(status.success(), "building the Python package failed");
            Some(env.join("bin/python"))
        })
        .clone()
}
