//! The same matches with every bot in the sandbox: bots in Rust, Python and
//! JavaScript play through it, and misbehaving bots still forfeit with the
//! right reason, with nothing of them left afterwards.

use cairn_engine::forfeit::{EndedBy, ForfeitReason};
use cairn_proto::record::ReplayFile;
use cairn_runner::sandbox::{Limits, ProgramPolicy};
use cairn_runner::{play_match, SandboxLauncher};
use cairn_tests::{
    hostile_bot, js_bot, match_of, process_with_marker_exists, python_bot, rust_bot,
    schotten_totten, tight_time_control,
};

#[test]
fn rust_python_and_js_bots_play_both_games_inside_the_sandbox() {
    // The Rust bot runs from the workspace's target folder, as `cairn play`
    // runs a local user's bots: trusted to name it.
    let launcher = SandboxLauncher::new(Limits::default()).with_programs(ProgramPolicy::Trusted);
    let st = schotten_totten(
        &["tactics=true"],
        2,
        4,
        vec![
            python_bot("python", "random_bot.py"),
            js_bot("js", "random_bot.js"),
        ],
    );
    let los = match_of(
        "lords-of-scotland",
        &[],
        1,
        4,
        vec![
            rust_bot("rust", "cairn-random-bot"),
            python_bot("python", "random_bot.py"),
            js_bot("js", "random_bot.js"),
        ],
    );
    for spec in [st, los] {
        let result = play_match(&spec, &launcher).unwrap();
        for game in &result.games {
            assert_eq!(
                game.record.score.ended_by,
                EndedBy::Finished,
                "{:?} {:?}",
                game.seats,
                result.stderr
            );
            assert!(game.seats.iter().all(|s| s.forfeit.is_none()));
        }
        ReplayFile::new(result.games.into_iter().map(|g| g.record).collect())
            .verify()
            .unwrap();
    }
}

#[test]
fn sandboxed_misbehaviour_forfeits_with_the_right_reason_and_leaves_nothing() {
    let launcher = SandboxLauncher::new(Limits::default());
    let marker = format!("cairn-sandboxed-daemon-{}", std::process::id());
    let cases: [(&[&str], ForfeitReason); 6] = [
        // Zeroing memory costs CPU: this one runs on the default time control.
        (&["memory"], ForfeitReason::ResourceLimit),
        (&["garbage"], ForfeitReason::ProtocolError),
        (&["crash"], ForfeitReason::Crash),
        (&["spin"], ForfeitReason::Timeout),
        (&["sleep"], ForfeitReason::Timeout),
        (&["daemon", &marker], ForfeitReason::Exit),
    ];
    for (args, expected) in cases {
        let mut spec = schotten_totten(
            &[],
            1,
            3,
            vec![
                hostile_bot("hostile.py", args),
                python_bot("random", "random_bot.py"),
            ],
        );
        if args[0] != "memory" {
            spec.time_control = tight_time_control();
        }
        let result = play_match(&spec, &launcher).unwrap();
        let seat = &result.games[0].seats.iter().find(|s| s.bot == 0).unwrap();
        let forfeit = seat
            .forfeit
            .as_ref()
            .unwrap_or_else(|| panic!("{args:?} did not forfeit"));
        assert_eq!(forfeit.reason, expected, "{args:?}: {}", forfeit.detail);
        assert_eq!(seat.rank, 2);
    }
    assert!(
        !process_with_marker_exists(&marker),
        "the daemon survived the match"
    );
}
