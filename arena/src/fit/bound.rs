//! One-sided bounds for the bots a fit cannot rate: how far above the rated
//! bots an unbeaten bot must at least be, how far below a winless one at
//! most, for its record to be as likely as 2.5%.
//!
//! RULING (ours, issue 36): an unbeaten bot is shown with its lower bound,
//! never as "-", and ranked above every rated bot (by this bound among the
//! unbeaten: a bound below a rated bot's rating does not make it weaker).
//! With the rated bots held at their fitted strengths, the chance that a bot of strength `t` finishes above every rated bot at
//! each of its tables is, under Plackett-Luce, the product over its games of
//! `e^t / (e^t + sum of e^theta of the rated bots seated there)`. It grows
//! with `t`, so the `t` where it is 2.5% is a bound: a bot truly weaker than
//! that would go unbeaten less than one time in 40, the same tail as each
//! end of a 95% interval. The two games of a deal are not independent (the
//! same deal from both seats), so the product is taken to the power
//! `deals / games`: a deal counts once. A winless bot's bound is the mirror
//! image with "not first" for "first", which is at least as likely as
//! "last", so its bound is conservative at more than two seats. Games with
//! no rated bot at the table say nothing here and are left out; a bot with
//! none gets no bound (its rank stays "above every rated bot").

use super::{Table, Unidentified};

/// The record's probability at the bound.
const TAIL: f64 = 0.025;

/// Per bot, in `theta` units (mean zero over the rated bots): the lower bound
/// of an unbeaten bot, the upper bound of a winless one, NaN for the rest.
pub(super) fn one_sided_bounds(
    deals: &[Vec<Table>],
    status: &[Option<Unidentified>],
    theta: &[f64],
) -> Vec<f64> {
    (0..status.len())
        .map(|bot| match status[bot] {
            Some(reason @ (Unidentified::Unbeaten | Unidentified::Winless)) => {
                bound(&rivals(deals, bot as u32, theta), reason)
            }
            _ => f64::NAN,
        })
        .collect()
}

/// The bot's games against rated bots: per game, the deal it was played on
/// and the summed `e^theta` of the rated bots at the table.
fn rivals(deals: &[Vec<Table>], bot: u32, theta: &[f64]) -> Vec<(usize, f64)> {
    let mut games = Vec::new();
    for (deal, tables) in deals.iter().enumerate() {
        for table in tables {
            let Some(&(_, rank)) = table.iter().find(|(seated, _)| *seated == bot) else {
                continue;
            };
            // A rated bot tied with it neither beat it nor lost to it.
            let strength: f64 = table
                .iter()
                .filter(|&&(other, other_rank)| {
                    other != bot && other_rank != rank && theta[other as usize].is_finite()
                })
                .map(|&(other, _)| theta[other as usize].exp())
                .sum();
            if strength > 0.0 {
                games.push((deal, strength));
            }
        }
    }
    games
}

/// The `t` at which the record's probability, a deal counted once, is
/// [`TAIL`]; NaN without games.
fn bound(games: &[(usize, f64)], reason: Unidentified) -> f64 {
    if games.is_empty() {
        return f64::NAN;
    }
    let mut deals: Vec<usize> = games.iter().map(|&(deal, _)| deal).collect();
    deals.dedup();
    let weight = deals.len() as f64 / games.len() as f64;
    // ln P(record | t), increasing in t when unbeaten, decreasing when winless.
    let log_chance = |t: f64| -> f64 {
        weight
            * games
                .iter()
                .map(|&(_, rivals)| {
                    let first = t.exp() / (t.exp() + rivals);
                    match reason {
                        Unidentified::Winless => (1.0 - first).ln(),
                        _ => first.ln(),
                    }
                })
                .sum::<f64>()
    };
    let target = TAIL.ln();
    let (mut low, mut high) = (-60.0_f64, 60.0_f64);
    for _ in 0..100 {
        let middle = 0.5 * (low + high);
        let above_target = log_chance(middle) > target;
        // Unbeaten: the bound is where the chance climbs to the target.
        if above_target == (reason == Unidentified::Winless) {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unbeaten_record_of_n_games_against_an_equal_has_chance_tail_at_the_bound() {
        // Five wins over one rated bot at theta 0, one deal each: the bound t
        // solves (e^t / (e^t + 1))^5 = 0.025.
        let games: Vec<(usize, f64)> = (0..5).map(|deal| (deal, 1.0)).collect();
        let t = bound(&games, Unidentified::Unbeaten);
        let p = TAIL.powf(1.0 / 5.0);
        assert!((t - (p / (1.0 - p)).ln()).abs() < 1e-9, "{t}");
        let winless = bound(&games, Unidentified::Winless);
        assert!((winless + t).abs() < 1e-9, "a mirror image: {winless} {t}");
    }

    #[test]
    fn the_two_games_of_a_deal_count_once() {
        let one_game_a_deal: Vec<(usize, f64)> = (0..5).map(|deal| (deal, 1.0)).collect();
        let two_games_a_deal: Vec<(usize, f64)> =
            (0..5).flat_map(|deal| [(deal, 1.0), (deal, 1.0)]).collect();
        let once = bound(&one_game_a_deal, Unidentified::Unbeaten);
        let twice = bound(&two_games_a_deal, Unidentified::Unbeaten);
        assert!((once - twice).abs() < 1e-9, "{once} {twice}");
    }

    #[test]
    fn a_bot_that_never_met_a_rated_bot_gets_no_bound() {
        let deals = vec![vec![vec![(0, 1), (1, 2)]]];
        let status = [Some(Unidentified::Unbeaten), Some(Unidentified::Winless)];
        let bounds = one_sided_bounds(&deals, &status, &[f64::NAN, f64::NAN]);
        assert!(bounds.iter().all(|b| b.is_nan()), "{bounds:?}");
    }
}
