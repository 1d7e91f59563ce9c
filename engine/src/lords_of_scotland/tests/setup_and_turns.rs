//! Setup, the five turns, recruiting, mustering and passing.

use super::*;
use crate::game::parse_options;

// ---- setup -----------------------------------------------------------------

#[test]
fn setup_deals_five_cards_five_face_down_recruits_and_one_supporter_per_player() {
    // "Distribua cinco cartas para cada jogador." "[...] as cinco primeiras
    // cartas da pilha de saque [...] com a face para baixo [...]" "[...] uma
    // quantidade de cartas [...] igual ao número de jogadores [...]"
    for n_seats in 2..=5 {
        let state = LordsOfScotland::new(&GameOptions::new(), n_seats, 3).unwrap();
        assert!(state.seats().all(|seat| state.hands[seat].len() == 5));
        assert_eq!(state.supporters.len() as usize, n_seats);
        assert_eq!(
            state
                .recruits
                .iter()
                .filter(|slot| slot.card().is_some())
                .count(),
            5
        );
        // The initiative holder has already turned up the first recruit.
        assert_eq!(state.recruits.iter().filter(|slot| slot.face_up).count(), 1);
        assert_eq!(state.current_seat(), Some(0));
        assert_eq!(every_card_in_play(&state), cards::deck(false));
    }
}

#[test]
fn the_bruce_cards_are_left_out_unless_the_option_adds_them() {
    // "Coloque de lado as duas cartas do Clã Bruce."
    let with = LordsOfScotland::new(&parse_options(["bruce=true"]).unwrap(), 3, 1).unwrap();
    let without = LordsOfScotland::new(&GameOptions::new(), 3, 1).unwrap();
    assert_eq!(every_card_in_play(&with), cards::deck(true));
    assert_eq!(every_card_in_play(&without), cards::deck(false));
}

#[test]
fn setup_refuses_bad_seat_counts_and_options() {
    assert!(matches!(
        LordsOfScotland::new(&GameOptions::new(), 1, 1),
        Err(SetupError::SeatCount { .. })
    ));
    assert!(matches!(
        LordsOfScotland::new(&GameOptions::new(), 6, 1),
        Err(SetupError::SeatCount { .. })
    ));
    assert!(matches!(
        LordsOfScotland::new(&parse_options(["tactics=true"]).unwrap(), 2, 1),
        Err(SetupError::UnknownOption { .. })
    ));
    assert!(matches!(
        LordsOfScotland::new(&parse_options(["bruce=yes"]).unwrap(), 2, 1),
        Err(SetupError::BadOption { .. })
    ));
}

#[test]
fn random_games_never_lose_or_duplicate_a_card() {
    let mut rng = Rng::seeded(11);
    for seed in 0..300 {
        let n_seats = 2 + seed as usize % 4;
        let options = parse_options(if seed % 2 == 0 {
            vec!["bruce=true"]
        } else {
            vec![]
        })
        .unwrap();
        let mut state = LordsOfScotland::new(&options, n_seats, seed).unwrap();
        let deck = every_card_in_play(&state);
        while !state.is_terminal() {
            let mut actions = Vec::new();
            state.legal_actions(&mut actions);
            state.apply(&actions[rng.below(actions.len())]).unwrap();
            assert_eq!(every_card_in_play(&state), deck, "seed {seed}");
        }
    }
}

// ---- turns -----------------------------------------------------------------

#[test]
fn the_initiative_holder_reveals_a_recruit_at_the_start_of_each_of_their_turns() {
    // "[...] no início de cada um de seus turnos e antes de realizar uma ação,
    // você tem que revelar um dos Recrutadas com a face virada para baixo."
    let mut state = LordsOfScotland::new(&GameOptions::new(), 3, 5).unwrap();
    for round in 1..=5 {
        let face_up = state.recruits.iter().filter(|slot| slot.face_up).count();
        assert_eq!(face_up, round, "round {round}");
        for _ in 0..3 {
            let hand_card = state.hands[state.turn_seat()].iter().next().unwrap();
            play(
                &mut state,
                &format!("muster {} down", cards::card_name(hand_card)),
            );
        }
    }
    // "Quando o quinto Recruta for revelado, o último turno da rodada está sendo jogado."
    assert!(matches!(state.phase, Phase::Supporters { .. }));
}

#[test]
fn players_take_turns_in_seat_order_from_the_initiative_holder() {
    let mut state = table(4);
    state.initiative = 2;
    let order: Vec<Seat> = (0..4)
        .map(|_| {
            let seat = state.current_seat().unwrap();
            play(&mut state, "pass");
            seat
        })
        .collect();
    assert_eq!(order, vec![2, 3, 0, 1]);
}

#[test]
fn a_face_up_recruit_is_replaced_face_up_and_a_face_down_one_face_down() {
    // "Se o Recruta que você pegou estava com a face virada para cima, reponha
    // com uma carta com a face virada para cima."
    // (Three seats, so no new round of turns reveals the refilled slot.)
    let mut state = table(3);
    state.recruits[0] = RecruitSlot {
        card: id("scott4"),
        face_up: true,
    };
    state.recruits[1] = RecruitSlot {
        card: id("wemyss4"),
        face_up: false,
    };
    stack(&mut state, &["forsyth9", "cockburn2"]);
    play(&mut state, "recruit 0");
    assert_eq!(
        state.recruits[0],
        RecruitSlot {
            card: id("forsyth9"),
            face_up: true
        }
    );
    play(&mut state, "recruit 1");
    assert_eq!(
        state.recruits[1],
        RecruitSlot {
            card: id("cockburn2"),
            face_up: false
        }
    );
    assert!(state.hands[0].contains(id("scott4")) && state.hands[1].contains(id("wemyss4")));
}

