//! The end of a skirmish, new deals and the end of the game.

use super::*;
use crate::game::EndReason;

#[test]
fn judy_wins_with_eleven_doubled_to_twenty_two() {
    // "Neste exemplo, Judy ganhou a escaramuça com 22 pontos (11 dobrados para
    // 22 [...]). Roger tem apenas uma carta e não pode dobrar sua força. Sean
    // tem duas cartas do mesmo Clã, mas a terceira carta em seu exército não é
    // do mesmo Clã."
    let (judy, roger, sean) = (0, 1, 2);
    let mut state = table(3);
    field(&mut state, judy, &["scott5", "scott6"]);
    field(&mut state, roger, &["wemyss12"]);
    field(&mut state, sean, &["makgill3", "makgill4", "scott7"]);
    assert_eq!(state.army_strength(judy), 22);
    assert_eq!(state.army_strength(roger), 12);
    assert_eq!(state.army_strength(sean), 14);
    let (order, len) = state.skirmish_order();
    assert_eq!(
        &order[..len as usize],
        &[judy as u8, sean as u8, roger as u8]
    );
    // "Poderia ter [...] uma carta Bruce ativada, então sua pontuação teria sido dobrada."
    state.armies[sean].face_up = set(&["makgill3", "makgill4", "bruce12a"]);
    state.any_clan.insert(id("bruce12a"));
    assert_eq!(state.army_strength(sean), 2 * (3 + 4 + 12));
}

#[test]
fn a_twelve_all_tie_goes_to_the_card_of_rank_sixty_six() {
    // "Ambos os jogadores empataram a escaramuça com 12 de força. No entanto,
    // Pierce ganhou o desempate e a escaramuça com sua carta de rank 66 [...]"
    let (other, pierce) = (0, 1);
    let mut state = table(2);
    assert_eq!(cards::rank(id("makgill9")), 66);
    field(&mut state, other, &["wemyss7", "forsyth5"]);
    field(&mut state, pierce, &["makgill9", "scott3"]);
    assert_eq!(state.army_strength(other), 12);
    assert_eq!(state.army_strength(pierce), 12);
    let (order, _) = state.skirmish_order();
    assert_eq!(order[0], pierce as u8);
}

#[test]
fn face_down_followers_count_at_the_end_of_the_skirmish() {
    // "[...] revele todos os Seguidores que estejam com a face virada para baixo
    // na escaramuça e some a força de todas as cartas do exército [...]"
    let mut state = table(2);
    field(&mut state, 0, &["scott5"]);
    field_down(&mut state, 0, &["scott9"]);
    field(&mut state, 1, &["wemyss12"]);
    assert_eq!(state.army_strength(0), 28);
    assert_eq!(state.skirmish_order().0[0], 0);
}

#[test]
fn supporters_are_chosen_from_the_strongest_army_down() {
    // "Pegue um dos Sectários disponíveis [...] Então, na ordem da segunda
    // maior para a menor força de exército, cada jogador pega um Sectário."
    let mut state = table(3);
    field(&mut state, 0, &["scott1"]);
    field(&mut state, 1, &["scott12"]);
    field(&mut state, 2, &["scott6"]);
    state.supporters = set(&["wemyss2", "wemyss7", "wemyss9"]);
    end_skirmish_now(&mut state);
    assert_eq!(state.current_seat(), Some(1));
    assert_eq!(
        legal(&state),
        vec!["support wemyss2", "support wemyss7", "support wemyss9"]
    );
    play(&mut state, "support wemyss7");
    assert_eq!(state.current_seat(), Some(2));
    play(&mut state, "support wemyss9");
    assert_eq!(state.current_seat(), Some(0));
    assert_eq!(legal(&state), vec!["support wemyss2"]);
    play(&mut state, "support wemyss2");
    assert_eq!(state.scores(), &[2, 7, 9]);
    // The next skirmish has begun: "O jogador que ganhou a rodada anterior
    // inicia o primeiro turno da rodada seguinte."
    assert_eq!(state.phase, Phase::Turn);
    assert_eq!(state.initiative, 1);
    assert_eq!(state.current_seat(), Some(1));
}

#[test]
fn a_player_without_followers_takes_no_supporter() {
    // "Um jogador sem nenhum Seguidor não pode pegar Sectário."
    let mut state = table(3);
    field(&mut state, 0, &["scott1"]);
    field(&mut state, 1, &["scott2"]);
    state.supporters = set(&["wemyss2", "wemyss7", "wemyss9"]);
    stack_clans(&mut state, &["forsyth"], 8);
    end_skirmish_now(&mut state);
    play(&mut state, "support wemyss9");
    play(&mut state, "support wemyss7");
    assert!(state.won[2].is_empty());
    // "Se um ou mais Sectários não forem convocados [...] descarte [...]"
    assert!(state.discard.contains(id("wemyss2")));
    assert_eq!(state.phase, Phase::Turn);
}

#[test]
fn with_no_follower_anywhere_nobody_scores_and_the_initiative_stays() {
    // RULING (ours): no army, no winner; the initiative does not move.
    let mut state = table(3);
    state.initiative = 2;
    state.supporters = set(&["wemyss2", "wemyss7", "wemyss9"]);
    end_skirmish_now(&mut state);
    assert_eq!(state.scores(), &[0, 0, 0]);
    assert_eq!(state.initiative, 2);
    assert_eq!(state.skirmish, 1);
    assert_eq!(state.current_seat(), Some(2));
}

