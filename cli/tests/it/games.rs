//! `cairn games` as bot authors and scripts read it, and `cairn play`
//! refusing every bad `--game`, `--opt` and seat count before any bot
//! starts, with a line that says what is accepted.

use serde_json::Value;

use crate::cairn;

#[test]
fn games_lists_every_game_with_its_seats_options_and_actions() {
    let output = cairn(&["games", "--json"]);
    assert!(output.status.success());
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    let games = listing["games"].as_array().unwrap();
    let ids: Vec<&str> = games.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids, cairn_engine::game_ids().collect::<Vec<_>>());
    let bullfrogs = &games[2];
    assert_eq!(
        (
            bullfrogs["seats"]["min"].as_u64(),
            bullfrogs["seats"]["max"].as_u64()
        ),
        (Some(1), Some(4))
    );
    assert_eq!(bullfrogs["options"][0]["key"], "solo");
    assert_eq!(bullfrogs["options"][0]["default"], "false");
    let schotten = &games[0];
    assert!(schotten["actions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["form"] == "claim STONE" && a["examples"][0] == "claim 4"));

    let text = cairn(&["games", "lords-of-scotland"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.starts_with("lords-of-scotland (Lords of Scotland), seats: 2 to 5"),
        "{text}"
    );
    assert!(
        text.contains("--opt bruce=") && text.contains("muster CARD SIDE"),
        "{text}"
    );
    assert!(!text.contains("bullfrogs"), "{text}");
}

#[test]
fn play_refuses_bad_games_options_and_seats_with_what_is_accepted() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["--game", "chess", "cmd:a", "cmd:b"],
            "known: schotten-totten, lords-of-scotland, bullfrogs",
        ),
        (
            &[
                "--game",
                "schotten-totten",
                "--opt",
                "tactic=true",
                "cmd:a",
                "cmd:b",
            ],
            "unknown option `tactic` for schotten-totten; known: tactics, expert, rounds",
        ),
        (
            &[
                "--game",
                "schotten-totten",
                "--opt",
                "tactics=maybe",
                "cmd:a",
                "cmd:b",
            ],
            "cannot be `maybe`: true or false",
        ),
        (
            &[
                "--game",
                "schotten-totten",
                "--opt",
                "rounds=",
                "cmd:a",
                "cmd:b",
            ],
            "a whole number from 1 to 15",
        ),
        (
            &[
                "--game",
                "schotten-totten",
                "--opt",
                "expert=true",
                "--opt",
                "expert=true",
                "cmd:a",
                "cmd:b",
            ],
            "option `expert` is given twice",
        ),
        (
            &[
                "--game",
                "schotten-totten",
                "--opt",
                "bruce=true",
                "cmd:a",
                "cmd:b",
            ],
            "unknown option `bruce`",
        ),
        (
            &[
                "--game",
                "bullfrogs",
                "--opt",
                "solo=true",
                "cmd:a",
                "cmd:b",
            ],
            "exactly 1 seat with solo=true, not 2",
        ),
        (
            &[
                "--game",
                "lords-of-scotland",
                "cmd:a",
                "cmd:b",
                "cmd:c",
                "cmd:d",
                "cmd:e",
                "cmd:f",
            ],
            "2 to 5 seats, not 6",
        ),
    ];
    for (args, expected) in cases {
        let mut full = vec!["play", "--no-sandbox"];
        full.extend_from_slice(args);
        let output = cairn(&full);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn play_writes_an_explicit_default_into_the_replay_as_no_option() {
    let replay = std::env::temp_dir().join(format!("cairn-games-test-{}.json", std::process::id()));
    let output = cairn(&[
        "play",
        "--no-sandbox",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=false",
        "--opt",
        "rounds=1",
        "--replay",
        replay.to_str().unwrap(),
        "--quiet",
        &format!("cmd:{} bot-run first", env!("CARGO_BIN_EXE_cairn")),
        &format!("cmd:{} bot-run random", env!("CARGO_BIN_EXE_cairn")),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let file: Value = serde_json::from_slice(&std::fs::read(&replay).unwrap()).unwrap();
    std::fs::remove_file(&replay).unwrap();
    assert_eq!(file["games"][0]["options"], serde_json::json!({}));
}
