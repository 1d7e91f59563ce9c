//! When a power activates, and each of the nine powers.

use super::*;

// ---- activation --------------------------------------------------------------

#[test]
fn a_face_up_card_activates_only_if_no_other_face_up_follower_is_weaker() {
    // "[...] você pode ativar seu poder de Clã somente, e somente se, não
    // houver nenhum outro Seguidor com a face voltada para cima na escaramuça
    // com força MENOR naquele momento."
    let mut blocked = table(3);
    field(&mut blocked, 1, &["scott3"]);
    give(&mut blocked, 0, &["forsyth4"]);
    play(&mut blocked, "muster forsyth4 up");
    assert_eq!(blocked.phase, Phase::Turn);
    assert_eq!(blocked.current_seat(), Some(1));

    let mut equal = table(3);
    field(&mut equal, 1, &["scott3"]);
    give(&mut equal, 0, &["forsyth3"]);
    play(&mut equal, "muster forsyth3 up");
    assert_eq!(power_phase(&equal), Some(Clan::Forsyth));
    assert_eq!(legal(&equal), vec!["skip", "activate"]);
}

#[test]
fn face_down_followers_do_not_block_activation() {
    let mut state = table(2);
    field_down(&mut state, 1, &["scott1"]);
    give(&mut state, 0, &["forsyth4"]);
    play(&mut state, "muster forsyth4 up");
    assert_eq!(power_phase(&state), Some(Clan::Forsyth));
}

#[test]
fn with_four_or_five_players_only_weaker_or_equal_followers_of_the_same_clan_block() {
    // "[...] o poder de um Clã se ativa desde que não haja na escaramuça outros
    // Seguidores do mesmo Clã com força igual ou menor à do seu Seguidor."
    for n_seats in [4, 5] {
        let mut other_clan = table(n_seats);
        field(&mut other_clan, 1, &["scott1", "forsyth9"]);
        give(&mut other_clan, 0, &["forsyth4"]);
        play(&mut other_clan, "muster forsyth4 up");
        assert_eq!(
            power_phase(&other_clan),
            Some(Clan::Forsyth),
            "{n_seats} players"
        );

        let mut same_clan = table(n_seats);
        field(&mut same_clan, 2, &["forsyth3"]);
        give(&mut same_clan, 0, &["forsyth4"]);
        play(&mut same_clan, "muster forsyth4 up");
        assert_eq!(same_clan.phase, Phase::Turn, "{n_seats} players");

        let mut equal = table(n_seats);
        field(&mut equal, 3, &["bruce12a"]);
        give(&mut equal, 0, &["bruce12b"]);
        play(&mut equal, "muster bruce12b up");
        assert_eq!(
            equal.phase,
            Phase::Turn,
            "{n_seats} players: an equal Bruce blocks"
        );
    }
}

#[test]
fn three_players_still_use_the_weaker_follower_rule() {
    let mut state = table(3);
    field(&mut state, 1, &["scott1"]);
    give(&mut state, 0, &["forsyth4"]);
    play(&mut state, "muster forsyth4 up");
    assert_eq!(state.phase, Phase::Turn);
}

#[test]
fn a_power_is_optional() {
    let mut state = table(2);
    stack(&mut state, &["scott12"]);
    give(&mut state, 0, &["forsyth4"]);
    play(&mut state, "muster forsyth4 up");
    play(&mut state, "skip");
    assert!(state.hands[0].is_empty());
    assert_eq!(state.current_seat(), Some(1));
}

// ---- immediate powers ----------------------------------------------------------

#[test]
fn cockburn_becomes_a_supporter_and_brings_a_supporter_into_the_army() {
    // "Quando esta carta é ativada, você a coloca como um Sectário, então pega
    // um Sectário diferente e o coloca à sua frente."
    let mut state = table(2);
    state.supporters = set(&["scott9", "wemyss5"]);
    give(&mut state, 0, &["cockburn2"]);
    play(&mut state, "muster cockburn2 up");
    assert_eq!(
        legal(&state),
        vec!["skip", "exchange wemyss5", "exchange scott9"]
    );
    play(&mut state, "exchange scott9");
    assert_eq!(state.armies[0].face_up, set(&["scott9"]));
    assert_eq!(state.supporters, set(&["cockburn2", "wemyss5"]));
    // The supporter arrives without using its power.
    assert_eq!(state.phase, Phase::Turn);
    assert_eq!(state.current_seat(), Some(1));
}

