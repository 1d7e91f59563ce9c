//! The turn sequence: play a pad, take its actions, score full pads (with
//! chain reactions), slide disconnected cards back, draw. After each
//! decision the state runs on by itself until the next real decision.

use super::action::{Action, Piece};
use super::cards::{pad_kind, RECRUITS_PER_CARD_PER_TURN};
use super::grid::{mask_indices, Pos, Slot, SlotMask};
use super::scoring::{battle_winner, jump_tier};
use super::slide::{legal_slides, slide_is_legal, slides_if_disconnected, KnownSlides};
use super::{Bullfrogs, Phase, Sink, ISAAC, SOLO_PLAYER};

/// The slots (never the log) in line with the pad played this turn, found
/// when it is played: cards do not move during the action step, so the
/// recruits and sabotages walk these few slots, in slot order, rather than
/// test the whole table on every listing.
#[derive(Debug, Clone, Copy)]
pub(super) struct LineSlots(SlotMask);

impl LineSlots {
    /// Not known (a state built from an observation): found on each use.
    /// No known mask is empty, since the played pad is in its own line.
    pub(super) const UNKNOWN: LineSlots = LineSlots(0);
}

impl Bullfrogs {
    pub(super) fn push_legal_actions(&self, out: &mut Vec<Action>) {
        match self.public.phase {
            Phase::Play => self.push_plays(out),
            Phase::Actions => {
                self.visit_turn_actions(&mut |action| {
                    out.push(action);
                    true
                });
            }
            Phase::ChooseScore => out.extend(self.full_pads().map(|at| Action::Score { at })),
            Phase::Jump => {
                self.visit_jumps(&mut |action| {
                    out.push(action);
                    true
                });
            }
            Phase::Marker | Phase::IsaacDirection => {
                let mut cells = Vec::new();
                self.marker_options(&mut cells);
                out.extend(cells.into_iter().map(|to| Action::Marker { to }));
            }
            Phase::Slide => {
                let mut slides = Vec::new();
                let slides = self.known_slides.get().unwrap_or_else(|| {
                    legal_slides(&self.public.table, &mut slides);
                    &slides
                });
                debug_assert!(self.known_slides.get().is_none_or(|known| {
                    let mut listed = Vec::new();
                    legal_slides(&self.public.table, &mut listed);
                    known == listed
                }));
                out.extend(slides.iter().map(|&(from, to)| Action::Slide { from, to }));
            }
            Phase::Over => {}
        }
    }

    pub(super) fn check_legal(&self, action: &Action) -> bool {
        match (self.public.phase, *action) {
            (Phase::Play, Action::Play { kind, at }) => {
                let hand = &self.hidden.hands[self.public.active as usize];
                hand.get(kind as usize).is_some_and(|&n| n > 0)
                    && self.public.table.is_empty_cell(at)
                    && self.public.table.touches_any_card(at)
            }
            (Phase::Actions, Action::Stop) => true,
            (Phase::Actions, Action::Recruit { piece, at }) => self.recruit_is_legal(piece, at),
            (Phase::Actions, Action::MoveFrog { from, to }) => self.move_frog_is_legal(from, to),
            (Phase::Actions, Action::Sabotage { color, from, to }) => {
                self.sabotage_is_legal(color, from, to)
            }
            (Phase::ChooseScore, Action::Score { at }) => self.full_pads().any(|p| p == at),
            (Phase::Jump, Action::Jump { .. }) => self.visit_jumps(&mut |listed| listed != *action),
            (Phase::Marker | Phase::IsaacDirection, Action::Marker { to }) => {
                let mut cells = Vec::new();
                self.marker_options(&mut cells);
                cells.contains(&to)
            }
            (Phase::Slide, Action::Slide { from, to }) => {
                slide_is_legal(&self.public.table, from, to)
            }
            _ => false,
        }
    }

