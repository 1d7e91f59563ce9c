//! The systemd units in `deploy/` (issue 33): `systemd-analyze verify`
//! finds nothing to say about them (with `ExecStart` pointed at the built
//! `cairn`), `cairn` takes the command line each starts, and the tokens come
//! from an environment file whose example sets what the flags read.

use std::path::{Path, PathBuf};
use std::process::Command;

use arena_support::{cairn_binary, skip_loudly, which};
use cairn_tests::workspace_root;

use crate::arena_support;

fn units() -> Vec<(String, String)> {
    ["cairn-arena.service", "cairn-runner.service"]
        .map(|name| {
            let text = std::fs::read_to_string(workspace_root().join("deploy").join(name))
                .unwrap_or_else(|error| panic!("deploy/{name}: {error}"));
            (name.to_string(), text)
        })
        .to_vec()
}

fn value<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in {unit}"))
}

fn systemd_analyze() -> Option<PathBuf> {
    let found = which("systemd-analyze");
    if found.is_none() {
        skip_loudly(
            "systemd-analyze is missing (Debian's `systemd`; `.ci/test` installs it)",
            "verifying deploy/*.service",
            "verify the units",
        );
    }
    found
}

#[test]
fn systemd_verifies_the_units_without_a_word() {
    let Some(analyze) = systemd_analyze() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, text) in units() {
        let text = text.replace("/usr/local/bin/cairn", cairn_binary().to_str().unwrap());
        let path = dir.path().join(&name);
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let output = Command::new(analyze)
        .arg("verify")
        .args(&paths)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && said.trim().is_empty(), "{said}");
}

#[test]
fn cairn_takes_each_unit_s_command_line() {
    for (name, unit) in units() {
        let words: Vec<&str> = value(&unit, "ExecStart").split_whitespace().collect();
        assert_eq!(words[0], "/usr/local/bin/cairn", "{name}");
        // Parsed in full, then --help instead of starting.
        let output = Command::new(cairn_binary())
            .args(&words[1..])
            .arg("--help")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn the_tokens_come_from_an_environment_file_whose_example_sets_them() {
    for (name, unit) in units() {
        assert!(!unit.contains("TOKEN="), "{name} holds a token");
        let file = Path::new(value(&unit, "EnvironmentFile")).to_path_buf();
        let example = workspace_root().join("deploy").join(format!(
            "{}.example",
            file.file_name().unwrap().to_str().unwrap()
        ));
        let example = std::fs::read_to_string(&example)
            .unwrap_or_else(|error| panic!("{}: {error}", example.display()));
        assert!(example.contains("CAIRN_RUNNER_TOKEN="), "{name}");
    }
}
