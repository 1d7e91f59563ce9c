//! Formations: the value of a complete side, and the best value an
//! incomplete side could still reach (the proof behind a claim).
//!
//! One search serves both. A side is its clan cards (`fixed`), its elite
//! troops (`wilds`, each a set of allowed strengths in any color), the cards
//! it may still draw on (`pool`) and its size (3, or 4 under Mud Fight). For
//! every formation kind, strongest first, we look for the highest sum that
//! kind can reach; the best (kind, sum) over all kinds is the value. A
//! complete side is the special case of an empty pool and nothing missing.

use super::cards::{clan_card, strength, ALL_CLAN};
use crate::cards::CardSet;

/// Formation kinds, weakest first so that `Ord` ranks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Sum,
    Run,
    Color,
    OfAKind,
    ColorRun,
}

/// A formation's strength: kind first, then total strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Value {
    pub kind: Kind,
    pub sum: u8,
}

/// An elite troop on a side: the strengths it may take (bit `s` set for
/// strength `s`) and its strength under Blind-Man's Bluff (its highest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wild {
    pub strengths: u16,
    pub highest: u8,
}

/// The cards of one side, split for the search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SideCards {
    pub fixed: u64,
    pub wilds: [Option<Wild>; 4],
    pub n_wilds: usize,
}

impl SideCards {
    pub fn push_wild(&mut self, wild: Wild) {
        self.wilds[self.n_wilds] = Some(wild);
        self.n_wilds += 1;
    }

    fn wilds(&self) -> impl Iterator<Item = Wild> + '_ {
        self.wilds[..self.n_wilds].iter().flatten().copied()
    }

    fn n_cards(&self) -> usize {
        self.fixed.count_ones() as usize + self.n_wilds
    }

    fn fixed_sum(&self) -> u32 {
        iter_bits(self.fixed)
            .map(|card| strength(card) as u32)
            .sum()
    }

    fn wild_highest_sum(&self) -> u32 {
        self.wilds().map(|w| w.highest as u32).sum()
    }
}

/// The clan cards of `set` as the formation search's mask. The search keeps
/// `u64` masks (every clan id is below 54) rather than the 128-bit
/// [`CardSet`]: with 128-bit masks Schotten Totten's random playouts ran
/// 12-18% slower (base 2p 83,000 against 68,000 games/s, medians of three).
pub fn clan_mask(set: CardSet) -> u64 {
    (set.0 & ALL_CLAN.0) as u64
}

fn iter_bits(cards: u64) -> impl Iterator<Item = u8> {
    crate::bits::bits(cards).map(|card| card as u8)
}

/// All clan cards of one strength, as a mask.
const fn strength_mask(strength: u8) -> u64 {
    let mut mask = 0u64;
    let mut c = 0;
    while c < 6 {
        mask |= 1 << (c * 9 + strength - 1);
        c += 1;
    }
    mask
}

/// All clan cards of each strength (index 1 to 9), as masks.
pub(super) const STRENGTH_MASKS: [u64; 10] = {
    let mut masks = [0u64; 10];
    let mut s = 1;
    while s <= 9 {
        masks[s as usize] = strength_mask(s);
        s += 1;
    }
    masks
};

fn color_bits(cards: u64, color: u8) -> u64 {
    (cards >> (color as u64 * 9)) & 0x1FF
}

/// The best value `side` can reach with `size` cards, drawing the missing
/// ones from `pool`; `None` when it cannot be completed at all. Under
/// Blind-Man's Bluff only the sum counts (every formation is a Sum).
pub fn best_value(side: &SideCards, pool: u64, size: usize, bluff: bool) -> Option<Value> {
    strongest(side, pool, size, bluff, Kind::Sum, None)
}

/// Whether some completion of `side` from `pool` beats `target` (the proof
/// behind a claim asks this of the opponent's incomplete side).
pub fn can_beat(side: &SideCards, pool: u64, size: usize, bluff: bool, target: Value) -> bool {
    beating_value(side, pool, size, bluff, target).is_some()
}

/// A value above `target` that some completion of `side` from `pool`
/// reaches, if any ([`can_beat`] with the value it found).
pub fn beating_value(
    side: &SideCards,
    pool: u64,
    size: usize,
    bluff: bool,
    target: Value,
) -> Option<Value> {
    strongest(side, pool, size, bluff, target.kind, Some(target)).filter(|&best| best > target)
}

