//! Rule tests (each cites the rulebook sentence it checks), setup and
//! information tests; the conformance runs are in `conformance.rs`, the
//! rulebook's worked turn in `worked_example.rs`.

use super::*;
use crate::game::parse_options;

mod conformance;
mod worked_example;

const RED: u8 = 0;
const BLUE: u8 = 1;

fn options(words: &[&str]) -> GameOptions {
    parse_options(words.iter().copied()).unwrap()
}

/// Red to act with a played pad3 at 0,1 (4 actions). Row 1 holds 1,1
/// 2,1 3,1; column 0 holds 0,3 and 0,-1 (and the log); the other pads
/// only keep the table connected.
fn red_acting() -> Bullfrogs {
    let mut state = Bullfrogs::bare_table(2, false);
    for cell in [
        (1, 0),
        (0, -1),
        (-1, 0),
        (1, 1),
        (2, 1),
        (3, 1),
        (0, 3),
        (1, 2),
        (1, 3),
        (2, 0),
        (3, 0),
    ] {
        state.put_pad(cell, "pad5", NEUTRAL);
    }
    state.give_cards(0, &["pad3"], &[]);
    state.give_cards(1, &["pad4"], &[]);
    state.act("play pad3 at 0,1");
    state
}

#[test]
fn setup_deals_three_cards_and_checks_seats_and_options() {
    // "Cada jogador compra 3 Cartas"; "Quando estiver jogando em 4 jogadores,
    // remova uma carta de 3 ações do baralho de cada jogador."
    let three = Bullfrogs::new(&options(&[]), 3, 5).unwrap();
    assert!((0..3).all(|c| three.hand_size(c) == 3 && three.hidden.deck_len[c] == 7));
    let four = Bullfrogs::new(&options(&[]), 4, 5).unwrap();
    assert!((0..4).all(|c| four.hand_size(c) == 3 && four.hidden.deck_len[c] == 6));
    assert_eq!(
        three.layout(),
        vec![(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)],
        "the log and four starting pads"
    );
    assert!(matches!(
        Bullfrogs::new(&options(&[]), 1, 1),
        Err(SetupError::SeatCount { .. })
    ));
    assert!(matches!(
        Bullfrogs::new(&options(&[]), 5, 1),
        Err(SetupError::SeatCount { .. })
    ));
    assert!(matches!(
        Bullfrogs::new(&options(&["solo=true"]), 2, 1),
        Err(SetupError::SeatCount { .. })
    ));
    assert!(matches!(
        Bullfrogs::new(&options(&["solo=maybe"]), 1, 1),
        Err(SetupError::BadOption { .. })
    ));
    assert!(matches!(
        Bullfrogs::new(&options(&["tactics=true"]), 2, 1),
        Err(SetupError::UnknownOption { .. })
    ));
    assert!(crate::new_game("bullfrogs", &options(&["solo=true"]), 1, 3).is_ok());
}

#[test]
fn a_pad_is_played_next_to_a_card_never_diagonally() {
    // "Ela deve ser colocada ... adjacente à Carta Tronco ou a outra Carta";
    // "Cartas diagonais umas às outras NÃO são consideradas adjacentes."
    let mut state = Bullfrogs::bare_table(2, false);
    state.give_cards(0, &["pad4"], &[]);
    let kind = cards::deck_kind_by_name("pad4").unwrap();
    let play = |x, y| Action::Play {
        kind,
        at: Pos::new(x, y),
    };
    assert!(state.is_legal(&play(0, 1)) && state.is_legal(&play(-1, 0)));
    assert!(!state.is_legal(&play(1, 1)), "diagonal to the log");
    assert!(!state.is_legal(&play(0, 2)));
    assert!(!state.is_legal(&play(0, 0)), "the log's cell is taken");
    assert!(
        !state.is_legal(&Action::Play {
            kind: 1,
            at: Pos::new(0, 1)
        }),
        "not in hand"
    );
    assert_eq!(state.legal_texts().len(), 4);
}

