//! Which decisions the player to move has, whether one is legal, and what
//! each does.

use super::action::{Action, DeckKind};
use super::cards::{
    face, is_clan, is_elite_troop, tactic, TacticKind, ALL_CLAN, ALL_TACTICS, BANSHEE, BLUFF,
    JOKER_A, RECRUITER, STRATEGIST, TRAITOR,
};
use super::{hand_faces, Phase, SchottenTotten, N_STONES};
use crate::cards::CardSet;

impl SchottenTotten {
    /// Tactics variant: you may not play a tactic card while you have played
    /// more than your opponent (you may be at most one ahead).
    fn may_play_tactic(&self, seat: usize) -> bool {
        self.options.tactics && self.tactics_played[seat] <= self.tactics_played[1 - seat]
    }

    fn clan_card_playable(&self, seat: usize) -> bool {
        !self.hands[seat].intersection(ALL_CLAN).is_empty() && self.rooms(seat) != 0
    }

    /// Every card play of the player to move, in a fixed order: clan cards,
    /// then tactic cards, by card id, then by stone.
    pub(super) fn play_actions(&self, out: &mut Vec<Action>) {
        let seat = self.to_move as usize;
        let rooms = self.rooms(seat);
        Self::push_clan_placements(self.hands[seat].intersection(ALL_CLAN), rooms, out);
        if !self.may_play_tactic(seat) {
            return;
        }
        for card in hand_faces(self.hands[seat].intersection(ALL_TACTICS)) {
            match tactic(card).kind {
                TacticKind::EliteTroop { .. } => {
                    if card != JOKER_A || !self.joker_played[seat] {
                        Self::push_placements(rooms, card, out);
                    }
                }
                TacticKind::CombatMode => {
                    for stone in 0..N_STONES as u8 {
                        if self.stones[stone as usize].owner.is_none() {
                            out.push(Action::Play { card, stone });
                        }
                    }
                }
                TacticKind::Ruse => self.push_ruse(seat, card, out),
            }
        }
    }

    /// The stones where `seat` may add a card, as a mask.
    fn rooms(&self, seat: usize) -> u16 {
        self.stones_where(|st| st.has_room(seat))
    }

    /// [`Self::push_placements`] of every card of `clan` (the hot path of
    /// every playout): each card's row is built whole, nine actions with the
    /// open stones packed at the front, copied at once and cut back to the
    /// open stones, so that no loop runs per action.
    fn push_clan_placements(clan: CardSet, rooms: u16, out: &mut Vec<Action>) {
        // Packed without a branch per stone: each is written, and kept
        // (the count moves on) only when open.
        let mut stones = [0u8; N_STONES];
        let mut n_stones = 0;
        for stone in 0..N_STONES {
            stones[n_stones.min(N_STONES - 1)] = stone as u8;
            n_stones += (rooms >> stone & 1) as usize;
        }
        if n_stones == 0 {
            return;
        }
        for card in crate::bits::bits(clan.0 as u64).map(|card| card as u8) {
            let row = stones.map(|stone| Action::Play { card, stone });
            let len = out.len();
            out.extend_from_slice(&row);
            out.truncate(len + n_stones);
        }
    }

    fn push_placements(rooms: u16, card: u8, out: &mut Vec<Action>) {
        for stone in crate::bits::bits(rooms) {
            out.push(Action::Play {
                card,
                stone: stone as u8,
            });
        }
    }

