//! A completion that beats a claim: the cards a failing proof could name.
//!
//! The proof behind a claim ([`super::formation::can_beat`]) only answers
//! yes or no. When it fails (the other side could still win), the claim
//! step keeps one witness: the other side's clan cards plus unseen clan
//! cards that complete it above the claimant's value. While the claimant's
//! side stays as it was, the other side holds only cards of that formation
//! and the rest of it is still unseen, the same completion exists and the
//! proof still fails, so it is not searched again (see [`Refutations`]).

use super::formation::{clan_value, fold_colors, Kind, Value, STRENGTH_MASKS};
use super::{Stone, N_STONES};

/// The clan cards of `pool` that best complete the clan cards `fixed` to
/// `size` cards as a formation of `kind` (the kind of the value the proof
/// found), if they beat `target`. Every set returned has been valued and
/// beats `target`; a side with elite troops has no witness here (its proof
/// is searched every time).
pub fn beating_completion(
    fixed: u64,
    pool: u64,
    size: usize,
    bluff: bool,
    target: Value,
    kind: Kind,
) -> Option<u64> {
    // Counted bit by bit: the build's `count_ones` is a software popcount.
    let need = size.checked_sub(crate::bits::bits(fixed).count())?;
    if need == 0 {
        return None;
    }
    let cards = match kind {
        _ if bluff => strongest_cards(pool, need),
        Kind::ColorRun => color_run(fixed, pool, size),
        Kind::OfAKind => of_a_kind(fixed, pool, need),
        Kind::Color => same_color(fixed, pool, need),
        Kind::Run => run(fixed, pool, size, need),
        Kind::Sum => strongest_cards(pool, need),
    }?;
    // Valued as exactly `size` distinct cards, whatever the caller's pool.
    if cards & fixed != 0 || crate::bits::bits(fixed | cards).count() != size {
        return None;
    }
    let mut formation = [0u8; 4];
    for (slot, card) in formation.iter_mut().zip(crate::bits::bits(fixed | cards)) {
        *slot = card as u8;
    }
    (clan_value(&formation[..size], bluff)? > target).then_some(cards)
}

/// The colors `fixed` allows a one-color formation in: its own, or all six.
fn colors_of(fixed: u64) -> Option<std::ops::Range<u64>> {
    if fixed == 0 {
        return Some(0..6);
    }
    let color = fixed.trailing_zeros() as u64 / 9;
    (fixed & !(0x1FF << (color * 9)) == 0).then_some(color..color + 1)
}

/// The highest color run through `fixed` whose other cards are in `pool`:
/// the runs of each color found by shifting its mask, as in the proof.
fn color_run(fixed: u64, pool: u64, size: usize) -> Option<u64> {
    let colors = colors_of(fixed)?;
    // Bit `low` for each start whose run covers every fixed card.
    let allowed_starts = match fold_colors(fixed) {
        0 => 0x1FF,
        held => {
            let (weakest, strongest) = (held.trailing_zeros(), 15 - held.leading_zeros());
            let first = (strongest + 1).saturating_sub(size as u32);
            ((1u16 << (weakest + 1)) - 1) & !((1u16 << first) - 1)
        }
    };
    let mut best: Option<(u64, u64)> = None;
    for color in colors {
        let have = ((fixed | pool) >> (color * 9)) as u16 & 0x1FF;
        let mut starts = have & allowed_starts;
        for offset in 1..size {
            starts &= have >> offset;
        }
        if starts != 0 {
            let low = 15 - starts.leading_zeros() as u64;
            best = best.max(Some((low, color)));
        }
    }
    best.map(|(low, color)| ((1u64 << size) - 1) << (color * 9 + low) & !fixed)
}

/// The strongest strength of `fixed` (any when empty) of which `pool`
/// holds `need` more cards.
fn of_a_kind(fixed: u64, pool: u64, need: usize) -> Option<u64> {
    let held = fold_colors(fixed);
    let strengths = match held {
        0 => 1..=9,
        _ if held & (held - 1) != 0 => return None,
        _ => {
            let strength = held.trailing_zeros() as usize + 1;
            strength..=strength
        }
    };
    strengths
        .rev()
        .find_map(|strength| lowest_cards(pool & STRENGTH_MASKS[strength], need))
}

/// The strongest `need` cards of `pool` in the color of `fixed` (the best
/// color when empty).
fn same_color(fixed: u64, pool: u64, need: usize) -> Option<u64> {
    colors_of(fixed)?
        .filter_map(|color| highest_cards(pool & 0x1FF << (color * 9), need))
        .max_by_key(|&cards| strength_sum(cards))
}

/// The highest run through the strengths of `fixed`, its open strengths
/// taken from `pool` in any color.
fn run(fixed: u64, pool: u64, size: usize, need: usize) -> Option<u64> {
    let held = fold_colors(fixed);
    if crate::bits::bits(held).count() != size - need {
        return None;
    }
    let in_pool = fold_colors(pool);
    let span_bits = (1u16 << size) - 1;
    (0..=9 - size as u16).rev().find_map(|low| {
        let span = span_bits << low;
        let open = span & !held;
        (held & !span == 0 && open & !in_pool == 0).then(|| {
            crate::bits::bits(open).fold(0u64, |cards, strength| {
                let of_strength = pool & STRENGTH_MASKS[strength as usize + 1];
                cards | of_strength & of_strength.wrapping_neg()
            })
        })
    })
}

