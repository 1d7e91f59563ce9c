//! `cairn play --ab NEW OLD --field BOT...`: an A/B test at a table of 2-5
//! seats. Each deal is played twice with the same field in the same seats,
//! NEW then OLD in the tested seat, each game with its own bot processes
//! seeded alike (`CAIRN_BOT_SEED`), so the field replays its game until NEW
//! and OLD part ways; the tested seat moves round the table from deal to
//! deal over the balanced seatings. The statistics are
//! [`cairn_arena::stats::paired`]'s.

use std::collections::BTreeMap;

use cairn_arena::stats::paired::{half_seats_beaten, AbEstimate, AbPairs};
use cairn_arena::stats::{Sprt, SprtCheck, Verdict};
use cairn_engine::seating::balanced_seatings;
use cairn_runner::{deal_seed, GamePlan, GameResult, MatchSpec, SeatResult};
use serde_json::{json, Value};

use super::batch::Unit;
use super::summary::{elo_json, elo_text, interval_text};

/// The match's bots are NEW (0), OLD (1), then the field (2..).
pub const NEW: usize = 0;
pub const OLD: usize = 1;

/// The units (one game each, NEW's then OLD's for every deal) and the
/// match's whole plan in the same order, with the match's bot numbers.
pub fn plan(spec: &MatchSpec, pairs: u32, seed: u64) -> (Vec<Unit>, Vec<GamePlan>) {
    let n_seats = spec.bots.len() - 1;
    // Each unit clones the rest of the spec: not its games.
    let base = MatchSpec {
        games: Vec::new(),
        ..spec.clone()
    };
    let seatings = balanced_seatings(n_seats);
    let mut units = Vec::new();
    let mut games = Vec::new();
    for pair in 0..pairs as usize {
        // Table bot 0 is the tested seat, 1.. the field.
        let seating = &seatings[pair % seatings.len()];
        let deal = deal_seed(seed, pair as u64);
        for tested in [NEW, OLD] {
            let bots: Vec<usize> = std::iter::once(tested).chain(2..spec.bots.len()).collect();
            let unit_game = GamePlan {
                seed: deal,
                seating: seating.clone(),
            };
            games.push(GamePlan {
                seed: deal,
                seating: seating.iter().map(|&bot| bots[bot]).collect(),
            });
            units.push(Unit {
                spec: MatchSpec {
                    games: vec![unit_game],
                    bots: bots.iter().map(|&bot| spec.bots[bot].clone()).collect(),
                    ..base.clone()
                },
                bots,
            });
        }
    }
    (units, games)
}

/// The complete pairs among `games` (game `2d` is NEW's on deal `d`,
/// `2d + 1` OLD's), in deal order.
pub fn pairs(games: &[GameResult], n_seats: usize) -> AbPairs {
    pairs_of(
        games.iter().map(|game| (game.index, &game.seats[..])),
        n_seats,
    )
}

fn pairs_of<'a>(games: impl Iterator<Item = (u32, &'a [SeatResult])>, n_seats: usize) -> AbPairs {
    let mut by_deal: BTreeMap<u32, [Option<u32>; 2]> = BTreeMap::new();
    for (index, seats) in games {
        let Some(seat) = seats.iter().position(|seat| seat.bot <= OLD) else {
            continue;
        };
        let ranks: Vec<u32> = seats.iter().map(|seat| seat.rank).collect();
        by_deal.entry(index / 2).or_default()[seats[seat].bot] =
            Some(half_seats_beaten(&ranks, seat));
    }
    let mut ab = AbPairs::new(n_seats);
    ab.pairs = by_deal
        .values()
        .filter_map(|&[new, old]| Some((new?, old?)))
        .collect();
    ab
}

/// The SPRT on the pairs, with the pairs it was taken on.
#[derive(Debug, Clone, PartialEq)]
pub struct AbSprt {
    pub sprt: Sprt,
    pub check: SprtCheck,
    pub pairs: usize,
}