#[test]
fn recruits_go_in_the_played_row_or_column_never_on_the_played_card_or_the_log() {
    // "na mesma linha ... ou na mesma coluna da carta jogada"; "NÃO devem ser
    // recrutados na mesma carta jogada"; "NÃO devem ser recrutados na Carta Tronco".
    let state = red_acting();
    let legal = state.legal_texts();
    for target in ["0,3", "1,1", "3,1", "0,-1"] {
        assert!(
            legal.contains(&format!("recruit frog at {target}")),
            "{target}: {legal:?}"
        );
        assert!(legal.contains(&format!("recruit bullfrog at {target}")));
    }
    for target in ["0,1", "0,0", "1,0", "-1,0"] {
        assert!(
            !legal.iter().any(|a| a.ends_with(&format!("at {target}"))),
            "{target}: {legal:?}"
        );
    }
}

#[test]
fn at_most_two_pieces_are_recruited_on_one_card_in_a_turn() {
    // "Jogadores NUNCA devem recrutar mais de 2 Sapos ou Sapos-Boi (em
    // qualquer combinação) na mesma carta durante essa etapa."
    let mut state = red_acting();
    state.act("recruit frog at 1,1");
    state.act("recruit bullfrog at 1,1");
    assert!(!state.legal_texts().iter().any(|a| a.ends_with("at 1,1")));
    assert!(state
        .legal_texts()
        .contains(&"recruit frog at 3,1".to_string()));
}

#[test]
fn with_an_empty_supply_a_recruit_moves_one_of_ones_frogs() {
    // "Se não possuir mais Sapos ou Sapos-Boi para recrutar, o jogador pode
    // mover um Sapo de sua cor ... Sapos-Boi não podem ser recrutados desta maneira."
    let mut state = red_acting();
    state.put_pieces((-1, 0), RED, 13, 0);
    state.put_pieces((1, 0), RED, 1, 1);
    state.put_pieces((0, -1), RED, 0, 1);
    let legal = state.legal_texts();
    assert!(!legal.iter().any(|a| a.starts_with("recruit")), "{legal:?}");
    assert!(legal.contains(&"move frog from -1,0 to 1,1".to_string()));
    assert!(legal.contains(&"move frog from 1,0 to 0,3".to_string()));
    assert!(
        !legal.iter().any(|a| a.starts_with("move frog from 0,-1")),
        "a lone bullfrog does not move"
    );
    assert!(
        !legal.iter().any(|a| a.ends_with("to 1,0")),
        "target off the row and column"
    );
    state.act("move frog from -1,0 to 1,1");
    assert_eq!(state.pieces_at((1, 1), RED), Some((1, 0)));
    assert_eq!(state.pieces_at((-1, 0), RED), Some((12, 0)));
}

#[test]
fn sabotage_jumps_an_opponents_frog_to_an_adjacent_card_with_space_or_the_log() {
    // "Pule um Sapo de um OPONENTE ... para qualquer Carta adjacente com
    // espaço livre ou a Carta Tronco"; "Sapos-Boi NUNCA podem ser sabotados";
    // "A Sabotagem NÃO pode ser feita em Sapos na Carta Tronco."
    let mut state = red_acting();
    state.put_pieces((0, -1), BLUE, 1, 1);
    state.put_pieces((0, 0), BLUE, 2, 0);
    state.put_pieces((1, 1), BLUE, 1, 0);
    state.put_pieces((1, 0), BLUE, 5, 0); // full: no frog may jump onto it
    state.put_pieces((0, 3), RED, 1, 0);
    let legal: Vec<String> = state
        .legal_texts()
        .into_iter()
        .filter(|a| a.starts_with("sabotage"))
        .collect();
    assert_eq!(
        legal,
        vec![
            "sabotage blue from 0,-1 to 0,0",
            "sabotage blue from 1,1 to 1,2",
            "sabotage blue from 1,1 to 2,1",
            "sabotage blue from 1,1 to 0,1"
        ],
        "no bullfrog, not from the log, not to a full pad, not off the row or column, not one's own"
    );
    state.act("sabotage blue from 1,1 to 0,1");
    assert_eq!(state.pieces_at((0, 1), BLUE), Some((1, 0)));
}

