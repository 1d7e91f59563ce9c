//! `docs/games/<game>.md` against the engine's game descriptors, so the
//! pages bot authors read cannot drift from the rules the engine enforces:
//! one page per game and none for a game that does not exist; the seat
//! counts, every option with its type and default, every action form and
//! example, every field of the game's observation messages in
//! `proto/game.proto`; and a transcript whose every answer was a legal
//! action of the request before it. Also PROTOCOL.md's worked example,
//! against the request it shows.

use std::path::PathBuf;

use cairn_engine::{GameDescriptor, GAMES};
use serde_json::Value;

fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| {
        panic!(
            "cannot read {}: {error} (every game of cairn_engine::GAMES needs its page)",
            path.display()
        )
    })
}

fn page_of(descriptor: &GameDescriptor) -> String {
    read(&cairn_tests::workspace_root().join(format!("docs/games/{}.md", descriptor.id)))
}

/// `lords-of-scotland` → `LordsOfScotland`, the prefix of its proto messages.
fn proto_prefix(game_id: &str) -> String {
    game_id
        .split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// The field names of every message of `proto` whose name starts with `prefix`.
fn proto_fields(proto: &str, prefix: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut inside = false;
    for line in proto.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("message ") {
            inside = name.starts_with(prefix);
        } else if line == "}" {
            inside = false;
        } else if inside && !line.starts_with("//") && line.contains(" = ") {
            let declaration = line.split(" = ").next().unwrap_or_default();
            if let Some(field) = declaration.split_whitespace().last() {
                fields.push(field.to_string());
            }
        }
    }
    fields
}

#[test]
fn every_game_has_a_page_and_every_page_a_game() {
    let folder = cairn_tests::workspace_root().join("docs/games");
    for entry in std::fs::read_dir(&folder).expect("docs/games exists") {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let id = name.strip_suffix(".md").unwrap_or(&name);
        assert!(
            cairn_engine::descriptor(id).is_some(),
            "docs/games/{name} names no game of the engine"
        );
    }
    let readme = read(&cairn_tests::workspace_root().join("README.md"));
    let protocol = read(&cairn_tests::workspace_root().join("sdk/PROTOCOL.md"));
    for game in GAMES {
        let id = game.descriptor.id;
        page_of(game.descriptor);
        assert!(
            readme.contains(&format!("docs/games/{id}.md")),
            "README.md links no page for {id}"
        );
        assert!(
            page_of(game.descriptor).contains("](../python.md)"),
            "docs/games/{id}.md links no docs/python.md"
        );
        assert!(
            protocol.contains(&format!("docs/games/{id}.md")),
            "PROTOCOL.md links no page for {id}"
        );
    }
}

#[test]
fn each_page_states_the_seats_options_and_actions_of_its_descriptor() {
    for game in GAMES {
        let descriptor = game.descriptor;
        let page = page_of(descriptor);
        let id = descriptor.id;
        assert!(
            page.contains(&format!("**Seats:** {}.", descriptor.seats_text())),
            "{id}: the page's seats are not `{}`",
            descriptor.seats_text()
        );
        for spec in descriptor.options {
            let row = format!(
                "| `{}` | {} | `{}` |",
                spec.key,
                spec.kind.name(),
                spec.default
            );
            assert!(page.contains(&row), "{id}: no option row starting `{row}`");
        }
        let option_rows = page.lines().filter(|line| line.starts_with("| `")).count();
        let action_rows = descriptor.actions.len() + descriptor.options.len();
        assert_eq!(
            option_rows, action_rows,
            "{id}: rows for options or actions the engine lacks"
        );
        for form in descriptor.actions {
            assert!(
                page.contains(&format!("| `{}` |", form.form)),
                "{id}: no row for the action form `{}`",
                form.form
            );
            for example in form.examples {
                assert!(
                    page.contains(&format!("`{example}`")),
                    "{id}: no example `{example}`"
                );
            }
        }
    }
}

#[test]
fn each_page_names_every_field_of_its_observation() {
    let proto = read(&cairn_tests::workspace_root().join("proto/game.proto"));
    for game in GAMES {
        let id = game.descriptor.id;
        let page = page_of(game.descriptor);
        let fields = proto_fields(&proto, &proto_prefix(id));
        assert!(
            !fields.is_empty(),
            "{id}: no observation message in game.proto"
        );
        for field in fields {
            assert!(
                page.contains(&field),
                "{id}: the page does not name the field `{field}`"
            );
        }
    }
}