/// The `need` strongest cards of `pool`, any colors.
fn strongest_cards(pool: u64, mut need: usize) -> Option<u64> {
    let mut cards = 0;
    for strength in (1..=9).rev() {
        let mut of_strength = pool & STRENGTH_MASKS[strength];
        while need > 0 && of_strength != 0 {
            cards |= of_strength & of_strength.wrapping_neg();
            of_strength &= of_strength - 1;
            need -= 1;
        }
    }
    (need == 0).then_some(cards)
}

/// The `n` lowest cards of `cards`, if it holds that many.
fn lowest_cards(mut cards: u64, n: usize) -> Option<u64> {
    let mut taken = 0;
    for _ in 0..n {
        if cards == 0 {
            return None;
        }
        taken |= cards & cards.wrapping_neg();
        cards &= cards - 1;
    }
    Some(taken)
}

/// The `n` highest cards of `cards`, if it holds that many.
fn highest_cards(mut cards: u64, n: usize) -> Option<u64> {
    let mut taken = 0;
    for _ in 0..n {
        if cards == 0 {
            return None;
        }
        let top = 1u64 << (63 - cards.leading_zeros());
        taken |= top;
        cards &= !top;
    }
    Some(taken)
}

fn strength_sum(cards: u64) -> u32 {
    crate::bits::bits(cards).map(|card| card % 9 + 1).sum()
}

/// What the last failing proof of each seat and stone found. Not part of
/// the game: two states that differ only here are equal and hash alike.
#[derive(Debug, Clone, Default)]
pub(super) struct Refutations([[Refutation; N_STONES]; 2]);

#[derive(Debug, Clone, Copy, Default)]
struct Refutation {
    /// The claimant's side and the stone's combat modes then (see
    /// [`ClaimantKey`]).
    claimant: u64,
    /// A complete formation of clan cards for the other side that beats the
    /// claimant's: its cards then, plus unseen cards. Empty for none.
    beating: u64,
}

/// What fixes the claimant's value: its cards and count, Mud Fight and
/// Blind-Man's Bluff. With it unchanged, a kept formation is a proof by
/// itself, whatever happened in between (even a new round): its value is
/// strictly above the claimant's, so a tie lost on who completed first is
/// never kept.
struct ClaimantKey;

impl ClaimantKey {
    fn of(stone: &Stone, seat: usize) -> u64 {
        let mine = &stone.sides[seat];
        u32::from_le_bytes(mine.cards) as u64
            | (mine.len as u64) << 32
            | (stone.mud as u64) << 35
            | (stone.bluff as u64) << 36
    }
}

impl Refutations {
    /// Whether the formation kept for `seat` at `stone` still refutes its
    /// claim: the claimant's side is as it was, the other side holds only
    /// cards of the formation, and the rest of the formation is unseen.
    pub(super) fn still_refutes(&self, seat: usize, stone_idx: usize, stone: &Stone, seen: u64) -> bool {
        let kept = &self.0[seat][stone_idx];
        let theirs = stone.sides[1 - seat].mask();
        kept.beating != 0
            && theirs & !kept.beating == 0
            && kept.beating & seen & !theirs == 0
            && kept.claimant == ClaimantKey::of(stone, seat)
    }

    /// Keeps `beating` (a formation of the other side beating `seat`'s, or
    /// empty for none) for `seat` at `stone`.
    pub(super) fn keep(&mut self, seat: usize, stone_idx: usize, stone: &Stone, beating: u64) {
        self.0[seat][stone_idx] = Refutation {
            claimant: ClaimantKey::of(stone, seat),
            beating,
        };
    }
}

impl PartialEq for Refutations {
    fn eq(&self, _: &Refutations) -> bool {
        true
    }
}

impl Eq for Refutations {}

impl std::hash::Hash for Refutations {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

#[cfg(test)]
mod tests {
    use super::super::formation::{beating_value, best_value, can_beat, plain_value, SideCards};
    use super::super::{Phase, SchottenTotten, Side};
    use super::*;
    use crate::game::{parse_options, Game};
    use crate::rng::Rng;

    /// Distinct random clan cards, as a mask.
    fn random_cards(rng: &mut Rng, n: usize, taken: u64) -> u64 {
        let mut cards = 0u64;
        while (cards.count_ones() as usize) < n {
            let card = rng.below(54);
            if (taken | cards) >> card & 1 == 0 {
                cards |= 1 << card;
            }
        }
        cards
    }

