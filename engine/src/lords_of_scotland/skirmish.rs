//! The end of a skirmish: army strength with doubling, the order of the
//! armies, supporters taken in that order, the clean-up and new deal, and
//! the end of the game.

use super::cards::{self, CardId};
use super::{
    LordsOfScotland, Phase, SkirmishReveal, MAX_SEATS, NO_CARD, NO_PLACE, SKIRMISH_LIMIT,
    WINNING_SCORE,
};
use crate::cards::CardSet;
use crate::game::{EndReason, Outcome};

/// RULING (ours): the all-same-strength supporter redraw gives up after this
/// many tries and keeps the last row; it can only repeat when the cards left
/// in the draw and discard piles are nearly all of one strength.
const MAX_SUPPORTER_REDRAWS: usize = 32;

impl LordsOfScotland {
    /// "Dobre a força de qualquer exército que contenha mais de uma carta
    /// desde que TODAS as cartas deste exército sejam do mesmo clã." An
    /// activated Bruce counts as whatever clan makes that true.
    pub(super) fn army_strength(&self, seat: usize) -> u32 {
        let army = self.armies[seat].cards();
        let sum: u32 = army.iter().map(|card| cards::strength(card) as u32).sum();
        let clans = army
            .minus(self.any_clan)
            .iter()
            .fold(0u16, |clans, card| clans | 1 << cards::clan(card) as u16);
        if army.len() > 1 && clans.count_ones() <= 1 {
            2 * sum
        } else {
            sum
        }
    }

    /// The seats with followers, strongest first; "sempre que houver empate
    /// [...] o jogador que controlar a carta com maior rank [...] vence".
    /// "Um jogador sem nenhum Seguidor não pode pegar Sectário."
    pub(super) fn skirmish_order(&self) -> ([u8; MAX_SEATS], u8) {
        let mut keyed = [(0u32, 0u8, 0u8); MAX_SEATS];
        let mut len = 0;
        for seat in self.seats().filter(|&seat| !self.armies[seat].is_empty()) {
            let best_rank = self.armies[seat]
                .cards()
                .iter()
                .map(cards::rank)
                .max()
                .unwrap_or(0);
            keyed[len] = (self.army_strength(seat), best_rank, seat as u8);
            len += 1;
        }
        keyed[..len].sort_unstable_by_key(|&(strength, best_rank, _)| {
            std::cmp::Reverse((strength, best_rank))
        });
        (keyed.map(|(_, _, seat)| seat), len as u8)
    }

    /// After the fifth round of turns: reveal, rank the armies, and let them
    /// take supporters. The winner takes the initiative.
    pub(super) fn end_skirmish(&mut self) {
        // Every face-down follower is revealed: known hand cards that had
        // blurred into the face-down pool are known to be in hand again.
        let everyone = (1u16 << self.n_seats) as u8 - 1;
        self.last_skirmish = SkirmishReveal::default();
        for seat in self.seats() {
            let back_in_hand = CardSet(self.known_in_pool[seat].0 & self.hands[seat].0);
            self.known_in_hand[seat] = self.known_in_hand[seat].union(back_in_hand);
            self.known_in_pool[seat] = CardSet::EMPTY;
            for &card in &self.armies[seat].face_down {
                self.face_down_known_by[card as usize] = everyone;
            }
            self.last_skirmish.armies[seat] = self.armies[seat].cards();
            self.last_skirmish.strengths[seat] = self.army_strength(seat) as u16;
        }
        self.just_revealed = true;
        let (order, len) = self.skirmish_order();
        self.last_places = [NO_PLACE; MAX_SEATS];
        for (place, &seat) in order[..len as usize].iter().enumerate() {
            self.last_places[seat as usize] = place as u8;
        }
        // RULING (ours): with no follower anywhere there is no winner, and
        // the initiative stays where it is.
        if len > 0 {
            self.initiative = order[0];
        }
        if len == 0 || self.supporters.is_empty() {
            self.finish_skirmish();
        } else {
            let picks_left = self.picks_for(order[0] as usize);
            self.phase = Phase::Supporters {
                order,
                len,
                at: 0,
                picks_left,
            };
        }
    }

    /// The announcement of a skirmish's end: `reveal` and, per seat, its
    /// army as `card,card=strength`, or `-` for a seat without followers
    /// (`reveal scott3,makgill5=8 - cochrane2=2`).
    pub(super) fn reveal_text(&self) -> String {
        let mut text = String::from("reveal");
        for seat in self.seats() {
            text.push(' ');
            let army = self.last_skirmish.armies[seat];
            if army.is_empty() {
                text.push('-');
                continue;
            }
            for (index, card) in army.iter().enumerate() {
                if index > 0 {
                    text.push(',');
                }
                text.push_str(cards::card_name(card));
            }
            text.push('=');
            text.push_str(&self.last_skirmish.strengths[seat].to_string());
        }
        text
    }

