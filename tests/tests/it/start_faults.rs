//! Who is at fault when a bot does not start (issue 9, finding 9): a
//! command that cannot be run is the bot's `start_failed` forfeit (never a
//! `crash`), a signal is a `crash`, and a launch the host cannot perform
//! (the sandbox's setup) is the host's error: `play_match` returns it and
//! scores nothing, so no bot is charged.

use std::sync::atomic::{AtomicUsize, Ordering};

use cairn_engine::forfeit::ForfeitReason;
use cairn_runner::launch::LaunchError;
use cairn_runner::sandbox::Limits;
use cairn_runner::{
    play_match, BotLauncher, BotProcess, LaunchSpec, MatchError, PlainLauncher, SandboxLauncher,
};
use cairn_tests::{bot, hostile_bot, python_bot, schotten_totten, workspace_root};

/// Seat 0's forfeit reason and detail in a one-game match against a random bot.
fn forfeit_of(
    first: cairn_runner::BotEntry,
    launcher: &dyn BotLauncher,
) -> (ForfeitReason, String) {
    let spec = schotten_totten(
        &[],
        1,
        5,
        vec![first, python_bot("random", "random_bot.py")],
    );
    let result = play_match(&spec, launcher).expect("a bot's fault is no error");
    let seat = result.games[0].seats.iter().find(|s| s.bot == 0).unwrap();
    let other = result.games[0].seats.iter().find(|s| s.bot == 1).unwrap();
    assert!(other.forfeit.is_none() && other.rank == 1);
    let forfeit = seat.forfeit.clone().expect("seat 0 forfeits");
    (forfeit.reason, forfeit.detail)
}

fn cases() -> Vec<(&'static str, cairn_runner::BotEntry)> {
    let dir = workspace_root().join("tests/bots");
    vec![
        (
            "missing program",
            bot("missing", &dir, &["no-such-interpreter", "bot.py"]),
        ),
        (
            "missing script path",
            bot("missing", &dir, &["./no-such-bot"]),
        ),
        ("not executable", bot("data", &dir, &["./hostile.py"])),
        (
            "bare command not found",
            bot("bare", &dir, &["sh", "-c", "exec no-such-bot"]),
        ),
    ]
}

#[test]
fn a_command_that_cannot_start_is_start_failed_in_plain_processes() {
    for (name, entry) in cases() {
        let (reason, detail) = forfeit_of(entry, &PlainLauncher);
        assert_eq!(reason, ForfeitReason::StartFailed, "{name}: {detail}");
    }
}

#[test]
fn a_command_that_cannot_start_is_start_failed_in_the_sandbox() {
    let launcher = SandboxLauncher::new(Limits::default());
    for (name, entry) in cases() {
        let (reason, detail) = forfeit_of(entry, &launcher);
        assert_eq!(reason, ForfeitReason::StartFailed, "{name}: {detail}");
    }
}

#[test]
fn a_signal_is_still_a_crash_and_an_exit_after_speaking_still_an_exit() {
    let (reason, detail) = forfeit_of(hostile_bot("hostile.py", &["crash"]), &PlainLauncher);
    assert_eq!(
        (reason, detail.as_str()),
        (ForfeitReason::Crash, "killed by signal 11")
    );
    let (reason, _) = forfeit_of(hostile_bot("hostile.py", &["exit"]), &PlainLauncher);
    assert_eq!(reason, ForfeitReason::Exit);
}

#[test]
fn a_sandbox_setup_fault_is_the_hosts_error_and_charges_no_bot() {
    let launcher = SandboxLauncher::new(Limits::default());
    let gone = tempfile::tempdir()
        .unwrap()
        .path()
        .join("removed-by-the-host");
    let spec = schotten_totten(
        &[],
        1,
        5,
        vec![
            python_bot("random", "random_bot.py"),
            bot("vanished", &gone, &["python3", "bot.py"]),
        ],
    );
    match play_match(&spec, &launcher) {
        Err(error @ MatchError::Host { .. }) => {
            assert!(error.is_host_fault());
            assert!(error.to_string().contains("vanished"), "{error}");
        }
        other => panic!("expected the host's error, got {other:?}"),
    }
}

/// A launcher whose host runs out of something after `working` launches.
#[derive(Debug)]
struct FailingHost {
    working: AtomicUsize,
}

impl BotLauncher for FailingHost {
    fn launch(&self, spec: &LaunchSpec) -> Result<Box<dyn BotProcess>, LaunchError> {
        match self
            .working
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        {
            Ok(_) => PlainLauncher.launch(spec),
            Err(_) => Err(LaunchError::Host(
                "creating the bot cgroups: no space left on device".into(),
            )),
        }
    }

    fn describe(&self) -> String {
        "a host that fails".into()
    }
}

#[test]
fn a_host_fault_in_a_later_game_stops_the_match_and_leaves_no_bot_running() {
    // Game 1 is played; a bot that forfeited must be restarted for game 2,
    // and that restart meets the host's fault.
    let launcher = FailingHost {
        working: AtomicUsize::new(2),
    };
    let marker = format!("cairn-host-fault-{}", std::process::id());
    let spec = schotten_totten(
        &[],
        2,
        5,
        vec![
            hostile_bot("hostile.py", &["exit", &marker]),
            python_bot("random", "random_bot.py"),
        ],
    );
    let error = play_match(&spec, &launcher).expect_err("the host failed");
    assert!(error.is_host_fault(), "{error}");
    assert!(!cairn_tests::process_with_marker_exists(&marker));
}
