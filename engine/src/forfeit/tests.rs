use super::*;
use crate::game::GameOptions;

fn forfeit(seat: Seat, after_actions: usize) -> Forfeit {
    Forfeit::new(seat, ForfeitReason::Timeout, "", after_actions)
}

/// A game played by first legal actions, to its end or `stop_after` actions.
fn played(game: &str, n_seats: usize, stop_after: Option<usize>) -> Replay {
    let mut state = new_game(game, &GameOptions::new(), n_seats, 7).unwrap();
    let mut actions = Vec::new();
    while state.current_seat().is_some() && Some(actions.len()) != stop_after {
        let first = state.legal_actions()[0].clone();
        state.apply_text(&first).unwrap();
        actions.push(first);
    }
    Replay {
        game: game.into(),
        options: GameOptions::new(),
        seed: 7,
        n_seats,
        actions,
    }
}

#[test]
fn in_a_two_seat_game_the_opponent_of_a_forfeit_wins() {
    let score = final_score("schotten-totten", None, 2, &[forfeit(0, 0)]);
    assert_eq!(score.ranks, vec![2, 1]);
    assert_eq!(score.scores, vec![0, 0]);
    assert_eq!(score.ended_by, EndedBy::Forfeit);
}

#[test]
fn forfeited_seats_rank_last_and_the_earliest_forfeit_lowest() {
    let engine = Outcome::from_scores(vec![9, 5, 7, 1], EndReason::Finished);
    let score = final_score(
        "bullfrogs",
        Some(&engine),
        4,
        &[forfeit(0, 0), forfeit(2, 3)],
    );
    assert_eq!(score.ranks, vec![4, 1, 3, 2]);
    assert_eq!(score.scores, vec![9, 5, 7, 1]);
    assert_eq!(score.ended_by, EndedBy::Finished);
}

#[test]
fn seats_that_forfeit_at_the_same_step_share_their_rank() {
    // Two bots that both fail to start: a draw, not a race.
    let score = final_score("schotten-totten", None, 2, &[forfeit(1, 0), forfeit(0, 0)]);
    assert_eq!(score.ranks, vec![1, 1]);
    let engine = Outcome::from_scores(vec![9, 5, 7, 1], EndReason::Finished);
    let score = final_score(
        "bullfrogs",
        Some(&engine),
        4,
        &[forfeit(0, 2), forfeit(2, 2), forfeit(3, 6)],
    );
    assert_eq!(score.ranks, vec![3, 1, 3, 2]);
}

#[test]
fn without_forfeits_the_engine_ranks_stand() {
    let engine = Outcome::from_scores(vec![3, 3, 1], EndReason::Finished);
    assert_eq!(
        final_score("bullfrogs", Some(&engine), 3, &[]).ranks,
        vec![1, 1, 3]
    );
}

#[test]
fn unbuildable_seats_share_the_last_rank_and_nobody_scores() {
    let score = build_failed_score("bullfrogs", &[false, true, false, true]);
    assert_eq!(score.ranks, vec![1, 3, 1, 3]);
    assert_eq!(score.scores, vec![0; 4]);
    assert_eq!(score.ended_by, EndedBy::Forfeit);
}

#[test]
fn a_forfeited_or_unbuildable_solo_seat_scores_below_any_played_solo_game() {
    use crate::bullfrogs::cards::SOLO_FORFEIT_SCORE;
    let stopped = final_score("bullfrogs", None, 1, &[forfeit(0, 3)]);
    assert_eq!(stopped.scores, vec![SOLO_FORFEIT_SCORE]);
    assert_eq!(stopped.ranks, vec![1]);
    let unbuildable = build_failed_score("bullfrogs", &[true]);
    assert_eq!(unbuildable.scores, vec![SOLO_FORFEIT_SCORE]);
    // Worse than the solo games first legal actions play, over 20 deals.
    let options: GameOptions = [("solo".to_string(), "true".to_string())].into();
    for seed in 0..20 {
        let mut state = new_game("bullfrogs", &options, 1, seed).unwrap();
        while state.current_seat().is_some() {
            let first = state.legal_actions()[0].clone();
            state.apply_text(&first).unwrap();
        }
        let played = final_score("bullfrogs", state.outcome().as_ref(), 1, &[]);
        assert!(
            played.scores[0] > SOLO_FORFEIT_SCORE,
            "seed {seed}: {played:?}"
        );
    }
    // A game without a solo mode keeps scoring zero.
    assert_eq!(
        final_score("schotten-totten", None, 1, &[forfeit(0, 0)]).scores,
        vec![0]
    );
}