#[test]
fn fergusson_swaps_with_a_face_up_follower_of_another_player() {
    // "Você pode colocar esta carta no exército de outro jogador e colocar um
    // dos Seguidores dele no seu exército."
    let mut state = table(2);
    field(&mut state, 0, &["scott12"]);
    field(&mut state, 1, &["wemyss8"]);
    give(&mut state, 0, &["fergusson1"]);
    play(&mut state, "muster fergusson1 up");
    assert_eq!(
        legal(&state),
        vec!["skip", "swap wemyss8"],
        "only other players' followers"
    );
    play(&mut state, "swap wemyss8");
    assert_eq!(state.armies[0].face_up, set(&["scott12", "wemyss8"]));
    assert_eq!(state.armies[1].face_up, set(&["fergusson1"]));
}

#[test]
fn fergusson_takes_a_face_down_card_that_stays_face_down() {
    // "Se você pegar uma carta com a face para baixo ela continua com a face
    // para baixo em seu exército."
    let mut state = table(3);
    field_down(&mut state, 1, &["cochrane12"]);
    give(&mut state, 0, &["fergusson1"]);
    play(&mut state, "muster fergusson1 up");
    assert_eq!(legal(&state), vec!["skip", "swap seat1/down0"]);
    play(&mut state, "swap seat1/down0");
    assert_eq!(state.armies[0].face_down, vec![id("cochrane12")]);
    assert_eq!(state.armies[1].face_up, set(&["fergusson1"]));
    // The taker may look at it, the former owner knows it, the third player does not.
    assert_eq!(
        state.observation(0).armies[0].face_down,
        vec![Some(id("cochrane12"))]
    );
    assert_eq!(
        state.observation(1).armies[0].face_down,
        vec![Some(id("cochrane12"))]
    );
    assert_eq!(state.observation(2).armies[0].face_down, vec![None]);
}

#[test]
fn forsyth_draws_the_top_card_of_the_draw_pile() {
    // "Saque a carta do topo da pilha de saque e coloque-a em sua mão."
    let mut state = table(2);
    stack(&mut state, &["scott12", "wemyss1"]);
    give(&mut state, 0, &["forsyth4"]);
    play(&mut state, "muster forsyth4 up");
    play(&mut state, "activate");
    assert_eq!(state.hands[0], set(&["scott12"]));
    assert_eq!(state.observation(1).hand_sizes[0], 1);
    assert!(state.observation(1).known_in_hand[0].is_empty());
}

#[test]
fn makgill_chains_into_further_makgills_while_each_may_activate() {
    // "Se você jogar outra Makgill e ela puder ser ativada, você poderá jogar
    // outra carta e assim por diante."
    let mut state = table(2);
    give(
        &mut state,
        0,
        &["makgill3", "makgill2", "makgill1", "wemyss9"],
    );
    play(&mut state, "muster makgill3 up");
    assert!(offers(&state, "also makgill2 up") && offers(&state, "also wemyss9 down"));
    play(&mut state, "also makgill2 up");
    assert_eq!(power_phase(&state), Some(Clan::Makgill));
    play(&mut state, "also makgill1 up");
    assert_eq!(power_phase(&state), Some(Clan::Makgill));
    play(&mut state, "also wemyss9 down");
    assert_eq!(
        state.armies[0].face_up,
        set(&["makgill1", "makgill2", "makgill3"])
    );
    assert_eq!(state.armies[0].face_down, vec![id("wemyss9")]);
    assert_eq!(state.current_seat(), Some(1));
}

