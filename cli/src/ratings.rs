//! `cairn ratings`: a game's leaderboard.

use std::process::ExitCode;

use cairn_proto::arena::v1 as pb;
use serde_json::{json, Value};

use crate::client::{connect, status_error, ArenaArgs};
use crate::table::Table;

#[derive(Debug, clap::Args)]
pub struct RatingsArgs {
    /// The game id (`cairn games` lists them).
    #[arg(long, value_parser = crate::games::game_id)]
    game: String,
    /// A game option selecting the variant, e.g. --opt tactics=true (repeatable;
    /// `cairn games` lists them).
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// The live model: elo, glicko2 or weng-lin [default: whichever rated
    /// more of the board's seats, glicko2 (two-seat games) or weng-lin
    /// (more seats)].
    #[arg(long)]
    model: Option<String>,
    /// Pin this bot's fitted rating at 1500 (`name` or `name@version`)
    /// instead of the mean of the rated bots.
    #[arg(long, value_name = "BOT")]
    anchor: Option<String>,
    /// Print each seat's score share per table size (seat bias) instead of
    /// the ratings.
    #[arg(long)]
    seats: bool,
    #[command(flatten)]
    arena: ArenaArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: RatingsArgs) -> anyhow::Result<ExitCode> {
    crate::client::runtime()?.block_on(async {
        let mut request = pb::GetLeaderboardRequest {
            options: crate::games::options(&args.game, &args.options)?,
            game: args.game,
            model: args.model.unwrap_or_default(),
            anchor: args.anchor.unwrap_or_default(),
            page_size: crate::client::PAGE_SIZE,
            page_token: String::new(),
        };
        let mut client = connect(&args.arena).await?;
        // Every page; the board's header and fit are the first page's.
        let mut board = pb::Leaderboard::default();
        loop {
            let page = client
                .get_leaderboard(request.clone())
                .await
                .map_err(status_error)?
                .into_inner();
            let rows = std::mem::take(&mut board.rows);
            let next_page_token = page.next_page_token.clone();
            if rows.is_empty() {
                board = page;
            } else {
                board.rows = rows;
                board.rows.extend(page.rows);
            }
            if next_page_token.is_empty() {
                break;
            }
            request.page_token = next_page_token;
        }
        board.next_page_token.clear();
        if args.json {
            outln!(
                "{}",
                serde_json::to_string_pretty(&leaderboard_json(&board))?
            );
        } else if args.seats {
            out!("{}", seats_table(&board));
        } else {
            out!("{}", leaderboard_table(&board));
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// One line saying what the leaderboard's columns mean (the demo prints it).
pub fn columns_legend() -> String {
    format!(
        "columns: rating is fitted over every game of the board, every table size on one \
         scale, and sets the order (95% CI: the range it lies in, 19 times out of 20; a bot \
         no rated bot ever finished ahead of shows the least rating its record allows, \
         \"at least\", with a footnote, and is ranked above every rated bot; one never ahead \
         of a rated bot, below them); live is the online model's rating, ± its \
         uncertainty (Glicko-2 deviation or Weng-Lin sigma; empty for Elo, which keeps none), empty for a bot with \
         no game under that model; games, W, D and L count every table size: W is a game \
         finished first alone, D first tied, L in any other place (at 3 or more seats, \
         finishing second is a loss); deals are the deals the fit used; bots with fewer \
         than {} deals are provisional, listed after the rest",
        cairn_arena::store::PROVISIONAL_DEALS
    )
}

/// The leaderboard as a table: the fitted rating and its 95% interval
/// first (the order), then the live model's rating; provisional bots in a
/// second table under the first.
pub fn leaderboard_table(board: &pb::Leaderboard) -> String {
    if !board.solo.is_empty() {
        return solo_table(board);
    }
    let mut notes = Footnotes::default();
    let (provisional, established): (Vec<&pb::LeaderboardRow>, Vec<&pb::LeaderboardRow>) =
        board.rows.iter().partition(|row| row.provisional);
    let mut text = format!(
        "{}\nrating: {}\nlive: {}\n",
        game_variant(&board.game, &board.variant),
        if board.rows.is_empty() {
            "no games yet".into()
        } else {
            fit_line(board.fit.as_ref())
        },
        board.model,
    );
    if !established.is_empty() || provisional.is_empty() {
        text.push_str(&rows_table(board, &established, &mut notes));
    }
    if !provisional.is_empty() {
        let caveat = if established.is_empty() {
            ""
        } else {
            "; not ranked above the bots above"
        };
        text.push_str(&format!(
            "provisional (fewer than {} deals{caveat}):\n{}",
            board.provisional_deals,
            rows_table(board, &provisional, &mut notes)
        ));
    }
    text.push_str(&notes.render());
    text
}

fn rows_table(
    board: &pb::Leaderboard,
    rows: &[&pb::LeaderboardRow],
    notes: &mut Footnotes,
) -> String {
    let mut table = Table::new(&[
        ">#",
        "bot",
        "owner",
        ">rating",
        "95% CI",
        ">live",
        ">±",
        ">games",
        ">W",
        ">D",
        ">L",
        ">forfeits",
        ">deals",
    ]);
    // Weng-Lin ratings live around 25, Elo and Glicko-2 around 1500.
    let decimals = if board.model == "weng-lin" { 1 } else { 0 };
    for row in rows {
        let (fitted, interval) = fitted_cells(row.fitted.as_ref(), notes);
        let live = |value: f64| match row.live {
            true => format!("{value:.decimals$}"),
            false => String::new(),
        };
        table.row(vec![
            row.position.to_string(),
            format!("{}@{}", row.bot_name, row.version),
            row.owner.clone(),
            fitted,
            interval,
            live(row.rating),
            // Elo keeps no uncertainty: a 0 would read as certainty.
            match board.model.as_str() {
                "elo" => String::new(),
                _ => live(row.uncertainty),
            },
            row.games.to_string(),
            row.wins.to_string(),
            row.draws.to_string(),
            row.losses.to_string(),
            row.forfeits.to_string(),
            row.fitted_deals.to_string(),
        ]);
    }
    table.render()
}

/// Each seat's score share per table size, with its 95% interval: ½ at a
/// fair table.
pub fn seats_table(board: &pb::Leaderboard) -> String {
    let mut table = Table::new(&[">seats", ">seat", ">share", "95% CI", ">games", ">deals"]);
    let bound = |value: f64| match value.is_finite() {
        true => format!("{value:.3}"),
        false => "unbounded".into(),
    };
    for seat in &board.seat_shares {
        table.row(vec![
            seat.table_size.to_string(),
            (seat.seat + 1).to_string(),
            format!("{:.3}", seat.share),
            format!("[{}, {}]", bound(seat.low), bound(seat.high)),
            seat.games.to_string(),
            seat.deals.to_string(),
        ]);
    }
    format!(
        "{}\nseat bias: each seat's share of the other seats it finished above (a tie half; \
         0.5 at a fair table), 95% CI over deals\n{}",
        game_variant(&board.game, &board.variant),
        match board.seat_shares.is_empty() {
            true => "no fitted games yet (or the arena is refitting; ask again)\n".into(),
            false => table.render(),
        }
    )
}

/// `schotten-totten` or `schotten-totten tactics=true`: a game and its
/// variant, the empty variant (no options) left out.
pub(crate) fn game_variant(game: &str, variant: &str) -> String {
    match variant.is_empty() {
        true => game.to_string(),
        false => format!("{game} {variant}"),
    }
}

/// Why fitted ratings are not identifiable, each reason written once under
/// the table and referred to by number in its cells: the reasons are
/// sentences, too long for a column.
#[derive(Debug, Default)]
pub(crate) struct Footnotes {
    reasons: Vec<String>,
}

impl Footnotes {
    /// The cell for a rating not identifiable for `reason`.
    pub(crate) fn cell(&mut self, reason: &str) -> String {
        format!("not identifiable {}", self.mark(reason))
    }

    /// `[n]`, the number of `reason` under the table.
    pub(crate) fn mark(&mut self, reason: &str) -> String {
        let number = match self.reasons.iter().position(|known| known == reason) {
            Some(index) => index + 1,
            None => {
                self.reasons.push(reason.to_string());
                self.reasons.len()
            }
        };
        format!("[{number}]")
    }

    /// One line per reason, `[1] above every rated bot: ...`.
    pub(crate) fn render(&self) -> String {
        self.reasons
            .iter()
            .enumerate()
            .map(|(index, reason)| format!("[{}] {reason}\n", index + 1))
            .collect()
    }
}

/// A solo leaderboard: mean score per deal with its 95% interval, the
/// rank title, and the paired-by-deal gap to the next bot.
fn solo_table(board: &pb::Leaderboard) -> String {
    format!(
        "{} (solo: every bot on the same deals, ranked by mean score)\n{}",
        game_variant(&board.game, &board.variant),
        solo_rows_table(&board.solo)
    )
}

/// Solo rows (a solo board's, or a solo tournament's) as a table.
pub fn solo_rows_table(rows: &[pb::SoloRow]) -> String {
    let mut table = Table::new(&[
        ">#",
        "bot",
        ">mean",
        "95% CI",
        "title",
        ">deals",
        "ahead of next (paired by deal)",
    ]);
    for row in rows {
        let ahead = row.ahead_of_next.map_or_else(String::new, |d| {
            format!(
                "{:+.1} [{}, {}]",
                d.mean,
                solo_bound(d.low),
                solo_bound(d.high)
            )
        });
        table.row(vec![
            row.position.to_string(),
            format!("{}@{}", row.bot_name, row.version),
            format!("{:.1}", row.mean),
            format!("[{}, {}]", solo_bound(row.low), solo_bound(row.high)),
            row.title.clone(),
            row.deals.to_string(),
            ahead,
        ]);
    }
    table.render()
}

fn solo_bound(value: f64) -> String {
    match value.is_finite() {
        true => format!("{value:.1}"),
        false if value > 0.0 => "+inf".into(),
        false => "-inf".into(),
    }
}

/// What the fitted column is: its model, its games and its scale.
fn fit_line(fit: Option<&pb::FitSummary>) -> String {
    let Some(fit) = fit else {
        return "fitted ratings not ready yet (the arena is refitting; ask again)".into();
    };
    let scale = if fit.anchor_bot.is_empty() {
        format!("mean {:.0}", fit.anchor_rating)
    } else {
        format!("{} = {:.0}", fit.anchor_bot, fit.anchor_rating)
    };
    let sizes = match fit.table_sizes.as_slice() {
        [] | [_] => String::new(),
        sizes => format!(
            " at {} seats on one scale",
            sizes
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "{} maximum likelihood over {} games{sizes} ({} deals), {scale}; 95% CI by bootstrap over deals",
        fit.method, fit.games, fit.deals
    )
}

fn fitted_cells(fitted: Option<&pb::FittedRating>, notes: &mut Footnotes) -> (String, String) {
    match fitted {
        None => (String::new(), String::new()),
        // Unbeaten or winless: the bound it is ranked by, and why.
        Some(fitted) if !fitted.identifiable => match fitted.bound {
            Some(bound) if fitted.not_identifiable == "winless" => (
                format!("≤{bound:.0}"),
                format!("at most {bound:.0} {}", notes.mark(&fitted.reason)),
            ),
            Some(bound) => (
                format!("≥{bound:.0}"),
                format!("at least {bound:.0} {}", notes.mark(&fitted.reason)),
            ),
            None => ("-".into(), notes.cell(&fitted.reason)),
        },
        Some(fitted) => (
            format!("{:.0}", fitted.rating),
            interval(fitted.low, fitted.high),
        ),
    }
}

/// A fitted rating's 95% interval as a table cell: `[1480, 1612]`, or in
/// words when an end is open (a bot that never lost has no upper bound:
/// `at least 1612`), since `+inf` reads like a bug.
pub(crate) fn interval(low: f64, high: f64) -> String {
    match (low.is_finite(), high.is_finite()) {
        (true, true) => format!("[{low:.0}, {high:.0}]"),
        (true, false) => format!("at least {low:.0}"),
        (false, true) => format!("at most {high:.0}"),
        (false, false) => "unbounded".into(),
    }
}

/// The leaderboard as JSON; an open interval bound is `null`.
pub fn leaderboard_json(board: &pb::Leaderboard) -> Value {
    let finite = |v: f64| v.is_finite().then_some(v);
    let rows: Vec<Value> = board
        .rows
        .iter()
        .map(|r| {
            let live = |value: f64| r.live.then_some(value);
            json!({"position": r.position, "bot_version_id": r.bot_version_id, "bot": r.bot_name, "version": r.version, "owner": r.owner,
                   "fitted": r.fitted.as_ref().map(fitted_json), "fitted_games": r.fitted_games, "fitted_deals": r.fitted_deals,
                   "rating": live(r.rating), "uncertainty": live(r.uncertainty), "games": r.games, "wins": r.wins, "draws": r.draws,
                   "losses": r.losses, "forfeits": r.forfeits, "provisional": r.provisional})
        })
        .collect();
    let fit = board.fit.as_ref().map(|fit| {
        json!({"method": fit.method, "games": fit.games, "deals": fit.deals, "table_sizes": fit.table_sizes,
               "anchor_bot": (!fit.anchor_bot.is_empty()).then_some(&fit.anchor_bot), "anchor_rating": fit.anchor_rating})
    });
    let solo = solo_rows_json(&board.solo);
    let seats: Vec<Value> = board
        .seat_shares
        .iter()
        .map(|s| {
            json!({"table_size": s.table_size, "seat": s.seat + 1, "games": s.games, "deals": s.deals,
                   "share": s.share, "ci95": [finite(s.low), finite(s.high)]})
        })
        .collect();
    json!({"game": board.game, "variant": board.variant, "model": board.model, "provisional_deals": board.provisional_deals,
           "fit": fit, "rows": rows, "solo": solo, "seat_shares": seats})
}

/// Solo rows (a solo board's, or a solo tournament's) as JSON.
pub fn solo_rows_json(rows: &[pb::SoloRow]) -> Vec<Value> {
    let finite = |v: f64| v.is_finite().then_some(v);
    rows.iter()
        .map(|r| {
            json!({"position": r.position, "bot_version_id": r.bot_version_id, "bot": r.bot_name, "version": r.version,
                   "deals": r.deals, "mean": r.mean, "ci95": [finite(r.low), finite(r.high)], "title": r.title,
                   "ahead_of_next": r.ahead_of_next.map(|d| json!({"mean": d.mean, "ci95": [finite(d.low), finite(d.high)]}))})
        })
        .collect()
}

fn fitted_json(fitted: &pb::FittedRating) -> Value {
    if fitted.identifiable {
        json!({"identifiable": true, "rating": fitted.rating, "ci95": [fitted.low, fitted.high]})
    } else {
        // The bound an unbeaten bot is ranked by: "at_least", or "at_most"
        // for a winless one; null when it never met a rated bot.
        let side = match fitted.not_identifiable.as_str() {
            "winless" => "at_most",
            _ => "at_least",
        };
        let mut value = json!({"identifiable": false, "not_identifiable": fitted.not_identifiable, "reason": fitted.reason});
        if fitted.not_identifiable != "unconnected" {
            value[side] = json!(fitted.bound);
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unidentifiable(name: &str, reason: &str) -> pb::LeaderboardRow {
        pb::LeaderboardRow {
            position: 1,
            bot_name: name.into(),
            version: 1,
            fitted: Some(pb::FittedRating {
                identifiable: false,
                reason: reason.into(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_reason_a_rating_is_not_identifiable_is_written_once_under_the_table() {
        let board = pb::Leaderboard {
            game: "schotten-totten".into(),
            model: "glicko2".into(),
            rows: vec![
                unidentifiable("mcts", "above every rated bot"),
                unidentifiable("greedy", "above every rated bot"),
                unidentifiable("random", "below every rated bot"),
            ],
            ..Default::default()
        };
        let text = leaderboard_table(&board);
        assert!(text.starts_with("schotten-totten\n"), "{text}");
        assert_eq!(text.matches("above every rated bot").count(), 1, "{text}");
        assert_eq!(text.matches("not identifiable [1]").count(), 2, "{text}");
        assert!(text.ends_with("[1] above every rated bot\n[2] below every rated bot\n"));
    }

    fn rated(name: &str, rating: f64, provisional: bool) -> pb::LeaderboardRow {
        pb::LeaderboardRow {
            bot_name: name.into(),
            version: 1,
            live: true,
            provisional,
            fitted: Some(pb::FittedRating {
                identifiable: true,
                rating,
                low: rating - 50.0,
                high: rating + 50.0,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn an_unbeaten_bot_shows_the_bound_it_is_ranked_by_and_provisional_bots_come_apart() {
        let mut unbeaten = unidentifiable("mcts", "above every rated bot");
        if let Some(fitted) = unbeaten.fitted.as_mut() {
            (fitted.not_identifiable, fitted.bound) = ("unbeaten".into(), Some(2190.4));
        }
        let mut four_seats = rated("quad", 1400.0, false);
        (four_seats.live, four_seats.rating) = (false, 1234.0);
        let board = pb::Leaderboard {
            game: "bullfrogs".into(),
            model: "glicko2".into(),
            provisional_deals: 10,
            rows: vec![
                unbeaten,
                rated("greedy", 1550.0, false),
                four_seats,
                rated("newcomer", 1700.0, true),
            ],
            fit: Some(pb::FitSummary {
                method: "plackett-luce".into(),
                games: 100,
                deals: 20,
                anchor_rating: 1500.0,
                table_sizes: vec![2, 4],
                ..Default::default()
            }),
            ..Default::default()
        };
        let text = leaderboard_table(&board);
        assert!(
            text.contains("100 games at 2, 4 seats on one scale"),
            "{text}"
        );
        let mcts = text.lines().find(|line| line.contains("mcts@1")).unwrap();
        assert!(
            mcts.contains("≥2190") && mcts.contains("at least 2190 [1]"),
            "{text}"
        );
        assert!(!mcts.contains(" - "), "{mcts}");
        let (above, below) = text.split_once("provisional (fewer than 10 deals").unwrap();
        assert!(
            above.contains("greedy@1") && !above.contains("newcomer@1"),
            "{text}"
        );
        assert!(below.contains("newcomer@1"), "{text}");
        assert!(
            below.starts_with("; not ranked above the bots above):"),
            "{text}"
        );
        // No live rating for a bot with no game under the live model.
        let quad = text.lines().find(|line| line.contains("quad@1")).unwrap();
        assert!(!quad.contains("1234"), "{quad}");
        let json = leaderboard_json(&board);
        assert_eq!(json["rows"][0]["fitted"]["at_least"], 2190.4);
        assert_eq!(json["rows"][2]["rating"], Value::Null);
        assert_eq!(json["fit"]["table_sizes"], json!([2, 4]));
    }

    #[test]
    fn a_board_of_provisional_bots_alone_does_not_speak_of_bots_above() {
        let board = pb::Leaderboard {
            game: "lords-of-scotland".into(),
            model: "weng-lin".into(),
            provisional_deals: 10,
            rows: vec![
                rated("mcts-quick", 1525.0, true),
                rated("greedy", 1475.0, true),
            ],
            ..Default::default()
        };
        let text = leaderboard_table(&board);
        assert!(
            text.contains("provisional (fewer than 10 deals):\n"),
            "{text}"
        );
        assert!(!text.contains("bots above"), "{text}");
    }

    #[test]
    fn a_variant_follows_its_game_and_no_options_leave_no_trailing_space() {
        assert_eq!(game_variant("bullfrogs", ""), "bullfrogs");
        assert_eq!(
            game_variant("bullfrogs", "solo=true"),
            "bullfrogs solo=true"
        );
    }

    #[test]
    fn an_interval_with_an_open_end_is_written_in_words() {
        assert_eq!(interval(1480.4, 1611.6), "[1480, 1612]");
        assert_eq!(interval(1611.6, f64::INFINITY), "at least 1612");
        assert_eq!(interval(f64::NEG_INFINITY, 1480.4), "at most 1480");
        assert_eq!(interval(f64::NEG_INFINITY, f64::INFINITY), "unbounded");
    }
}
