//! The arena's CLI as a user scripts it: every command against a real
//! `cairn serve` and `cairn runner`, tables for people and `--json` for
//! scripts, ending with a fetched replay that `cairn replay` verifies.

use arena_support::*;
use serde_json::Value;

use crate::arena_support;

fn json_of(args: &[&str]) -> Value {
    let output = cairn(args);
    assert!(
        output.status.success(),
        "cairn {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "cairn {args:?} printed no JSON ({error}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn text_of(args: &[&str]) -> String {
    let output = cairn(args);
    assert!(
        output.status.success(),
        "cairn {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn an_owner_adds_bots_runs_a_tournament_and_reads_ratings_matches_and_replays_from_the_cli() {
    let arena = Arena::start();
    let address = arena.address.as_str();
    let owner = json_of(&["owner", "register", "ada", "--arena", address, "--json"]);
    let token = owner["token"].as_str().unwrap().to_string();
    for (name, bundled) in [
        ("greedy", "schotten-totten-greedy"),
        ("random", "random"),
        ("first", "first"),
    ] {
        let folder = bot_folder(arena.folder.path(), name, bundled);
        let added = json_of(&[
            "bot",
            "add",
            folder.to_str().unwrap(),
            "--arena",
            address,
            "--token",
            &token,
            "--json",
        ]);
        assert_eq!(
            (
                added["created"].as_bool(),
                added["version"]["version"].as_i64()
            ),
            (Some(true), Some(1))
        );
    }
    let listed = text_of(&["bot", "list", "--arena", address]);
    assert!(
        listed.lines().next().unwrap().starts_with("bot ") && listed.lines().count() == 4,
        "{listed}"
    );
    assert_eq!(
        json_of(&["bot", "show", "greedy", "--arena", address, "--json"])["versions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let created = json_of(&[
        "tournament",
        "create",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--games-per-pairing",
        "2",
        "--arena",
        address,
        "--token",
        &token,
        "--json",
        "greedy",
        "random",
        "first",
    ]);
    let id = created["id"].as_i64().unwrap().to_string();
    let _runner = arena.runner(10_000, 2);
    let watch = cairn(&["tournament", "watch", &id, "--arena", address]);
    assert!(watch.status.success());
    assert!(
        String::from_utf8_lossy(&watch.stderr).contains("100% 6/6 games"),
        "{}",
        String::from_utf8_lossy(&watch.stderr)
    );
    assert_eq!(
        json_of(&["tournament", "status", &id, "--arena", address, "--json"])["progress"]
            ["finished"],
        true
    );
    assert!(text_of(&["tournament", "list", "--arena", address]).contains("finished"));
    // A round robin's own results and crosstable; the leaderboard across
    // tournaments is named by its command.
    let shown = text_of(&["tournament", "show", &id, "--arena", address]);
    assert!(
        shown.contains(
            "across tournaments: cairn ratings --game schotten-totten --opt tactics=true"
        ),
        "{shown}"
    );
    assert!(shown.contains("results in this tournament"), "{shown}");
    assert!(
        shown.contains("crosstable (the row's W-D-L against the column)"),
        "{shown}"
    );
    let results = json_of(&["tournament", "show", &id, "--arena", address, "--json"]);
    let rows = results["results"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{results}");
    let games: i64 = rows.iter().map(|row| row["games"].as_i64().unwrap()).sum();
    let points: f64 = rows.iter().map(|row| row["points"].as_f64().unwrap()).sum();
    assert_eq!(
        (games, points),
        (12, 6.0),
        "two seats at each of 6 games: {results}"
    );
    for row in rows {
        let played = ["wins", "draws", "losses"].map(|key| row[key].as_i64().unwrap());
        assert_eq!(
            played.iter().sum::<i64>(),
            row["games"].as_i64().unwrap(),
            "{row}"
        );
    }
    assert_eq!(
        results["crosstable"].as_array().unwrap().len(),
        6,
        "{results}"
    );
    // One name for a game, TOURNAMENT/MATCH/GAME; the game id still works.
    let listed = json_of(&["match", "list", &id, "--arena", address, "--json"]);
    let second = &listed[1]["games"][0];
    assert_eq!(second["name"], format!("{id}/2/1"), "{listed}");
    let name = format!("{id}/2/1");
    let by_name = json_of(&["match", "show", &name, "--arena", address, "--json"]);
    let game_id = second["game_id"].to_string();
    let by_id = json_of(&["match", "show", &game_id, "--arena", address, "--json"]);
    assert_eq!(by_name["game_id"], second["game_id"]);
    assert_eq!(by_name, by_id);
    let missing = cairn(&["match", "show", &format!("{id}/99/1"), "--arena", address]);
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("not found"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
    let malformed = cairn(&["match", "show", "1/0/x", "--arena", address]);
    assert!(String::from_utf8_lossy(&malformed.stderr).contains("TOURNAMENT/MATCH/GAME"));
    let board = json_of(&[
        "ratings",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--arena",
        address,
        "--json",
    ]);
    assert_eq!(board["rows"].as_array().unwrap().len(), 3);
    assert_eq!(board["fit"]["method"], "bradley-terry");
    assert_eq!(board["fit"]["games"], 6);
    assert!(board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|row| row["fitted"].is_object()));
    let table = text_of(&[
        "ratings",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--arena",
        address,
    ]);
    assert!(
        table.contains("greedy@1") && table.contains("95% CI") && table.contains("live"),
        "{table}"
    );
    let anchored = cairn(&[
        "ratings",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--anchor",
        "nobody",
        "--arena",
        address,
    ]);
    let stderr = String::from_utf8_lossy(&anchored.stderr);
    assert!(
        !anchored.status.success() && stderr.contains("anchor `nobody` has no games"),
        "{stderr}"
    );
    let matches = json_of(&["match", "list", &id, "--arena", address, "--json"]);
    let game_id = matches[0]["games"][0]["game_id"]
        .as_i64()
        .unwrap()
        .to_string();
    let replay_path = arena.folder.path().join("game.json");
    let shown = json_of(&[
        "match",
        "show",
        &game_id,
        "--replay",
        replay_path.to_str().unwrap(),
        "--arena",
        address,
        "--json",
    ]);
    assert_eq!(shown["result"].as_array().unwrap().len(), 2);
    let verified = cairn(&["replay", replay_path.to_str().unwrap()]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
}
