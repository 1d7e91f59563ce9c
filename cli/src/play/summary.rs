//! The statistics of a played match, as text and JSON: for two seats the
//! first bot's score, W/D/L, Elo difference ±95% and LOS (over deal pairs
//! with `--mirror`); for 3-5 seats each bot's mean rank and score with 95%
//! intervals; the SPRT's state when one runs.

use std::collections::BTreeMap;

use cairn_runner::GameResult;
use serde_json::{json, Value};

use cairn_arena::format::seat_points;
use cairn_arena::stats::{los, EloEstimate, MeanInterval, Outcomes, Sprt, SprtCheck, Verdict};

/// The first bot's games against the second, two seats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeadToHead {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Complete deal pairs by the first bot's points over the pair (0, ½,
    /// 1, 1½, 2); only with `--mirror`.
    pub pairs: Option<[u64; 5]>,
}

/// The first bot's score in a two-seat game: 1, ½ or 0.
fn first_bot_score(game: &GameResult) -> Option<f64> {
    let rank_of = |bot: usize| game.seats.iter().find(|s| s.bot == bot).map(|s| s.rank);
    let (first, second) = (rank_of(0)?, rank_of(1)?);
    Some(match first.cmp(&second) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    })
}

impl HeadToHead {
    /// `mirror`: games `2k` and `2k + 1` share a deal.
    pub fn of(games: &[GameResult], mirror: bool) -> HeadToHead {
        let mut totals = HeadToHead::default();
        let mut by_deal: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for game in games {
            let Some(score) = first_bot_score(game) else {
                continue;
            };
            match score {
                1.0 => totals.wins += 1,
                0.0 => totals.losses += 1,
                _ => totals.draws += 1,
            }
            by_deal.entry(game.index / 2).or_default().push(score);
        }
        if mirror {
            let mut pairs = [0; 5];
            for scores in by_deal.values().filter(|scores| scores.len() == 2) {
                let points: f64 = scores.iter().sum();
                pairs[((points * 2.0).round() as usize).min(4)] += 1;
            }
            totals.pairs = Some(pairs);
        }
        totals
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The outcomes the Elo and the SPRT are computed over: deal pairs with
    /// `--mirror`, games otherwise.
    pub fn outcomes(&self) -> Outcomes {
        match self.pairs {
            Some(pairs) => Outcomes::pentanomial(pairs),
            None => Outcomes::trinomial(self.wins, self.draws, self.losses),
        }
    }
}

/// An SPRT with its current log-likelihood ratio, and the games it was
/// computed over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtState {
    pub sprt: Sprt,
    pub llr: f64,
    pub verdict: Verdict,
    pub head: HeadToHead,
}

impl SprtState {
    pub fn of(sprt: Sprt, head: &HeadToHead) -> SprtState {
        let check = sprt.check(&head.outcomes());
        SprtState {
            sprt,
            llr: check.llr,
            verdict: check.verdict,
            head: *head,
        }
    }

    /// The check as the progress line shows it.
    pub fn check(&self) -> SprtCheck {
        SprtCheck {
            llr: self.llr,
            lower: self.sprt.lower_bound(),
            upper: self.sprt.upper_bound(),
            verdict: self.verdict,
        }
    }

    pub fn line(&self) -> String {
        let bounds = (self.sprt.elo0, self.sprt.elo1);
        let decision = verdict_text(self.verdict, bounds, "the first bot", "");
        let head = &self.head;
        let at = match self.verdict {
            Verdict::Continue => "",
            _ => "at the decision: ",
        };
        format!(
            "sprt elo0={} elo1={} alpha={} beta={} model={}: {decision}, llr {:.3} (bounds {:.3} .. {:.3}), {at}{} W {} D {} L {}{}",
            self.sprt.elo0,
            self.sprt.elo1,
            self.sprt.alpha,
            self.sprt.beta,
            self.sprt.model.name(),
            self.llr,
            self.sprt.lower_bound(),
            self.sprt.upper_bound(),
            games_text(head.games()),
            head.wins,
            head.draws,
            head.losses,
            match head.pairs {
                Some(pairs) => format!(", {} deal pairs", pairs.iter().sum::<u64>()),
                None => String::new(),
            }
        )
    }

