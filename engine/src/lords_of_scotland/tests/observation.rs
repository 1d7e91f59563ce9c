//! What each seat sees, and resampling what it cannot see.

use super::*;
use crate::lords_of_scotland::observation::RecruitView;

#[test]
fn others_see_hand_sizes_but_not_the_cards() {
    let state = LordsOfScotland::new(&GameOptions::new(), 3, 9).unwrap();
    let seen = state.observation(1);
    assert_eq!(seen.hand, state.hands[1]);
    assert_eq!(seen.hand_sizes, vec![5, 5, 5]);
    assert!(seen.known_in_hand.iter().all(|known| known.is_empty()));
    assert_eq!(
        seen.recruits
            .iter()
            .filter(|view| **view == RecruitView::FaceDown)
            .count(),
        4
    );
    assert_eq!(seen.draw_pile_len, state.draw_pile.len());
}

#[test]
fn states_that_differ_only_in_hidden_cards_look_the_same() {
    let mut state = table(2);
    give(&mut state, 1, &["scott4"]);
    stack(&mut state, &["wemyss9", "cochrane1"]);
    state.recruits[0] = RecruitSlot {
        card: id("forsyth3"),
        face_up: false,
    };
    let mut other = state.clone();
    other.hands[1] = set(&["cochrane1"]);
    stack(&mut other, &["forsyth3", "scott4"]);
    other.recruits[0].card = id("wemyss9");
    assert_ne!(state, other);
    assert_eq!(state.observation(0), other.observation(0));
    assert_ne!(state.observation(1), other.observation(1));
}

#[test]
fn a_card_taken_from_a_face_up_recruit_is_known_to_be_in_that_hand() {
    let mut state = table(3);
    state.recruits[0] = RecruitSlot {
        card: id("scott4"),
        face_up: true,
    };
    state.recruits[1] = RecruitSlot {
        card: id("wemyss4"),
        face_up: false,
    };
    play(&mut state, "recruit 0");
    play(&mut state, "recruit 1");
    assert_eq!(state.observation(2).known_in_hand[0], set(&["scott4"]));
    assert!(state.observation(2).known_in_hand[1].is_empty());
}

#[test]
fn a_face_down_muster_blurs_known_hand_cards_until_the_followers_are_revealed() {
    let mut state = table(2);
    give(&mut state, 0, &["scott4", "wemyss9"]);
    state.known_in_hand[0] = set(&["scott4"]);
    play(&mut state, "muster wemyss9 down");
    // The others cannot tell whether scott4 went face down.
    assert!(state.observation(1).known_in_hand[0].is_empty());
    assert_eq!(state.observation(1).known_in_pool[0], set(&["scott4"]));
    end_skirmish_now(&mut state);
    assert_eq!(state.observation(1).known_in_hand[0], set(&["scott4"]));
    assert!(state.observation(1).known_in_pool[0].is_empty());
}

#[test]
fn resampling_keeps_what_the_viewer_knows_and_redraws_the_rest() {
    let mut state = LordsOfScotland::new(&GameOptions::new(), 3, 21).unwrap();
    state.known_in_pool[1] = CardSet::EMPTY;
    let known = state.hands[1].iter().next().unwrap();
    state.known_in_pool[1].insert(known);
    let mut rng = Rng::seeded(4);
    let mut moved = false;
    for _ in 0..50 {
        let resampled = state.resample_hidden(0, &mut rng);
        assert_eq!(resampled.observation(0), state.observation(0));
        assert_eq!(resampled.hands[0], state.hands[0]);
        assert!(
            resampled.hands[1].contains(known),
            "a pool card stays with its seat"
        );
        assert_eq!(every_card_in_play(&resampled), every_card_in_play(&state));
        moved |= resampled.hands[2] != state.hands[2];
    }
    assert!(moved, "hidden hands are redrawn");
}

#[test]
fn resampling_may_move_a_pool_card_between_hand_and_face_down_followers() {
    let mut state = table(2);
    give(&mut state, 1, &["scott4", "wemyss9"]);
    state.known_in_hand[1] = set(&["scott4"]);
    stack(&mut state, &["forsyth1", "forsyth2", "forsyth3"]);
    state.turn_offset = 1;
    play(&mut state, "muster wemyss9 down");
    let mut rng = Rng::seeded(5);
    let mut went_down = false;
    for _ in 0..50 {
        let resampled = state.resample_hidden(0, &mut rng);
        let pool =
            resampled.hands[1].union(resampled.armies[1].face_down.iter().copied().collect());
        assert!(pool.contains(id("scott4")));
        went_down |= resampled.armies[1].face_down == vec![id("scott4")];
        assert_eq!(resampled.observation(0), state.observation(0));
    }
    assert!(went_down);
}

