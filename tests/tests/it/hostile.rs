//! Misbehaving bots forfeit the game with the right reason, the opponent
//! wins, the runner carries on, and no process of theirs is left.

use cairn_engine::forfeit::{EndedBy, ForfeitReason};
use cairn_proto::record::ReplayFile;
use cairn_runner::{play_match, MatchResult, PlainLauncher};
use cairn_tests::{
    hostile_bot, match_of, process_with_marker_exists, python_bot, schotten_totten,
    tight_time_control,
};

/// Plays one game of `mode` (seat 0, so it moves first or second) against a
/// random bot, and checks the common facts of a forfeit.
fn forfeit_of(mode: &str, args: &[&str]) -> (ForfeitReason, String, MatchResult) {
    let mut bot_args = vec![mode];
    bot_args.extend_from_slice(args);
    let bots = vec![
        hostile_bot("hostile.py", &bot_args),
        python_bot("random", "random_bot.py"),
    ];
    let mut spec = schotten_totten(&[], 2, 3, bots);
    spec.time_control = tight_time_control();
    let result = play_match(&spec, &PlainLauncher).expect("the runner survives any bot");
    let game = &result.games[0];
    assert_eq!(game.record.score.ended_by, EndedBy::Forfeit, "{mode}");
    let hostile = game.seats.iter().find(|s| s.bot == 0).unwrap();
    let other = game.seats.iter().find(|s| s.bot == 1).unwrap();
    assert_eq!(
        (hostile.rank, other.rank),
        (2, 1),
        "{mode}: the opponent wins"
    );
    assert!(other.forfeit.is_none());
    // The hostile bot is restarted for game 2 and forfeits again.
    assert!(
        result.games[1]
            .seats
            .iter()
            .any(|s| s.bot == 0 && s.forfeit.is_some()),
        "{mode}"
    );
    ReplayFile::new(result.games.iter().map(|g| g.record.clone()).collect())
        .verify()
        .unwrap();
    let forfeit = hostile.forfeit.clone().unwrap();
    (forfeit.reason, forfeit.detail, result)
}

#[test]
fn a_bot_that_prints_garbage_forfeits_with_a_protocol_error() {
    let (reason, detail, _) = forfeit_of("garbage", &[]);
    assert_eq!(reason, ForfeitReason::ProtocolError, "{detail}");
    assert!(detail.contains("this is not json"), "{detail}");
}

#[test]
fn a_bot_that_exits_forfeits_with_exit() {
    let (reason, detail, _) = forfeit_of("exit", &[]);
    assert_eq!(reason, ForfeitReason::Exit);
    assert_eq!(detail, "exited with code 3");
}

#[test]
fn a_bot_killed_by_a_signal_forfeits_with_crash() {
    let (reason, detail, _) = forfeit_of("crash", &[]);
    assert_eq!(reason, ForfeitReason::Crash);
    assert_eq!(detail, "killed by signal 11");
}

#[test]
fn a_bot_that_answers_an_illegal_action_forfeits_with_illegal_action() {
    let (reason, detail, _) = forfeit_of("illegal", &[]);
    assert_eq!(reason, ForfeitReason::IllegalAction);
    assert!(detail.contains("play z9 12"), "{detail}");
}

#[test]
fn a_stale_decision_id_or_a_wrong_message_is_a_protocol_error() {
    assert_eq!(forfeit_of("stale-id", &[]).0, ForfeitReason::ProtocolError);
    assert_eq!(
        forfeit_of("wrong-message", &[]).0,
        ForfeitReason::ProtocolError
    );
}

#[test]
fn a_bot_that_sleeps_forever_is_stopped_by_the_wall_clock_backstop() {
    let (reason, detail, _) = forfeit_of("sleep", &[]);
    assert_eq!(reason, ForfeitReason::Timeout);
    assert!(detail.contains("wall-clock"), "{detail}");
}

#[test]
fn a_bot_that_spins_the_cpu_times_out_on_cpu_time() {
    let (reason, detail, _) = forfeit_of("spin", &[]);
    assert_eq!(reason, ForfeitReason::Timeout);
    assert!(detail.contains("CPU"), "{detail}");
}

#[test]
fn a_hundred_mebibyte_line_is_cut_at_the_cap_as_a_protocol_error() {
    let (reason, detail, _) = forfeit_of("long-line", &[]);
    assert_eq!(reason, ForfeitReason::ProtocolError);
    assert!(detail.contains("longer than"), "{detail}");
}

#[test]
fn a_bot_that_closes_stdout_forfeits_with_exit() {
    let (reason, detail, _) = forfeit_of("close-stdout", &[]);
    assert_eq!(reason, ForfeitReason::Exit);
    assert!(detail.contains("closed its stdout"), "{detail}");
}

#[test]
fn a_daemon_left_behind_by_a_bot_is_gone_when_the_match_ends() {
    let marker = format!("cairn-daemon-test-{}", std::process::id());
    let (reason, _, _) = forfeit_of("daemon", &[&marker]);
    assert_eq!(reason, ForfeitReason::Exit);
    assert!(
        !process_with_marker_exists(&marker),
        "the daemon survived the match"
    );
}

#[test]
fn a_flood_of_stderr_is_kept_capped() {
    let (reason, _, result) = forfeit_of("stderr-flood", &[]);
    assert_eq!(reason, ForfeitReason::IllegalAction);
    let kept = result.stderr[0].to_string();
    assert!(
        kept.len() < 2 * (64 << 10) + 200,
        "kept {} bytes",
        kept.len()
    );
    assert!(kept.contains("more bytes of stderr not kept"));
}

#[test]
fn at_a_table_of_four_a_forfeiting_seat_is_out_ranked_last_and_the_game_goes_on() {
    let bots = vec![
        python_bot("random-a", "random_bot.py"),
        hostile_bot("hostile.py", &["illegal"]),
        python_bot("random-b", "random_bot.py"),
        hostile_bot("hostile.py", &["garbage"]),
    ];
    let mut spec = match_of("lords-of-scotland", &[], 1, 5, bots);
    spec.time_control = tight_time_control();
    let result = play_match(&spec, &PlainLauncher).unwrap();
    let game = &result.games[0];
    assert_eq!(
        game.record.score.ended_by,
        EndedBy::Finished,
        "{:?}",
        game.seats
    );
    let reasons: Vec<Option<ForfeitReason>> = game
        .seats
        .iter()
        .map(|s| s.forfeit.as_ref().map(|f| f.reason))
        .collect();
    assert_eq!(
        reasons,
        vec![
            None,
            Some(ForfeitReason::IllegalAction),
            None,
            Some(ForfeitReason::ProtocolError)
        ]
    );
    // The out seats rank last, the one that dropped out first lowest.
    let first_out = game.record.forfeits[0].seat;
    let second_out = game.record.forfeits[1].seat;
    assert_eq!(
        (game.seats[first_out].rank, game.seats[second_out].rank),
        (4, 3)
    );
    assert!(game.seats[0].rank <= 2 && game.seats[2].rank <= 2);
    // The engine played the out seats' turns, and the record re-simulates.
    assert!(game.record.actions.len() > game.seats.iter().map(|s| s.timings.len()).sum::<usize>());
    ReplayFile::new(vec![game.record.clone()]).verify().unwrap();
}