#[test]
fn a_player_may_stop_acting_early_and_unfilled_pads_do_not_score() {
    let mut state = red_acting();
    state.act("recruit frog at 1,1");
    state.act("stop");
    assert_eq!(
        (state.public.phase, state.current_seat()),
        (Phase::Play, Some(1))
    );
    assert_eq!(state.pieces_at((1, 1), RED), Some((1, 0)));
}

#[test]
fn a_tie_makes_the_active_player_the_winner_for_the_jump_priority_only() {
    // "Se a batalha terminar em empate, o JOGADOR DO TURNO é considerado o
    // VENCEDOR apenas para a prioridade de pular"; "Caso ninguém tenha
    // vencido a batalha, a Carta Vitória-Régia é removida do jogo".
    let mut state = red_acting();
    state.put_pieces((1, 1), RED, 2, 0);
    state.put_pieces((1, 1), BLUE, 1, 1);
    state.act("recruit frog at 1,1");
    state.act("stop");
    assert_eq!(state.public.sink.winner, None);
    // Blue's pieces jump first, although blue is not beaten.
    assert_eq!(
        state.legal_texts(),
        vec![
            "jump blue frog to 1,2",
            "jump blue frog to 2,1",
            "jump blue frog to 1,0",
            "jump blue frog to 0,1"
        ]
    );
    state.act("jump blue frog to 1,0");
    assert_eq!(
        state.legal_texts(),
        vec![
            "jump blue bullfrog to 1,2",
            "jump blue bullfrog to 2,1",
            "jump blue bullfrog to 0,1"
        ]
    );
    state.act("jump blue bullfrog to 0,1");
    state.act("jump red frog to 1,2");
    // The last red jump (to 2,1) is forced; one red frog goes home.
    assert_eq!(state.pieces_at((2, 1), RED), Some((1, 0)));
    assert_eq!(state.pieces_at((0, 1), BLUE), Some((0, 1)));
    assert!(state.public.table.at(Pos::new(1, 1)).is_none());
    assert_eq!(state.public.won, ScorePiles::default());
    assert_eq!(state.public.frog_supply[RED as usize], 12);
    assert_eq!(
        state.public.bullfrog_supply[BLUE as usize], 1,
        "a bullfrog that jumped is not removed"
    );
}

#[test]
fn bullfrogs_left_on_a_sinking_pad_leave_the_game_and_frogs_return() {
    // "Quaisquer Sapos remanescentes ... voltam à reserva ..., enquanto
    // SAPOS-BOI SÃO REMOVIDOS DO JOGO"; the winner takes the card.
    let mut state = red_acting();
    state.put_pieces((0, 3), RED, 2, 1);
    state.put_pieces((0, 3), BLUE, 1, 0);
    state.act("recruit frog at 0,3");
    state.act("stop");
    // 0,3 has one neighbour (1,3): only the blue frog jumps.
    assert!(state.public.table.at(Pos::new(0, 3)).is_none());
    assert_eq!(state.pieces_at((1, 3), BLUE), Some((1, 0)));
    assert_eq!(state.public.won[RED as usize][NEUTRAL as usize][3], 1);
    assert_eq!(
        (
            state.public.frog_supply[RED as usize],
            state.public.bullfrog_supply[RED as usize]
        ),
        (14, 1)
    );
    assert_eq!(state.public.frog_supply[BLUE as usize], 13);
}

#[test]
fn each_neighbour_receives_at_most_one_piece_and_a_full_neighbour_none() {
    // "pula 1 Sapo ... para CADA carta adjacente, desde que seja a Carta
    // Tronco ou uma Carta Vitória-Régia com espaço livre".
    let mut state = red_acting();
    state.put_pieces((2, 1), BLUE, 5, 0);
    state.put_pieces((1, 1), BLUE, 4, 0);
    state.act("recruit frog at 1,1");
    state.act("stop");
    assert_eq!(state.legal_texts(), vec!["score 1,1", "score 2,1"]);
    state.act("score 1,1");
    // Blue wins 4-1: red's frog jumps first, anywhere but the full 2,1.
    assert_eq!(
        state.legal_texts(),
        vec![
            "jump red frog to 1,2",
            "jump red frog to 1,0",
            "jump red frog to 0,1"
        ]
    );
    state.act("jump red frog to 0,1");
    assert_eq!(
        state.legal_texts(),
        vec!["jump blue frog to 1,2", "jump blue frog to 1,0"]
    );
    state.act("jump blue frog to 1,2");
    // The last blue jump is forced; 2 blue frogs go home; 2,1 scores next.
    assert_eq!(state.pieces_at((1, 0), BLUE), Some((1, 0)));
    assert_eq!(state.public.won[BLUE as usize][NEUTRAL as usize][3], 1);
    assert_eq!(state.public.frog_supply[BLUE as usize], 14 - 9 + 2);
    assert_eq!(
        (state.public.phase, state.public.sink.pos),
        (Phase::Jump, Pos::new(2, 1))
    );
}