    fn push_ruse(&self, seat: usize, ruse: u8, out: &mut Vec<Action>) {
        let other = 1 - seat;
        for from in 0..N_STONES as u8 {
            let stone = &self.stones[from as usize];
            if stone.owner.is_some() {
                continue;
            }
            match ruse {
                RECRUITER => {}
                STRATEGIST => {
                    for card in stone.sides[seat].cards().iter().map(|&c| face(c)) {
                        for to in 0..N_STONES as u8 {
                            if to != from && self.stones[to as usize].has_room(seat) {
                                out.push(Action::Strategist {
                                    card,
                                    from,
                                    to: Some(to),
                                });
                            }
                        }
                        out.push(Action::Strategist {
                            card,
                            from,
                            to: None,
                        });
                    }
                }
                BANSHEE => {
                    for card in stone.sides[other].cards().iter().map(|&c| face(c)) {
                        out.push(Action::Banshee { card, stone: from });
                    }
                }
                TRAITOR => {
                    // RULING: the Traitor's card may land on any unclaimed stone on
                    // your side with room, the stone it came from included. The seeds
                    // read two ways. "Any": seed 000 ("a posicione em qualquer Pedra
                    // não reivindicada em seu lado") and the newer (2016 IELLO) text
                    // of seed 004 ("placez-la devant une Borne non revendiquée de
                    // votre côté"). "Another": seed 001 ("on another unclaimed
                    // Stone") and the older (2004 PS-games) text of seed 004 ("la
                    // place face visible sur une autre borne disponible de son
                    // côté"). We keep "any", the reading of the newest printing.
                    for card in stone.sides[other]
                        .cards()
                        .iter()
                        .copied()
                        .filter(|&c| is_clan(c))
                    {
                        for to in 0..N_STONES as u8 {
                            if self.stones[to as usize].has_room(seat) {
                                out.push(Action::Traitor { card, from, to });
                            }
                        }
                    }
                }
                _ => unreachable!("the four ruses are listed above"),
            }
        }
        if ruse == RECRUITER {
            out.push(Action::Recruiter);
        }
    }

    /// Whether the player to move has any card play (without listing them).
    pub(super) fn has_play(&self) -> bool {
        let seat = self.to_move as usize;
        if self.clan_card_playable(seat) {
            return true;
        }
        if !self.may_play_tactic(seat) || self.hands[seat].intersection(ALL_TACTICS).is_empty() {
            return false;
        }
        let mut plays = Vec::new();
        self.play_actions(&mut plays);
        !plays.is_empty()
    }

    pub(super) fn legal(&self, out: &mut Vec<Action>) {
        let seat = self.to_move as usize;
        match self.phase {
            Phase::StartClaims | Phase::Claims => {
                out.extend(
                    (0..N_STONES as u8)
                        .filter(|s| self.claimable >> s & 1 == 1)
                        .map(Action::Claim),
                );
                out.push(Action::EndClaims);
            }
            Phase::Play => {
                self.play_actions(out);
                // You may pass only when you cannot play a clan card.
                if self.options.tactics && !self.clan_card_playable(seat) {
                    out.push(Action::Pass);
                }
            }
            Phase::Draw | Phase::RecruitDraw(_) => {
                let draw = if self.phase == Phase::Draw {
                    Action::Draw
                } else {
                    Action::RecruitDraw
                };
                if !self.clan_deck.is_empty() {
                    out.push(draw(DeckKind::Clan));
                }
                if !self.tactic_deck.is_empty() {
                    out.push(draw(DeckKind::Tactic));
                }
            }
            Phase::RecruitReturn(_) => out.extend(hand_faces(self.hands[seat]).map(Action::Return)),
            Phase::Over(_) => {}
        }
    }

