//! Errors that teach (issue 10): each common mistake of a new bot author
//! forfeits with a detail that names the fix, through the runner's match
//! loop and through `cairn play` alike. The bots are `tests/bots/mistakes.py`,
//! one mistake per mode.

use std::process::Command;
use std::time::Duration;

use arena_support::cairn_binary;
use cairn_engine::forfeit::ForfeitReason;
use cairn_runner::{play_match, PlainLauncher};
use cairn_tests::{bot, python_bot, schotten_totten, tight_time_control, workspace_root};

use crate::arena_support;

/// Each mistake, its forfeit reason, and the words its detail must hold.
const MISTAKES: &[(&str, ForfeitReason, &[&str])] = &[
    (
        "debug-print",
        ForfeitReason::ProtocolError,
        &[
            "`thinking about decision 1` is not a protocol message",
            "write logs and debug output to stderr",
        ],
    ),
    (
        "no-flush",
        ForfeitReason::Timeout,
        &["no ready within", "flush stdout after each line"],
    ),
    (
        "no-flush-action",
        ForfeitReason::Timeout,
        &[
            "no answer within",
            "the wall-clock cap fired",
            "not the CPU time control",
            "ms of CPU used",
            "flush stdout after each line",
        ],
    ),
    (
        "unwrapped",
        ForfeitReason::ProtocolError,
        &[r#"shaped like {"action": {"decisionId": 1, "action": "<one of legalActions>"}}"#],
    ),
    (
        "wrong-kind",
        ForfeitReason::ProtocolError,
        &[
            "answered a request with something other than an action",
            r#"{"action": {"decisionId": 1,"#,
        ],
    ),
    (
        "spin",
        ForfeitReason::Timeout,
        &[
            "the CPU time control fired",
            "ms of CPU on one decision",
            "allowed (its time per decision plus what was left of its bank)",
            "CPU time, not wall-clock",
            "--bank-ms",
        ],
    ),
];

fn mistake(mode: &str) -> cairn_runner::BotEntry {
    let dir = workspace_root().join("tests/bots");
    bot(mode, &dir, &["python3", "mistakes.py", mode])
}

fn check(mode: &str, reason: ForfeitReason, words: &[&str], got: (ForfeitReason, &str)) {
    assert_eq!(got.0, reason, "{mode}: {}", got.1);
    for word in words {
        assert!(got.1.contains(word), "{mode}: `{}` lacks `{word}`", got.1);
    }
    assert!(!got.1.contains('\n'), "{mode}: one line: {}", got.1);
}

#[test]
fn each_mistake_forfeits_in_the_match_loop_with_a_detail_naming_its_fix() {
    let threads: Vec<_> = MISTAKES
        .iter()
        .map(|&(mode, reason, words)| {
            std::thread::spawn(move || {
                let bots = vec![mistake(mode), python_bot("random", "random_bot.py")];
                let mut spec = schotten_totten(&[], 1, 1, bots);
                spec.time_control = tight_time_control();
                // CPU time, ample for Python's start; the wall-clock cap
                // the no-flush bot meets is 9 s.
                spec.time_control.setup = Duration::from_secs(2);
                let result = play_match(&spec, &PlainLauncher).expect("refereed");
                let forfeit = result.games[0].seats[0].forfeit.clone().expect("forfeit");
                check(mode, reason, words, (forfeit.reason, &forfeit.detail));
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("the mistake is taught");
    }
}

#[test]
fn each_mistake_forfeits_in_cairn_play_with_a_detail_naming_its_fix() {
    let dir = workspace_root().join("tests/bots");
    let threads: Vec<_> = MISTAKES
        .iter()
        .map(|&(mode, reason, words)| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let output = Command::new(cairn_binary())
                    .args([
                        "play",
                        "--game",
                        "schotten-totten",
                        "--games",
                        "1",
                        "--json",
                    ])
                    .args(["--decision-ms", "50", "--bank-ms", "50"])
                    .arg(format!("cmd:python3 mistakes.py {mode}"))
                    .arg(workspace_root().join("sdk/python"))
                    .current_dir(&dir)
                    .output()
                    .expect("cairn runs");
                let stdout = String::from_utf8_lossy(&output.stdout);
                let report: serde_json::Value = serde_json::from_str(&stdout)
                    .unwrap_or_else(|e| panic!("{mode}: {e}: {stdout}"));
                let forfeit = &report["games"][0]["seats"][0]["forfeit"];
                let got = forfeit["reason"].as_str().unwrap_or_default();
                let detail = forfeit["detail"].as_str().unwrap_or_default();
                assert_eq!(got, reason.as_str(), "{mode}: {detail}");
                check(mode, reason, words, (reason, detail));
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("the mistake is taught");
    }
}