    pub(super) fn apply_action(&mut self, action: Action) {
        match action {
            Action::Play { kind, at } => self.play(kind, at),
            Action::Recruit { piece, at } => self.recruit(piece, at),
            Action::MoveFrog { from, to } => {
                let color = self.public.active as usize;
                self.slot_at_mut(from).frogs[color] -= 1;
                let target = self.slot_at_mut(to);
                target.frogs[color] += 1;
                target.recruited += 1;
                self.spend_action();
            }
            Action::Sabotage { color, from, to } => {
                self.slot_at_mut(from).frogs[color as usize] -= 1;
                self.slot_at_mut(to).frogs[color as usize] += 1;
                self.spend_action();
            }
            Action::Stop => self.continue_scoring(),
            Action::Score { at } => self.begin_sink(at),
            Action::Jump { color, piece, to } => {
                self.jump(color, piece, to);
                self.continue_sink();
            }
            Action::Marker { to } => self.place_marker(to),
            Action::Slide { from, to } => {
                self.slide(from, to, self.known_slides.one_card_cut_off())
            }
        }
    }

    fn recruit(&mut self, piece: Piece, at: Pos) {
        let color = self.public.active as usize;
        let slot = self.slot_at_mut(at);
        slot.recruited += 1;
        match piece {
            Piece::Frog => {
                slot.frogs[color] += 1;
                self.public.frog_supply[color] -= 1;
            }
            Piece::Bullfrog => {
                slot.bullfrogs[color] += 1;
                self.public.bullfrog_supply[color] -= 1;
            }
        }
        self.spend_action();
    }

    fn slot_at_mut(&mut self, at: Pos) -> &mut Slot {
        let index = self.public.table.find(at).unwrap_or(0);
        self.public.table.slot_mut(index)
    }

    pub(super) fn begin_turn(&mut self) {
        if self.public.solo && self.public.active == ISAAC {
            self.isaac_turn();
            return;
        }
        if self.public.solo {
            // "Ao início de seu turno, o jogador compra 1 Carta ... e a joga."
            self.draw(SOLO_PLAYER as usize);
        }
        self.public.phase = Phase::Play;
    }

    /// Every kind in hand at every open cell, kind by kind: the first
    /// kind's plays are listed from the table, the others copy their cells.
    fn push_plays(&self, out: &mut Vec<Action>) {
        let hand = &self.hidden.hands[self.public.active as usize];
        let mut kinds = (1..hand.len()).filter(|&kind| hand[kind] > 0);
        let Some(first) = kinds.next() else {
            return;
        };
        let start = out.len();
        self.public.table.for_each_open_cell(|at| {
            out.push(Action::Play {
                kind: first as u8,
                at,
            })
        });
        let end = out.len();
        for kind in kinds {
            let copy = out.len();
            out.extend_from_within(start..end);
            for action in &mut out[copy..] {
                if let Action::Play { kind: copied, .. } = action {
                    *copied = kind as u8;
                }
            }
        }
    }

    fn play(&mut self, kind: u8, at: Pos) {
        let color = self.public.active;
        self.hidden.hands[color as usize][kind as usize] -= 1;
        self.public.table.add(Slot::pad(at, kind, color));
        self.public.played = at;
        self.line_slots = LineSlots(self.find_line_slots());
        self.public.actions_left = pad_kind(kind).actions;
        self.public.phase = Phase::Actions;
        self.settle_actions();
    }

    fn spend_action(&mut self) {
        self.public.actions_left -= 1;
        self.settle_actions();
    }

    /// Moves on to scoring once no action is left (or only `stop` is).
    fn settle_actions(&mut self) {
        let any_action = self.public.actions_left > 0
            && self.visit_turn_actions(&mut |action| action == Action::Stop);
        if !any_action {
            self.continue_scoring();
        }
    }

    /// Recruit targets: "QUALQUER espaço desocupado de uma Carta na mesma
    /// linha ou coluna da carta jogada", not the played card, never the
    /// log, at most 2 this turn on one card. RULING (ours): the limit counts
    /// recruits (and recruit-moves), not frogs sabotaged onto the card.
    fn is_recruit_target(&self, slot: &Slot) -> bool {
        self.in_played_line(slot) && self.takes_recruit(slot)
    }

    /// A card (never the log) in the row or column of the played pad, which
    /// counts as in its own line: where recruits land and sabotages start.
    fn in_played_line(&self, slot: &Slot) -> bool {
        slot.pos.in_line_with(self.public.played) && !slot.is_log()
    }

    /// [`Bullfrogs::is_recruit_target`] for a slot known to be in line.
    fn takes_recruit(&self, slot: &Slot) -> bool {
        slot.pos != self.public.played
            && slot.has_space()
            && slot.recruited < RECRUITS_PER_CARD_PER_TURN
    }