    pub(super) fn check(&self, action: &Action) -> bool {
        let seat = self.to_move as usize;
        match (*action, self.phase) {
            (Action::Play { card, stone }, Phase::Play) => {
                self.can_play_on(seat, card, stone as usize)
            }
            (Action::Recruiter, Phase::Play) => self.can_play_tactic(seat, RECRUITER),
            (Action::Strategist { card, from, to }, Phase::Play) => {
                self.can_play_tactic(seat, STRATEGIST)
                    && self.unclaimed_side_has(seat, from as usize, card)
                    && to.is_none_or(|to| {
                        to != from
                            && self
                                .stones
                                .get(to as usize)
                                .is_some_and(|s| s.has_room(seat))
                    })
            }
            (Action::Banshee { card, stone }, Phase::Play) => {
                self.can_play_tactic(seat, BANSHEE)
                    && self.unclaimed_side_has(1 - seat, stone as usize, card)
            }
            (Action::Traitor { card, from, to }, Phase::Play) => {
                // RULING: `to` may equal `from` ("any" stone on your side, seeds
                // 000 and 004 (2016); "another" in seed 001 and 004 (2004)); the
                // readings are quoted in `push_ruse` above.
                self.can_play_tactic(seat, TRAITOR)
                    && is_clan(card)
                    && self.unclaimed_side_has(1 - seat, from as usize, card)
                    && self
                        .stones
                        .get(to as usize)
                        .is_some_and(|s| s.has_room(seat))
            }
            (Action::Pass, Phase::Play) => self.options.tactics && !self.clan_card_playable(seat),
            (Action::Claim(stone), Phase::StartClaims | Phase::Claims) => {
                stone < 9 && self.claimable >> stone & 1 == 1
            }
            (Action::EndClaims, Phase::StartClaims | Phase::Claims) => true,
            (Action::Draw(deck), Phase::Draw)
            | (Action::RecruitDraw(deck), Phase::RecruitDraw(_)) => match deck {
                DeckKind::Clan => !self.clan_deck.is_empty(),
                DeckKind::Tactic => !self.tactic_deck.is_empty(),
            },
            (Action::Return(card), Phase::RecruitReturn(_)) => self.hand_card(seat, card).is_some(),
            _ => false,
        }
    }

    fn can_play_tactic(&self, seat: usize, card: u8) -> bool {
        self.may_play_tactic(seat) && self.hand_card(seat, card).is_some()
    }

    fn unclaimed_side_has(&self, seat: usize, stone: usize, card: u8) -> bool {
        stone < N_STONES
            && self.stones[stone].owner.is_none()
            && self.stones[stone].sides[seat].position(card).is_some()
    }

    fn can_play_on(&self, seat: usize, card: u8, stone: usize) -> bool {
        if stone >= N_STONES || self.hand_card(seat, card).is_none() {
            return false;
        }
        if is_clan(card) {
            return self.stones[stone].has_room(seat);
        }
        if !self.may_play_tactic(seat) {
            return false;
        }
        match tactic(card).kind {
            // A player may play at most one Joker in the whole round.
            TacticKind::EliteTroop { .. } => {
                self.stones[stone].has_room(seat) && (card != JOKER_A || !self.joker_played[seat])
            }
            TacticKind::CombatMode => self.stones[stone].owner.is_none(),
            TacticKind::Ruse => false,
        }
    }