    /// Cochrane: "pegue dois em vez de um". RULING (ours): two such cards in
    /// one army still take two, as a copy "não sobrepuja" and powers do not stack.
    pub(super) fn picks_for(&self, seat: usize) -> u8 {
        if self.armies[seat].cards().0 & self.takes_two.0 != 0 {
            2
        } else {
            1
        }
    }

    pub(super) fn take_supporter(&mut self, card: CardId) {
        let Phase::Supporters {
            order,
            len,
            mut at,
            mut picks_left,
        } = self.phase
        else {
            return;
        };
        let seat = order[at as usize] as usize;
        self.supporters.remove(card);
        self.won[seat].insert(card);
        self.scores[seat] += cards::strength(card) as u16;
        picks_left -= 1;
        if picks_left == 0 {
            at += 1;
            if at < len {
                picks_left = self.picks_for(order[at as usize] as usize);
            }
        }
        // "Se no seu turno não houver Sectários para serem pegos, você não
        // clama por Sectários nesta escaramuça."
        if at >= len || self.supporters.is_empty() {
            self.finish_skirmish();
        } else {
            self.phase = Phase::Supporters {
                order,
                len,
                at,
                picks_left,
            };
        }
    }

    /// Ends the game at 40 points, or clears the table and deals the next skirmish.
    fn finish_skirmish(&mut self) {
        if self.scores.iter().any(|&score| score >= WINNING_SCORE) {
            self.phase = Phase::Over(EndReason::Finished);
            return;
        }
        self.skirmish += 1;
        if self.skirmish >= SKIRMISH_LIMIT {
            self.phase = Phase::Over(EndReason::MoveLimit);
            return;
        }
        self.clear_table();
        self.deal_recruits();
        self.deal_supporters();
        self.start_skirmish();
    }

    /// Discards the supporters left, the recruits and the followers, except a
    /// MacDonnell-marked card, which stays one more skirmish (then goes).
    fn clear_table(&mut self) {
        self.discard = self.discard.union(self.supporters);
        self.supporters = CardSet::EMPTY;
        for slot in 0..self.recruits.len() {
            if self.recruits[slot].card != NO_CARD {
                self.discard.insert(self.recruits[slot].card);
                self.recruits[slot].card = NO_CARD;
            }
        }
        let mut staying = CardSet::EMPTY;
        for seat in self.seats() {
            let army = &mut self.armies[seat];
            for &card in &army.face_down {
                self.face_down_known_by[card as usize] = 0;
            }
            let stays_here = CardSet(army.face_up.0 & self.stays.0);
            let leaving = army.cards().minus(stays_here);
            army.face_up = stays_here;
            army.face_down.clear();
            self.discard = self.discard.union(leaving);
            staying = staying.union(stays_here);
        }
        self.kept = staying;
        self.stays = CardSet::EMPTY;
        self.takes_two = CardSet::EMPTY;
        self.any_clan = CardSet::EMPTY;
    }

    /// "Se todos os Sectários que você sacou no início da rodada tiverem a
    /// mesma força, descarte todos imediatamente e os reponha com outros
    /// novos." RULING (ours): a row of fewer than two cards (the piles ran
    /// out) is never redrawn.
    pub(super) fn deal_supporters(&mut self) {
        for attempt in 0..=MAX_SUPPORTER_REDRAWS {
            let mut row = CardSet::EMPTY;
            for _ in 0..self.n_seats {
                if let Some(card) = self.draw_card() {
                    row.insert(card);
                }
            }
            let first = row.iter().next().map(cards::strength);
            let all_same =
                row.len() >= 2 && row.iter().all(|card| Some(cards::strength(card)) == first);
            if !all_same || attempt == MAX_SUPPORTER_REDRAWS {
                self.supporters = row;
                return;
            }
            self.discard = self.discard.union(row);
        }
    }

    /// Scores are supporter points. "Se dois ou mais jogadores empatarem,
    /// então vence o jogador que colocou o maior na última rodada": ranks
    /// follow (points, place in the last skirmish). RULING (ours): seats
    /// without a follower in the last skirmish place below all others; the
    /// skirmish cap ranks everyone first, scores still being the points.
    pub(super) fn final_outcome(&self, reason: EndReason) -> Outcome {
        let scores: Vec<i32> = self.scores().iter().map(|&score| score as i32).collect();
        if reason == EndReason::MoveLimit {
            return Outcome {
                ranks: vec![1; scores.len()],
                scores,
                reason,
            };
        }
        let n_seats = self.n_seats;
        let keys: Vec<(i32, u8)> = self
            .seats()
            .map(|seat| {
                let place = self.last_places[seat];
                (
                    scores[seat],
                    if place == NO_PLACE {
                        0
                    } else {
                        n_seats - place
                    },
                )
            })
            .collect();
        Outcome::ranked_by(scores, &keys, reason)
    }
}