#[test]
fn a_long_detail_is_cut_at_a_character_boundary() {
    let forfeit = Forfeit::new(0, ForfeitReason::Crash, "é".repeat(5000), 0);
    assert!(forfeit.detail.len() <= MAX_FORFEIT_DETAIL_BYTES);
    assert!(forfeit.detail.len() >= MAX_FORFEIT_DETAIL_BYTES - 1);
}

#[test]
fn every_reason_reads_back_from_its_text() {
    for reason in ForfeitReason::ALL {
        assert_eq!(ForfeitReason::from_name(reason.as_str()), Some(reason));
    }
    for end in EndedBy::ALL {
        assert_eq!(EndedBy::from_name(end.as_str()), Some(end));
    }
    assert_eq!(ForfeitReason::from_name("bribery"), None);
}

#[test]
fn a_whole_game_referees_to_the_engine_outcome() {
    let replay = played("schotten-totten", 2, None);
    let refereed = referee_replay(&replay, &[]).unwrap();
    let outcome = replay.simulate().unwrap().outcome().unwrap();
    assert_eq!(refereed.score.ranks, outcome.ranks);
    assert_eq!(refereed.score.scores, outcome.scores);
    assert_eq!(refereed.hashes, replay.simulate().unwrap().hashes[1..]);
}

#[test]
fn a_two_seat_game_stops_at_the_forfeit_and_the_opponent_wins() {
    let replay = played("schotten-totten", 2, Some(5));
    let refereed = referee_replay(&replay, &[forfeit(1, 5)]).unwrap();
    assert_eq!(refereed.score.ranks, vec![1, 2]);
    assert_eq!(refereed.score.ended_by, EndedBy::Forfeit);
    // Play after the forfeit that stopped the game is refused.
    assert_eq!(
        referee_replay(&replay, &[forfeit(1, 4)]),
        Err(RefereeError::AfterStop { index: 4 })
    );
}

#[test]
fn a_game_cut_short_with_two_seats_in_is_refused() {
    let replay = played("schotten-totten", 2, Some(5));
    assert_eq!(
        referee_replay(&replay, &[]),
        Err(RefereeError::Unfinished(5))
    );
}

#[test]
fn an_out_seat_plays_its_first_legal_action_and_nothing_else() {
    // Seat 0 is out from the start; the game goes on, every seat playing
    // its first legal action, which is what the engine plays for seat 0.
    let replay = played("lords-of-scotland", 3, None);
    let refereed = referee_replay(&replay, &[forfeit(0, 0)]).unwrap();
    assert_eq!(refereed.score.ranks[0], 3);
    // The same game with seat 0 playing another legal action is refused.
    let mut state = new_game("lords-of-scotland", &GameOptions::new(), 3, 7).unwrap();
    let mut actions = Vec::new();
    let mut swapped = false;
    while let Some(seat) = state.current_seat() {
        let legal = state.legal_actions();
        let pick = if seat == 0 && !swapped && legal.len() > 1 {
            swapped = true;
            legal[1].clone()
        } else {
            legal[0].clone()
        };
        state.apply_text(&pick).unwrap();
        actions.push(pick);
    }
    assert!(swapped);
    let replay = Replay { actions, ..replay };
    assert!(matches!(
        referee_replay(&replay, &[forfeit(0, 0)]),
        Err(RefereeError::OutSeatAction { seat: 0, .. })
    ));
}

#[test]
fn forfeits_that_could_not_have_happened_are_refused() {
    let replay = played("schotten-totten", 2, Some(5));
    assert_eq!(
        referee_replay(&replay, &[forfeit(2, 5)]),
        Err(RefereeError::ForfeitSeat {
            seat: 2,
            n_seats: 2
        })
    );
    assert_eq!(
        referee_replay(&replay, &[forfeit(1, 5), forfeit(1, 5)]),
        Err(RefereeError::ForfeitTwice(1))
    );
    assert_eq!(
        referee_replay(&replay, &[forfeit(1, 6)]),
        Err(RefereeError::ForfeitOrder { seat: 1, after: 6 })
    );
    let whole = played("schotten-totten", 2, None);
    let after = whole.actions.len();
    assert_eq!(
        referee_replay(&whole, &[forfeit(0, after)]),
        Err(RefereeError::ForfeitAfterEnd { seat: 0, after })
    );
}

#[test]
fn garbage_actions_are_refused() {
    let mut replay = played("schotten-totten", 2, Some(3));
    replay.actions.push("launch the missiles".into());
    assert!(matches!(
        referee_replay(&replay, &[forfeit(0, 4)]),
        Err(RefereeError::IllegalAction { index: 3, .. })
    ));
}