    fn json(&self) -> Value {
        let verdict = match self.verdict {
            Verdict::AcceptH0 => "H0",
            Verdict::AcceptH1 => "H1",
            Verdict::Continue => "none",
        };
        let head = &self.head;
        json!({"elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
               "beta": self.sprt.beta, "model": self.sprt.model.name(), "llr": self.llr,
               "lower_bound": self.sprt.lower_bound(), "upper_bound": self.sprt.upper_bound(),
               "accepted": verdict,
               "at": {"games": head.games(), "wins": head.wins, "draws": head.draws,
                      "losses": head.losses, "pentanomial": head.pairs}})
    }
}

/// What a verdict says of `who` (against `than`), in words that hold for
/// any bounds: `elo0=-10 elo1=0`, a non-regression test, accepts H1 for a
/// bot that is not 10 Elo weaker, which need not be stronger.
pub fn verdict_text(verdict: Verdict, (elo0, elo1): (f64, f64), who: &str, than: &str) -> String {
    let h0 = format!("(elo0 = {elo0} fits better than elo1 = {elo1})");
    let h1 = format!("(elo1 = {elo1} fits better than elo0 = {elo0})");
    match verdict {
        Verdict::AcceptH0 if elo1 <= 0.0 => format!("H0 accepted: {who} is weaker{than} {h0}"),
        Verdict::AcceptH0 => format!("H0 accepted: {who} is not {elo1} Elo stronger{than} {h0}"),
        Verdict::AcceptH1 if elo0 >= 0.0 => format!("H1 accepted: {who} is stronger{than} {h1}"),
        Verdict::AcceptH1 => {
            format!("H1 accepted: {who} is not {} Elo weaker{than} {h1}", -elo0)
        }
        Verdict::Continue => "no decision yet".to_string(),
    }
}

/// A bot's mean rank and mean score over its games (3-5 seats).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    pub rank: MeanInterval,
    pub score: MeanInterval,
}

pub fn standings(games: &[GameResult], n_bots: usize, n_seats: usize) -> Vec<Option<Standing>> {
    (0..n_bots)
        .map(|bot| {
            let seats = games
                .iter()
                .flat_map(|g| g.seats.iter())
                .filter(|s| s.bot == bot);
            let (ranks, scores): (Vec<f64>, Vec<f64>) = seats
                .map(|s| (f64::from(s.rank), f64::from(s.score)))
                .unzip();
            Some(Standing {
                rank: MeanInterval::of_bounded(&ranks, (1.0, n_seats as f64))?,
                score: MeanInterval::of(&scores)?,
            })
        })
        .collect()
}

/// An Elo for people: signed, `inf` when one side won everything.
pub fn elo_text(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        format!("{elo:+.1}")
    }
}

