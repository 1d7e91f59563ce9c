//! Every seat's `ready` is awaited at once: a seat that never answers
//! `hello` (it sleeps, or spins) forfeits alone, and a seat that starts
//! slowly but within the setup time plays, at every table size of every
//! game (issue 9, finding 4). The setup time is CPU time, as decisions'
//! is, within a wall-clock cap four times as long plus 1 s: a bot that
//! waits longer than its CPU allowance (as on a loaded host) still plays,
//! one that computes longer forfeits on CPU (issue 30, finding 8).

use std::time::Duration;

use cairn_engine::forfeit::ForfeitReason;
use cairn_runner::{play_match, BotEntry, PlainLauncher, TimeControl};
use cairn_tests::{bot, match_of, python_bot, workspace_root};

/// The CPU every seat has for its ready (its wall-clock cap: 5 s).
const SETUP: Duration = Duration::from_millis(1000);

/// A seat that fails its hello in the way `kind` says.
fn faulty(kind: &str) -> BotEntry {
    let script = match kind {
        "sleeps" => "exec sleep 1000",
        // Niced, so that it spins without starving the other seats' start
        // on a small test machine; to the referee it is just as silent.
        "spins" => "exec nice -n 19 sh -c 'while :; do :; done'",
        _ => unreachable!("test kinds are fixed"),
    };
    bot(kind, &workspace_root(), &["sh", "-c", script])
}

/// A random bot that waits half the setup time (in wall-clock) to start.
fn slow_starter() -> BotEntry {
    let dir = workspace_root().join("sdk/python");
    bot(
        "slow",
        &dir,
        &["sh", "-c", "sleep 0.5; exec python3 random_bot.py"],
    )
}

/// Plays one game with `first` at seat 0, random bots in the middle and a
/// slow starter at the last seat (when there are two seats or more), and
/// returns each seat's forfeit reason.
fn forfeits(
    game: &str,
    options: &[&str],
    n_seats: usize,
    first: BotEntry,
) -> Vec<Option<ForfeitReason>> {
    let mut bots = vec![first];
    for seat in 1..n_seats {
        bots.push(match seat + 1 == n_seats {
            true => slow_starter(),
            false => python_bot(&format!("random-{seat}"), "random_bot.py"),
        });
    }
    let mut spec = match_of(game, options, 1, 11, bots);
    spec.time_control = TimeControl {
        setup: SETUP,
        ..TimeControl::default()
    };
    let result = play_match(&spec, &PlainLauncher).expect("the match is refereed");
    let game_id = game;
    let game = &result.games[0];
    let mut reasons = vec![None; n_seats];
    for seat in &game.seats {
        if let Some(forfeit) = &seat.forfeit {
            println!("{game_id}, bot {}: {forfeit:?}", seat.bot);
        }
        reasons[seat.bot] = seat.forfeit.as_ref().map(|f| f.reason);
    }
    reasons
}

/// At every size: the faulty seat alone forfeits (with a timeout naming
/// the ready), and with a slow seat at the first place nobody forfeits.
fn check_every_size(game: &str, options: &[&str], sizes: &[usize]) {
    for &n_seats in sizes {
        for kind in ["sleeps", "spins"] {
            let reasons = forfeits(game, options, n_seats, faulty(kind));
            let mut expected = vec![None; n_seats];
            expected[0] = Some(ForfeitReason::Timeout);
            assert_eq!(
                reasons, expected,
                "{game} at {n_seats} seats, seat 0 {kind}"
            );
        }
        let reasons = forfeits(game, options, n_seats, slow_starter());
        assert_eq!(
            reasons,
            vec![None; n_seats],
            "{game} at {n_seats} seats, slow starters"
        );
    }
}

#[test]
fn a_seat_silent_at_hello_forfeits_alone_in_schotten_totten() {
    check_every_size("schotten-totten", &[], &[2]);
}

#[test]
fn a_seat_silent_at_hello_forfeits_alone_in_lords_of_scotland_at_every_size() {
    check_every_size("lords-of-scotland", &[], &[2, 3, 4, 5]);
}

#[test]
fn a_seat_silent_at_hello_forfeits_alone_in_bullfrogs_at_every_size_and_solo() {
    check_every_size("bullfrogs", &["solo=true"], &[1]);
    check_every_size("bullfrogs", &[], &[2, 3, 4]);
}

#[test]
fn the_forfeit_of_a_silent_seat_says_it_sent_no_ready() {
    let spec_bots = vec![faulty("sleeps"), python_bot("random", "random_bot.py")];
    let mut spec = match_of("schotten-totten", &[], 1, 3, spec_bots);
    spec.time_control.setup = Duration::from_millis(500);
    let result = play_match(&spec, &PlainLauncher).expect("the match is refereed");
    let forfeit = result.games[0].seats[0]
        .forfeit
        .clone()
        .expect("seat 0 forfeits");
    assert!(
        forfeit.detail.starts_with(
            "no ready within 3000 ms of wall-clock time (the start-up's wall-clock cap: \
             four times its 500 ms of CPU plus 1 s"
        ) && forfeit.detail.contains("flush stdout"),
        "{}",
        forfeit.detail
    );
    assert_eq!(result.games[0].seats[1].rank, 1);
}

/// Start-up is charged in CPU time: a seat that waits three times its
/// allowance in wall-clock (a loaded host, a slow disk) plays; a seat that
/// computes past it forfeits, told it was CPU.
#[test]
fn a_seat_that_waits_at_hello_plays_and_one_that_computes_past_its_cpu_forfeits() {
    let waits = bot(
        "waits",
        &workspace_root().join("sdk/python"),
        &["sh", "-c", "sleep 1.5; exec python3 random_bot.py"],
    );
    let computes = bot(
        "computes",
        &workspace_root(),
        &["sh", "-c", "while :; do :; done"],
    );
    let mut spec = match_of("schotten-totten", &[], 1, 5, vec![waits, computes]);
    spec.time_control.setup = Duration::from_millis(500);
    let result = play_match(&spec, &PlainLauncher).expect("the match is refereed");
    let game = &result.games[0];
    assert!(game.seats[0].forfeit.is_none(), "{:?}", game.seats[0]);
    assert_eq!(game.seats[0].rank, 1);
    let forfeit = game.seats[1]
        .forfeit
        .clone()
        .expect("the computing seat forfeits");
    assert_eq!(forfeit.reason, ForfeitReason::Timeout);
    assert!(
        forfeit
            .detail
            .contains("ms of CPU before its ready, more than the 500 ms"),
        "{}",
        forfeit.detail
    );
}