/// The best value of kind `floor` or stronger, if any is reachable; with
/// `enough`, any value above it may be returned as soon as it is found.
fn strongest(
    side: &SideCards,
    pool: u64,
    size: usize,
    bluff: bool,
    floor: Kind,
    enough: Option<Value>,
) -> Option<Value> {
    let have = side.n_cards();
    if have > size {
        return None;
    }
    let need = size - have;
    if (pool.count_ones() as usize) < need {
        return None;
    }
    if need == 0 && side.n_wilds == 0 {
        return Some(plain_value(side.fixed, size, bluff)).filter(|v| v.kind >= floor);
    }
    let sum_value = || Value {
        kind: Kind::Sum,
        sum: (side.fixed_sum() + side.wild_highest_sum() + top_sum(pool, need)) as u8,
    };
    if bluff {
        return Some(sum_value());
    }
    // Strongest kind first: the first kind reachable gives the best value.
    if let Some(value) = color_run(side, pool, size, enough) {
        return Some(value);
    }
    if floor > Kind::OfAKind {
        return None;
    }
    if let Some(value) = of_a_kind(side, pool, need, size) {
        return Some(value);
    }
    if floor > Kind::Color {
        return None;
    }
    if let Some(value) = same_color(side, pool, need) {
        return Some(value);
    }
    if floor > Kind::Run {
        return None;
    }
    if let Some(value) = run(side, pool, size) {
        return Some(value);
    }
    (floor == Kind::Sum).then(sum_value)
}

/// A complete side of clan cards only, classified directly (the hot path).
pub(super) fn plain_value(fixed: u64, size: usize, bluff: bool) -> Value {
    let mut strengths_seen = 0u16;
    let mut sum = 0u8;
    for card in iter_bits(fixed) {
        strengths_seen |= 1 << strength(card);
        sum += strength(card);
    }
    let first_color = fixed.trailing_zeros() as u8 / 9;
    let one_color = fixed & !(0x1FFu64 << (first_color as u64 * 9)) == 0;
    let consecutive = strengths_seen.count_ones() as usize == size
        && strengths_seen >> strengths_seen.trailing_zeros() == (1 << size) - 1;
    let kind = match () {
        _ if bluff => Kind::Sum,
        _ if one_color && consecutive => Kind::ColorRun,
        _ if strengths_seen.count_ones() == 1 => Kind::OfAKind,
        _ if one_color => Kind::Color,
        _ if consecutive => Kind::Run,
        _ => Kind::Sum,
    };
    Value { kind, sum }
}

/// The value of a complete side of clan cards only, straight from its
/// cards (no mask, no popcount); `None` when a card is not a clan card.
/// Agrees with [`best_value`] on every all-clan complete side.
pub fn clan_value(cards: &[u8], bluff: bool) -> Option<Value> {
    let (mut sum, mut seen, mut low) = (0u8, 0u16, 9u8);
    let first_color = cards.first()? / 9;
    let mut one_color = true;
    for &card in cards {
        if card >= 54 {
            return None;
        }
        let (color, s) = (card / 9, card % 9 + 1);
        one_color &= color == first_color;
        seen |= 1 << s;
        sum += s;
        low = low.min(s);
    }
    let consecutive = seen == ((1u16 << cards.len()) - 1) << low;
    let kind = match () {
        _ if bluff => Kind::Sum,
        _ if one_color && consecutive => Kind::ColorRun,
        _ if seen == 1 << low => Kind::OfAKind,
        _ if one_color => Kind::Color,
        _ if consecutive => Kind::Run,
        _ => Kind::Sum,
    };
    Some(Value { kind, sum })
}

/// Sum of the `n` strongest cards of `pool` (which holds at least `n`).
fn top_sum(pool: u64, mut n: usize) -> u32 {
    let mut sum = 0;
    for s in (1..=9u8).rev() {
        if n == 0 {
            break;
        }
        let take = ((pool & STRENGTH_MASKS[s as usize]).count_ones() as usize).min(n);
        sum += take as u32 * s as u32;
        n -= take;
    }
    sum
}

/// Whether the wilds can each take a distinct strength of `open` (a strength
/// mask of the still-empty slots), covering every strength in `must`.
fn wilds_fit(wilds: &[Option<Wild>], open: u16, must: u16) -> bool {
    match wilds.split_first() {
        None => must == 0,
        Some((None, rest)) => wilds_fit(rest, open, must),
        Some((Some(wild), rest)) => crate::bits::bits(open & wild.strengths).any(|strength| {
            let s = 1 << strength;
            wilds_fit(rest, open & !s, must & !s)
        }),
    }
}