    /// The slots in line with the played pad, as found when it was played.
    fn line_slots(&self) -> SlotMask {
        let LineSlots(known) = self.line_slots;
        if known == 0 {
            return self.find_line_slots();
        }
        debug_assert_eq!(known, self.find_line_slots());
        known
    }

    fn find_line_slots(&self) -> SlotMask {
        (self.public.table.slots().iter().enumerate())
            .filter(|(_, s)| self.in_played_line(s))
            .fold(0, |mask, (index, _)| mask | 1 << index)
    }

    fn supply_is_empty(&self) -> bool {
        let color = self.public.active as usize;
        self.public.frog_supply[color] == 0 && self.public.bullfrog_supply[color] == 0
    }

    fn recruit_is_legal(&self, piece: Piece, at: Pos) -> bool {
        let color = self.public.active as usize;
        let in_supply = match piece {
            Piece::Frog => self.public.frog_supply[color],
            Piece::Bullfrog => self.public.bullfrog_supply[color],
        };
        in_supply > 0
            && self
                .public
                .table
                .at(at)
                .is_some_and(|slot| self.is_recruit_target(slot))
    }

    /// "Se não possuir mais Sapos ou Sapos-Boi para recrutar, o jogador pode
    /// mover um Sapo de sua cor que já havia sido jogado em uma Carta
    /// Vitória-Régia para outra ... Sapos-Boi não podem ser recrutados desta
    /// maneira." RULING (ours): the frog may come from any pad; only the
    /// target follows the recruit rules.
    fn move_frog_is_legal(&self, from: Pos, to: Pos) -> bool {
        let color = self.public.active as usize;
        let table = &self.public.table;
        self.supply_is_empty()
            && from != to
            && table
                .at(from)
                .is_some_and(|s| !s.is_log() && s.frogs[color] > 0)
            && table.at(to).is_some_and(|s| self.is_recruit_target(s))
    }

    /// "Pule um Sapo de um OPONENTE de uma Carta na mesma linha ou coluna da
    /// carta jogada, para qualquer Carta adjacente com espaço livre ou a
    /// Carta Tronco." RULING (ours): the log too must be adjacent (a frog
    /// jumps), and the played card itself counts as in its row.
    fn sabotage_is_legal(&self, color: u8, from: Pos, to: Pos) -> bool {
        let table = &self.public.table;
        (color as usize) < self.n_colors()
            && color != self.public.active
            && from.is_adjacent(to)
            && table
                .at(from)
                .is_some_and(|s| self.in_played_line(s) && s.frogs[color as usize] > 0)
            && table.at(to).is_some_and(|s| s.is_log() || s.has_space())
    }

    /// Offers every action of the action step to `visit` (stop last) until
    /// it returns false; returns whether it stopped early.
    fn visit_turn_actions(&self, visit: &mut impl FnMut(Action) -> bool) -> bool {
        self.visit_recruits(visit) || self.visit_sabotages(visit) || !visit(Action::Stop)
    }

    fn visit_recruits(&self, visit: &mut impl FnMut(Action) -> bool) -> bool {
        let color = self.public.active as usize;
        let slots = self.public.table.slots();
        let (frogs, bullfrogs) = (
            self.public.frog_supply[color] > 0,
            self.public.bullfrog_supply[color] > 0,
        );
        let line = self.line_slots();
        let targets = || mask_indices(line).filter(|&index| self.takes_recruit(&slots[index]));
        for at in targets().map(|index| slots[index].pos) {
            if (frogs
                && !visit(Action::Recruit {
                    piece: Piece::Frog,
                    at,
                }))
                || (bullfrogs
                    && !visit(Action::Recruit {
                        piece: Piece::Bullfrog,
                        at,
                    }))
            {
                return true;
            }
        }
        if frogs || bullfrogs {
            return false;
        }
        // The targets once, not once a source: a mask of slots, in slot order.
        let targets: SlotMask = targets().fold(0, |mask, index| mask | 1 << index);
        for source in slots.iter().filter(|s| !s.is_log() && s.frogs[color] > 0) {
            for target in mask_indices(targets).map(|index| &slots[index]) {
                if target.pos != source.pos
                    && !visit(Action::MoveFrog {
                        from: source.pos,
                        to: target.pos,
                    })
                {
                    return true;
                }
            }
        }
        false
    }

