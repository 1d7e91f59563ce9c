//! Rust, Python and JavaScript bots against the real runner: they play
//! every game and variant to the end (Schotten Totten, Lords of Scotland at
//! 2-5 seats, Bullfrogs at 2-4 seats and solo), and bots that all pick the
//! first legal action write byte-identical replays whatever their language.

use cairn_engine::forfeit::EndedBy;
use cairn_proto::record::ReplayFile;
use cairn_runner::{play_match, BotEntry, PlainLauncher};
use cairn_tests::{js_bot, match_of, python_bot, rust_bot, schotten_totten};

const VARIANTS: &[&[&str]] = &[
    &[],
    &["expert=true"],
    &["tactics=true"],
    &["tactics=true", "expert=true"],
    &["tactics=true", "rounds=3"],
];

#[test]
fn random_bots_in_rust_python_and_js_play_every_schotten_totten_variant_to_the_end() {
    for (index, options) in VARIANTS.iter().enumerate() {
        let pairs = [
            (
                rust_bot("rust", "cairn-random-bot"),
                python_bot("python", "random_bot.py"),
            ),
            (
                python_bot("python", "random_bot.py"),
                js_bot("js", "random_bot.js"),
            ),
            (
                js_bot("js", "random_bot.js"),
                rust_bot("rust", "cairn-random-bot"),
            ),
        ];
        for (a, b) in pairs {
            let spec = schotten_totten(options, 2, 100 + index as u64, vec![a, b]);
            let result = play_match(&spec, &PlainLauncher).unwrap();
            assert_eq!(result.games.len(), 2);
            for game in &result.games {
                assert_eq!(
                    game.record.score.ended_by,
                    EndedBy::Finished,
                    "{options:?}: {:?}",
                    game.seats
                );
                assert!(
                    game.seats.iter().all(|s| s.forfeit.is_none()),
                    "{options:?}: {:?} {:?}",
                    game.seats,
                    result.stderr
                );
                assert!(game.seats.iter().any(|s| s.rank == 1));
                assert!(game.seats.iter().all(|s| !s.timings.is_empty()));
            }
            let replay = ReplayFile::new(result.games.into_iter().map(|g| g.record).collect());
            replay.verify().unwrap();
        }
    }
}

#[test]
fn random_bots_in_rust_python_and_js_play_lords_of_scotland_at_every_table_size() {
    for (n_seats, options) in [
        (2, &[][..]),
        (3, &["bruce=true"][..]),
        (4, &[][..]),
        (5, &["bruce=true"][..]),
    ] {
        let makers: [fn() -> BotEntry; 3] = [
            || rust_bot("rust", "cairn-random-bot"),
            || python_bot("python", "random_bot.py"),
            || js_bot("js", "random_bot.js"),
        ];
        play_one_mixed_table(
            "lords-of-scotland",
            options,
            30 + n_seats as u64,
            n_seats,
            makers,
        );
    }
}

#[test]
fn random_bots_in_rust_python_and_js_play_bullfrogs_at_every_table_size_and_solo() {
    for (n_seats, options) in [
        (1, &["solo=true"][..]),
        (2, &[][..]),
        (3, &[][..]),
        (4, &[][..]),
    ] {
        let makers: [fn() -> BotEntry; 3] = [
            || js_bot("js", "random_bot.js"),
            || rust_bot("rust", "cairn-random-bot"),
            || python_bot("python", "random_bot.py"),
        ];
        play_one_mixed_table("bullfrogs", options, 50 + n_seats as u64, n_seats, makers);
    }
}

