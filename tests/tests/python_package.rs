//! The Python package `cairn_engine` (python/) agrees with the protocol:
//! 1,000 seeded random games of every game and variant of the engine's
//! table, played through the package by `tests/python/agreement.py`, give
//! at every step the legal actions, observation JSON and outcome that the
//! runner's own code (`AnyGame`, `cairn_proto::convert`) gives.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use cairn_engine::descriptor::OptionKind;
use cairn_engine::{GameDescriptor, GameOptions, GAMES};
use cairn_tests::{python_with_engine, workspace_root};
use sha2::{Digest, Sha256};

const GAMES_PER_VARIANT: u64 = 1_000;

/// Option sets reaching every option: the defaults, then each option
/// changed alone; each with every seat count it allows.
fn variants(descriptor: &GameDescriptor) -> Vec<(GameOptions, usize)> {
    let mut option_sets = vec![GameOptions::new()];
    for spec in descriptor.options {
        let other = match spec.kind {
            OptionKind::Bool => "true".to_string(),
            OptionKind::Int { max, .. } => max.min(3).to_string(),
        };
        option_sets.push(GameOptions::from([(spec.key.to_string(), other)]));
    }
    let (min, max) = descriptor.seat_bounds();
    let mut all = Vec::new();
    for options in option_sets {
        for n_seats in min..=max {
            if descriptor.check_seats(&options, n_seats).is_ok() {
                all.push((options.clone(), n_seats));
            }
        }
    }
    all
}

/// The digest `agreement.py` computes, from the protocol's side: the
/// observation the runner sends the seat to act (every seat's every 16th
/// step), the legal actions, the outcome; the game follows `picks`.
fn protocol_digest(
    id: &str,
    options: &GameOptions,
    n_seats: usize,
    seed: u64,
    picks: &[usize],
) -> String {
    let mut state = cairn_engine::new_game(id, options, n_seats, seed).unwrap();
    let mut digest = Sha256::new();
    let mut steps = 0;
    while let Some(seat) = state.current_seat() {
        let viewers: Vec<usize> = if steps % 16 == 0 {
            (0..n_seats).collect()
        } else {
            vec![seat]
        };
        for viewer in viewers {
            digest.update(cairn_proto::convert::observation_json(state.as_ref(), viewer).unwrap());
            digest.update(b"\n");
        }
        let legal = state.legal_actions();
        digest.update(format!("legal:{}\n", legal.join("\x1f")));
        let pick = *picks.get(steps).expect("the package played as many steps");
        state.apply_text(&legal[pick]).unwrap();
        steps += 1;
    }
    assert_eq!(
        steps,
        picks.len(),
        "{id} seed {seed}: the package played on after the end"
    );
    let outcome = state.outcome().unwrap();
    let join = |values: Vec<String>| values.join(",");
    digest.update(format!(
        "outcome:{};{}\n",
        join(outcome.scores.iter().map(ToString::to_string).collect()),
        join(outcome.ranks.iter().map(ToString::to_string).collect())
    ));
    format!("{:x}", digest.finalize())
}

fn agrees_on(python: &std::path::Path, id: &str, options: &GameOptions, n_seats: usize) {
    let mut child = Command::new(python)
        .arg(workspace_root().join("tests/python/agreement.py"))
        .args([
            id,
            &serde_json::to_string(options).unwrap(),
            &n_seats.to_string(),
        ])
        .arg(GAMES_PER_VARIANT.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python runs");
    let mut games = 0;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let mut fields = line.split(' ');
        let seed: u64 = fields.next().unwrap().parse().unwrap();
        let digest = fields.next().unwrap().to_string();
        let picks: Vec<usize> = fields
            .next()
            .unwrap_or("")
            .split(',')
            .filter(|pick| !pick.is_empty())
            .map(|pick| pick.parse().unwrap())
            .collect();
        let expected = protocol_digest(id, options, n_seats, seed, &picks);
        assert_eq!(
            digest, expected,
            "{id} {options:?} {n_seats} seats, seed {seed}: the package and the protocol differ"
        );
        games += 1;
    }
    assert!(
        child.wait().unwrap().success(),
        "{id} {options:?} {n_seats} seats: the package's checks failed"
    );
    assert_eq!(games, GAMES_PER_VARIANT, "{id} {options:?} {n_seats} seats");
}

#[test]
fn the_package_and_the_protocol_agree_at_every_step_of_every_variant() {
    let Some(python) = python_with_engine() else {
        return;
    };
    let all: Vec<(&str, GameOptions, usize)> = GAMES
        .iter()
        .flat_map(|game| {
            let id = game.descriptor.id;
            variants(game.descriptor)
                .into_iter()
                .map(move |(options, n_seats)| (id, options, n_seats))
        })
        .collect();
    // Two variants at a time: each is a Python process and its checker.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some((id, options, n_seats)) =
                    all.get(next.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
                {
                    agrees_on(&python, id, options, *n_seats);
                }
            });
        }
    });
}

#[test]
fn the_package_offers_every_game_of_the_table_and_nothing_else() {
    let Some(python) = python_with_engine() else {
        return;
    };
    let output = Command::new(python)
        .args([
            "-c",
            "import cairn_engine, json; print(json.dumps(cairn_engine.GAMES))",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: Vec<String> = serde_json::from_slice(&output.stdout).unwrap();
    let table: Vec<&str> = cairn_engine::game_ids().collect();
    assert_eq!(listed, table);
}

#[test]
fn the_package_refuses_what_is_wrong_with_a_clear_error() {
    let Some(python) = python_with_engine() else {
        return;
    };
    let script = r#"
import cairn_engine
def refused(call, kind, words):
    try:
        call()
    except kind as error:
        assert words in str(error), (words, str(error))
    else:
        raise AssertionError("accepted: " + words)
refused(lambda: cairn_engine.Game("chess", seats=2), ValueError, "unknown game `chess`")
refused(lambda: cairn_engine.Game("schotten-totten", seats=7), ValueError, "seat")
refused(lambda: cairn_engine.Game("schotten-totten", seats=2, options={"nope": True}), ValueError, "nope")
refused(lambda: cairn_engine.Game("schotten-totten", seats=2, options={"tactics": 1.5}), TypeError, "tactics")
game = cairn_engine.Game("schotten-totten", seats=2, seed=1, options={"tactics": True})
refused(lambda: game.observation(2), ValueError, "seat 2 out of range")
refused(lambda: cairn_engine.determinize("{}", 1), ValueError, "no known game")
refused(lambda: cairn_engine.determinize("[1,", 1), ValueError, "not an observation")
refused(lambda: cairn_engine.determinize({"schottenTotten": {"hand": ["r42"]}}, 1), ValueError, "")
game.play_randomly(3)
assert game.is_over() and game.legal_actions() == []
refused(lambda: game.apply("play r1 0"), ValueError, "illegal action")
print("ok")
"#;
    let output = Command::new(python).args(["-c", script]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