/// An Elo for JSON: a number, or the string `inf` / `-inf`.
pub fn elo_json(elo: f64) -> Value {
    if elo.is_infinite() {
        json!(if elo > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(elo)
    }
}

/// An interval's ends, one-sided where the other end is unbounded:
/// `95%: +86.2 .. +218.3`, or `95%: at least +480.2` after every game won.
pub fn interval_text(low: f64, high: f64) -> String {
    format!("95%: {}", bounds_text(low, high))
}

/// `+86.2 .. +218.3`, `at least +480.2`, `at most -12.0` or `unbounded`.
pub fn bounds_text(low: f64, high: f64) -> String {
    match (low.is_finite(), high.is_finite()) {
        (true, true) => format!("{} .. {}", elo_text(low), elo_text(high)),
        (true, false) => format!("at least {}", elo_text(low)),
        (false, true) => format!("at most {}", elo_text(high)),
        (false, false) => "unbounded".to_string(),
    }
}

/// The summary lines for two seats, from the first bot's side: W/D/L and
/// the draw ratio, Elo and normalized Elo with 95% intervals, LOS from the
/// same model, the pentanomial labelled, and the SPRT with the counts at
/// its decision.
pub fn head_to_head_text(names: &[String], head: &HeadToHead, sprt: Option<&SprtState>) -> String {
    let mut out = format!(
        "{} vs {}: {}, W {} D {} L {}",
        names[0],
        names[1],
        games_text(head.games()),
        head.wins,
        head.draws,
        head.losses
    );
    if head.games() > 0 {
        let ratio = head.draws as f64 / head.games() as f64;
        out.push_str(&format!(", draw ratio {:.1}%", 100.0 * ratio));
    }
    let estimate = EloEstimate::of(&head.outcomes());
    match &estimate {
        Some(estimate) => {
            out.push_str(&format!(", score {:.3}\n", estimate.score));
            let margin = match (estimate.elo_low.is_finite(), estimate.elo_high.is_finite()) {
                (true, true) => format!(" ±{:.1}", estimate.margin()),
                _ => String::new(),
            };
            out.push_str(&format!(
                "elo {}{margin} ({})",
                elo_text(estimate.elo),
                interval_text(estimate.elo_low, estimate.elo_high)
            ));
            let (nelo, low, high) = estimate.nelo;
            let margin = match (low.is_finite(), high.is_finite()) {
                (true, true) => format!(" ±{:.1}", (high - low) / 2.0),
                _ => String::new(),
            };
            out.push_str(&format!(
                ", nelo {}{margin} ({})",
                elo_text(nelo),
                interval_text(low, high)
            ));
            if head.pairs.is_none() {
                match los(head.wins, head.losses) {
                    Some(p) => out.push_str(&format!(", LOS {:.1}%", 100.0 * p)),
                    None => out.push_str(", LOS: no decisive game"),
                }
            }
            if sprt.is_some_and(|state| state.verdict != Verdict::Continue) {
                out.push_str(
                    "\n(naive estimates: a test that stops when its evidence is strongest overstates the difference)",
                );
            }
        }
        None => out.push_str("\nelo: no complete deal pair"),
    }
    if let Some(pairs) = head.pairs {
        out.push_str(&format!(
            "\npentanomial, deal pairs by the first bot's points over the pair: 0: {} ½: {} 1: {} 1½: {} 2: {} ({} pairs)",
            pairs[0],
            pairs[1],
            pairs[2],
            pairs[3],
            pairs[4],
            pairs.iter().sum::<u64>()
        ));
    }
    if let (Some(_), Some(estimate)) = (head.pairs, estimate) {
        out.push_str(&format!(
            "\nLOS {:.1}% (over deal pairs)",
            100.0 * estimate.los()
        ));
    }
    out.push('\n');
    if let Some(state) = sprt {
        out.push_str(&state.line());
        out.push('\n');
        let after = head.games().saturating_sub(state.head.games());
        if state.verdict != Verdict::Continue && after > 0 {
            out.push_str(&format!(
                "{after} game(s) already in play at the decision finished after it: counted above, not in the test\n"
            ));
        }
    }
    out
}

pub fn head_to_head_json(head: &HeadToHead, sprt: Option<&SprtState>) -> Value {
    let estimate = EloEstimate::of(&head.outcomes());
    let los = match head.pairs {
        Some(_) => estimate.map(|e| e.los()),
        None => los(head.wins, head.losses),
    };
    json!({
        "wins": head.wins, "draws": head.draws, "losses": head.losses,
        "draw_ratio": (head.games() > 0).then(|| head.draws as f64 / head.games() as f64),
        "pentanomial": head.pairs,
        "score": estimate.map(|e| e.score),
        "elo": estimate.map(|e| elo_json(e.elo)),
        "elo_low": estimate.map(|e| elo_json(e.elo_low)),
        "elo_high": estimate.map(|e| elo_json(e.elo_high)),
        "nelo": estimate.map(|e| elo_json(e.nelo.0)),
        "nelo_low": estimate.map(|e| elo_json(e.nelo.1)),
        "nelo_high": estimate.map(|e| elo_json(e.nelo.2)),
        "los": los,
        "sprt": sprt.map(SprtState::json),
    })
}

/// Each seat's mean points (the share of the other seats it ranked above,
/// a tie counting half) with its 95% interval, whoever sat there: the
/// game's seat bias at this table size, which balanced seatings cancel.
pub fn seat_shares(games: &[GameResult], n_seats: usize) -> Vec<Option<MeanInterval>> {
    (0..n_seats)
        .map(|seat| {
            let points: Vec<f64> = games
                .iter()
                .map(|game| {
                    let ranks: Vec<u32> = game.seats.iter().map(|s| s.rank).collect();
                    seat_points(&ranks, seat)
                })
                .collect();
            MeanInterval::of_bounded(&points, (0.0, 1.0))
        })
        .collect()
}

/// `seats: 0 0.534 ±0.041, 1 0.466 ±0.041 (...)`, numbered as the games'
/// table numbers them; nothing at one seat, where there is no other.
pub fn seat_shares_text(shares: &[Option<MeanInterval>]) -> String {
    if shares.len() < 2 {
        return String::new();
    }
    let cells: Vec<String> = shares
        .iter()
        .enumerate()
        .filter_map(|(seat, share)| {
            share.map(|s| format!("{seat} {:.3} ±{}", s.mean, margin_text(s.margin, 3)))
        })
        .collect();
    format!(
        "seats: {} (each seat, whoever sat there: the share of the other seats it ranked above, a tie half, with its 95% margin)\n",
        cells.join(", ")
    )
}

/// `0.041`, or `?` where the samples give no interval.
fn margin_text(margin: Option<f64>, decimals: usize) -> String {
    margin.map_or_else(|| "?".to_string(), |m| format!("{m:.decimals$}"))
}

pub fn seat_shares_json(shares: &[Option<MeanInterval>]) -> Value {
    if shares.len() < 2 {
        return json!([]);
    }
    json!(shares
        .iter()
        .map(|share| share.map(|s| json!({"mean_points": s.mean, "margin": s.margin})))
        .collect::<Vec<_>>())
}

pub fn standings_text(names: &[String], standings: &[Option<Standing>]) -> String {
    let mut table =
        crate::table::Table::new(&["bot", ">mean rank", ">±95%", ">mean score", ">±95%"]);
    for (name, standing) in names.iter().zip(standings) {
        let Some(s) = standing else { continue };
        table.row(vec![
            name.clone(),
            format!("{:.2}", s.rank.mean),
            margin_text(s.rank.margin, 2),
            format!("{:.2}", s.score.mean),
            margin_text(s.score.margin, 2),
        ]);
    }
    table.render()
}

pub fn standings_json(standings: &[Option<Standing>]) -> Value {
    let bots: Vec<Value> = standings
        .iter()
        .map(|s| {
            s.map_or(Value::Null, |s| {
                json!({"mean_rank": s.rank.mean, "mean_rank_margin": s.rank.margin,
                       "mean_score": s.score.mean, "mean_score_margin": s.score.margin})
            })
        })
        .collect();
    json!({ "bots": bots })
}

/// The title a solo game's rulebook gives a mean score (rounded down), if
/// it has one.
fn solo_title(game: &str, mean: f64) -> Option<&'static str> {
    let title = cairn_engine::descriptor(game)?.solo_rank_title?;
    Some(cairn_arena::fit::solo::rank_title(title, mean))
}