impl AbSprt {
    pub fn of(sprt: Sprt, ab: &AbPairs) -> AbSprt {
        AbSprt {
            sprt,
            check: ab.check(&sprt),
            pairs: ab.pairs.len(),
        }
    }

    fn verdict_text(&self) -> String {
        let bounds = (self.sprt.elo0, self.sprt.elo1);
        super::summary::verdict_text(self.check.verdict, bounds, "NEW", " than OLD in this field")
    }

    fn line(&self) -> String {
        let at = match self.check.verdict {
            Verdict::Continue => "",
            _ => "at the decision: ",
        };
        format!(
            "sprt elo0={} elo1={} alpha={} beta={} model={} on the paired difference: {}, llr {:.3} (bounds {:.3} .. {:.3}), {at}{} deal pairs",
            self.sprt.elo0,
            self.sprt.elo1,
            self.sprt.alpha,
            self.sprt.beta,
            self.sprt.model.name(),
            self.verdict_text(),
            self.check.llr,
            self.check.lower,
            self.check.upper,
            self.pairs
        )
    }

    fn json(&self) -> Value {
        let accepted = match self.check.verdict {
            Verdict::AcceptH0 => "H0",
            Verdict::AcceptH1 => "H1",
            Verdict::Continue => "none",
        };
        json!({"elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
               "beta": self.sprt.beta, "model": self.sprt.model.name(), "llr": self.check.llr,
               "lower_bound": self.check.lower, "upper_bound": self.check.upper,
               "accepted": accepted, "at": {"pairs": self.pairs}})
    }
}

/// `names`: NEW, OLD, then the field.
pub fn text(names: &[String], ab: &AbPairs, sprt: Option<&AbSprt>) -> String {
    let mut out = format!(
        "A/B: {} vs {} in one seat of a {}-seat table with {}: {} deal pairs\n",
        names[NEW],
        names[OLD],
        ab.n_seats,
        names[2..].join(", "),
        ab.pairs.len()
    );
    match ab.estimate() {
        Some(estimate) => out.push_str(&estimate_text(&estimate, sprt)),
        None => out.push_str("paired elo: no complete deal pair\n"),
    }
    if let Some(state) = sprt {
        out.push_str(&state.line());
        out.push('\n');
        let after = ab.pairs.len().saturating_sub(state.pairs);
        if state.check.verdict != Verdict::Continue && after > 0 {
            out.push_str(&format!(
                "{after} pair(s) already in play at the decision finished after it: counted above, not in the test\n"
            ));
        }
    }
    out
}

fn estimate_text(estimate: &AbEstimate, sprt: Option<&AbSprt>) -> String {
    let mut out = format!(
        "share of the other seats beaten (ties half): NEW {:.3}, OLD {:.3}\n",
        estimate.new_share, estimate.old_share
    );
    match estimate.elo_defined() {
        true => out.push_str(&format!(
            "paired elo {} ({}), LOS {:.1}% (over deal pairs)\n",
            elo_text(estimate.elo),
            interval_text(estimate.elo_low, estimate.elo_high),
            100.0 * estimate.los
        )),
        false => out.push_str(&format!(
            "paired elo: none at OLD's share of {:.0}% (the Elo scale has no slope there), LOS {:.1}% (over deal pairs)\n",
            100.0 * estimate.old_share,
            100.0 * estimate.los
        )),
    }
    out.push_str(&format!(
        "deal pairs: NEW better {}, alike {}, worse {}\n",
        estimate.better, estimate.same, estimate.worse
    ));
    if sprt.is_some_and(|state| state.check.verdict != Verdict::Continue) {
        out.push_str("(naive estimate: a test that stops when its evidence is strongest overstates the difference)\n");
    }
    out
}

