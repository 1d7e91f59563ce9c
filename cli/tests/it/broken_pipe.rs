//! A reader that leaves early (`cairn replay f.json | head`) is no failure:
//! every printing command ends quietly on the broken pipe, never panics.

use std::process::{Command, Stdio};

use crate::workspace;

/// Runs `cairn args` with its stdout's reader closed before it prints.
fn with_closed_stdout(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .current_dir(workspace())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn replay_and_play_end_quietly_when_their_reader_leaves() {
    let path = std::env::temp_dir().join(format!("cairn-broken-pipe-{}.json", std::process::id()));
    let play = [
        "play",
        "--no-sandbox",
        "--game",
        "schotten-totten",
        "--games",
        "2",
        "--replay",
        path.to_str().unwrap(),
        "sdk/python",
        "sdk/python",
    ];
    let (status, stderr) = with_closed_stdout(&play);
    assert!(status.success(), "play: {status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let replay = path.to_str().unwrap();
    for args in [
        vec!["replay", replay],
        vec!["replay", replay, "--show", "--at", "3"],
        vec!["replay", replay, "--show"],
    ] {
        let (status, stderr) = with_closed_stdout(&args);
        assert!(status.success(), "{args:?}: {status}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_file(path);
}

#[test]
fn games_ends_quietly_when_its_reader_leaves() {
    let (status, stderr) = with_closed_stdout(&["games"]);
    assert_ne!(status.code(), Some(101), "games: {status}: {stderr}");
    assert!(status.success(), "games: {status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