/// One seat against the game's automaton: each bot's mean score with its
/// 95% margin, and the rulebook's title for that mean.
pub fn solo_text(game: &str, names: &[String], standings: &[Option<Standing>]) -> String {
    let mut table = crate::table::Table::new(&["bot", ">games", ">mean score", ">±95%", "title"]);
    for (name, standing) in names.iter().zip(standings) {
        let Some(s) = standing else { continue };
        table.row(vec![
            name.clone(),
            s.score.n.to_string(),
            format!("{:.2}", s.score.mean),
            margin_text(s.score.margin, 2),
            solo_title(game, s.score.mean).unwrap_or("").to_string(),
        ]);
    }
    format!(
        "solo: the score is the seat's own less the automaton's\n{}",
        table.render()
    )
}

pub fn solo_json(game: &str, standings: &[Option<Standing>]) -> Value {
    let bots: Vec<Value> = standings
        .iter()
        .map(|s| {
            s.map_or(Value::Null, |s| {
                json!({"games": s.score.n, "mean_score": s.score.mean,
                       "mean_score_margin": s.score.margin,
                       "title": solo_title(game, s.score.mean)})
            })
        })
        .collect();
    json!({ "bots": bots })
}

/// `1 game`, `2 games`.
fn games_text(n: u64) -> String {
    match n {
        1 => "1 game".to_string(),
        n => format!("{n} games"),
    }
}
