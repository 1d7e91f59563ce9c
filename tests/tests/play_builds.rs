//! `cairn play` builds bot folders in the sandbox, from a copy in its cache,
//! without the caller's environment, and says in one line how to fix a build
//! that fails or a command that cannot start (issue 9, findings 1 and 9).

mod arena_support;

use std::path::Path;
use std::process::{Command, Output};

use arena_support::cairn_binary;
use cairn_tests::{files_holding, workspace_root};

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
