//! `cairn tournament show`'s results table (the tournament's own games:
//! W/D/L, points, score, Elo within the tournament with its 95% interval)
//! and a round robin's crosstable, as text and JSON.

use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};

use crate::table::Table;

/// `name@version`, escaped.
fn entry_name(entry: Option<&pb::Entry>) -> String {
    entry.map_or_else(
        || "?".to_string(),
        |e| crate::escape::line(&format!("{}@{}", e.bot_name, e.version)).into_owned(),
    )
}

/// `+35`, `+inf`, `-inf`.
fn elo_text(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        format!("{elo:+.0}")
    }
}

/// The table, best first, or nothing when no entry has played.
pub fn table_text(rows: &[pb::TableRow]) -> String {
    if rows.iter().all(|row| row.games == 0) {
        return "results: no game recorded yet\n".to_string();
    }
    let mut table = Table::new(&[
        ">#", "bot", ">games", ">W", ">D", ">L", ">points", ">score", ">Elo", "95% CI",
    ]);
    for row in rows {
        let (score, elo, interval) = match (row.score, row.elo, row.elo_low, row.elo_high) {
            (Some(score), Some(elo), Some(low), Some(high)) => (
                format!("{:.1}%", 100.0 * score),
                elo_text(elo),
                // One-sided where the data bound one side only, as `cairn play`.
                crate::play::bounds_text(low, high),
            ),
            _ => (String::new(), String::new(), String::new()),
        };
        table.row(vec![
            row.position.to_string(),
            entry_name(row.entry.as_ref()),
            row.games.to_string(),
            row.wins.to_string(),
            row.draws.to_string(),
            row.losses.to_string(),
            format!("{:.1}", row.points),
            score,
            elo,
            interval,
        ]);
    }
    format!(
        "results in this tournament (Elo against its field; W/D/L against each other seat):\n{}",
        table.render()
    )
}

/// The crosstable: each row entry's `W-D-L` against each column entry, in
/// the results table's order.
pub fn crosstable_text(
    rows: &[pb::TableRow],
    entries: &[pb::Entry],
    cells: &[pb::CrossCell],
) -> String {
    let order: Vec<usize> = rows
        .iter()
        .filter_map(|row| entries.iter().position(|e| Some(e) == row.entry.as_ref()))
        .collect();
    let mut header = vec![String::new(), "bot".to_string()];
    header.extend((1..=order.len()).map(|n| format!(">{n}")));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(&header);
    for (position, &row) in order.iter().enumerate() {
        let mut line = vec![(position + 1).to_string(), entry_name(entries.get(row))];
        for &column in &order {
            let cell = cells
                .iter()
                .find(|c| c.row as usize == row && c.column as usize == column);
            line.push(match cell {
                _ if row == column => "x".to_string(),
                Some(c) => format!("{}-{}-{}", c.wins, c.draws, c.losses),
                None => "-".to_string(),
            });
        }
        table.row(line);
    }
    format!(
        "crosstable (the row's W-D-L against the column):\n{}",
        table.render()
    )
}

pub fn table_json(rows: &[pb::TableRow]) -> Value {
    let finite = |v: Option<f64>| v.filter(|v| v.is_finite());
    let rows: Vec<Value> = rows
        .iter()
        .map(|row| {
            json!({"position": row.position, "bot": entry_name(row.entry.as_ref()), "games": row.games,
                   "wins": row.wins, "draws": row.draws, "losses": row.losses, "points": row.points,
                   "score": row.score, "elo": finite(row.elo), "elo_text": row.elo.map(elo_text),
                   "ci95": [finite(row.elo_low), finite(row.elo_high)]})
        })
        .collect();
    Value::Array(rows)
}

pub fn crosstable_json(entries: &[pb::Entry], cells: &[pb::CrossCell]) -> Value {
    let cells: Vec<Value> = cells
        .iter()
        .map(|c| {
            json!({"bot": entry_name(entries.get(c.row as usize)), "opponent": entry_name(entries.get(c.column as usize)),
                   "wins": c.wins, "draws": c.draws, "losses": c.losses})
        })
        .collect();
    Value::Array(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> pb::Entry {
        pb::Entry {
            bot_version_id: name.len() as i64,
            bot_name: name.into(),
            version: 1,
        }
    }

    fn row(position: u32, name: &str, wins: i64, losses: i64) -> pb::TableRow {
        let games = wins + losses;
        let score = wins as f64 / games as f64;
        pb::TableRow {
            position,
            entry: Some(entry(name)),
            games,
            wins,
            losses,
            points: wins as f64,
            score: Some(score),
            elo: Some(cairn_arena::stats::elo_of_score(score)),
            elo_low: Some(f64::NEG_INFINITY),
            elo_high: Some(f64::INFINITY),
            ..Default::default()
        }
    }

    #[test]
    fn the_table_shows_wdl_points_an_infinite_elo_as_inf_and_open_intervals_in_words() {
        let text = table_text(&[row(1, "greedy", 4, 0), row(2, "random", 0, 4)]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].contains("points"), "{text}");
        assert!(lines[2].contains("greedy@1"), "{text}");
        assert!(lines[2].contains("+inf"), "{text}");
        assert!(lines[2].contains("100.0%"), "{text}");
        assert!(lines[3].contains("unbounded"), "{text}");
    }

    #[test]
    fn a_table_before_any_game_says_so() {
        let mut empty = row(1, "a", 0, 0);
        empty.games = 0;
        assert_eq!(table_text(&[empty]), "results: no game recorded yet\n");
    }

    #[test]
    fn the_crosstable_follows_the_tables_order_and_marks_the_diagonal() {
        let entries = [entry("random"), entry("greedy")];
        let rows = [row(1, "greedy", 2, 0), row(2, "random", 0, 2)];
        let cells = [
            pb::CrossCell {
                row: 1,
                column: 0,
                wins: 2,
                ..Default::default()
            },
            pb::CrossCell {
                row: 0,
                column: 1,
                losses: 2,
                ..Default::default()
            },
        ];
        let text = crosstable_text(&rows, &entries, &cells);
        let words: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(words[2], ["1", "greedy@1", "x", "2-0-0"], "{text}");
        assert_eq!(words[3], ["2", "random@1", "0-0-2", "x"], "{text}");
    }
}
