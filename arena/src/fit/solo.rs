//! Solo standings, pure: every bot plays the same seeded deals alone
//! (Bullfrogs against Isaac) and is ranked by its mean score.
//!
//! RULING (ours): the unit is the deal, as in the rating fit: a bot that
//! played one deal twice counts that deal once, at its mean. A bot's
//! interval is its mean ± 1.96 standard errors over its deals (unbounded
//! with fewer than two deals). Two bots are compared *paired by deal*: the
//! mean of their score differences on the deals both played, ± 1.96
//! standard errors of those differences. The luck of a deal is most of a
//! solo score's spread and pairing cancels it, so two bots whose own
//! intervals overlap can still be told apart.
//!
//! RULING (ours): the rank title shown for a mean is the rulebook's title of
//! the mean rounded down (a title is earned by reaching its lowest score).

use std::collections::BTreeMap;

use super::{DealKey, Estimate};

/// The standard normal's 97.5% quantile.
const Z_95: f64 = 1.959_963_984_540_054;

/// One solo game: the deal, the bot and its final score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SoloGame {
    pub deal: DealKey,
    pub bot_version_id: i64,
    pub score: i64,
}

/// One bot's line of a solo leaderboard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoloStanding {
    pub bot_version_id: i64,
    /// Deals played (a deal played twice counts once).
    pub deals: usize,
    /// The mean score and its 95% interval.
    pub score: Estimate,
}

/// Each bot's mean score per deal, deals sorted.
fn by_bot(games: &[SoloGame]) -> BTreeMap<i64, BTreeMap<DealKey, f64>> {
    let mut sums: BTreeMap<i64, BTreeMap<DealKey, (f64, f64)>> = BTreeMap::new();
    for game in games {
        let (sum, n) = sums
            .entry(game.bot_version_id)
            .or_default()
            .entry(game.deal)
            .or_default();
        *sum += game.score as f64;
        *n += 1.0;
    }
    sums.into_iter()
        .map(|(bot, deals)| {
            let means = deals
                .into_iter()
                .map(|(deal, (sum, n))| (deal, sum / n))
                .collect();
            (bot, means)
        })
        .collect()
}

/// The mean of `values` ± 1.96 standard errors.
fn mean_interval(values: &[f64]) -> Estimate {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return Estimate {
            rating: mean,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        };
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half_width = Z_95 * (variance / n).sqrt();
    Estimate {
        rating: mean,
        low: mean - half_width,
        high: mean + half_width,
    }
}

/// Every bot's standing, best mean first (ties by bot id).
pub fn solo_standings(games: &[SoloGame]) -> Vec<SoloStanding> {
    let mut standings: Vec<SoloStanding> = by_bot(games)
        .into_iter()
        .map(|(bot_version_id, deals)| {
            let scores: Vec<f64> = deals.into_values().collect();
            SoloStanding {
                bot_version_id,
                deals: scores.len(),
                score: mean_interval(&scores),
            }
        })
        .collect();
    standings.sort_by(|a, b| {
        b.score
            .rating
            .total_cmp(&a.score.rating)
            .then(a.bot_version_id.cmp(&b.bot_version_id))
    });
    standings
}

/// Bot `a`'s mean score minus bot `b`'s over the deals both played, with
/// its 95% interval paired by deal; `None` when they share no deal.
pub fn paired_difference(games: &[SoloGame], a: i64, b: i64) -> Option<Estimate> {
    let bots = by_bot(games);
    let (a, b) = (bots.get(&a)?, bots.get(&b)?);
    let differences: Vec<f64> = a
        .iter()
        .filter_map(|(deal, score)| Some(score - b.get(deal)?))
        .collect();
    (!differences.is_empty()).then(|| mean_interval(&differences))
}

/// The rank `title` (a game's table of solo scores) of a mean score,
/// rounded down.
pub fn rank_title(title: fn(i32) -> &'static str, mean: f64) -> &'static str {
    let floor = if mean.is_nan() {
        i32::MIN
    } else {
        mean.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
    };
    title(floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(seed: i64, bot_version_id: i64, score: i64) -> SoloGame {
        SoloGame {
            deal: DealKey {
                tournament_id: 1,
                seed,
            },
            bot_version_id,
            score,
        }
    }

    #[test]
    fn a_bot_is_ranked_by_its_mean_with_a_normal_interval() {
        let games = [
            game(1, 7, 10),
            game(2, 7, 20),
            game(3, 7, 30),
            game(1, 8, 40),
        ];
        let standings = solo_standings(&games);
        assert_eq!(standings[0].bot_version_id, 8, "the higher mean leads");
        let seven = standings[1];
        // sd 10 over 3 deals: 1.96 · 10 / sqrt(3).
        let half = Z_95 * 10.0 / 3_f64.sqrt();
        assert_eq!((seven.deals, seven.score.rating), (3, 20.0));
        assert!((seven.score.low - (20.0 - half)).abs() < 1e-9);
        assert!((seven.score.high - (20.0 + half)).abs() < 1e-9);
        let eight = standings[0].score;
        assert_eq!((eight.low, eight.high), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn pairing_by_deal_cancels_the_luck_of_the_deal() {
        // Deals range from 0 to 90 points; bot 2 always scores one more.
        let games: Vec<SoloGame> = (0..10)
            .flat_map(|seed| [game(seed, 1, seed * 10), game(seed, 2, seed * 10 + 1)])
            .collect();
        let standings = solo_standings(&games);
        assert!(
            standings[1].score.high > standings[0].score.low,
            "alone they overlap"
        );
        let gap = paired_difference(&games, 2, 1).unwrap();
        assert_eq!((gap.rating, gap.low, gap.high), (1.0, 1.0, 1.0));
        assert_eq!(paired_difference(&games, 2, 3), None);
    }

    #[test]
    fn a_deal_played_twice_counts_once_and_order_does_not_matter() {
        let games = [game(1, 5, 10), game(1, 5, 20), game(2, 5, 30)];
        let mut reversed = games;
        reversed.reverse();
        let standing = solo_standings(&games)[0];
        assert_eq!((standing.deals, standing.score.rating), (2, 22.5));
        assert_eq!(solo_standings(&reversed), solo_standings(&games));
    }

    fn bullfrogs_title(mean: f64) -> &'static str {
        rank_title(cairn_engine::bullfrogs::cards::solo_rank_title, mean)
    }

    #[test]
    fn the_title_is_the_rulebooks_for_the_mean_rounded_down() {
        assert_eq!(bullfrogs_title(44.9), "Commander Frog");
        assert_eq!(bullfrogs_title(45.0), "Grandmaster Frog");
        assert_eq!(bullfrogs_title(24.99), "Squire Frog");
        assert_eq!(bullfrogs_title(-3.0), "Squire Frog");
        assert_eq!(bullfrogs_title(f64::NAN), "Squire Frog");
        assert_eq!(bullfrogs_title(1e300), "Grandmaster Frog");
    }
}
