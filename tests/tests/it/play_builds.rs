//! `cairn play` builds bot folders in the sandbox, from a copy in its cache,
//! without the caller's environment, and says in one line how to fix a build
//! that fails or a command that cannot start (issue 9, findings 1 and 9).

use std::path::Path;
use std::process::{Command, Output};

use arena_support::cairn_binary;
use cairn_tests::{files_holding, workspace_root};

use crate::arena_support;

/// A bot folder: the SDK's Python random bot plus `manifest`.
fn python_folder(dir: &Path, manifest: &str) -> std::path::PathBuf {
    let folder = dir.join("bot");
    std::fs::create_dir_all(&folder).unwrap();
    for file in ["cairn_bot.py", "random_bot.py"] {
        std::fs::copy(
            workspace_root().join("sdk/python").join(file),
            folder.join(file),
        )
        .unwrap();
    }
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    folder
}

fn play(cache: &Path, bots: &[&Path]) -> Output {
    let mut command = Command::new(cairn_binary());
    command
        .args(["play", "--game", "schotten-totten"])
        .args(bots)
        .env("XDG_CACHE_HOME", cache)
        .env("CAIRN_RUNNER_TOKEN", "play-secret-token");
    command.output().expect("cairn runs")
}

#[test]
fn a_sandboxed_build_runs_from_the_cache_and_never_sees_the_callers_environment() {
    let scratch = tempfile::tempdir().unwrap();
    let build = "env > built-env.txt; cat /proc/1/environ >> built-env.txt 2>&1; true";
    let manifest = format!(
        "name = \"built\"\nbuild = [\"sh\", \"-c\", {build:?}]\ncommand = [\"python3\", \"random_bot.py\"]\n"
    );
    let folder = python_folder(scratch.path(), &manifest);
    let cache = scratch.path().join("cache");
    let output = play(&cache, &[&folder, &workspace_root().join("sdk/python")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        !folder.join("built-env.txt").exists(),
        "the author's folder is not written"
    );
    let built = files_holding(&cache, "PATH=");
    assert_eq!(built.len(), 1, "{built:?}");
    assert!(files_holding(scratch.path(), "play-secret-token").is_empty());
    assert!(files_holding(&cache, "CAIRN_").is_empty());
}

#[test]
fn a_failed_build_is_one_line_naming_the_fix_then_the_logs_tail() {
    let scratch = tempfile::tempdir().unwrap();
    let manifest = "name = \"broken\"\nbuild = [\"sh\", \"-c\", \"echo 'error: expected one of'; exit 101\"]\ncommand = [\"python3\", \"random_bot.py\"]\n";
    let folder = python_folder(scratch.path(), manifest);
    let output = play(&scratch.path().join("cache"), &[&folder, &folder]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "cairn's exit code for an error"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr
        .lines()
        .find(|line| line.starts_with("error:"))
        .unwrap_or_default();
    assert!(
        first.contains("bot `broken`: its build failed (exited with code 101)")
            && first.contains("fix the build command in its cairn-bot.toml"),
        "{stderr}"
    );
    assert!(stderr.contains("error: expected one of"), "{stderr}");
}

#[test]
fn a_command_that_cannot_start_is_one_line_naming_the_fix() {
    let scratch = tempfile::tempdir().unwrap();
    let manifest = "name = \"nostart\"\ncommand = [\"python4\", \"random_bot.py\"]\n";
    let folder = python_folder(scratch.path(), manifest);
    let output = play(
        &scratch.path().join("cache"),
        &[&folder, &workspace_root().join("sdk/python")],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A forfeit is a result, but a bot that forfeited every game is named
    // by exit status 3.
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("`nostart` forfeited every game"),
        "{stderr}"
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("could not start"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("bot `nostart` could not start")
            && lines[0].contains("fix `command` in its cairn-bot.toml"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("forfeit: start_failed"), "{stdout}");
}

#[test]
fn settings_that_cannot_play_and_a_bad_manifest_are_refused_in_one_clear_line() {
    let scratch = tempfile::tempdir().unwrap();
    let python = workspace_root().join("sdk/python");
    let refused = |extra: &[&str], bots: &[&Path]| {
        let output = Command::new(cairn_binary())
            .args(["play", "--game", "schotten-totten"])
            .args(extra)
            .args(bots)
            .env("XDG_CACHE_HOME", scratch.path().join("cache"))
            .output()
            .expect("cairn runs");
        assert_eq!(output.status.code(), Some(2));
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = refused(&["--concurrency", "0"], &[&python, &python]);
    assert!(
        stderr.contains("--concurrency must be at least 1"),
        "{stderr}"
    );
    let stderr = refused(
        &["--decision-ms", "0", "--bank-ms", "0"],
        &[&python, &python],
    );
    assert!(
        stderr.contains("leaves no time for any decision"),
        "{stderr}"
    );
    let folder = python_folder(
        scratch.path(),
        "name = \"typo\"\ncommand = \"python3 random_bot.py\"\n",
    );
    let stderr = refused(&[], &[&folder, &python]);
    assert_eq!(
        stderr.matches("expected a sequence").count(),
        1,
        "the cause is said once: {stderr}"
    );
}

/// Ctrl-C stops a long run as fastchess does: the game under way ends, the
/// results so far are printed and written, and the exit status says so.
#[test]
fn ctrl_c_ends_a_long_run_with_the_results_so_far() {
    use std::io::BufRead;
    let scratch = tempfile::tempdir().unwrap();
    let replay = scratch.path().join("so-far.json");
    let bot = format!("cmd:{} bot-run random", cairn_binary().display());
    let mut child = Command::new(cairn_binary())
        .args(["play", "--game", "schotten-totten", "--games", "100000"])
        .args(["--concurrency", "1", "--no-sandbox", "--quiet", "--replay"])
        .arg(&replay)
        .args([&bot, &bot])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("cairn runs");
    // The launcher's line comes once Ctrl-C is taken over.
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let interrupt = Command::new("sh")
        .args(["-c", &format!("kill -INT {}", child.id())])
        .status()
        .unwrap();
    assert!(interrupt.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{line}{rest}");
    assert!(
        rest.contains("interrupted:") && rest.contains("of 100000 games played"),
        "{rest}"
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).unwrap()).unwrap();
    let n_games = written["games"].as_array().unwrap().len();
    assert!((1..100_000).contains(&n_games), "{n_games} games written");
    assert!(stdout.contains(&format!("{n_games} games")), "{stdout}");
}
