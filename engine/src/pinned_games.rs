//! Whole games pinned as data: for fixed seeds, every game and variant plays
//! the same actions, offers the same legal actions in the same order and
//! ends with the same outcome as when `testdata/pinned_games.txt` was
//! written. A speed-up that changes a game for a seed fails here.
//!
//! The file is written from the engine itself with
//! `CAIRN_WRITE_PINNED_GAMES=1 cargo test -p cairn-engine pinned`, only when
//! a rule change is meant to change games.

use std::fmt::Write as _;

use crate::game::{parse_options, EndReason};
use crate::registry::new_game;
use crate::rng::Rng;

/// (game, options, seats) of every variant pinned.
const VARIANTS: &[(&str, &[&str], usize)] = &[
    ("schotten-totten", &[], 2),
    ("schotten-totten", &["expert=true"], 2),
    ("schotten-totten", &["tactics=true"], 2),
    ("schotten-totten", &["tactics=true", "expert=true"], 2),
    ("schotten-totten", &["rounds=3"], 2),
    ("schotten-totten", &["tactics=true", "rounds=2"], 2),
    ("lords-of-scotland", &[], 2),
    ("lords-of-scotland", &[], 3),
    ("lords-of-scotland", &[], 4),
    ("lords-of-scotland", &[], 5),
    ("lords-of-scotland", &["bruce=true"], 3),
    ("lords-of-scotland", &["bruce=true"], 5),
    ("bullfrogs", &["solo=true"], 1),
    ("bullfrogs", &[], 2),
    ("bullfrogs", &[], 3),
    ("bullfrogs", &[], 4),
];

/// Seeds played per variant, each written out in full.
const SEEDS: [u64; 3] = [1, 77, 90_210];

/// Further seeds per variant pinned by one digest of all their games, for
/// the rare paths that three games miss.
const DIGEST_SEEDS: std::ops::Range<u64> = 1_000..1_300;

const DATA: &str = "testdata/pinned_games.txt";

/// FNV-1a over bytes: a digest of every legal action list along a game.
fn fnv(state: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *state = (*state ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3);
    }
}

/// One game as a line: its variant, seed, outcome, the digest of the legal
/// action lists it met and the actions played (chosen at random by a
/// generator seeded from the seed).
fn pinned_line(game_id: &str, words: &[&str], n_seats: usize, seed: u64) -> String {
    let options = parse_options(words.iter().copied()).expect("pinned options are key=value");
    let mut state = new_game(game_id, &options, n_seats, seed).expect("pinned setup is valid");
    let mut rng = Rng::seeded(seed ^ 0x5E_ED0F_9A4E);
    let mut legal_digest = 0xCBF2_9CE4_8422_2325u64;
    let mut actions = Vec::new();
    while state.current_seat().is_some() {
        let legal = state.legal_actions();
        for action in &legal {
            fnv(&mut legal_digest, action.as_bytes());
            fnv(&mut legal_digest, b";");
        }
        fnv(&mut legal_digest, b"|");
        let pick = legal[rng.below(legal.len())].clone();
        state.apply_text(&pick).expect("a legal action applies");
        actions.push(pick);
    }
    let outcome = state.outcome().expect("a finished game has an outcome");
    assert_eq!(outcome.reason, EndReason::Finished);
    let mut line = String::new();
    write!(
        line,
        "{game_id} [{}] {n_seats} seed={seed} scores={:?} ranks={:?} legal={legal_digest:016x} actions={}",
        words.join(","),
        outcome.scores,
        outcome.ranks,
        actions.join(";")
    )
    .expect("writing to a string cannot fail");
    line
}

/// One line pinning the games of [`DIGEST_SEEDS`] by a digest of their lines.
fn digest_line(game_id: &str, words: &[&str], n_seats: usize) -> String {
    let mut digest = 0xCBF2_9CE4_8422_2325u64;
    for seed in DIGEST_SEEDS {
        fnv(
            &mut digest,
            pinned_line(game_id, words, n_seats, seed).as_bytes(),
        );
    }
    format!(
        "{game_id} [{}] {n_seats} seeds={DIGEST_SEEDS:?} digest={digest:016x}",
        words.join(",")
    )
}

fn all_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for &(game_id, words, n_seats) in VARIANTS {
        for seed in SEEDS {
            lines.push(pinned_line(game_id, words, n_seats, seed));
        }
        lines.push(digest_line(game_id, words, n_seats));
    }
    lines
}

#[test]
fn every_variant_plays_the_pinned_games_for_the_pinned_seeds() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let lines = all_lines();
    if std::env::var_os("CAIRN_WRITE_PINNED_GAMES").is_some() {
        std::fs::write(&path, lines.join("\n") + "\n").expect("pinned games are writable");
    }
    let pinned = std::fs::read_to_string(&path).expect("pinned games are readable");
    let pinned: Vec<&str> = pinned.lines().collect();
    assert_eq!(pinned.len(), lines.len(), "one pinned line a game");
    for (now, then) in lines.iter().zip(&pinned) {
        let head = |line: &str| {
            line.split(" actions=")
                .next()
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(
            head(now),
            head(then),
            "variant, outcome or legal actions differ"
        );
        assert_eq!(now, then, "the actions of {} differ", head(then));
    }
}

#[test]
fn the_pinned_games_are_long_enough_to_mean_something() {
    let lines = all_lines();
    for line in lines.iter().filter(|line| line.contains(" actions=")) {
        let actions = line.split(" actions=").nth(1).unwrap_or_default();
        assert!(actions.split(';').count() >= 10, "{line}");
    }
    for &(game_id, _, _) in VARIANTS {
        assert!(lines.iter().any(|line| line.starts_with(game_id)));
    }
}
