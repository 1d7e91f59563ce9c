//! Clan powers: when a face-up follower may activate, the choices each power
//! offers, and their effects.
//!
//! A power is offered right after its card is mustered face up (`Phase::Power`),
//! never later: "Só se ativa o poder de um Clã no turno em que for jogado."
//! Every power is optional, so `skip` is always offered. End-of-round powers
//! only mark the card that carries them (`takes_two`, `stays`, `any_clan`);
//! the mark travels with the card, so whoever controls it at the end of the
//! skirmish benefits.

use super::action::{Action, Target};
use super::cards::{self, CardId, Clan};
use super::{LordsOfScotland, Phase};
use crate::cards::CardSet;

impl LordsOfScotland {
    fn face_up_followers(&self) -> CardSet {
        self.seats().fold(CardSet::EMPTY, |all, seat| {
            all.union(self.armies[seat].face_up)
        })
    }

    /// Whether a card just mustered face up may activate. 2-3 players: no
    /// other face-up follower in the skirmish is weaker ("com força MENOR").
    /// 4-5 players: no other face-up follower of the same clan is as weak or
    /// weaker ("ignore a força de qualquer Seguidor de Clã diferente").
    pub(super) fn may_activate(&self, card: CardId) -> bool {
        let mut others = self.face_up_followers();
        others.remove(card);
        let strength = cards::strength(card);
        let blockers = if self.n_seats <= 3 {
            cards::weaker_than(strength)
        } else {
            cards::clan_at_most(cards::clan(card), strength)
        };
        others.0 & blockers.0 == 0
    }

    /// The clans a Scott may copy: those of the other face-up followers, any
    /// army, except Scott itself.
    fn copyable_clans(&self, scott: CardId) -> u16 {
        let mut others = self.face_up_followers();
        others.remove(scott);
        let clans = others
            .iter()
            .fold(0u16, |clans, card| clans | 1 << cards::clan(card) as u16);
        clans & !(1 << Clan::Scott as u16)
    }

    /// The army holding a follower, and the follower's card.
    fn locate(&self, target: Target) -> Option<(usize, CardId)> {
        match target {
            Target::FaceUp(card) => self
                .seats()
                .find(|&seat| self.armies[seat].face_up.contains(card))
                .map(|seat| (seat, card)),
            Target::FaceDown { seat, index } => {
                let seat = seat as usize;
                let card = *self
                    .armies
                    .get(seat)
                    .filter(|_| seat < self.n_seats as usize)?
                    .face_down
                    .get(index as usize)?;
                Some((seat, card))
            }
        }
    }

    fn push_targets(
        &self,
        seat: usize,
        except: CardId,
        verb: fn(Target) -> Action,
        out: &mut Vec<Action>,
    ) {
        let army = &self.armies[seat];
        for card in army.face_up.iter().filter(|&card| card != except) {
            out.push(verb(Target::FaceUp(card)));
        }
        for index in 0..army.face_down.len() {
            out.push(verb(Target::FaceDown {
                seat: seat as u8,
                index: index as u8,
            }));
        }
    }

    pub(super) fn power_actions(&self, card: CardId, clan: Clan, out: &mut Vec<Action>) {
        let seat = self.turn_seat();
        out.push(Action::Skip);
        match clan {
            Clan::Scott => {
                let clans = self.copyable_clans(card);
                out.extend(
                    Clan::ALL
                        .into_iter()
                        .filter(|c| clans >> *c as u16 & 1 == 1)
                        .map(Action::Copy),
                );
            }
            Clan::Makgill => {
                for other in self.hands[seat].iter() {
                    out.push(Action::Also {
                        card: other,
                        face_up: true,
                    });
                    out.push(Action::Also {
                        card: other,
                        face_up: false,
                    });
                }
            }
            Clan::Cockburn => out.extend(
                self.supporters
                    .iter()
                    .map(|supporter| Action::Exchange { supporter }),
            ),
            Clan::Fergusson => {
                for other in self.seats().filter(|&other| other != seat) {
                    self.push_targets(other, card, Action::Swap, out);
                }
            }
            Clan::Wemyss => {
                for any in self.seats() {
                    self.push_targets(any, card, Action::Discard, out);
                }
            }
            Clan::Forsyth | Clan::Cochrane | Clan::MacDonnell | Clan::Bruce => {
                out.push(Action::Activate)
            }
        }
    }

