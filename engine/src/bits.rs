//! The set bits of an integer, lowest first. Every bitset of the engine
//! (card sets, stone masks, grid rows, slot masks) walks its members with
//! [`bits`], so the clear-the-lowest-bit loop is written once.

/// An unsigned integer used as a bitset.
pub trait BitWord: Copy {
    fn is_zero(self) -> bool;
    /// The index of the lowest set bit (the word is not zero).
    fn lowest(self) -> u32;
    /// The word with its lowest set bit cleared.
    fn without_lowest(self) -> Self;
    fn n_set(self) -> u32;
}

macro_rules! bit_word {
    ($($word:ty),*) => {$(
        impl BitWord for $word {
            #[inline]
            fn is_zero(self) -> bool {
                self == 0
            }
            #[inline]
            fn lowest(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline]
            fn without_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
            #[inline]
            fn n_set(self) -> u32 {
                self.count_ones()
            }
        }
    )*};
}

bit_word!(u8, u16, u32, u64, u128);

/// The indices of the set bits of a word, ascending.
#[derive(Clone, Copy, Debug)]
pub struct Bits<W>(W);

/// The indices of the set bits of `word`, ascending.
#[inline]
pub fn bits<W: BitWord>(word: W) -> Bits<W> {
    Bits(word)
}

impl<W: BitWord> Iterator for Bits<W> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0.is_zero() {
            return None;
        }
        let index = self.0.lowest();
        self.0 = self.0.without_lowest();
        Some(index)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.n_set() as usize;
        (n, Some(n))
    }
}

impl<W: BitWord> ExactSizeIterator for Bits<W> {}

impl<W: BitWord> std::iter::FusedIterator for Bits<W> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_bits_come_lowest_first() {
        assert_eq!(bits(0b1010_0101u8).collect::<Vec<_>>(), vec![0, 2, 5, 7]);
        assert_eq!(bits(1u128 << 127 | 1).collect::<Vec<_>>(), vec![0, 127]);
        assert_eq!(bits(u64::MAX).len(), 64);
        assert_eq!(bits(0u16).next(), None);
    }
}