/// Color-run: one color, consecutive strengths. Tried from the highest start.
fn color_run(side: &SideCards, pool: u64, size: usize, enough: Option<Value>) -> Option<Value> {
    let top_low = 10 - size as u8;
    let (colors, lows) = if side.fixed == 0 {
        (0..6u8, 1..=top_low)
    } else {
        // Fixed cards pin the color and bound where the run can start.
        let c = side.fixed.trailing_zeros() as u8 / 9;
        if side.fixed & !(0x1FFu64 << (c as u64 * 9)) != 0 {
            return None;
        }
        let weakest = strength(side.fixed.trailing_zeros() as u8);
        let strongest = strength(63 - side.fixed.leading_zeros() as u8);
        (
            c..c + 1,
            (strongest + 1).saturating_sub(size as u8).max(1)..=weakest.min(top_low),
        )
    };
    if side.n_wilds == 0 {
        return plain_color_run(side.fixed | pool, size, colors, lows, enough);
    }
    let mut best: Option<Value> = None;
    for c in colors {
        for low in lows.clone().rev() {
            let mut slots = 0u64;
            let mut open_strengths = 0u16;
            for s in low..low + size as u8 {
                slots |= 1 << clan_card(c, s);
            }
            if side.fixed & !slots != 0 {
                continue;
            }
            let mut must = 0u16;
            for s in low..low + size as u8 {
                let card = clan_card(c, s);
                if side.fixed >> card & 1 == 0 {
                    open_strengths |= 1 << s;
                    if pool >> card & 1 == 0 {
                        must |= 1 << s;
                    }
                }
            }
            if wilds_fit(&side.wilds[..side.n_wilds], open_strengths, must) {
                let sum = (low as u32 * size as u32 + (size * (size - 1) / 2) as u32) as u8;
                let value = Value {
                    kind: Kind::ColorRun,
                    sum,
                };
                if enough.is_some_and(|enough| value > enough) {
                    return Some(value);
                }
                best = best.max(Some(value));
                break;
            }
        }
    }
    best
}

/// [`color_run`] without elite troops: a run of `color` starting at `low`
/// is possible when each of its cards is held or may be drawn (`cards`);
/// the possible starts of every color come from shifting its mask.
fn plain_color_run(
    cards: u64,
    size: usize,
    colors: std::ops::Range<u8>,
    lows: std::ops::RangeInclusive<u8>,
    enough: Option<Value>,
) -> Option<Value> {
    let (first_low, last_low) = (*lows.start(), *lows.end());
    if first_low > last_low {
        return None;
    }
    // Bit `low - 1` for each start allowed.
    let allowed_starts = ((1u16 << last_low) - 1) & !((1u16 << (first_low - 1)) - 1);
    let mut best: Option<Value> = None;
    for c in colors {
        let have = color_bits(cards, c) as u16;
        let mut starts = have & allowed_starts;
        for offset in 1..size {
            starts &= have >> offset;
        }
        if starts == 0 {
            continue;
        }
        let low = 16 - starts.leading_zeros() as u8;
        let value = Value {
            kind: Kind::ColorRun,
            sum: (low as u32 * size as u32 + (size * (size - 1) / 2) as u32) as u8,
        };
        if enough.is_some_and(|enough| value > enough) {
            return Some(value);
        }
        best = best.max(Some(value));
    }
    best
}

/// Of-a-kind: the strongest strength that every fixed card has, every
/// wild allows and the pool holds `need` more of. Strengths are handled as
/// 9-bit masks (bit `s - 1` for strength `s`).
fn of_a_kind(side: &SideCards, pool: u64, need: usize, size: usize) -> Option<Value> {
    let fixed_strengths = fold_colors(side.fixed);
    let mut candidates = if side.fixed == 0 {
        0x1FF
    } else if fixed_strengths.is_power_of_two() {
        fixed_strengths
    } else {
        return None;
    };
    for wild in side.wilds() {
        candidates &= wild.strengths >> 1;
    }
    candidates &= strengths_held_at_least(pool, need);
    (candidates != 0).then(|| {
        let s = 16 - candidates.leading_zeros() as u8;
        Value {
            kind: Kind::OfAKind,
            sum: s * size as u8,
        }
    })
}

/// The strengths of `cards` in any color, bit `s - 1` for strength `s`.
pub(super) fn fold_colors(cards: u64) -> u16 {
    ((cards | cards >> 9 | cards >> 18 | cards >> 27 | cards >> 36 | cards >> 45) & 0x1FF) as u16
}