    #[test]
    fn a_beating_completion_exists_exactly_when_the_search_says_the_side_can_win() {
        let mut rng = Rng::seeded(35);
        let mut found = 0;
        for _ in 0..40_000 {
            let size = 3 + rng.below(2);
            let bluff = rng.below(4) == 0;
            let target_cards = random_cards(&mut rng, size, 0);
            let target = plain_value(target_cards, size, bluff);
            let (n_fixed, n_pool) = (rng.below(size), rng.below(20));
            let fixed = random_cards(&mut rng, n_fixed, target_cards);
            let pool = random_cards(&mut rng, n_pool, target_cards | fixed);
            let side = SideCards {
                fixed,
                ..SideCards::default()
            };
            let beats = can_beat(&side, pool, size, bluff, target);
            let witness = beating_value(&side, pool, size, bluff, target).and_then(|value| {
                beating_completion(fixed, pool, size, bluff, target, value.kind)
            });
            assert_eq!(witness.is_some(), beats, "{fixed:x} {pool:x} {size} {bluff} {target:?}");
            if let Some(witness) = witness {
                found += 1;
                assert_eq!(witness & !pool, 0);
                assert_eq!((fixed | witness).count_ones() as usize, size);
                let value = best_value(&SideCards { fixed: fixed | witness, ..side }, 0, size, bluff);
                assert!(value > Some(target));
            }
        }
        assert!(found > 10_000, "{found}");
    }

    #[test]
    fn a_tie_lost_on_who_completed_first_is_not_kept_as_a_witness() {
        let game = SchottenTotten::new(&parse_options([] as [&str; 0]).unwrap(), 2, 1).unwrap();
        let side = |cards: [u8; 3], completed_at| Side {
            cards: [cards[0], cards[1], cards[2], 0],
            len: 3,
            completed_at,
        };
        // Runs 2-3-4 in mixed colors on both sides; theirs completed first.
        let mut stone = Stone {
            sides: [side([1, 11, 21], 5), side([28, 38, 48], 2)],
            ..Stone::default()
        };
        let mut witness = 0;
        assert!(!game.proves(0, &stone, Some(&mut witness)));
        assert_eq!(witness, 0);
        // Their run 3-4-5 beats ours outright: it is kept.
        stone.sides[1] = side([29, 39, 49], 2);
        assert!(!game.proves(0, &stone, Some(&mut witness)));
        assert_eq!(witness, 1 << 29 | 1 << 39 | 1 << 49);
    }

    /// Plays random games of `words`; at every decision, each seat's claims
    /// through the kept witnesses agree with the proof searched afresh, and
    /// a claim step offers exactly the stones the fresh proof allows.
    fn kept_witnesses_agree_with_fresh_proofs(words: &[&str]) -> usize {
        let options = parse_options(words.iter().copied()).unwrap();
        let mut skipped = 0;
        for seed in 0..300 {
            let mut game = SchottenTotten::new(&options, 2, seed).unwrap();
            let mut rng = Rng::seeded(seed);
            let mut legal = Vec::new();
            let mut probe = game.clone();
            while !game.is_terminal() {
                let fresh = |seat| {
                    game.claimable_iter(seat)
                        .fold(0u16, |mask, stone| mask | 1 << stone)
                };
                if matches!(game.phase, Phase::StartClaims | Phase::Claims) {
                    let unclaimed = (0..N_STONES)
                        .filter(|&s| game.stones[s].owner.is_none())
                        .fold(0u16, |mask, s| mask | 1 << s);
                    assert_eq!(game.claimable, fresh(game.to_move as usize) & unclaimed);
                }
                // A probe that carries its own witnesses from decision to
                // decision, asked about both seats every time.
                let refutations = std::mem::take(&mut probe.refutations);
                probe = game.clone();
                probe.refutations = refutations;
                for seat in 0..2 {
                    let mut kept = 0u16;
                    for stone in 0..N_STONES {
                        let st = probe.stones[stone];
                        if st.owner.is_some() || !st.is_complete(seat) {
                            continue;
                        }
                        let seen = clan_mask_of(&probe);
                        skipped += probe.refutations.still_refutes(seat, stone, &st, seen) as usize;
                        if probe.can_claim_now(seat, stone) {
                            kept |= 1 << stone;
                        }
                    }
                    assert_eq!(kept, fresh(seat), "{words:?} seed {seed} seat {seat}");
                }
                legal.clear();
                game.legal_actions(&mut legal);
                let action = legal[rng.below(legal.len())];
                game.apply_legal(&action);
            }
        }
        skipped
    }

    fn clan_mask_of(game: &SchottenTotten) -> u64 {
        super::super::formation::clan_mask(game.visible_clan)
    }

    #[test]
    fn kept_witnesses_skip_only_proofs_that_would_fail_in_every_variant() {
        for words in [
            &[][..],
            &["expert=true"],
            &["tactics=true"],
            &["tactics=true", "expert=true"],
            &["rounds=3"],
            &["tactics=true", "rounds=2"],
        ] {
            let skipped = kept_witnesses_agree_with_fresh_proofs(words);
            assert!(skipped > 1_000, "{words:?}: only {skipped} proofs skipped");
        }
    }
}