    pub(super) fn perform(&mut self, action: &Action) {
        let seat = self.to_move as usize;
        self.decisions_this_round += 1;
        match *action {
            Action::Play { card, stone } => {
                let card = self.hand_card(seat, card).expect("checked");
                self.consecutive_passes = 0;
                if is_clan(card) {
                    self.hands[seat].remove(card);
                } else {
                    self.play_tactic_from_hand(card);
                }
                if is_clan(card) || is_elite_troop(card) {
                    self.joker_played[seat] |= face(card) == JOKER_A;
                    self.place(seat, stone as usize, card);
                } else {
                    self.set_combat_mode(stone as usize, card);
                }
                self.after_play();
            }
            Action::Recruiter => {
                // The turn's draw still follows, as after any card, and only
                // while the hand holds fewer than 7 (normally it is full again).
                self.start_ruse(RECRUITER);
                self.phase = Phase::RecruitDraw(3);
                self.advance_recruiter();
            }
            Action::Strategist { card, from, to } => {
                self.start_ruse(STRATEGIST);
                let lifted = self.lift(seat, from as usize, card);
                match to {
                    Some(to) => self.place(seat, to as usize, lifted),
                    None => self.discard_card(lifted),
                }
                self.after_play();
            }
            Action::Banshee { card, stone } => {
                self.start_ruse(BANSHEE);
                let lifted = self.lift(1 - seat, stone as usize, card);
                self.discard_card(lifted);
                self.after_play();
            }
            Action::Traitor { card, from, to } => {
                // RULING: `to` may be `from` (see the two readings in `push_ruse`).
                self.start_ruse(TRAITOR);
                let lifted = self.lift(1 - seat, from as usize, card);
                self.place(seat, to as usize, lifted);
                self.after_play();
            }
            Action::Pass => self.pass(),
            Action::Claim(stone) => self.claim(stone as usize),
            Action::EndClaims => self.end_claims(),
            Action::Draw(deck) => {
                self.draw(deck);
                self.end_turn();
            }
            Action::RecruitDraw(deck) => {
                self.draw(deck);
                if let Phase::RecruitDraw(left) = self.phase {
                    self.phase = Phase::RecruitDraw(left - 1);
                }
                self.advance_recruiter();
            }
            Action::Return(card) => self.put_back(card),
        }
        if self.decisions_this_round > super::MAX_DECISIONS_PER_ROUND
            && !matches!(self.phase, Phase::Over(_))
        {
            self.phase = Phase::Over(crate::game::EndReason::MoveLimit);
        }
    }

    /// Ruses go face up on the discard pile.
    fn start_ruse(&mut self, card: u8) {
        self.consecutive_passes = 0;
        self.play_tactic_from_hand(card);
        self.discard_card(card);
    }

    /// Combat modes lie under the stone for the rest of the round. Mud Fight
    /// makes every side there need 4 cards: a side of 3 is no longer complete.
    fn set_combat_mode(&mut self, stone: usize, card: u8) {
        let st = &mut self.stones[stone];
        if card == BLUFF {
            st.bluff = true;
        } else {
            st.mud = true;
            let size = st.size();
            for side in &mut st.sides {
                if (side.len as usize) < size {
                    side.completed_at = 0;
                }
            }
        }
    }

    /// Recruiter: draw 3 from either or both decks (what there is), then put
    /// 2 cards from hand at the bottom of their decks. A draw from the only
    /// non-empty deck is not a decision.
    fn advance_recruiter(&mut self) {
        while let Phase::RecruitDraw(left) = self.phase {
            let decks = (self.clan_deck.is_empty(), self.tactic_deck.is_empty());
            match (left, decks) {
                (0, _) | (_, (true, true)) => {
                    let hand = self.hands[self.to_move as usize].len() as u8;
                    self.phase = Phase::RecruitReturn(hand.min(2));
                }
                (_, (false, false)) => return,
                (_, (false, true)) => {
                    self.draw(DeckKind::Clan);
                    self.phase = Phase::RecruitDraw(left - 1);
                }
                (_, (true, false)) => {
                    self.draw(DeckKind::Tactic);
                    self.phase = Phase::RecruitDraw(left - 1);
                }
            }
        }
        if self.phase == Phase::RecruitReturn(0) {
            self.after_play();
        }
    }

    fn put_back(&mut self, card_face: u8) {
        let seat = self.to_move as usize;
        let card = self.hand_card(seat, card_face).expect("checked");
        self.hands[seat].remove(card);
        let deck_index = if is_clan(card) { 0 } else { 1 };
        if is_clan(card) {
            self.clan_deck.put_bottom(card);
        } else {
            self.tactic_deck.put_bottom(card);
        }
        let known = self.known_bottom.get_or_insert((seat as u8, [0, 0]));
        known.1[deck_index] += 1;
        if let Phase::RecruitReturn(left) = self.phase {
            self.phase = Phase::RecruitReturn(left - 1);
            if left == 1 {
                self.after_play();
            }
        }
    }
}
