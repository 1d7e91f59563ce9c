//! `cairn play` off a terminal (issue 36): piped into a log, it prints
//! whole progress lines on stderr (no `\r` rewrites), the last one at the
//! end, while stdout stays the report alone.

use std::process::Command;

use arena_support::cairn_binary;

use crate::arena_support;

#[test]
fn piped_into_a_log_cairn_play_prints_whole_progress_lines_and_keeps_stdout_the_report() {
    let cairn = cairn_binary();
    let bot = |name: &str| format!("cmd:{} bot-run {name}", cairn.display());
    let output = Command::new(&cairn)
        .args(["play", "--game", "schotten-totten", "--games", "6"])
        .args(["--concurrency", "1", "--no-sandbox", "--json"])
        .args([bot("first"), bot("random")])
        .output()
        .expect("cairn runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is the JSON report alone");
    assert_eq!(report["games"].as_array().unwrap().len(), 6);
    assert!(
        !stderr.contains('\r'),
        "no terminal rewrites in a log: {stderr:?}"
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("games "))
        .collect();
    assert!(!lines.is_empty(), "{stderr}");
    let last = lines.last().unwrap();
    assert!(last.starts_with("games 6/6  W "), "{stderr}");
    assert!(last.ends_with(" s"), "{stderr}");
}