#[test]
fn a_face_down_follower_the_viewer_knows_is_never_resampled() {
    let mut state = table(3);
    field_down(&mut state, 1, &["cochrane12"]);
    state.face_down_known_by[id("cochrane12") as usize] |= 1;
    stack(&mut state, &["forsyth1", "forsyth2", "forsyth3"]);
    let mut rng = Rng::seeded(6);
    for _ in 0..20 {
        assert_eq!(
            state.resample_hidden(0, &mut rng).armies[1].face_down,
            vec![id("cochrane12")]
        );
    }
    let moved = (0..20)
        .any(|_| state.resample_hidden(2, &mut rng).armies[1].face_down != vec![id("cochrane12")]);
    assert!(moved);
}

#[test]
fn after_a_reshuffle_resampling_keeps_the_draw_pile_within_the_old_discard_pile() {
    let mut state = table(2);
    give(&mut state, 1, &["scott1", "scott2"]);
    state.discard = set(&["wemyss1", "wemyss2", "wemyss3", "wemyss4"]);
    give(&mut state, 0, &["forsyth4"]);
    play(&mut state, "muster forsyth4 up");
    play(&mut state, "activate");
    assert_eq!(
        state.observation(1).draw_pile_made_from,
        set(&["wemyss1", "wemyss2", "wemyss3", "wemyss4"])
    );
    let mut rng = Rng::seeded(8);
    for _ in 0..20 {
        let resampled = state.resample_hidden(0, &mut rng);
        assert_eq!(resampled.hands[1], set(&["scott1", "scott2"]));
        assert_eq!(resampled.hands[0], state.hands[0]);
    }
    let moved = (0..20).any(|_| state.resample_hidden(1, &mut rng).hands[0] != state.hands[0]);
    assert!(
        moved,
        "seat 1 cannot tell which reshuffled card seat 0 drew"
    );
}

#[test]
fn the_end_of_a_skirmish_reveals_every_army_with_its_strength_to_every_seat() {
    // "No final de cada rodada, revele todos os Seguidores que estejam com a
    // face virada para baixo na escaramuça."
    let mut state = table(3);
    field(&mut state, 0, &["scott3"]);
    field_down(&mut state, 0, &["scott5"]);
    field_down(&mut state, 1, &["cochrane2"]);
    state.supporters = set(&["wemyss4", "forsyth6"]);
    end_skirmish_now(&mut state);
    assert!(matches!(state.phase, Phase::Supporters { .. }));
    for viewer in 0..3 {
        let seen = state.observation(viewer);
        assert_eq!(seen.armies[0].face_down, vec![Some(id("scott5"))]);
        assert_eq!(seen.armies[1].face_down, vec![Some(id("cochrane2"))]);
        assert_eq!(seen.last_armies[0], set(&["scott3", "scott5"]));
        assert_eq!(seen.last_strengths, vec![16, 2, 0]);
    }
    assert_eq!(
        state.announcement().as_deref(),
        Some("reveal scott3,scott5=16 cochrane2=2 -")
    );
    play(&mut state, "support forsyth6");
    assert_eq!(state.announcement(), None);
    assert_eq!(state.observation(2).last_strengths, vec![16, 2, 0]);
}

#[test]
fn at_every_supporter_choice_of_random_games_no_follower_is_hidden_and_strengths_are_the_engines() {
    let mut rng = Rng::seeded(12);
    let mut checked = 0;
    for game in 0..40u64 {
        let n_seats = 2 + game as usize % 4;
        let options: GameOptions = [("bruce".to_string(), (game % 2 == 0).to_string())].into();
        let mut state = LordsOfScotland::new(&options, n_seats, game).unwrap();
        let mut actions = Vec::new();
        while !state.is_terminal() {
            if let Phase::Supporters { .. } = state.phase {
                for viewer in 0..n_seats {
                    let seen = state.observation(viewer);
                    for seat in 0..n_seats {
                        assert!(seen.armies[seat].face_down.iter().all(Option::is_some));
                        assert_eq!(seen.last_armies[seat], state.armies[seat].cards());
                        assert_eq!(seen.last_strengths[seat] as u32, state.army_strength(seat));
                    }
                }
                checked += 1;
            }
            actions.clear();
            state.legal_actions(&mut actions);
            let pick = actions[rng.below(actions.len())];
            state.apply(&pick).unwrap();
        }
    }
    assert!(checked > 100, "only {checked} supporter choices");
}