/// Plays one game of `game` with `n_seats` bots taken from `makers` in
/// turn, and checks it finished without a forfeit and replays.
fn play_one_mixed_table(
    game: &str,
    options: &[&str],
    seed: u64,
    n_seats: usize,
    makers: [fn() -> BotEntry; 3],
) {
    let bots = (0..n_seats).map(|seat| makers[seat % 3]()).collect();
    let spec = match_of(game, options, 1, seed, bots);
    let result = play_match(&spec, &PlainLauncher).unwrap();
    let game = &result.games[0];
    assert_eq!(
        game.record.score.ended_by,
        EndedBy::Finished,
        "{n_seats} seats: {:?} {:?}",
        game.seats,
        result.stderr
    );
    assert!(
        game.seats
            .iter()
            .all(|s| s.forfeit.is_none() && !s.timings.is_empty()),
        "{n_seats} seats: {:?}",
        game.seats
    );
    ReplayFile::new(vec![game.record.clone()]).verify().unwrap();
}

/// The replay of a match between first-action bots made by `make`.
fn first_action_replay(
    game: &str,
    options: &[&str],
    n_seats: usize,
    make: &dyn Fn() -> cairn_runner::BotEntry,
) -> String {
    let spec = match_of(game, options, 2, 8, (0..n_seats).map(|_| make()).collect());
    let result = play_match(&spec, &PlainLauncher).unwrap();
    let replay = ReplayFile::new(result.games.into_iter().map(|g| g.record).collect());
    assert!(replay
        .games
        .iter()
        .all(|g| g.forfeits.is_empty() && g.seats.len() == n_seats && !g.actions.is_empty()));
    replay.verify().unwrap();
    untimed(replay).to_json()
}

/// The replay without its decision times, the one part that differs
/// between runs (and between languages).
fn untimed(mut replay: ReplayFile) -> ReplayFile {
    for game in &mut replay.games {
        assert_eq!(game.cpu_us.len(), game.actions.len());
        game.cpu_us.clear();
    }
    replay
}

#[test]
fn first_action_bots_write_byte_identical_replays_of_the_other_games_in_every_language() {
    for (game, options, n_seats) in [
        ("lords-of-scotland", &["bruce=true"][..], 3),
        ("bullfrogs", &[][..], 4),
        ("bullfrogs", &["solo=true"][..], 1),
    ] {
        let rust = first_action_replay(game, options, n_seats, &|| {
            rust_bot("first", "cairn-first-bot")
        });
        assert_eq!(
            rust,
            first_action_replay(game, options, n_seats, &|| python_bot(
                "first",
                "first_bot.py"
            )),
            "{game}"
        );
        assert_eq!(
            rust,
            first_action_replay(game, options, n_seats, &|| js_bot("first", "first_bot.js")),
            "{game}"
        );
    }
}

#[test]
fn first_action_bots_in_rust_python_and_js_write_byte_identical_replays() {
    let replay_of = |make: &dyn Fn() -> cairn_runner::BotEntry| {
        let spec = schotten_totten(&["tactics=true", "rounds=2"], 3, 42, vec![make(), make()]);
        let result = play_match(&spec, &PlainLauncher).unwrap();
        untimed(ReplayFile::new(
            result.games.into_iter().map(|g| g.record).collect(),
        ))
        .to_json()
    };
    let rust = replay_of(&|| rust_bot("first", "cairn-first-bot"));
    let python = replay_of(&|| python_bot("first", "first_bot.py"));
    let js = replay_of(&|| js_bot("first", "first_bot.js"));
    let parsed = ReplayFile::from_json(&rust).unwrap();
    assert!(
        parsed
            .games
            .iter()
            .all(|g| g.forfeits.is_empty() && !g.actions.is_empty()),
        "{rust}"
    );
    assert_eq!(rust, python);
    assert_eq!(rust, js);
    parsed.verify().unwrap();
}

#[test]
fn the_greedy_bot_beats_the_random_bot_more_often_than_not() {
    let spec = schotten_totten(
        &[],
        20,
        7,
        vec![
            rust_bot("greedy", "schotten-totten-greedy"),
            rust_bot("random", "cairn-random-bot"),
        ],
    );
    let result = play_match(&spec, &PlainLauncher).unwrap();
    let greedy_wins = result
        .games
        .iter()
        .filter(|g| g.seats.iter().any(|s| s.bot == 0 && s.rank == 1))
        .count();
    assert!(greedy_wins > 10, "greedy won {greedy_wins} of 20");
}