    fn visit_sabotages(&self, visit: &mut impl FnMut(Action) -> bool) -> bool {
        let table = &self.public.table;
        let active = self.public.active;
        let n_colors = self.n_colors() as u8;
        // The frog counts of every color but the active one, as bytes of a word.
        let others_mask = !0xffu32.checked_shl(8 * u32::from(active)).unwrap_or(0);
        let slots = table.slots();
        for source in mask_indices(self.line_slots()).map(|index| &slots[index]) {
            // Most cards in line hold no opponent's frog: one word says so.
            if u32::from_le_bytes(source.frogs) & others_mask == 0 {
                continue;
            }
            let victims = (0..n_colors).filter(|&c| c != active && source.frogs[c as usize] > 0);
            let mut open = [Pos::LOG; 4];
            let mut n_open = 0;
            for to in source.pos.neighbours() {
                if table.at(to).is_some_and(|s| s.is_log() || s.has_space()) {
                    open[n_open] = to;
                    n_open += 1;
                }
            }
            for color in victims {
                for &to in &open[..n_open] {
                    if !visit(Action::Sabotage {
                        color,
                        from: source.pos,
                        to,
                    }) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Full pads, in table order.
    fn full_pads(&self) -> impl Iterator<Item = Pos> + '_ {
        self.public
            .table
            .slots()
            .iter()
            .filter(|s| s.is_full())
            .map(|s| s.pos)
    }

    /// "Se mais de uma Carta Vitória-Régia puderem ser pontuadas, o jogador
    /// do turno escolhe a ordem"; repeated until no pad is full.
    pub(super) fn continue_scoring(&mut self) {
        let first_two = {
            let mut full = self.full_pads();
            (full.next(), full.next())
        };
        match first_two {
            (None, _) => self.continue_sliding(),
            (Some(only), None) => self.begin_sink(only),
            (Some(_), Some(_)) => self.public.phase = Phase::ChooseScore,
        }
    }

    fn begin_sink(&mut self, at: Pos) {
        let table = &self.public.table;
        let Some(slot) = table.at(at) else { return };
        let winner = battle_winner(slot, self.n_colors());
        // RULING (ours): in solo, Isaac is the active player on his own turn,
        // so a tie then puts the player's pieces first in the jump order.
        let mut sink = Sink {
            pos: at,
            winner,
            priority_winner: winner.unwrap_or(self.public.active),
            ..Sink::default()
        };
        // "para CADA carta adjacente, desde que seja a Carta Tronco ou uma
        // Carta Vitória-Régia com espaço livre".
        for cell in at.neighbours() {
            if table.at(cell).is_some_and(|s| s.is_log() || s.has_space()) {
                sink.targets[sink.n_targets as usize] = cell;
                sink.n_targets += 1;
            }
        }
        self.public.sink = sink;
        self.continue_sink();
    }

    /// Offers every jump allowed now to `visit` until it returns false;
    /// returns whether it stopped early.
    fn visit_jumps(&self, visit: &mut impl FnMut(Action) -> bool) -> bool {
        let sink = &self.public.sink;
        let Some(slot) = self.public.table.at(sink.pos) else {
            return false;
        };
        let Some((piece, colors)) = jump_tier(slot, sink.priority_winner, self.n_colors()) else {
            return false;
        };
        for color in (0..4u8).filter(|c| colors >> c & 1 == 1) {
            for target in (0..sink.n_targets as usize).filter(|t| sink.served >> t & 1 == 0) {
                if !visit(Action::Jump {
                    color,
                    piece,
                    to: sink.targets[target],
                }) {
                    return true;
                }
            }
        }
        false
    }

    fn jump(&mut self, color: u8, piece: Piece, to: Pos) {
        let sink = self.public.sink;
        for (side, piece_counts) in [(sink.pos, -1i8), (to, 1)] {
            let slot = self.slot_at_mut(side);
            let counts = match piece {
                Piece::Frog => &mut slot.frogs,
                Piece::Bullfrog => &mut slot.bullfrogs,
            };
            counts[color as usize] = counts[color as usize].wrapping_add_signed(piece_counts);
        }
        if let Some(target) = sink.targets[..sink.n_targets as usize]
            .iter()
            .position(|&t| t == to)
        {
            self.public.sink.served |= 1 << target;
        }
    }

    /// Takes forced jumps; stops at a real choice or when the jumps are done.
    fn continue_sink(&mut self) {
        loop {
            let mut options = 0;
            let mut first = None;
            self.visit_jumps(&mut |action| {
                options += 1;
                first.get_or_insert(action);
                options < 2
            });
            match (options, first) {
                (1, Some(Action::Jump { color, piece, to })) => self.jump(color, piece, to),
                (0, _) | (_, None) => return self.finish_sink(),
                _ => {
                    self.public.phase = Phase::Jump;
                    return;
                }
            }
        }
    }

    /// "Quaisquer Sapos remanescentes ... voltam à reserva ..., enquanto
    /// SAPOS-BOI SÃO REMOVIDOS DO JOGO"; the winner takes the card, on a tie
    /// it leaves the game.
    fn finish_sink(&mut self) {
        let sink = self.public.sink;
        let Some(index) = self.public.table.find(sink.pos) else {
            return self.continue_scoring();
        };
        let sunk = self.public.table.remove(index);
        for color in 0..4 {
            self.public.frog_supply[color] += sunk.frogs[color];
        }
        match sink.winner {
            Some(winner) => {
                self.public.won[winner as usize][sunk.owner as usize][sunk.kind as usize] += 1
            }
            None => self.public.sunk_unwon[sunk.owner as usize][sunk.kind as usize] += 1,
        }
        if self.public.solo && self.public.marker == sink.pos {
            self.public.marker_from = sink.pos;
            return self.move_marker_off_sunk_pad();
        }
        self.continue_scoring()
    }

    /// Slides forced moves; stops at a real choice, or ends the turn once
    /// every card is connected to the log.
    pub(super) fn continue_sliding(&mut self) {
        self.known_slides = KnownSlides::UNKNOWN;
        if !self.public.table.may_be_disconnected() {
            debug_assert!(self.public.table.is_connected());
            return self.end_turn();
        }
        // The whole list: when the slide is not forced, the seat to move
        // is shown this list next.
        let mut slides = Vec::with_capacity(64);
        let Some(one_card_cut_off) = slides_if_disconnected(&self.public.table, &mut slides) else {
            self.public.table.mark_connected();
            return self.end_turn();
        };
        match slides.as_slice() {
            [(from, to)] => self.slide(*from, *to, one_card_cut_off),
            [] => {
                debug_assert!(false, "a disconnected table always has a slide");
                self.end_turn()
            }
            _ => {
                self.known_slides = KnownSlides::remember(&slides, one_card_cut_off);
                self.public.phase = Phase::Slide;
            }
        }
    }

    /// Slides a card cut off from the log; `joins_all` when it was the only
    /// one, so that the table is known whole after it.
    fn slide(&mut self, from: Pos, to: Pos, joins_all: bool) {
        let index = self.public.table.find(from).unwrap_or(0);
        self.public.table.move_slot(index, to);
        if joins_all {
            self.public.table.mark_connected();
        }
        if self.public.solo && self.public.marker == from {
            self.public.marker = to;
        }
        self.continue_sliding();
    }

    /// Draws, then passes the turn; the game ends after the turn in which
    /// every card has been played.
    fn end_turn(&mut self) {
        let n_slots = self.public.table.len();
        for index in 0..n_slots {
            self.public.table.slot_mut(index).recruited = 0;
        }
        let active = self.public.active;
        if self.public.solo {
            let player = SOLO_PLAYER as usize;
            if active == SOLO_PLAYER
                && self.hidden.deck_len[player] == 0
                && self.hand_size(player) == 0
            {
                self.public.phase = Phase::Over;
                return;
            }
            self.public.active = if active == SOLO_PLAYER {
                ISAAC
            } else {
                SOLO_PLAYER
            };
            return self.begin_turn();
        }
        self.draw(active as usize);
        if (0..self.n_card_colors()).all(|color| self.hand_size(color) == 0) {
            self.public.phase = Phase::Over;
            return;
        }
        self.public.active = (active + 1) % self.public.n_seats;
        self.begin_turn();
    }
}