/// The strengths of which `cards` holds at least `n`, bit `s - 1` for
/// strength `s`: the six colors summed strength by strength in three
/// bit-sliced counters.
fn strengths_held_at_least(cards: u64, n: usize) -> u16 {
    let (mut ones, mut twos, mut fours) = (0u64, 0u64, 0u64);
    for c in 0..6 {
        let lane = color_bits(cards, c);
        let carry = ones & lane;
        ones ^= lane;
        fours |= twos & carry;
        twos ^= carry;
    }
    let at_least = match n {
        0 => 0x1FF,
        1 => ones | twos | fours,
        2 => twos | fours,
        3 => fours | (twos & ones),
        4 => fours,
        5 => fours & (twos | ones),
        6 => fours & twos,
        _ => 0,
    };
    at_least as u16
}

fn same_color(side: &SideCards, pool: u64, need: usize) -> Option<Value> {
    let mut best: Option<Value> = None;
    // Fixed cards pin the color.
    let colors = match side.fixed {
        0 => 0..6u8,
        fixed => {
            let c = fixed.trailing_zeros() as u8 / 9;
            c..c + 1
        }
    };
    let held_sum = side.fixed_sum() + side.wild_highest_sum();
    for c in colors {
        let fixed_of_color = color_bits(side.fixed, c);
        if fixed_of_color.count_ones() != side.fixed.count_ones() {
            continue;
        }
        let mut available = color_bits(pool, c);
        if (available.count_ones() as usize) < need {
            continue;
        }
        let mut sum = held_sum;
        for _ in 0..need {
            let top = 63 - available.leading_zeros();
            sum += top + 1;
            available &= !(1 << top);
        }
        best = best.max(Some(Value {
            kind: Kind::Color,
            sum: sum as u8,
        }));
    }
    best
}

fn run(side: &SideCards, pool: u64, size: usize) -> Option<Value> {
    let mut fixed_strengths = 0u16;
    for card in iter_bits(side.fixed) {
        let bit = 1u16 << strength(card);
        if fixed_strengths & bit != 0 {
            return None; // two cards of one strength never make a run
        }
        fixed_strengths |= bit;
    }
    let pool_strengths = fold_colors(pool) << 1;
    (1..=(10 - size as u8)).rev().find_map(|low| {
        let span: u16 = ((1u16 << size) - 1) << low;
        if fixed_strengths & !span != 0 {
            return None;
        }
        let open = span & !fixed_strengths;
        let must = open & !pool_strengths;
        wilds_fit(&side.wilds[..side.n_wilds], open, must).then(|| {
            let sum = (low as u32 * size as u32 + (size * (size - 1) / 2) as u32) as u8;
            Value {
                kind: Kind::Run,
                sum,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn clan_value_agrees_with_the_search_on_every_complete_clan_side() {
        let mut rng = Rng::seeded(7);
        for _ in 0..20_000 {
            let size = 3 + (rng.next_u64() % 2) as usize;
            let mut cards = [0u8; 4];
            let mut fixed = 0u64;
            let mut n = 0;
            while n < size {
                let card = (rng.next_u64() % 54) as u8;
                if fixed >> card & 1 == 0 {
                    fixed |= 1 << card;
                    cards[n] = card;
                    n += 1;
                }
            }
            for bluff in [false, true] {
                let side = SideCards {
                    fixed,
                    ..SideCards::default()
                };
                assert_eq!(
                    clan_value(&cards[..size], bluff),
                    best_value(&side, 0, size, bluff),
                    "{cards:?} {bluff}"
                );
            }
        }
        assert_eq!(clan_value(&[3, 54, 4], false), None);
    }

    #[test]
    fn strengths_held_at_least_counts_every_color_of_each_strength() {
        let mut rng = Rng::seeded(3);
        for _ in 0..2_000 {
            let cards = rng.next_u64() & rng.next_u64() & ((1 << 54) - 1);
            for n in 0..8 {
                let expected = (1..=9u8)
                    .filter(|&s| (cards & STRENGTH_MASKS[s as usize]).count_ones() as usize >= n)
                    .fold(0u16, |mask, s| mask | 1 << (s - 1));
                assert_eq!(strengths_held_at_least(cards, n), expected, "{cards:x} {n}");
            }
            let folded = (1..=9u8)
                .filter(|&s| cards & STRENGTH_MASKS[s as usize] != 0)
                .fold(0u16, |mask, s| mask | 1 << (s - 1));
            assert_eq!(fold_colors(cards), folded);
        }
    }
}