#[test]
fn recruiting_is_forbidden_only_with_more_than_ten_cards_in_hand() {
    // "Você não pode recrutar se tiver mais de dez cartas em sua mão": with ten
    // cards a player may still recruit (reaching eleven), with eleven not.
    let mut state = table(2);
    state.recruits[0] = RecruitSlot {
        card: id("scott4"),
        face_up: true,
    };
    let ten: Vec<String> = (1..=10).map(|s| format!("makgill{s}")).collect();
    give(
        &mut state,
        0,
        &ten.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(state.hands[0].len(), HAND_LIMIT);
    assert!(offers(&state, "recruit 0"));
    assert!(state.is_legal(&"recruit 0".parse().unwrap()));
    give(&mut state, 0, &["cockburn1"]);
    assert_eq!(state.hands[0].len(), HAND_LIMIT + 1);
    assert!(!offers(&state, "recruit 0"));
    assert!(!state.is_legal(&"recruit 0".parse().unwrap()));
}

#[test]
fn recruiting_with_ten_cards_in_hand_makes_eleven() {
    // "Você não pode recrutar se tiver mais de dez cartas em sua mão".
    let mut state = table(2);
    state.recruits[0] = RecruitSlot {
        card: id("scott4"),
        face_up: true,
    };
    let ten: Vec<String> = (1..=10).map(|s| format!("makgill{s}")).collect();
    give(
        &mut state,
        0,
        &ten.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    play(&mut state, "recruit 0");
    assert_eq!(state.hands[0].len(), HAND_LIMIT + 1);
    assert!(state.hands[0].contains(id("scott4")));
}

#[test]
fn a_player_with_no_card_and_no_recruit_passes() {
    let mut state = table(2);
    assert_eq!(legal(&state), vec!["pass"]);
    state.recruits[2] = RecruitSlot {
        card: id("scott4"),
        face_up: false,
    };
    assert_eq!(legal(&state), vec!["recruit 2"]);
    assert!(!state.is_legal(&Action::Pass));
}

#[test]
fn a_card_mustered_face_down_never_activates() {
    // "Cartas jogadas com a face para baixo não ativam seus poderes."
    let mut state = table(2);
    give(&mut state, 0, &["forsyth1"]);
    play(&mut state, "muster forsyth1 down");
    assert_eq!(state.phase, Phase::Turn);
    assert_eq!(state.current_seat(), Some(1));
}

#[test]
fn others_see_a_face_down_muster_without_the_card() {
    let mut state = table(2);
    give(&mut state, 0, &["forsyth1"]);
    let action: Action = "muster forsyth1 down".parse().unwrap();
    assert_eq!(state.action_seen_by(&action, 1), "muster ? down");
    assert_eq!(state.action_seen_by(&action, 0), "muster forsyth1 down");
    play(&mut state, "muster forsyth1 down");
    assert_eq!(state.observation(1).armies[0].face_down, vec![None]);
    assert_eq!(
        state.observation(0).armies[0].face_down,
        vec![Some(id("forsyth1"))]
    );
}

#[test]
fn the_game_is_registered_under_its_id() {
    let mut game = crate::registry::new_game(
        "lords-of-scotland",
        &parse_options(["bruce=true"]).unwrap(),
        4,
        2,
    )
    .unwrap();
    assert!(crate::registry::game_ids().any(|id| id == "lords-of-scotland"));
    while game.current_seat().is_some() {
        let first = game.legal_actions()[0].clone();
        game.apply_text(&first).unwrap();
    }
    assert_eq!(game.outcome().unwrap().scores.len(), 4);
}

#[test]
fn illegal_actions_are_refused_and_change_nothing() {
    let mut state = table(3);
    give(&mut state, 0, &["wemyss1", "fergusson1"]);
    field(&mut state, 0, &["scott9"]);
    state.supporters = set(&["cochrane5"]);
    for text in [
        "support cochrane5",
        "recruit 9",
        "recruit 0",
        "muster scott3 up",
        "pass",
        "skip",
        "activate",
        "exchange cochrane5",
    ] {
        let before = state.clone();
        assert!(state.apply(&text.parse().unwrap()).is_err(), "{text}");
        assert_eq!(state, before, "{text}");
    }
    play(&mut state, "muster wemyss1 up");
    for text in [
        "discard wemyss1",
        "discard seat1/down0",
        "swap scott9",
        "copy wemyss",
        "also fergusson1 up",
        "muster fergusson1 up",
    ] {
        let before = state.clone();
        assert!(state.apply(&text.parse().unwrap()).is_err(), "{text}");
        assert_eq!(state, before, "{text}");
    }
    play(&mut state, "discard scott9");
    assert!(state.discard.contains(id("scott9")));
}

#[test]
fn fergusson_cannot_swap_within_its_own_army() {
    let mut state = table(2);
    field(&mut state, 0, &["scott9"]);
    give(&mut state, 0, &["fergusson1"]);
    play(&mut state, "muster fergusson1 up");
    assert_eq!(legal(&state), vec!["skip"]);
    assert!(!state.is_legal(&"swap scott9".parse().unwrap()));
}

#[test]
fn others_do_not_learn_which_card_makgill_adds_face_down() {
    let mut state = table(2);
    give(&mut state, 0, &["makgill1", "scott7"]);
    play(&mut state, "muster makgill1 up");
    let action: Action = "also scott7 down".parse().unwrap();
    assert_eq!(state.action_seen_by(&action, 1), "also ? down");
    assert_eq!(
        state.action_seen_by(&"also scott7 up".parse().unwrap(), 1),
        "also scott7 up"
    );
}
