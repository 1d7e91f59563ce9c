//! Battles on a full lily pad (who wins, the jump priority) and the final
//! scoring of the standard and the solo game.

use super::action::Piece;
use super::cards::{
    pad_kind, BULLFROG_STRENGTH, FROG_STRENGTH, LOG_MAJORITY_BONUS, LOG_POINTS_PER_BULLFROG,
    LOG_POINTS_PER_FROG, N_PAD_KINDS, OWN_COLOR_BONUS,
};
use super::grid::{Slot, Table};

/// Won cards: `[winner][card color or NEUTRAL][kind]` counts.
pub type ScorePiles = [[[u8; N_PAD_KINDS]; 5]; 4];

/// Battle strength of `color` on a pad.
pub fn strength(slot: &Slot, color: usize) -> u8 {
    slot.frogs[color] * FROG_STRENGTH + slot.bullfrogs[color] * BULLFROG_STRENGTH
}

/// The battle's winner: the single strongest color, `None` on a tie
/// ("Em caso de empate, NINGUÉM VENCE A BATALHA").
pub fn battle_winner(slot: &Slot, n_colors: usize) -> Option<u8> {
    let strengths: [u8; 4] =
        std::array::from_fn(|c| if c < n_colors { strength(slot, c) } else { 0 });
    let best = *strengths[..n_colors].iter().max()?;
    let mut strongest = (0..n_colors).filter(|&c| strengths[c] == best);
    let first = strongest.next()?;
    strongest.next().is_none().then_some(first as u8)
}

/// The highest jump-priority group still on the sinking pad: losers' frogs,
/// losers' bullfrogs, the winner's frogs, the winner's bullfrogs. Returns
/// the piece and the colors (bitmask) that may jump now.
pub fn jump_tier(slot: &Slot, priority_winner: u8, n_colors: usize) -> Option<(Piece, u8)> {
    let winner = priority_winner as usize;
    let losers = |counts: &[u8; 4]| {
        (0..n_colors)
            .filter(|&c| c != winner && counts[c] > 0)
            .fold(0u8, |m, c| m | 1 << c)
    };
    let frogs = losers(&slot.frogs);
    if frogs != 0 {
        return Some((Piece::Frog, frogs));
    }
    let bullfrogs = losers(&slot.bullfrogs);
    if bullfrogs != 0 {
        return Some((Piece::Bullfrog, bullfrogs));
    }
    if winner < n_colors && slot.frogs[winner] > 0 {
        return Some((Piece::Frog, 1 << winner));
    }
    if winner < n_colors && slot.bullfrogs[winner] > 0 {
        return Some((Piece::Bullfrog, 1 << winner));
    }
    None
}

/// One color's points, split the way the rulebook adds them up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColorScore {
    pub pads: i32,
    pub own_color_bonus: i32,
    pub log: i32,
    pub log_majority: i32,
    /// Tie-break: frogs (1) and bullfrogs (2) still on lily pads.
    pub on_pads: i32,
}

impl ColorScore {
    pub fn total(&self) -> i32 {
        self.pads + self.own_color_bonus + self.log + self.log_majority
    }
}

/// Final scores of colors `0..n_colors`; `own_color_bonus` is off in solo.
pub fn final_scores(
    table: &Table,
    won: &ScorePiles,
    n_colors: usize,
    own_color_bonus: bool,
) -> Vec<ColorScore> {
    let log = &table.slots()[0];
    let mut scores: Vec<ColorScore> = (0..n_colors)
        .map(|color| {
            let pile = &won[color];
            let pads = pile
                .iter()
                .flat_map(|by_kind| by_kind.iter().enumerate())
                .map(|(k, &n)| n as i32 * pad_kind(k as u8).victory_points as i32)
                .sum();
            let own: i32 = pile[color].iter().map(|&n| n as i32).sum();
            let on_pads = table.slots()[1..]
                .iter()
                .map(|s| strength(s, color) as i32)
                .sum();
            ColorScore {
                pads,
                own_color_bonus: if own_color_bonus {
                    own * OWN_COLOR_BONUS
                } else {
                    0
                },
                log: log.frogs[color] as i32 * LOG_POINTS_PER_FROG
                    + log.bullfrogs[color] as i32 * LOG_POINTS_PER_BULLFROG,
                log_majority: 0,
                on_pads,
            }
        })
        .collect();
    let best = scores.iter().map(|s| s.log).max().unwrap_or(0);
    if scores.iter().filter(|s| s.log == best).count() == 1 {
        if let Some(leader) = scores.iter_mut().find(|s| s.log == best) {
            leader.log_majority = LOG_MAJORITY_BONUS;
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::super::grid::{Pos, NEUTRAL};
    use super::*;

    #[test]
    fn the_strongest_color_wins_and_a_tie_has_no_winner() {
        // "Sapos valem 1 ponto. Sapos-Boi valem 2 pontos." Green 1+1+2 beats blue 1+1+1.
        let mut slot = Slot::pad(Pos::new(0, 1), 0, NEUTRAL);
        slot.frogs = [0, 3, 2, 0];
        slot.bullfrogs = [0, 0, 1, 0];
        assert_eq!(battle_winner(&slot, 3), Some(2));
        slot.frogs[1] = 4;
        assert_eq!(battle_winner(&slot, 3), None);
    }

    #[test]
    fn losers_frogs_jump_before_losers_bullfrogs_before_the_winners_pieces() {
        let mut slot = Slot::pad(Pos::new(0, 1), 0, NEUTRAL);
        slot.frogs = [1, 1, 0, 0];
        slot.bullfrogs = [1, 1, 1, 0];
        assert_eq!(jump_tier(&slot, 0, 3), Some((Piece::Frog, 0b010)));
        slot.frogs[1] = 0;
        assert_eq!(jump_tier(&slot, 0, 3), Some((Piece::Bullfrog, 0b110)));
        slot.bullfrogs = [1, 0, 0, 0];
        assert_eq!(jump_tier(&slot, 0, 3), Some((Piece::Frog, 0b001)));
        slot.frogs[0] = 0;
        assert_eq!(jump_tier(&slot, 0, 3), Some((Piece::Bullfrog, 0b001)));
        slot.bullfrogs[0] = 0;
        assert_eq!(jump_tier(&slot, 0, 3), None);
    }

    #[test]
    fn final_scoring_adds_pads_own_color_log_and_the_log_majority() {
        // "+1 por carta da cor do jogador; 1 por Sapo e 2 por Sapo-Boi na
        // Tronco; 3 ao jogador com mais pontos na Tronco (empate: nenhum)."
        let mut table = Table::with_log();
        table.slot_mut(0).frogs = [2, 1, 0, 0];
        table.slot_mut(0).bullfrogs = [0, 1, 0, 0];
        let mut won: ScorePiles = Default::default();
        won[0][0][1] = 1; // own pad3: 3 + 1
        won[0][NEUTRAL as usize][0] = 1; // a starting pad: 6
        won[1][0][3] = 1; // red's pad5 won by blue: 5
        let scores = final_scores(&table, &won, 2, true);
        assert_eq!(scores[0].total(), 3 + 1 + 6 + 2);
        assert_eq!(scores[1].total(), 5 + 3 + 3);
        table.slot_mut(0).frogs = [3, 1, 0, 0];
        let tied = final_scores(&table, &won, 2, true);
        assert_eq!((tied[0].log_majority, tied[1].log_majority), (0, 0));
        assert_eq!(final_scores(&table, &won, 2, false)[0].own_color_bonus, 0);
    }
}
