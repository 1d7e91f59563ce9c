//! Pieces every card game needs: a compact set of card ids and a deck.

use crate::bits::bits;
use crate::rng::Rng;

/// A set of card ids below 128, as a bitset. Copy, hashable, and ordered by
/// id when iterated, so anything built from it is deterministic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CardSet(pub u128);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);

    /// The ids `0..n_cards`.
    pub fn first(n_cards: u32) -> CardSet {
        debug_assert!(n_cards <= 128);
        if n_cards >= 128 {
            CardSet(u128::MAX)
        } else {
            CardSet((1u128 << n_cards) - 1)
        }
    }

    pub fn contains(self, id: u8) -> bool {
        id < 128 && self.0 >> id & 1 == 1
    }

    pub fn insert(&mut self, id: u8) {
        self.0 |= 1u128 << id;
    }

    pub fn remove(&mut self, id: u8) {
        self.0 &= !(1u128 << id);
    }

    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    pub fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    pub fn minus(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    pub fn iter(self) -> impl ExactSizeIterator<Item = u8> {
        bits(self.0).map(|id| id as u8)
    }
}

impl FromIterator<u8> for CardSet {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        let mut set = CardSet::EMPTY;
        for id in iter {
            set.insert(id);
        }
        set
    }
}

/// A face-down pile: the top is the end of the vector.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Deck<C> {
    cards: Vec<C>,
}

impl<C> Deck<C> {
    /// A deck in the given order, shuffled by `rng`.
    pub fn shuffled(mut cards: Vec<C>, rng: &mut Rng) -> Deck<C> {
        rng.shuffle(&mut cards);
        Deck { cards }
    }

    /// A deck whose top card is the last of `cards`.
    pub fn from_top_last(cards: Vec<C>) -> Deck<C> {
        Deck { cards }
    }

    pub fn draw(&mut self) -> Option<C> {
        self.cards.pop()
    }

    pub fn put_bottom(&mut self, card: C) {
        self.cards.insert(0, card);
    }

    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// Bottom first, top last.
    pub fn as_slice(&self) -> &[C] {
        &self.cards
    }

    pub fn as_mut_slice(&mut self) -> &mut [C] {
        &mut self.cards
    }

    pub fn shuffle(&mut self, rng: &mut Rng) {
        rng.shuffle(&mut self.cards);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_set_iterates_in_id_order() {
        let set: CardSet = [70u8, 3, 127, 0].into_iter().collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![0, 3, 70, 127]);
        assert_eq!(set.len(), 4);
        assert!(set.contains(127) && !set.contains(1));
        assert_eq!(CardSet::first(54).len(), 54);
        assert_eq!(CardSet::first(128).len(), 128);
    }

    #[test]
    fn a_deck_draws_from_the_top_and_returns_to_the_bottom() {
        let mut deck = Deck::from_top_last(vec![1, 2, 3]);
        assert_eq!(deck.draw(), Some(3));
        deck.put_bottom(9);
        assert_eq!(deck.as_slice(), &[9, 1, 2]);
    }
}
