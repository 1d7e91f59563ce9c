//! The rulebook's worked example ("EXEMPLO DE JOGO"), step by step: red, in
//! a 3-player game, plays a 4-action pad, recruits twice, sabotages twice;
//! three pads score in a chain (a fourth ties and leaves the game) and two
//! cards slide back.
//!
//! The rulebook's picture is missing from our copy, so the layout below is
//! reconstructed from its text; every sentence of the example holds in it.
//! The text names the colour of three cards only (the red G, the green F,
//! the blue H); the others are chosen. Pad A is red: the printed "14 Pontos
//! de Vitória" for three pads are their 13 VP (4 + 4 + 5) plus the +1 bonus
//! for a won pad of one's own colour, so one of the three must be red.
//! Coordinates: the log at 0,0, y grows upwards.
//!
//! ```text
//!  y=1   P  B  C  D        P = red's new pad3 (played), B = starting pad
//!  y=0      L  R1 F        L = log
//!  y=-1  A  B1    G
//!  y=-2           H
//!        x=-1 0 1 2
//! ```

use crate::bullfrogs::*;

const RED: u8 = 0;
const BLUE: u8 = 1;
const GREEN: u8 = 2;

fn table_before_reds_turn() -> Bullfrogs {
    let mut state = Bullfrogs::bare_table(3, false);
    state.put_pad((0, 1), "start", NEUTRAL); // B
    state.put_pad((1, 1), "pad4", BLUE); // C
    state.put_pad((2, 1), "pad5", BLUE); // D
    state.put_pad((1, 0), "pad5", GREEN); // R1, right of the log
    state.put_pad((2, 0), "pad4", GREEN); // F, the green card
    state.put_pad((2, -1), "pad3", RED); // G, the red card
    state.put_pad((2, -2), "pad3", BLUE); // H, the blue card
    state.put_pad((-1, -1), "pad4", RED); // A: red, for the +1 of the 14 VP
    state.put_pad((0, -1), "pad4", GREEN); // B1, below the log
    state.put_pieces((0, 1), BLUE, 1, 0);
    state.put_pieces((0, 1), GREEN, 1, 0);
    state.put_pieces((1, 1), RED, 2, 0);
    state.put_pieces((1, 0), RED, 1, 1);
    state.put_pieces((1, 0), BLUE, 0, 1);
    state.put_pieces((1, 0), GREEN, 1, 0);
    state.put_pieces((-1, -1), RED, 1, 0);
    state.put_pieces((-1, -1), BLUE, 1, 0);
    state.put_pieces((-1, -1), GREEN, 1, 0);
    state.put_pieces((0, -1), BLUE, 2, 0);
    state.put_pieces((0, -1), GREEN, 1, 0);
    state.give_cards(RED as usize, &["pad3", "pad5", "pad4"], &["pad4"]);
    state.give_cards(BLUE as usize, &["pad4", "pad4", "pad5"], &["pad3"]);
    state.give_cards(GREEN as usize, &["pad3", "pad5", "pad5"], &["pad4"]);
    state
}