#[test]
fn the_game_ends_when_every_card_is_played_and_scores_the_log_with_its_majority() {
    // "O jogo termina ao final do turno em que todas as Cartas ... tiverem
    // sido jogadas." Tie-break: "os jogadores empatados pontuam seus Sapos
    // (1) e Sapos-Boi (2) sobre as Cartas Vitória-Régia que ainda estejam em jogo."
    let mut state = Bullfrogs::bare_table(2, false);
    state.put_pad((0, 1), "pad5", NEUTRAL);
    state.put_pieces((0, 0), RED, 2, 0);
    state.put_pieces((0, 0), BLUE, 0, 1);
    state.give_cards(0, &["pad5"], &[]);
    state.give_cards(1, &["pad5"], &[]);
    // Red has no target in its row or column: only `stop`, taken for it.
    state.act("play pad5 at 1,0");
    assert_eq!(state.current_seat(), Some(1));
    state.act("play pad5 at -1,0");
    state.act("recruit frog at 1,0");
    state.act("stop");
    assert_eq!(state.current_seat(), None);
    let outcome = state.outcome().unwrap();
    // Log points 2 each: no majority bonus. Blue wins the tie-break with a frog on a pad.
    assert_eq!(outcome.scores, vec![2, 2]);
    assert_eq!(outcome.ranks, vec![2, 1]);
}

#[test]
fn a_player_draws_back_to_three_after_the_turn() {
    // "compra uma Carta ... para ter um total de três cartas. Caso não haja
    // mais Cartas ... em sua pilha de compras, esta etapa é pulada."
    let mut state = red_acting();
    assert_eq!(state.hand_size(0), 0);
    state.hidden.hands[0][1] = 2;
    state.give_cards(0, &[], &["pad5"]);
    state.act("stop");
    assert_eq!(state.hand_size(0), 3);
    assert_eq!(state.hidden.deck_len[0], 0);
}

#[test]
fn observations_hide_other_hands_and_deck_order_only() {
    let state = Bullfrogs::new(&options(&[]), 3, 11).unwrap();
    let mut rng = Rng::seeded(1);
    let other = state.resample_hidden(0, &mut rng);
    assert_eq!(other.observation(0), state.observation(0));
    assert_eq!(other.hidden.hands[0], state.hidden.hands[0]);
    let seen = state.observation(1);
    assert_eq!(
        (seen.hand, seen.hand_sizes, seen.deck_sizes),
        (state.hidden.hands[1], [3, 3, 3, 0], [7, 7, 7, 0])
    );
    assert_ne!(state.observation(0), state.observation(1));
}

// ---- Solo ----

fn solo_options() -> GameOptions {
    options(&["solo=true"])
}

#[test]
fn solo_isaac_moves_first_and_the_player_plays_the_card_just_drawn() {
    // "O jogador e Isaac têm turnos alternados, com Isaac iniciando o jogo";
    // "Ao início de seu turno, o jogador compra 1 Carta ... e a joga".
    for seed in 0..50 {
        let state = Bullfrogs::new(&solo_options(), 1, seed).unwrap();
        assert!(state.public.last_roll.is_some(), "Isaac rolled");
        if state.public.phase == Phase::Play {
            assert_eq!(state.hand_size(0), 1);
            assert_eq!(state.hidden.deck_len[0], 9);
        }
        let isaac_on_table: u8 = state
            .public
            .table
            .slots()
            .iter()
            .map(|s| s.frogs[ISAAC as usize])
            .sum();
        assert!(isaac_on_table <= 2, "at most 2 recruits per turn");
    }
}