#[test]
fn the_table_is_cleared_but_hands_are_kept_between_skirmishes() {
    // "[...] descarte todos os Sectários restantes, todos os Recrutadas e todos
    // os Seguidores. Depois, reponha com novos Sectários e Recrutadas [...]"
    let mut state = table(2);
    give(&mut state, 1, &["cochrane5"]);
    field(&mut state, 0, &["scott1"]);
    field_down(&mut state, 0, &["scott2"]);
    state.recruits[0] = RecruitSlot {
        card: id("wemyss1"),
        face_up: true,
    };
    stack_clans(&mut state, &["forsyth"], 8);
    end_skirmish_now(&mut state);
    assert_eq!(state.hands[1], set(&["cochrane5"]));
    assert!(state.armies[0].is_empty());
    assert_eq!(state.discard, set(&["scott1", "scott2", "wemyss1"]));
    assert_eq!(
        state.recruits.iter().filter_map(|slot| slot.card()).count(),
        5
    );
    assert_eq!(
        state.recruits.iter().filter(|slot| slot.face_up).count(),
        1,
        "the new skirmish's first reveal"
    );
    assert_eq!(state.supporters, set(&["forsyth6", "forsyth7"]));
}

#[test]
fn supporters_all_of_one_strength_are_discarded_and_redrawn() {
    // "Se todos os Sectários que você sacou no início da rodada tiverem a mesma
    // força, descarte todos imediatamente e os reponha com outros novos."
    let mut state = table(2);
    stack(
        &mut state,
        &[
            "forsyth1", "forsyth2", "forsyth3", "forsyth4", "forsyth5", "scott4", "wemyss4",
            "scott5", "wemyss6",
        ],
    );
    end_skirmish_now(&mut state);
    assert_eq!(state.supporters, set(&["scott5", "wemyss6"]));
    assert_eq!(state.discard, set(&["scott4", "wemyss4"]));
}

#[test]
fn an_empty_draw_pile_is_refilled_from_the_shuffled_discard_pile() {
    // "Se as cartas da pilha de saque acabarem, embaralhe a pilha de descarte
    // para formar uma nova pilha de saque."
    let mut state = table(2);
    state.discard = set(&["scott12", "wemyss12", "cochrane12"]);
    give(&mut state, 0, &["forsyth4"]);
    play(&mut state, "muster forsyth4 up");
    play(&mut state, "activate");
    assert_eq!(state.hands[0].len(), 1);
    assert!(state.discard.is_empty());
    assert_eq!(state.draw_pile.len(), 2);
    assert_eq!(
        state.hands[0].union(state.draw_pile.iter().copied().collect()),
        set(&["scott12", "wemyss12", "cochrane12"])
    );
}

#[test]
fn the_game_goes_on_below_forty_points() {
    let mut state = table(2);
    state.scores = [30, 0, 0, 0, 0];
    field(&mut state, 0, &["scott12"]);
    state.supporters = set(&["wemyss9", "wemyss2"]);
    end_skirmish_taking_first_supporters(&mut state);
    assert_eq!(state.scores(), &[32, 0], "seat 1 had no follower");
    assert!(!state.is_terminal());
}

#[test]
fn the_game_ends_once_someone_has_forty_points_and_the_highest_total_wins() {
    // "Continue completando rodadas até que alguém tenha acumulado 40 ou mais
    // em força dos Sectários. Neste ponto, vence o jogador com a maior força."
    let mut state = table(3);
    state.scores = [35, 39, 10, 0, 0];
    field(&mut state, 0, &["scott12"]);
    field(&mut state, 1, &["scott1"]);
    state.supporters = set(&["wemyss9", "wemyss2", "wemyss3"]);
    end_skirmish_now(&mut state);
    play(&mut state, "support wemyss9");
    play(&mut state, "support wemyss2");
    let outcome = state.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::Finished);
    assert_eq!(outcome.scores, vec![44, 41, 10]);
    assert_eq!(outcome.ranks, vec![1, 2, 3]);
    assert!(state.current_seat().is_none() && legal(&state).is_empty());
}

#[test]
fn a_tie_at_the_end_goes_to_the_better_place_in_the_last_skirmish() {
    // "Se dois ou mais jogadores empatarem, então vence o jogador que colocou o
    // maior na última rodada."
    let mut state = table(3);
    state.scores = [38, 40, 38, 0, 0];
    field(&mut state, 0, &["scott12"]);
    state.supporters = set(&["wemyss2", "scott3", "scott4"]);
    end_skirmish_now(&mut state);
    play(&mut state, "support wemyss2");
    let outcome = state.outcome().unwrap();
    assert_eq!(outcome.scores, vec![40, 40, 38]);
    assert_eq!(
        outcome.ranks,
        vec![1, 2, 3],
        "seat 0 won the last skirmish, seat 1 had no follower"
    );
}

#[test]
fn a_game_still_running_after_the_skirmish_cap_is_a_draw_by_move_limit() {
    let mut state = table(2);
    state.skirmish = SKIRMISH_LIMIT - 1;
    state.scores = [12, 30, 0, 0, 0];
    end_skirmish_now(&mut state);
    let outcome = state.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::MoveLimit);
    assert_eq!(outcome.ranks, vec![1, 1]);
    assert_eq!(outcome.scores, vec![12, 30]);
}