#[test]
fn the_rulebook_worked_turn_plays_out_step_by_step() {
    let mut state = table_before_reds_turn();
    assert_eq!(state.current_seat(), Some(0));

    // "ele escolhe posicionar uma carta com quatro Ícones de Vitória-Régia".
    state.act("play pad3 at -1,1");
    assert_eq!(
        (state.public.phase, state.public.actions_left),
        (Phase::Actions, 4)
    );
    // "ele primeiro recruta 1 Sapo para a Carta Vitória-Régia dois espaços
    // abaixo" (same column, across the gap at -1,0).
    state.act("recruit frog at -1,-1");
    // "Para sua segunda ação, ele recruta 1 Sapo para a Carta à direita."
    state.act("recruit frog at 0,1");
    // "ele sabota os Sapos azul e verde naquela carta, colocando-os na carta
    // adjacente à direita."
    state.act("sabotage blue from 0,1 to 1,1");
    state.act("sabotage green from 0,1 to 1,1");

    // "as duas cartas em destaque serão pontuadas": red picks the order.
    assert_eq!(state.public.phase, Phase::ChooseScore);
    assert_eq!(state.legal_texts(), vec!["score 1,1", "score -1,-1"]);
    state.act("score 1,1");
    // "o jogador vermelho vence a batalha. Ele tem uma Força de 2 (1+1),
    // enquanto cada um dos outros jogadores, azul e verde, têm Força 1."
    assert_eq!(state.public.sink.winner, Some(RED));
    // "O jogador vermelho decide pular o Sapo do jogador verde para a
    // esquerda e o Sapo do jogador azul para a direita."
    assert_eq!(state.public.phase, Phase::Jump);
    assert!(
        !state
            .legal_texts()
            .iter()
            .any(|a| a.starts_with("jump red")),
        "losers' frogs jump first"
    );
    state.act("jump green frog to 0,1");
    state.act("jump blue frog to 2,1");
    // "o jogador vermelho pula um Sapo vermelho para a Carta abaixo" (the
    // only target left: taken automatically). "O Sapo que permaneceu na
    // carta retorna ao estoque do jogador."
    assert_eq!(state.pieces_at((0, 1), GREEN), Some((1, 0)));
    assert_eq!(state.pieces_at((2, 1), BLUE), Some((1, 0)));
    assert_eq!(state.pieces_at((1, 0), RED), Some((2, 1)));
    assert_eq!(
        state.public.won[RED as usize][BLUE as usize][2], 1,
        "red keeps the pad4"
    );

    // The bottom card: red wins again, 2 against 1 and 1.
    assert_eq!(state.legal_texts(), vec!["score 1,0", "score -1,-1"]);
    state.act("score -1,-1");
    assert_eq!(state.public.sink.winner, Some(RED));
    // "Ele deve pular qualquer um dos Sapos derrotados para a Carta à
    // direita. O jogador vermelho decide pular o Sapo verde."
    assert_eq!(
        state.legal_texts(),
        vec!["jump blue frog to 0,-1", "jump green frog to 0,-1"]
    );
    state.act("jump green frog to 0,-1");
    // "Os 2 Sapos vermelhos e o Sapo azul retornam aos estoques."
    assert_eq!(state.public.won[RED as usize][RED as usize][2], 1);

    // "Esta etapa causou múltiplas reações em cadeia, fazendo com que outras
    // duas cartas ficassem cheias." Red scores the one right of the log first.
    assert_eq!(state.public.phase, Phase::ChooseScore);
    state.act("score 1,0");
    // "agora com Força 4 (1+1+2). O jogador azul tem Força 2, e o jogador
    // verde tem Força 1."
    assert_eq!(state.public.sink.winner, Some(RED));
    // "O Sapo do jogador verde deve ser pulado primeiro, então o jogador
    // vermelho decide pulá-lo para a Carta Tronco. Como a única outra carta
    // adjacente é a da direita, o jogador vermelho deve pular o Sapo-Boi do
    // jogador azul para ela."
    assert_eq!(
        state.legal_texts(),
        vec!["jump green frog to 2,0", "jump green frog to 0,0"]
    );
    state.act("jump green frog to 0,0");
    assert_eq!(state.pieces_at((2, 0), BLUE), Some((0, 1)));
    assert_eq!(
        state.public.won[RED as usize][GREEN as usize][3], 1,
        "red keeps the pad5"
    );

    // The pad below the log scores by itself (it is the only full one):
    // "Os jogadores azul e verde têm a mesma Força 2, então a batalha termina
    // em empate. ... o jogador vermelho pula o Sapo do jogador verde para a
    // Carta Tronco."
    assert_eq!(state.public.sink.winner, None);
    assert_eq!(
        state.legal_texts(),
        vec!["jump blue frog to 0,0", "jump green frog to 0,0"]
    );
    state.act("jump green frog to 0,0");
    assert_eq!(state.pieces_at((0, 0), GREEN), Some((2, 0)));
    assert!(
        state.public.table.at(Pos::new(0, -1)).is_none(),
        "a tied pad leaves the game"
    );
    assert_eq!(state.public.won[BLUE as usize], [[0; N_PAD_KINDS]; 5]);
    assert_eq!(state.public.won[GREEN as usize], [[0; N_PAD_KINDS]; 5]);

    // "Ele escolhe deslizar a carta vermelha para a esquerda e depois para
    // cima, conectando a carta verde ao grupo principal. Depois, ele desliza
    // a carta azul para a esquerda e então para cima, posicionando-a à
    // esquerda da Carta Tronco."
    assert_eq!(state.public.phase, Phase::Slide);
    state.act("slide 2,-1 to 1,0");
    assert_eq!(state.public.phase, Phase::Slide);
    assert!(state
        .legal_texts()
        .iter()
        .all(|a| a.starts_with("slide 2,-2 to")));
    state.act("slide 2,-2 to -1,0");
    assert_eq!(
        state.layout(),
        vec![(-1, 0), (-1, 1), (0, 0), (0, 1), (1, 0), (2, 0), (2, 1)]
    );

    // Supplies: every frog is on the table or back in supply; the red
    // bullfrog that sank is out of the game.
    assert_eq!(
        (
            state.public.frog_supply[RED as usize],
            state.public.bullfrog_supply[RED as usize]
        ),
        (13, 1)
    );
    assert_eq!(state.public.frog_supply[BLUE as usize], 13);
    assert_eq!(state.public.frog_supply[GREEN as usize], 11);

    // "Ele conquistou 14 Pontos de Vitória vencendo batalhas em três
    // cartas": the three pads' VP (= spaces, an ASSUMPTION) are 4 + 4 + 5 =
    // 13, and the red pad A adds the +1 own-colour bonus ("Cada Carta
    // Vitória-Régia na pilha de pontuação que seja da cor do jogador vale 1
    // Ponto de Vitória adicional").
    let scores = scoring::final_scores(&state.public.table, &state.public.won, 3, true);
    let red = &scores[RED as usize];
    assert_eq!((red.pads, red.own_color_bonus), (13, 1));
    assert_eq!(red.pads + red.own_color_bonus, 14);
    let won_pads: u8 = state.public.won[RED as usize].iter().flatten().sum();
    assert_eq!(won_pads, 3, "three pads won");

    // "O jogador vermelho compra uma carta ... e seu turno está completo."
    assert_eq!(state.hand(RED as usize).iter().sum::<u8>(), 3);
    assert_eq!(
        (state.public.phase, state.current_seat()),
        (Phase::Play, Some(1))
    );
}
