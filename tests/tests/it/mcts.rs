//! The searching bot (`cairn-mcts-bot`, the same code as `cairn bot-run
//! mcts`) through the real runner and the sandbox: it plays every game and
//! variant, 2 to 5 seats and Bullfrogs solo, without a forfeit; thinking on
//! its own clock under a tight time control it never runs out of time; and
//! a short seeded match against the random bot is its to win.

use cairn_proto::record::ReplayFile;
use cairn_runner::sandbox::{Limits, ProgramPolicy};
use cairn_runner::{play_match, BotEntry, MatchResult, SandboxLauncher};
use cairn_tests::{match_of, rust_bot, tight_time_control};

/// The searching bot with a fixed seed and, if given, an iteration cap per
/// decision (which makes it fully deterministic while time is left).
fn mcts_bot(seed: &str, iterations: Option<&str>) -> BotEntry {
    let mut bot = rust_bot("mcts", "cairn-mcts-bot");
    bot.launch.env.push(("CAIRN_BOT_SEED".into(), seed.into()));
    if let Some(iterations) = iterations {
        bot.launch
            .env
            .push(("CAIRN_MCTS_ITERATIONS".into(), iterations.into()));
    }
    bot
}

fn seeded_random_bot() -> BotEntry {
    let mut random = rust_bot("random", "cairn-random-bot");
    random
        .launch
        .env
        .push(("CAIRN_BOT_SEED".into(), "20261125".into()));
    random
}

fn assert_no_forfeit(result: &MatchResult, what: &str) {
    for game in &result.games {
        assert!(
            game.seats.iter().all(|s| s.forfeit.is_none()),
            "{what}: {:?} {:?}",
            game.seats,
            result.stderr
        );
    }
    ReplayFile::new(result.games.iter().map(|g| g.record.clone()).collect())
        .verify()
        .expect("the replay re-simulates");
}

#[test]
fn the_mcts_bot_plays_every_game_and_variant_in_the_sandbox_without_a_forfeit() {
    let launcher = SandboxLauncher::new(Limits::default()).with_programs(ProgramPolicy::Trusted);
    let cases: [(&str, &[&str], usize); 7] = [
        ("schotten-totten", &[], 2),
        (
            "schotten-totten",
            &["tactics=true", "expert=true", "rounds=2"],
            2,
        ),
        ("lords-of-scotland", &[], 2),
        ("lords-of-scotland", &["bruce=true"], 5),
        ("bullfrogs", &[], 2),
        ("bullfrogs", &[], 4),
        ("bullfrogs", &["solo=true"], 1),
    ];
    for (game, options, n_seats) in cases {
        let mut bots = vec![mcts_bot("7", Some("150"))];
        bots.extend((1..n_seats).map(|_| seeded_random_bot()));
        let spec = match_of(game, options, n_seats as u32, 5, bots);
        let result = play_match(&spec, &launcher).expect("the match is refereed");
        assert_no_forfeit(&result, &format!("{game} {options:?} {n_seats} seats"));
    }
}

#[test]
fn thinking_on_its_own_clock_under_a_tight_time_control_it_never_runs_out_of_time() {
    let launcher = SandboxLauncher::new(Limits::default()).with_programs(ProgramPolicy::Trusted);
    let mut spec = match_of(
        "schotten-totten",
        &["tactics=true"],
        2,
        9,
        vec![mcts_bot("3", None), seeded_random_bot()],
    );
    spec.time_control = tight_time_control();
    let result = play_match(&spec, &launcher).expect("the match is refereed");
    assert_no_forfeit(&result, "tight time control");
}

#[test]
fn a_short_seeded_match_against_the_random_bot_is_won_by_the_mcts_bot() {
    let launcher = SandboxLauncher::new(Limits::default()).with_programs(ProgramPolicy::Trusted);
    let spec = match_of(
        "schotten-totten",
        &[],
        4,
        17,
        vec![mcts_bot("11", Some("300")), seeded_random_bot()],
    );
    let result = play_match(&spec, &launcher).expect("the match is refereed");
    assert_no_forfeit(&result, "mcts against random");
    let wins = |bot: usize| {
        result
            .games
            .iter()
            .filter(|g| g.seats.iter().any(|s| s.bot == bot && s.rank == 1))
            .filter(|g| g.seats.iter().any(|s| s.bot != bot && s.rank == 2))
            .count()
    };
    assert!(
        wins(0) >= 3 && wins(0) > wins(1),
        "mcts won {} of 4",
        wins(0)
    );
}