#[test]
fn a_card_mustered_by_makgill_may_use_its_own_power_only_if_its_condition_holds() {
    // "Esta carta pode ser ativa se as condições forem implementadas [...]"
    let mut state = table(2);
    stack(&mut state, &["scott12"]);
    give(&mut state, 0, &["makgill5", "forsyth2"]);
    play(&mut state, "muster makgill5 up");
    play(&mut state, "also forsyth2 up");
    assert_eq!(power_phase(&state), Some(Clan::Forsyth));
    play(&mut state, "activate");
    assert!(state.hands[0].contains(id("scott12")));

    let mut blocked = table(2);
    give(&mut blocked, 0, &["makgill1", "makgill2"]);
    play(&mut blocked, "muster makgill1 up");
    play(&mut blocked, "also makgill2 up");
    assert_eq!(
        blocked.phase,
        Phase::Turn,
        "makgill1 is weaker, so makgill2 cannot activate"
    );
    assert_eq!(blocked.current_seat(), Some(1));
}

#[test]
fn scott_copies_the_power_of_another_face_up_follower_but_not_a_scott() {
    // "Copie os poderes de qualquer Seguidor com a face para cima."
    let mut state = table(2);
    field(&mut state, 0, &["forsyth8"]);
    field(&mut state, 1, &["scott5", "cochrane7"]);
    field_down(&mut state, 1, &["wemyss9"]);
    stack(&mut state, &["scott12"]);
    give(&mut state, 0, &["scott2"]);
    play(&mut state, "muster scott2 up");
    assert_eq!(legal(&state), vec!["skip", "copy forsyth", "copy cochrane"]);
    play(&mut state, "copy forsyth");
    assert_eq!(state.hands[0], set(&["scott12"]));
}

#[test]
fn scott_copying_cochrane_takes_two_supporters() {
    // "Esta carta copia o poder do Clã Cochrane. No final da rodada, o jogador
    // também estará apto a convocar dois Sectários."
    let mut state = table(2);
    field(&mut state, 1, &["cochrane7"]);
    give(&mut state, 0, &["scott1", "wemyss12"]);
    state.supporters = set(&["forsyth3", "forsyth4", "forsyth5"]);
    play(&mut state, "muster scott1 up");
    play(&mut state, "copy cochrane");
    assert!(state.takes_two.contains(id("scott1")));
    field(&mut state, 0, &["wemyss12"]);
    end_skirmish_now(&mut state);
    assert_eq!(state.current_seat(), Some(0));
    play(&mut state, "support forsyth5");
    assert_eq!(state.current_seat(), Some(0), "a second pick");
    play(&mut state, "support forsyth4");
    assert_eq!(state.current_seat(), Some(1));
}

#[test]
fn scott_copying_fergusson_puts_the_scott_in_the_other_army() {
    let mut state = table(2);
    field(&mut state, 1, &["fergusson6", "wemyss9"]);
    give(&mut state, 0, &["scott2"]);
    play(&mut state, "muster scott2 up");
    play(&mut state, "copy fergusson");
    assert_eq!(power_phase(&state), Some(Clan::Fergusson));
    play(&mut state, "swap wemyss9");
    assert_eq!(state.armies[0].face_up, set(&["wemyss9"]));
    assert_eq!(state.armies[1].face_up, set(&["scott2", "fergusson6"]));
}

#[test]
fn scott_copying_bruce_counts_as_any_clan() {
    // RULING (ours): the copied Bruce power makes the Scott itself count as any clan.
    let mut state = table(2);
    field(&mut state, 0, &["wemyss5", "wemyss6"]);
    field(&mut state, 1, &["bruce12a"]);
    give(&mut state, 0, &["scott1"]);
    play(&mut state, "muster scott1 up");
    play(&mut state, "copy bruce");
    assert_eq!(state.army_strength(0), 2 * 12);
}

