//! Isaac, the solo automaton: he rolls the movement and action dice (from
//! the seeded dice stream), moves his marker, expels one of the player's
//! frogs and recruits his own on the marker's card. Where the rulebook lets
//! the player choose (an "any direction" roll, where the marker goes when
//! its pad sinks), that choice is the player's action.

use super::cards::{MovementFace, ACTION_DIE, ISAAC_RECRUITS_PER_TURN, MOVEMENT_DIE};
use super::grid::Pos;
use super::{Bullfrogs, Phase, ISAAC, SOLO_PLAYER};

impl Bullfrogs {
    /// Rolls both dice and moves the marker; the actions follow.
    pub(super) fn isaac_turn(&mut self) {
        let face = self.hidden.dice.below(MOVEMENT_DIE.len());
        let actions = ACTION_DIE[self.hidden.dice.below(ACTION_DIE.len())];
        self.public.last_roll = Some((face as u8, actions));
        let marker = self.public.marker;
        let step = match MOVEMENT_DIE[face] {
            MovementFace::Up => Some(Pos::new(marker.x, marker.y + 1)),
            MovementFace::Down => Some(Pos::new(marker.x, marker.y - 1)),
            MovementFace::Left => Some(Pos::new(marker.x - 1, marker.y)),
            MovementFace::Right => Some(Pos::new(marker.x + 1, marker.y)),
            MovementFace::AnyDirection => {
                // "o Sapo-Boi de Isaac deve se mover, mas o jogador escolhe a
                // direção". RULING (ours): with no card next to him he stays.
                self.public.phase = Phase::IsaacDirection;
                return self.settle_marker_choice();
            }
            MovementFace::Blank => None,
        };
        // "Se não houver uma carta adjacente na direção indicada, o Sapo-Boi
        // de Isaac não se move."
        if let Some(cell) = step.filter(|&cell| self.public.table.at(cell).is_some()) {
            self.public.marker = cell;
        }
        self.isaac_actions();
    }

    /// "Se possível, Isaac deve usar sua primeira ação para expulsar um sapo
    /// do jogador"; the rest recruit his frogs there, at most 2, from his
    /// supply or, on a lily pad, from the log. RULING (ours): the expulsion
    /// works on the log too ("mesmo que seja na Carta Tronco").
    pub(super) fn isaac_actions(&mut self) {
        let (_, mut actions) = self.public.last_roll.unwrap_or((0, 0));
        let player = SOLO_PLAYER as usize;
        let isaac = ISAAC as usize;
        let Some(index) = self.public.table.find(self.public.marker) else {
            return self.continue_scoring();
        };
        if actions > 0 && self.public.table.slot(index).frogs[player] > 0 {
            self.public.table.slot_mut(index).frogs[player] -= 1;
            self.public.frog_supply[player] += 1;
            actions -= 1;
        }
        let mut recruited = 0;
        while actions > 0
            && recruited < ISAAC_RECRUITS_PER_TURN
            && self.public.table.slot(index).has_space()
        {
            if self.public.frog_supply[isaac] > 0 {
                self.public.frog_supply[isaac] -= 1;
            } else if index != 0 && self.public.table.slot(0).frogs[isaac] > 0 {
                self.public.table.slot_mut(0).frogs[isaac] -= 1;
            } else {
                break;
            }
            self.public.table.slot_mut(index).frogs[isaac] += 1;
            actions -= 1;
            recruited += 1;
        }
        self.continue_scoring();
    }

    /// Where the marker may go now: next to it for an "any direction" roll;
    /// off a sunk pad, to a card next to that pad, else to the pads with
    /// the most empty spaces. RULING (ours): with no lily pad left at all,
    /// to the log. A marker on a card that slides moves with the card.
    pub(super) fn marker_options(&self, out: &mut Vec<Pos>) {
        out.clear();
        let table = &self.public.table;
        let from = if self.public.phase == Phase::IsaacDirection {
            self.public.marker
        } else {
            self.public.marker_from
        };
        out.extend(
            from.neighbours()
                .into_iter()
                .filter(|&cell| table.at(cell).is_some()),
        );
        if !out.is_empty() || self.public.phase == Phase::IsaacDirection {
            return;
        }
        let pads = table.slots().iter().filter(|s| !s.is_log());
        let most = pads.clone().map(|s| s.empty_spaces()).max();
        out.extend(
            pads.filter(|s| Some(s.empty_spaces()) == most)
                .map(|s| s.pos),
        );
        out.sort_unstable();
        if out.is_empty() {
            out.push(Pos::LOG);
        }
    }

    /// "Se o Sapo-Boi de Isaac estiver sobre uma Carta sendo pontuada, mova-o
    /// para qualquer carta adjacente, incluindo a Carta Tronco."
    pub(super) fn move_marker_off_sunk_pad(&mut self) {
        self.public.phase = Phase::Marker;
        self.settle_marker_choice();
    }

    /// Applies a forced marker move, or waits for the player's choice.
    fn settle_marker_choice(&mut self) {
        let mut cells = Vec::new();
        self.marker_options(&mut cells);
        match cells.as_slice() {
            [] => self.after_marker_move(),
            [only] => self.place_marker(*only),
            _ => {}
        }
    }

    pub(super) fn place_marker(&mut self, to: Pos) {
        self.public.marker = to;
        self.after_marker_move();
    }

    fn after_marker_move(&mut self) {
        if self.public.phase == Phase::IsaacDirection {
            self.isaac_actions();
        } else {
            self.continue_scoring();
        }
    }
}