/// A solo table ready for Isaac's actions with the marker at `marker`.
fn isaac_acting(marker: (i8, i8), roll: (u8, u8)) -> Bullfrogs {
    let mut state = Bullfrogs::bare_table(1, true);
    state.put_pad((0, 1), "pad5", NEUTRAL);
    state.put_pad((1, 0), "pad4", NEUTRAL);
    state.public.active = ISAAC;
    state.public.marker = Pos::new(marker.0, marker.1);
    state.public.last_roll = Some(roll);
    state
}

#[test]
fn isaac_expels_a_player_frog_first_then_recruits_at_most_two() {
    // "Isaac deve usar sua primeira ação para expulsar um sapo do jogador";
    // "Isaac NÃO PODE recrutar mais de 2 Sapos na carta em que está durante
    // o mesmo turno". Bullfrogs cannot be expelled.
    let mut state = isaac_acting((0, 1), (5, 3));
    state.put_pieces((0, 1), RED, 1, 1);
    state.give_cards(0, &[], &["pad4"]);
    state.isaac_actions();
    assert_eq!(state.pieces_at((0, 1), RED), Some((0, 1)));
    assert_eq!(state.pieces_at((0, 1), ISAAC), Some((2, 0)));
    assert_eq!(state.public.frog_supply[RED as usize], 14);
    let mut more = isaac_acting((0, 1), (5, 3));
    more.give_cards(0, &[], &["pad4"]);
    more.isaac_actions();
    assert_eq!(
        more.pieces_at((0, 1), ISAAC),
        Some((2, 0)),
        "3 actions, still only 2 recruits"
    );
}

#[test]
fn isaac_recruits_on_the_log_and_from_the_log_when_his_supply_is_empty() {
    // "Diferente do jogador, Isaac PODE recrutar na Carta Tronco"; "Se Isaac
    // estiver em uma Carta Vitória-Régia e não possuir mais Sapos em seu
    // estoque, retire Sapos dele da Carta Tronco".
    let mut on_log = isaac_acting((0, 0), (5, 2));
    on_log.give_cards(0, &[], &["pad4"]);
    on_log.isaac_actions();
    assert_eq!(on_log.pieces_at((0, 0), ISAAC), Some((2, 0)));
    let mut empty = isaac_acting((1, 0), (5, 2));
    empty.give_cards(0, &[], &["pad4"]);
    empty.put_pieces((0, 0), ISAAC, 1, 0);
    empty.public.frog_supply[ISAAC as usize] = 0;
    empty.isaac_actions();
    assert_eq!(
        empty.pieces_at((1, 0), ISAAC),
        Some((1, 0)),
        "one from the log, then the actions are lost"
    );
    assert_eq!(empty.pieces_at((0, 0), ISAAC), Some((0, 0)));
}

#[test]
fn the_marker_follows_the_movement_die_and_stays_where_there_is_no_card() {
    // "Se não houver uma carta adjacente na direção indicada, o Sapo-Boi de
    // Isaac não se move"; "Se o Dado de Movimento mostrar as 4 direções, o
    // Sapo-Boi de Isaac deve se mover, mas o jogador escolhe".
    let mut state = isaac_acting((0, 0), (0, 1));
    state.give_cards(0, &[], &["pad4", "pad4"]);
    state.public.phase = Phase::IsaacDirection;
    assert_eq!(state.legal_texts(), vec!["marker to 0,1", "marker to 1,0"]);
    state.act("marker to 1,0");
    assert_eq!(state.public.marker, Pos::new(1, 0));
    assert_eq!(
        state.pieces_at((1, 0), ISAAC),
        Some((1, 0)),
        "the action die's one action recruits there"
    );
    assert_eq!(state.public.phase, Phase::Play, "the player's turn follows");
}