#[test]
fn wemyss_discards_another_follower_from_any_army() {
    // "Você pode descartar um Seguidor de qualquer exército."
    let mut state = table(2);
    field(&mut state, 0, &["macdonnell10"]);
    field(&mut state, 1, &["cochrane7"]);
    field_down(&mut state, 1, &["scott1"]);
    state.takes_two.insert(id("cochrane7"));
    give(&mut state, 0, &["wemyss1"]);
    play(&mut state, "muster wemyss1 up");
    assert_eq!(
        legal(&state),
        vec![
            "skip",
            "discard macdonnell10",
            "discard cochrane7",
            "discard seat1/down0"
        ]
    );
    play(&mut state, "discard cochrane7");
    assert!(state.discard.contains(id("cochrane7")) && !state.takes_two.contains(id("cochrane7")));
    assert_eq!(state.armies[1].face_down, vec![id("scott1")]);
}

#[test]
fn wemyss_discarding_a_face_down_follower_reveals_it_in_the_discard_pile() {
    let mut state = table(2);
    field_down(&mut state, 1, &["scott1"]);
    give(&mut state, 0, &["wemyss1"]);
    play(&mut state, "muster wemyss1 up");
    play(&mut state, "discard seat1/down0");
    assert!(state.armies[1].is_empty());
    assert!(state.observation(0).discard.contains(id("scott1")));
}

// ---- end-of-round powers ---------------------------------------------------------

#[test]
fn cochrane_takes_two_supporters_and_the_last_player_may_get_none() {
    // "Se você não for o último, significa que o último jogador não receberá nenhum Sectário."
    let mut state = table(2);
    give(&mut state, 0, &["cochrane12"]);
    state.supporters = set(&["wemyss3", "wemyss4"]);
    play(&mut state, "muster cochrane12 up");
    play(&mut state, "activate");
    field(&mut state, 1, &["scott1"]);
    end_skirmish_now(&mut state);
    play(&mut state, "support wemyss3");
    play(&mut state, "support wemyss4");
    assert_eq!(state.won[0], set(&["wemyss3", "wemyss4"]));
    assert!(state.won[1].is_empty());
}

#[test]
fn a_last_placed_cochrane_takes_the_only_supporter_left() {
    // "Se você for o último jogador a escolher e houver apenas um Sectário, pegue-o."
    let mut state = table(2);
    field(&mut state, 0, &["scott12"]);
    field(&mut state, 1, &["cochrane1"]);
    state.takes_two.insert(id("cochrane1"));
    state.supporters = set(&["wemyss3", "wemyss4"]);
    end_skirmish_now(&mut state);
    play(&mut state, "support wemyss4");
    assert_eq!(legal(&state), vec!["support wemyss3"]);
    play(&mut state, "support wemyss3");
    assert_eq!(state.won[1], set(&["wemyss3"]));
}

#[test]
fn an_activated_cochrane_benefits_whoever_controls_it_at_the_end() {
    // "Se [...] seu Seguidor pertencer ao exército de outro jogador no final da
    // Rodada, então o efeito beneficiará este jogador."
    let mut state = table(2);
    field(&mut state, 1, &["cochrane2"]);
    state.takes_two.insert(id("cochrane2"));
    give(&mut state, 0, &["fergusson1"]);
    play(&mut state, "muster fergusson1 up");
    play(&mut state, "swap cochrane2");
    assert_eq!(state.picks_for(0), 2);
    assert_eq!(state.picks_for(1), 1);
}

#[test]
fn macdonnell_survives_one_skirmish_and_not_two() {
    // "Quando a rodada terminar, esta carta não é descartada e permanece em
    // jogo para a próxima rodada. Este poder, no entanto, não pode ser
    // ativado novamente."
    let mut state = table(2);
    // Enough cards to deal two skirmishes without reshuffling the discard pile.
    stack_clans(&mut state, &["cochrane", "cockburn"], 11);
    give(&mut state, 0, &["macdonnell1", "scott5"]);
    play(&mut state, "muster macdonnell1 up");
    play(&mut state, "activate");
    field(&mut state, 1, &["wemyss9"]);
    end_skirmish_now(&mut state);
    assert_eq!(
        state.armies[0].face_up,
        set(&["macdonnell1"]),
        "kept for the next skirmish"
    );
    assert!(state.armies[1].is_empty());
    assert!(state.kept.contains(id("macdonnell1")));
    // It blocks weaker-rule activations as any face-up follower does.
    state.initiative = 0;
    state.turn_offset = 0;
    give(&mut state, 0, &["forsyth2"]);
    play(&mut state, "muster forsyth2 up");
    assert_eq!(state.phase, Phase::Turn);
    end_skirmish_taking_first_supporters(&mut state);
    assert!(
        state.armies[0].is_empty(),
        "discarded after its second skirmish"
    );
    assert!(state.discard.contains(id("macdonnell1")));
    assert!(state.kept.is_empty());
}