    pub(super) fn is_legal_power_action(&self, card: CardId, clan: Clan, action: &Action) -> bool {
        let seat = self.turn_seat();
        match *action {
            Action::Skip => true,
            Action::Activate => matches!(
                clan,
                Clan::Forsyth | Clan::Cochrane | Clan::MacDonnell | Clan::Bruce
            ),
            Action::Copy(copied) => {
                clan == Clan::Scott && self.copyable_clans(card) >> copied as u16 & 1 == 1
            }
            Action::Also { card: other, .. } => {
                clan == Clan::Makgill && self.hands[seat].contains(other)
            }
            Action::Exchange { supporter } => {
                clan == Clan::Cockburn && self.supporters.contains(supporter)
            }
            Action::Swap(target) => {
                clan == Clan::Fergusson
                    && self.locate(target).is_some_and(|(owner, _)| owner != seat)
            }
            // "DESCARTE OUTRO SEGUIDOR": never the Wemyss (or Scott) itself.
            Action::Discard(target) => {
                clan == Clan::Wemyss
                    && target != Target::FaceUp(card)
                    && self.locate(target).is_some()
            }
            _ => false,
        }
    }

    /// Applies a legal decision of the `Power` phase for `card` acting as `clan`.
    pub(super) fn resolve_power(&mut self, seat: usize, card: CardId, clan: Clan, action: Action) {
        match action {
            Action::Activate => self.activate_without_target(seat, card, clan),
            Action::Copy(copied) if copied == Clan::Forsyth || copied.acts_at_end_of_round() => {
                self.activate_without_target(seat, card, copied)
            }
            // The copied power's own choices follow, made for the Scott card.
            Action::Copy(copied) => self.phase = Phase::Power { card, clan: copied },
            Action::Also {
                card: other,
                face_up,
            } => self.muster_and_offer_power(seat, other, face_up),
            Action::Exchange { supporter } => {
                self.exchange_with_supporter(seat, card, supporter);
                self.end_turn();
            }
            Action::Swap(target) => {
                self.swap_followers(seat, card, target);
                self.end_turn();
            }
            Action::Discard(target) => {
                self.discard_follower(target);
                self.end_turn();
            }
            _ => self.end_turn(),
        }
    }

    /// Forsyth draws at once; the end-of-round powers mark the card.
    fn activate_without_target(&mut self, seat: usize, card: CardId, clan: Clan) {
        match clan {
            Clan::Forsyth => {
                if let Some(drawn) = self.draw_card() {
                    self.hands[seat].insert(drawn);
                }
            }
            Clan::Cochrane => self.takes_two.insert(card),
            Clan::MacDonnell => self.stays.insert(card),
            // RULING (ours): a Scott copying Bruce counts as any clan itself,
            // as the Bruce card would.
            Clan::Bruce => self.any_clan.insert(card),
            _ => debug_assert!(false, "{clan:?} needs a target"),
        }
        self.end_turn();
    }

    fn forget_marks(&mut self, card: CardId) {
        for marks in [
            &mut self.takes_two,
            &mut self.stays,
            &mut self.any_clan,
            &mut self.kept,
        ] {
            marks.remove(card);
        }
    }

    /// Cockburn: "você a coloca como um Sectário, então pega um Sectário
    /// diferente e o coloca à sua frente" (face up; its power does not act).
    fn exchange_with_supporter(&mut self, seat: usize, card: CardId, supporter: CardId) {
        self.armies[seat].face_up.remove(card);
        self.forget_marks(card);
        self.supporters.remove(supporter);
        self.supporters.insert(card);
        self.armies[seat].face_up.insert(supporter);
    }

    /// Takes a follower out of its army, returning the owner, the card and
    /// whether it was face down.
    fn take_follower(&mut self, target: Target) -> Option<(usize, CardId, bool)> {
        let (owner, card) = self.locate(target)?;
        match target {
            Target::FaceUp(_) => {
                self.armies[owner].face_up.remove(card);
                Some((owner, card, false))
            }
            Target::FaceDown { index, .. } => {
                self.armies[owner].face_down.remove(index as usize);
                Some((owner, card, true))
            }
        }
    }

    /// Fergusson: this card goes to the target's army, the target comes to
    /// ours; "se você pegar uma carta com a face para baixo ela continua com
    /// a face para baixo", and its marks stay with it.
    fn swap_followers(&mut self, seat: usize, card: CardId, target: Target) {
        let Some((owner, taken, face_down)) = self.take_follower(target) else {
            return;
        };
        self.armies[seat].face_up.remove(card);
        self.armies[owner].face_up.insert(card);
        if face_down {
            self.armies[seat].face_down.push(taken);
            self.face_down_known_by[taken as usize] |= 1 << seat;
            // The others cannot tell whether the card taken was one they knew
            // to be in the owner's hand or face-down pool: that knowledge is
            // dropped rather than leaked.
            self.known_in_pool[owner] = CardSet::EMPTY;
        } else {
            self.armies[seat].face_up.insert(taken);
        }
    }

    /// Wemyss: the follower goes to the (public) discard pile.
    fn discard_follower(&mut self, target: Target) {
        let Some((owner, card, face_down)) = self.take_follower(target) else {
            return;
        };
        if face_down {
            self.face_down_known_by[card as usize] = 0;
            self.known_in_pool[owner].remove(card);
        }
        self.forget_marks(card);
        self.discard.insert(card);
    }
}
