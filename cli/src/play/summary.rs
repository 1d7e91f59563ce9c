//! The statistics of a played match, as text and JSON: for two seats the
//! first bot's score, W/D/L, Elo difference ±95% and LOS (over deal pairs
//! with `--mirror`); for 3-5 seats each bot's mean rank and score with 95%
//! intervals; the SPRT's state when one runs.

use std::collections::BTreeMap;

use cairn_runner::GameResult;
use serde_json::{json, Value};

use cairn_arena::stats::{los, EloEstimate, MeanInterval, Outcomes, Sprt, Verdict};

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

/// An SPRT with its current log-likelihood ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtState {
    pub sprt: Sprt,
    pub llr: f64,
    pub verdict: Verdict,
}

impl SprtState {
    pub fn of(sprt: Sprt, head: &HeadToHead) -> SprtState {
        let llr = sprt.llr(&head.outcomes());
        SprtState {
            sprt,
            llr,
            verdict: sprt.verdict(llr),
        }
    }

    pub fn line(&self) -> String {
        let decision = match self.verdict {
            Verdict::AcceptH0 => format!(
                "H0 accepted: the first bot is not {} Elo stronger (elo0 = {} fits better)",
                self.sprt.elo1, self.sprt.elo0
            ),
            Verdict::AcceptH1 => format!(
                "H1 accepted: the first bot is stronger (elo1 = {} fits better than elo0 = {})",
                self.sprt.elo1, self.sprt.elo0
            ),
            Verdict::Continue => "no decision yet".to_string(),
        };
        format!(
            "sprt elo0={} elo1={} alpha={} beta={}: {decision}, llr {:.3} (bounds {:.3} .. {:.3})",
            self.sprt.elo0,
            self.sprt.elo1,
            self.sprt.alpha,
            self.sprt.beta,
            self.llr,
            self.sprt.lower_bound(),
            self.sprt.upper_bound()
        )
    }

    fn json(&self) -> Value {
        let verdict = match self.verdict {
            Verdict::AcceptH0 => "H0",
            Verdict::AcceptH1 => "H1",
            Verdict::Continue => "none",
        };
        json!({"elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
               "beta": self.sprt.beta, "llr": self.llr, "lower_bound": self.sprt.lower_bound(),
               "upper_bound": self.sprt.upper_bound(), "accepted": verdict})
    }
}

/// A bot's mean rank and mean score over its games (3-5 seats).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    pub rank: MeanInterval,
    pub score: MeanInterval,
}

pub fn standings(games: &[GameResult], n_bots: usize) -> Vec<Option<Standing>> {
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
                rank: MeanInterval::of(&ranks)?,
                score: MeanInterval::of(&scores)?,
            })
        })
        .collect()
}

/// An Elo for people: signed, `inf` when one side won everything.
fn elo_text(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        format!("{elo:+.1}")
    }
}

/// An Elo for JSON: a number, or the string `inf` / `-inf`.
fn elo_json(elo: f64) -> Value {
    if elo.is_infinite() {
        json!(if elo > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(elo)
    }
}

/// The summary lines for two seats, from the first bot's side.
pub fn head_to_head_text(names: &[String], head: &HeadToHead, sprt: Option<&SprtState>) -> String {
    let mut out = format!(
        "{} vs {}: {} games, W {} D {} L {}",
        names[0],
        names[1],
        head.games(),
        head.wins,
        head.draws,
        head.losses
    );
    match EloEstimate::of(&head.outcomes()) {
        Some(estimate) => {
            let over = match head.pairs {
                Some(pairs) => format!(" over {} deal pairs {pairs:?}", pairs.iter().sum::<u64>()),
                None => String::new(),
            };
            out.push_str(&format!(
                ", score {:.3}\nelo {} ±{} (95%: {} .. {}){over}",
                estimate.score,
                elo_text(estimate.elo),
                elo_text(estimate.margin()).trim_start_matches('+'),
                elo_text(estimate.elo_low),
                elo_text(estimate.elo_high)
            ));
        }
        None => out.push_str("\nelo: no complete deal pair"),
    }
    match los(head.wins, head.losses) {
        Some(p) => out.push_str(&format!(", LOS {:.1}%\n", 100.0 * p)),
        None => out.push_str(", LOS: no decisive game\n"),
    }
    if let Some(state) = sprt {
        out.push_str(&state.line());
        out.push('\n');
    }
    out
}

pub fn head_to_head_json(head: &HeadToHead, sprt: Option<&SprtState>) -> Value {
    let estimate = EloEstimate::of(&head.outcomes());
    json!({
        "wins": head.wins, "draws": head.draws, "losses": head.losses,
        "pentanomial": head.pairs,
        "score": estimate.map(|e| e.score),
        "elo": estimate.map(|e| elo_json(e.elo)),
        "elo_low": estimate.map(|e| elo_json(e.elo_low)),
        "elo_high": estimate.map(|e| elo_json(e.elo_high)),
        "los": los(head.wins, head.losses),
        "sprt": sprt.map(SprtState::json),
    })
}

pub fn standings_text(names: &[String], standings: &[Option<Standing>]) -> String {
    let mut table =
        crate::table::Table::new(&["bot", ">mean rank", ">±95%", ">mean score", ">±95%"]);
    for (name, standing) in names.iter().zip(standings) {
        let Some(s) = standing else { continue };
        table.row(vec![
            name.clone(),
            format!("{:.2}", s.rank.mean),
            format!("{:.2}", s.rank.margin),
            format!("{:.2}", s.score.mean),
            format!("{:.2}", s.score.margin),
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
