use cairn_engine::forfeit::{final_score, EndedBy, Forfeit as EngineForfeit, ForfeitReason};
use cairn_engine::new_game;
use cairn_proto::record::{hash_text, GameRecord, ReplayFile};

use super::*;
use crate::report::{Forfeit, SeatResult};
use crate::testkit::played_game_report;

fn planned() -> PlannedGame {
    PlannedGame {
        game: "schotten-totten".into(),
        options: GameOptions::new(),
        game_index: 0,
        seed: 11,
        seats: vec![7, 9],
        seat_names: vec!["a@1".into(), "b@2".into()],
    }
}

fn refused(report: &GameReport) -> String {
    match verify_game(&planned(), report) {
        Err(ArenaError::InvalidArgument(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Seat 1 times out after 3 actions: the game stops, seat 0 wins.
/// The forfeit of the report's forfeiting seat.
fn forfeit_of(report: &mut GameReport) -> &mut Forfeit {
    report
        .seats
        .iter_mut()
        .find_map(|seat| seat.forfeit.as_mut())
        .unwrap()
}

fn forfeited_report() -> GameReport {
    let planned = planned();
    let mut state = new_game(&planned.game, &planned.options, 2, planned.seed).unwrap();
    let (mut actions, mut hashes) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let first = state.legal_actions()[0].clone();
        state.apply_text(&first).unwrap();
        actions.push(first);
        hashes.push(hash_text(state.state_hash()));
    }
    let forfeit = EngineForfeit::new(
        state.current_seat().unwrap(),
        ForfeitReason::Timeout,
        "slow",
        3,
    );
    let score = final_score(&planned.game, None, 2, std::slice::from_ref(&forfeit));
    let seats = (0..2)
        .map(|seat| SeatResult {
            bot_version_id: planned.seats[seat],
            score: 0,
            rank: score.ranks[seat],
            forfeit: (seat == forfeit.seat).then(|| Forfeit {
                reason: ForfeitReason::Timeout,
                detail: "slow".into(),
            }),
        })
        .collect();
    let record = GameRecord {
        game: planned.game.clone(),
        options: planned.options.clone(),
        seed: planned.seed,
        seats: planned.seat_names.clone(),
        actions,
        hashes,
        forfeits: vec![forfeit],
        score,
        cpu_us: Vec::new(),
    };
    GameReport {
        game_index: 0,
        seats,
        replay: ReplayFile::new(vec![record]).to_json().into_bytes(),
        stderr_tails: Vec::new(),
        ended_by: EndedBy::Forfeit,
    }
}

#[test]
fn an_honest_report_of_a_whole_game_is_accepted() {
    verify_game(&planned(), &played_game_report(&planned())).unwrap();
}

#[test]
fn an_honest_report_with_a_forfeit_is_accepted() {
    verify_game(&planned(), &forfeited_report()).unwrap();
}

#[test]
fn a_garbage_replay_is_refused() {
    let mut report = played_game_report(&planned());
    report.replay = b"\xff\xfe garbage".to_vec();
    assert!(refused(&report).contains("UTF-8"));
    report.replay = b"{\"format\":\"cairn-replay-1\",\"games\":[]}".to_vec();
    assert!(refused(&report).contains("0 games"));
    let honest = played_game_report(&planned());
    let mut text = String::from_utf8(honest.replay.clone()).unwrap();
    text = text.replacen(
        "\"hashes\": [\n",
        "\"hashes\": [\n      \"0000000000000000\",\n",
        1,
    );
    report.replay = text.into_bytes();
    assert!(
        refused(&report).contains("does not hold up"),
        "{}",
        refused(&report)
    );
}

/// A hostile runner's decision times: negative, fractional, absurd or
/// miscounted ones refuse the report (never clamped: an honest runner
/// cannot send them); the honest ones pass.
#[test]
fn decision_times_that_cannot_be_true_are_refused() {
    let honest = played_game_report(&planned());
    verify_game(&planned(), &honest).unwrap();
    let with_times = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut replay: serde_json::Value = serde_json::from_slice(&honest.replay).unwrap();
        edit(&mut replay["games"][0]["cpu_us"]);
        GameReport {
            replay: replay.to_string().into_bytes(),
            ..honest.clone()
        }
    };
    let negative = refused(&with_times(&|times| times[2] = (-1).into()));
    assert!(negative.contains("not a replay file"), "{negative}");
    let fraction = refused(&with_times(&|times| times[2] = 0.5.into()));
    assert!(fraction.contains("not a replay file"), "{fraction}");
    let huge = refused(&with_times(&|times| times[2] = u64::MAX.into()));
    assert!(huge.contains("action 2 took"), "{huge}");
    let over = refused(&with_times(&|times| {
        times[4] = (cairn_proto::record::MAX_DECISION_CPU_US + 1).into()
    }));
    assert!(over.contains("action 4 took"), "{over}");
    let short = refused(&with_times(&|times| {
        times.as_array_mut().unwrap().pop();
    }));
    assert!(short.contains("decision times for"), "{short}");
    let text = refused(&with_times(&|times| times[0] = "fast".into()));
    assert!(text.contains("not a replay file"), "{text}");
    verify_game(
        &planned(),
        &with_times(&|times| times[1] = serde_json::Value::Null),
    )
    .unwrap();
}

#[test]
fn ranks_that_do_not_follow_from_the_replay_are_refused() {
    let mut report = played_game_report(&planned());
    for seat in &mut report.seats {
        seat.rank = 2;
    }
    assert!(refused(&report).contains("the replay gives"));
}

#[test]
fn extreme_scores_are_refused() {
    for score in [i64::MAX, i64::MIN] {
        let mut report = played_game_report(&planned());
        report.seats[0].score = score;
        assert!(refused(&report).contains("the replay gives"));
    }
}

#[test]
fn a_huge_forfeit_detail_is_refused() {
    let mut report = forfeited_report();
    forfeit_of(&mut report).detail = "x".repeat(3 << 20);
    assert!(refused(&report).contains("over 4096 bytes"));
}

#[test]
fn a_build_failure_in_a_game_report_is_refused() {
    // A runner could otherwise charge the true winner with a failed build
    // on its word alone, past the second runner's confirmation.
    let mut report = forfeited_report();
    forfeit_of(&mut report).reason = ForfeitReason::BuildFailed;
    assert!(refused(&report).contains("ReportBuildFailure"));
}

#[test]
fn a_forfeit_the_replay_does_not_hold_is_refused() {
    let mut report = played_game_report(&planned());
    report.seats[1].forfeit = Some(Forfeit {
        reason: ForfeitReason::Crash,
        detail: String::new(),
    });
    assert!(refused(&report).contains("forfeit crash"));
}

#[test]
fn a_wrong_end_reason_is_refused() {
    let mut report = played_game_report(&planned());
    report.ended_by = EndedBy::MoveLimit;
    assert!(refused(&report).contains("ended by move_limit"));
}

#[test]
fn a_replay_of_another_seed_is_refused() {
    let other = PlannedGame {
        seed: 12,
        ..planned()
    };
    let report = played_game_report(&other);
    assert!(refused(&report).contains("not of the planned game"));
}

#[test]
fn a_replay_over_the_cap_is_too_large() {
    let mut report = played_game_report(&planned());
    report.replay = vec![b' '; MAX_REPLAY_BYTES + 1];
    assert!(matches!(
        verify_game(&planned(), &report),
        Err(ArenaError::TooLarge(_))
    ));
}

#[test]
fn a_replay_naming_other_bots_is_refused() {
    // Played on the planned deal, but labelled with the seats swapped.
    let swapped = PlannedGame {
        seat_names: vec!["b@2".into(), "a@1".into()],
        ..planned()
    };
    let message = refused(&played_game_report(&swapped));
    assert!(
        message.contains("not the seated bots (a@1, b@2)"),
        "{message}"
    );
}
