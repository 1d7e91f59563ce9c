//! `cairn replay FILE --show --at N`: the board of every game at a known
//! step, from every seat and from all of them, drawn from a replay that
//! `cairn play` wrote with the bundled bots.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::cairn;

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Plays one game of `game` between bundled bots and returns the replay path.
fn played(name: &str, game: &str, options: &[&str], bots: &[&str]) -> (PathBuf, Value) {
    let path = std::env::temp_dir().join(format!(
        "cairn-view-test-{}-{name}.json",
        std::process::id()
    ));
    let commands: Vec<String> = bots
        .iter()
        .map(|bot| format!("cmd:{} bot-run {bot}", env!("CARGO_BIN_EXE_cairn")))
        .collect();
    let mut args = vec!["play", "--game", game, "--no-sandbox", "--seed", "3"];
    for option in options {
        args.extend(["--opt", option]);
    }
    args.extend(["--replay", path.to_str().unwrap()]);
    args.extend(commands.iter().map(String::as_str));
    stdout(&cairn(&args));
    let replay: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, replay)
}

fn show(path: &Path, extra: &[&str]) -> String {
    let mut args = vec!["replay", path.to_str().unwrap(), "--show"];
    args.extend(extra);
    stdout(&cairn(&args))
}

#[test]
fn schotten_totten_shows_the_stones_both_hands_and_the_card_just_played() {
    let (path, replay) = played(
        "st",
        "schotten-totten",
        &["tactics=true"],
        &["greedy", "random"],
    );
    let first = replay["games"][0]["actions"][0].as_str().unwrap();
    // `play CARD STONE`: the card lies on that stone's row at step 1.
    let words: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(words[0], "play", "{first}");
    let text = show(&path, &["--at", "1"]);
    let row = text
        .lines()
        .find(|line| line.trim_start().starts_with(&format!("{} ", words[2])))
        .unwrap_or_else(|| panic!("no row for stone {} in\n{text}", words[2]));
    assert!(row.contains(words[1]), "{row}");
    assert!(text.contains(&format!("played `{first}`")), "{text}");
    assert_eq!(text.matches(" hand: ").count(), 2, "{text}");
    assert!(text.contains("tactic deck"), "{text}");
    assert!(!text.contains("hidden"), "{text}");
    let seat_one = show(&path, &["--at", "1", "--seat", "1"]);
    assert_eq!(seat_one.matches("hidden").count(), 1, "{seat_one}");
    let every_step = show(&path, &[]);
    assert!(every_step.contains("step 0/") && every_step.contains("ended: "));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn each_step_shows_its_decisions_cpu_time_and_an_old_replay_says_it_has_none() {
    let (path, mut replay) = played("time", "schotten-totten", &[], &["greedy", "random"]);
    let times = replay["games"][0]["cpu_us"].as_array().unwrap().clone();
    let actions = replay["games"][0]["actions"].as_array().unwrap();
    assert_eq!(times.len(), actions.len());
    for at in [1, 2, actions.len()] {
        let cpu_us = times[at - 1].as_u64().unwrap();
        let text = show(&path, &["--at", &at.to_string()]);
        let shown = format!("took {:.1} ms of CPU", cpu_us as f64 / 1000.0);
        assert!(text.contains(&shown), "{shown} not in {text}");
    }
    replay["games"][0].as_object_mut().unwrap().remove("cpu_us");
    std::fs::write(&path, replay.to_string()).unwrap();
    let old = show(&path, &["--at", "1"]);
    assert!(old.contains("decision time not recorded"), "{old}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn lords_of_scotland_shows_recruits_scores_followers_and_hands() {
    let (path, replay) = played(
        "los",
        "lords-of-scotland",
        &[],
        &["greedy", "random", "greedy"],
    );
    let n_actions = replay["games"][0]["actions"].as_array().unwrap().len();
    let text = show(&path, &["--at", &n_actions.to_string()]);
    assert!(text.contains("recruits: "), "{text}");
    assert!(text.contains("supporters to win: "), "{text}");
    assert_eq!(text.matches(" · score ").count(), 3, "{text}");
    assert_eq!(text.matches("followers: ").count(), 3, "{text}");
    assert!(text.contains("ended: "), "{text}");
    let deal = show(&path, &["--at", "0", "--seat", "2"]);
    assert!(deal.contains("the deal"), "{deal}");
    assert_eq!(deal.matches("hidden; known").count(), 2, "{deal}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn bullfrogs_shows_the_grid_with_the_log_and_every_color() {
    let (path, _) = played("bf", "bullfrogs", &[], &["greedy", "random", "greedy"]);
    let text = show(&path, &["--at", "0"]);
    assert!(text.contains("LOG"), "{text}");
    assert_eq!(text.matches("start").count(), 4, "{text}");
    for color in ["(red)", "(blue)", "(green)"] {
        assert!(text.contains(color), "{text}");
    }
    assert!(text.contains("y=0"), "{text}");
    let later = show(&path, &["--at", "6"]);
    assert!(
        later.contains(" r1") || later.contains(" R1") || later.contains("r2"),
        "{later}"
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn solo_bullfrogs_shows_isaac_and_his_dice() {
    let (path, replay) = played("solo", "bullfrogs", &["solo=true"], &["greedy"]);
    let n_actions = replay["games"][0]["actions"].as_array().unwrap().len();
    let found = (1..=n_actions.min(40))
        .any(|at| show(&path, &["--at", &at.to_string()]).contains("Isaac rolled"));
    assert!(found, "no step shows Isaac's roll");
    assert!(show(&path, &["--at", "0"]).contains("Isaac (blue)"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn hostile_names_are_escaped_and_bad_steps_or_seats_are_errors() {
    let (path, mut replay) = played("hostile", "schotten-totten", &[], &["random", "random"]);
    replay["games"][0]["seats"][0] = "\u{1b}]0;pwned\u{7}evil".into();
    std::fs::write(&path, serde_json::to_string(&replay).unwrap()).unwrap();
    let text = show(&path, &["--at", "0"]);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("\\u{1b}]0;pwned"), "{text}");
    for bad in [
        &["--at", "100000"][..],
        &["--seat", "2"],
        &["--game", "2"],
        &["--game", "0"],
    ] {
        let mut args = vec!["replay", path.to_str().unwrap(), "--show"];
        args.extend(bad);
        let output = cairn(&args);
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn the_listings_action_n_is_the_one_at_n_shows_played() {
    let (path, replay) = played("numbers", "schotten-totten", &[], &["greedy", "random"]);
    let listing = stdout(&cairn(&["replay", path.to_str().unwrap()]));
    assert!(listing.contains("game 1: schotten-totten"), "{listing}");
    let actions = replay["games"][0]["actions"].as_array().unwrap();
    for at in [1, 6] {
        let action = actions[at - 1].as_str().unwrap();
        let row = format!("{at:>4}  seat ");
        let listed = listing
            .lines()
            .find(|line| line.starts_with(&format!("  {row}")))
            .unwrap_or_else(|| panic!("no action {at} in\n{listing}"));
        assert!(listed.ends_with(&format!("  {action}")), "{listed}");
        let shown = show(&path, &["--at", &at.to_string(), "--game", "1"]);
        assert!(shown.contains(&format!("played `{action}`")), "{shown}");
    }
    std::fs::remove_file(&path).unwrap();
}