pub fn json(ab: &AbPairs, sprt: Option<&AbSprt>) -> Value {
    let estimate = ab.estimate();
    let scaled = estimate.filter(AbEstimate::elo_defined);
    json!({
        "table_seats": ab.n_seats,
        "pairs": ab.pairs.len(),
        "new_share": estimate.map(|e| e.new_share),
        "old_share": estimate.map(|e| e.old_share),
        "elo": scaled.map(|e| elo_json(e.elo)),
        "elo_low": scaled.map(|e| elo_json(e.elo_low)),
        "elo_high": scaled.map(|e| elo_json(e.elo_high)),
        "los": estimate.map(|e| e.los),
        "better": estimate.map(|e| e.better),
        "same": estimate.map(|e| e.same),
        "worse": estimate.map(|e| e.worse),
        "sprt": sprt.map(AbSprt::json),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seats(bots_and_ranks: &[(usize, u32)]) -> Vec<SeatResult> {
        bots_and_ranks
            .iter()
            .map(|&(bot, rank)| SeatResult {
                bot,
                score: 0,
                rank,
                forfeit: None,
                timings: Vec::new(),
                stderr_tail: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn an_old_bot_that_beat_every_seat_leaves_no_elo_scale_to_read() {
        // Three seats, four half-seats to beat: both swept every deal.
        let swept = AbPairs {
            n_seats: 3,
            pairs: vec![(4, 4); 3],
        };
        let estimate = swept.estimate().unwrap();
        assert!(!estimate.elo_defined());
        let text = estimate_text(&estimate, None);
        assert!(
            text.contains("paired elo: none at OLD's share of 100%"),
            "{text}"
        );
        assert_eq!(json(&swept, None)["elo"], Value::Null);
        let split = AbPairs {
            n_seats: 3,
            pairs: vec![(4, 2), (2, 3), (1, 1)],
        };
        assert!(split.estimate().unwrap().elo_defined());
    }

    #[test]
    fn a_pair_is_new_s_and_old_s_game_on_one_deal_and_an_unfinished_one_waits() {
        let games = [
            // Deal 0: NEW first of three, OLD tied for second.
            (0, seats(&[(2, 2), (NEW, 1), (3, 3)])),
            (1, seats(&[(2, 1), (OLD, 2), (3, 2)])),
            // Deal 1: only OLD's game has finished.
            (3, seats(&[(OLD, 3), (2, 1), (3, 2)])),
        ];
        let ab = pairs_of(games.iter().map(|(index, seats)| (*index, &seats[..])), 3);
        assert_eq!(ab.pairs, vec![(4, 1)]);
    }

    #[test]
    fn each_deal_seats_new_and_old_alike_and_the_tested_seat_moves_round() {
        let spec = MatchSpec {
            game: "bullfrogs".into(),
            options: Default::default(),
            games: Vec::new(),
            bots: ["new", "old", "f1", "f2"]
                .map(|name| cairn_runner::BotEntry {
                    name: name.into(),
                    launch: cairn_runner::LaunchSpec {
                        command: vec!["true".into()],
                        bot_dir: ".".into(),
                        env: Vec::new(),
                    },
                })
                .to_vec(),
            time_control: Default::default(),
            limits: Default::default(),
            cpu: None,
        };
        let (units, games) = plan(&spec, 6, 7);
        assert_eq!(units.len(), 12);
        for (pair, both) in games.chunks(2).enumerate() {
            assert_eq!(both[0].seed, both[1].seed);
            let tested = |game: &GamePlan, bot| game.seating.iter().position(|&b| b == bot);
            assert_eq!(tested(&both[0], NEW), tested(&both[1], OLD), "pair {pair}");
            let field = |game: &GamePlan| game.seating.iter().filter(|&&b| b > OLD).count();
            assert_eq!((field(&both[0]), field(&both[1])), (2, 2));
        }
        // Six deals at three seats: every seat tested twice.
        let mut tested_seats = [0; 3];
        for game in games.iter().step_by(2) {
            tested_seats[game.seating.iter().position(|&b| b == NEW).unwrap()] += 1;
        }
        assert_eq!(tested_seats, [2, 2, 2]);
        assert_eq!(units[0].bots, vec![NEW, 2, 3]);
        assert_eq!(units[1].bots, vec![OLD, 2, 3]);
        assert_eq!(units[1].spec.bots[0].name, "old");
    }
}