#[test]
fn a_macdonnell_whose_power_was_not_used_is_discarded() {
    let mut state = table(2);
    give(&mut state, 0, &["macdonnell1"]);
    play(&mut state, "muster macdonnell1 up");
    play(&mut state, "skip");
    end_skirmish_now(&mut state);
    assert!(state.armies[0].is_empty());
}

#[test]
fn a_kept_macdonnell_alone_still_earns_a_supporter() {
    // "Você deverá ter ao menos um Seguidor em seu exército no final da rodada para convocar um Sectário."
    let mut state = table(2);
    field(&mut state, 0, &["macdonnell4"]);
    state.kept.insert(id("macdonnell4"));
    state.supporters = set(&["scott2", "scott3"]);
    end_skirmish_now(&mut state);
    assert_eq!(state.current_seat(), Some(0));
    play(&mut state, "support scott3");
    assert!(state.armies[0].is_empty());
}

#[test]
fn an_activated_bruce_counts_as_any_clan_for_doubling() {
    // "[...] cartas do Clã Bruce são consideradas, no final da rodada, parte de
    // qualquer Clã que você desejar."
    let mut inactive = table(2);
    field(&mut inactive, 0, &["bruce12a", "scott3", "scott4"]);
    assert_eq!(inactive.army_strength(0), 3 + 4 + 12);
    let mut state = table(2);
    give(&mut state, 0, &["bruce12a"]);
    play(&mut state, "muster bruce12a up");
    play(&mut state, "activate");
    field(&mut state, 0, &["scott3", "scott4"]);
    assert_eq!(state.army_strength(0), 2 * (3 + 4 + 12));
    // "Isso não ganha o poder dos outros Clãs": nothing else changes.
    assert!(state.takes_two.is_empty() && state.stays.is_empty());
}

#[test]
fn an_inactive_bruce_is_its_own_clan() {
    let mut state = table(2);
    field(&mut state, 0, &["bruce12a", "scott3"]);
    assert_eq!(state.army_strength(0), 15);
    let mut two_bruces = table(2);
    field(&mut two_bruces, 0, &["bruce12a", "bruce12b"]);
    assert_eq!(two_bruces.army_strength(0), 48);
}

#[test]
fn scott_copying_cockburn_becomes_the_supporter_itself() {
    let mut state = table(2);
    field(&mut state, 1, &["cockburn8"]);
    state.supporters = set(&["wemyss11"]);
    give(&mut state, 0, &["scott2"]);
    play(&mut state, "muster scott2 up");
    play(&mut state, "copy cockburn");
    assert_eq!(legal(&state), vec!["skip", "exchange wemyss11"]);
    play(&mut state, "exchange wemyss11");
    assert_eq!(state.supporters, set(&["scott2"]));
    assert_eq!(state.armies[0].face_up, set(&["wemyss11"]));
}

#[test]
fn a_macdonnell_taken_by_fergusson_stays_in_its_new_army() {
    // "[...] o poder ativado no final da rodada continua ativado na troca."
    let mut state = table(2);
    field(&mut state, 1, &["macdonnell3"]);
    state.stays.insert(id("macdonnell3"));
    give(&mut state, 0, &["fergusson2"]);
    play(&mut state, "muster fergusson2 up");
    play(&mut state, "swap macdonnell3");
    end_skirmish_now(&mut state);
    assert_eq!(state.armies[0].face_up, set(&["macdonnell3"]));
    assert!(state.armies[1].is_empty());
}