#[test]
fn a_marker_on_a_sunk_pad_moves_to_a_card_next_to_it_chosen_by_the_player() {
    // "Se o Sapo-Boi de Isaac estiver sobre uma Carta sendo pontuada, mova-o
    // para qualquer carta adjacente, incluindo a Carta Tronco."
    let mut state = isaac_acting((1, 0), (5, 2));
    state.put_pad((1, 1), "pad3", NEUTRAL);
    state.put_pieces((1, 0), RED, 2, 0);
    // No cards left for the player: the game ends after this turn.
    state.isaac_actions();
    // Isaac expels one red frog and recruits 1 (pad4: red 1 + Isaac 1 = 2 of 4).
    assert_eq!(state.pieces_at((1, 0), ISAAC), Some((1, 0)));
    assert_eq!(state.pieces_at((1, 0), RED), Some((1, 0)));
    // Fill the pad and score it as at the end of a turn.
    state.put_pieces((1, 0), ISAAC, 2, 0);
    state.continue_scoring();
    state.act("jump red frog to 0,0");
    assert_eq!(
        state.public.won[ISAAC as usize][NEUTRAL as usize][2], 1,
        "Isaac's won cards go to his pile"
    );
    assert_eq!(state.public.phase, Phase::Marker);
    assert_eq!(state.legal_texts(), vec!["marker to 1,1", "marker to 0,0"]);
    state.act("marker to 1,1");
    assert_eq!(
        (state.public.marker, state.public.phase),
        (Pos::new(1, 1), Phase::Over)
    );
}

#[test]
fn solo_scores_the_player_minus_isaac_without_the_own_color_bonus() {
    // "Quaisquer pontos conquistados por Isaac são subtraídos da pontuação do
    // jogador"; "O jogador não recebe adicionais por Cartas ... de sua própria cor."
    let mut state = Bullfrogs::bare_table(1, true);
    state.public.won[RED as usize][RED as usize][3] = 2; // 10, no bonus
    state.public.won[ISAAC as usize][NEUTRAL as usize][0] = 1; // 6
    state.put_pieces((0, 0), ISAAC, 2, 0); // Isaac: log 2 + majority 3
    state.public.phase = Phase::Over;
    assert_eq!(state.outcome().unwrap().scores, vec![10 - 11]);
    assert_eq!(state.solo_rank_title(), Some("Squire Frog"));
}

#[test]
fn every_turn_starts_on_a_connected_table_and_the_game_ends_with_every_card_played() {
    // "ESTEJA CERTO DE QUE NÃO HÁ MAIS CARTAS VITÓRIA-RÉGIA CHEIAS"; sliding
    // ends when "todas as cartas formarem um grupo contínuo".
    let mut rng = Rng::seeded(99);
    for (seed, n_seats, words) in [
        (1, 2, &[][..]),
        (2, 3, &[]),
        (3, 4, &[]),
        (4, 1, &["solo=true"]),
    ] {
        for game in 0..100 {
            let mut state = Bullfrogs::new(&options(words), n_seats, seed * 1000 + game).unwrap();
            let mut legal = Vec::new();
            while !state.is_terminal() {
                if state.public.phase == Phase::Play {
                    assert!(state.public.table.is_connected(), "seed {seed} game {game}");
                    assert!(!state.public.table.slots().iter().any(|s| s.is_full()));
                }
                legal.clear();
                state.legal_actions(&mut legal);
                state.apply_legal(&legal[rng.below(legal.len())]);
            }
            // "O jogo termina ao final do turno em que todas as Cartas ...
            // de todos os jogadores, tiverem sido jogadas."
            assert!((0..n_seats).all(|c| state.hand_size(c) == 0 && state.hidden.deck_len[c] == 0));
        }
    }
}

#[test]
fn actions_far_off_the_board_are_refused_without_harm() {
    let mut state = Bullfrogs::new(&options(&[]), 2, 1).unwrap();
    let before = state.state_hash();
    for text in [
        "play pad4 at 46,46",
        "play pad4 at -46,0",
        "recruit frog at 46,-46",
        "slide 46,46 to -46,-46",
    ] {
        let action: Action = text.parse().unwrap();
        assert!(state.apply(&action).is_err(), "{text}");
    }
    assert_eq!(state.state_hash(), before);
}