#[test]
fn each_transcript_answers_every_request_with_one_of_its_legal_actions() {
    for game in GAMES {
        let descriptor = game.descriptor;
        let id = descriptor.id;
        let page = page_of(descriptor);
        let mut last_request: Option<Value> = None;
        let (mut hellos, mut answers) = (0, 0);
        for line in page.lines() {
            let (from_arena, text) =
                match (line.strip_prefix("arena> "), line.strip_prefix("bot>   ")) {
                    (Some(text), _) => (true, text),
                    (None, Some(text)) => (false, text),
                    (None, None) => continue,
                };
            let message: Value = serde_json::from_str(text).unwrap_or_else(|error| {
                panic!("{id}: a transcript line is not JSON ({error}): {text}")
            });
            if from_arena {
                if let Some(hello) = message.get("hello") {
                    assert_eq!(hello["game"], id, "{id}: the transcript is of another game");
                    hellos += 1;
                }
                last_request = message.get("request").cloned();
                continue;
            }
            let Some(action) = message.get("action") else {
                continue;
            };
            let request = last_request
                .take()
                .unwrap_or_else(|| panic!("{id}: an answer without a request: {text}"));
            assert_eq!(action["decisionId"], request["decisionId"], "{id}: {text}");
            let chosen = action["action"].as_str().unwrap();
            let legal: Vec<&str> = request["legalActions"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert!(legal.contains(&chosen), "{id}: `{chosen}` was not legal");
            assert!(
                descriptor.action_form_of(chosen).is_some(),
                "{id}: `{chosen}` has no declared form"
            );
            answers += 1;
        }
        assert_eq!(hellos, 1, "{id}: the transcript has no hello");
        assert!(answers >= 3, "{id}: the transcript shows {answers} answers");
    }
}

/// PROTOCOL.md's worked example: its request 33, shown in full, is the
/// request seat 0 really receives in the game the page names (seed 1,
/// `first_bot.py` in both seats), field for field, so new observation
/// fields cannot leave it stale.
#[test]
fn the_protocol_pages_worked_example_is_the_real_request() {
    let root = cairn_tests::workspace_root();
    let page = read(&root.join("sdk/PROTOCOL.md"));
    let shown = page
        .split("Request 33 in full")
        .nth(1)
        .and_then(|rest| rest.split("```json").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("PROTOCOL.md shows request 33 in a json block");
    let shown: Value = serde_json::from_str(shown).expect("request 33 is JSON");
    let heard = tempfile::tempdir().unwrap();
    let log = heard.path().join("seat0.jsonl");
    let tee = format!("tee {} | python3 first_bot.py", log.display());
    let bots = vec![
        cairn_tests::bot("listener", &root.join("sdk/python"), &["sh", "-c", &tee]),
        cairn_tests::python_bot("first", "first_bot.py"),
    ];
    let spec = cairn_tests::match_of("schotten-totten", &[], 1, 1, bots);
    cairn_runner::play_match(&spec, &cairn_runner::PlainLauncher).expect("the match is refereed");
    let real = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|message| message["request"]["decisionId"] == 33)
        .expect("seat 0 received request 33");
    assert_eq!(shown, real, "PROTOCOL.md's request 33 is not the real one");
}

/// Every rank title of a game's solo score, with the least score that
/// earns it (probed through the descriptor), is on the game's page.
#[test]
fn each_page_lists_its_solo_rank_titles_with_their_least_scores() {
    for descriptor in GAMES.iter().map(|game| game.descriptor) {
        let Some(title_of) = descriptor.solo_rank_title else {
            continue;
        };
        let page = page_of(descriptor);
        let lowest = title_of(-1000);
        assert!(page.contains(lowest), "{}: no `{lowest}`", descriptor.id);
        for score in -999..=1000 {
            let title = title_of(score);
            if title == title_of(score - 1) {
                continue;
            }
            let listed = page
                .lines()
                .any(|line| line.contains(title) && line.contains(&format!("| {score} ")));
            assert!(
                listed,
                "{}: no line with `{title}` from {score}",
                descriptor.id
            );
        }
    }
}
