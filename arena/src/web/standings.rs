//! A tournament page's standings (issue 36), as JSON: the tournament's own
//! results table (every format; a solo tournament's mean scores instead)
//! and a round robin's crosstable, the
//! format's standings (Swiss points, a gauntlet's, a ladder's), a
//! knockout's bracket and an SPRT gauntlet's state and verdict.

use serde_json::{json, Value};

use crate::format::Format;
use crate::store::Tournament;
use crate::{ArenaError, Store};

/// Everything a tournament page shows above its games.
pub(super) async fn standings_json(store: &Store, tournament_id: i64) -> Result<Value, ArenaError> {
    let tournament = store.tournament(tournament_id).await?;
    let table = store
        .results_table(tournament_id, tournament.entries.len())
        .await?;
    let standings = store.tournament_standings(tournament_id).await?;
    let solo = store.tournament_solo(&tournament).await?;
    let name = |index: usize| entry_name(&tournament, index);
    let rows: Vec<Value> = table
        .rows
        .iter()
        .map(|row| {
            let estimate = row.estimate;
            json!({"entry": row.entry, "bot": name(row.entry), "games": row.games, "wins": row.wins,
                   "draws": row.draws, "losses": row.losses, "points": row.points,
                   "score": estimate.map(|e| e.score),
                   "elo": estimate.map(|e| elo_value(e.elo)),
                   "elo_low": estimate.map(|e| elo_value(e.elo_low)),
                   "elo_high": estimate.map(|e| elo_value(e.elo_high))})
        })
        .collect();
    let crosstable: Vec<Value> = match tournament.format {
        Format::RoundRobin => table
            .crosstable
            .iter()
            .map(|c| json!({"row": c.row, "column": c.column, "wins": c.wins, "draws": c.draws, "losses": c.losses}))
            .collect(),
        _ => Vec::new(),
    };
    let format_rows: Vec<Value> = standings
        .standings
        .iter()
        .map(|row| json!({"entry": row.entry, "bot": name(row.entry), "score": row.score, "games": row.games}))
        .collect();
    let bracket: Vec<Value> = standings
        .bracket
        .iter()
        .flatten()
        .map(|tie| {
            let named = |index: Option<usize>| index.map(name);
            json!({"round": tie.round + 1, "first": named(tie.first), "second": named(tie.second),
                   "first_points": tie.first_points, "second_points": tie.second_points,
                   "winner": named(tie.winner)})
        })
        .collect();
    Ok(json!({
        "format": tournament.format.name(),
        "entries": (0..tournament.entries.len()).map(name).collect::<Vec<_>>(),
        "results": rows,
        "solo": solo.iter().enumerate().map(super::solo_row_json).collect::<Vec<_>>(),
        "crosstable": crosstable,
        "format_standings": format_rows,
        "bracket": bracket,
        "sprt": tournament.sprt.map(sprt_json),
    }))
}

fn entry_name(tournament: &Tournament, index: usize) -> String {
    tournament
        .entries
        .get(index)
        .map_or_else(|| "?".into(), |e| format!("{}@{}", e.bot_name, e.version))
}

/// A finite Elo as a number; an infinite one as `"+inf"` or `"-inf"` (JSON
/// has no infinity).
fn elo_value(elo: f64) -> Value {
    if elo.is_finite() {
        json!(elo)
    } else if elo > 0.0 {
        json!("+inf")
    } else {
        json!("-inf")
    }
}

fn sprt_json(status: crate::store::SprtStatus) -> Value {
    let sprt = status.sprt;
    json!({"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
           "llr": status.llr, "lower_bound": sprt.lower_bound(), "upper_bound": sprt.upper_bound(),
           "verdict": status.verdict.unwrap_or("undecided"), "pentanomial": status.pairs})
}
