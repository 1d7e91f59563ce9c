//! Fitted ratings on a leaderboard: the board's games read back for
//! [`crate::fit`], one fit cached per game and variant, refitted off the
//! request path when results arrive.
//!
//! A reader never waits long and never touches the database to learn
//! whether the fit is current: it compares the fit's board version (see
//! `snapshots`) with the board's. A current fit is answered at once. A
//! stale one starts a refit in the background; on a quiet board (its last
//! fit was still current when it finished) the reader waits for it at most
//! [`FIT_WAIT`], so a read after a write sees the write. On a busy board
//! (results kept arriving while it fitted, and still arrive: one came
//! within the time the last refit took, or one is being reported) waiting
//! gains nothing: the reader answers from the previous fit, which says how many games it covers, and
//! refits are spaced so that fitting takes at most a ninth of one CPU. A
//! busy board that went quiet is waited for again, so the reads after the
//! last result see it. A
//! refit reads only the results recorded since the last one (result ids
//! only grow and a result is written once) and fits on a blocking thread.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::leaderboard::{rated_result_sql, LeaderboardQuery, LeaderboardRow};
use super::snapshots::BoardVersion;
use super::tournaments::variant_key;
use super::Store;
use crate::error::ArenaError;
use crate::fit::{
    fit, Anchor, DealKey, Estimate, Fit, FitConfig, FitGame, FitSeat, Method, Unidentified,
    DEFAULT_MEAN,
};
use crate::ratings::{RatingModel, Standing};
use crate::stats::seats::{seat_shares, SeatShare};

/// The longest a leaderboard read waits for a refit before answering from
/// the previous one.
pub const FIT_WAIT: Duration = Duration::from_secs(1);

/// On a busy board, the pause after a refit is this many times the refit's
/// own duration, so refits use at most a ninth of one CPU.
// RULING: at a third of one CPU (a factor of 2) the refit of a 12,000-game
// board was a fifth of the arena's CPU under 200 readers, taken from the
// reads and the reports; the fitted column of a board that keeps changing
// now lags by up to nine refits' time (about a second) instead of three,
// and says how many games it covers. A quiet board is still waited for.
const REFIT_PAUSE_FACTOR: u32 = 8;

/// The longest anchor name taken (it is echoed in refusals).
const MAX_ANCHOR_BYTES: usize = 200;

/// A leaderboard with its fitted column, best fitted rating first.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedLeaderboard {
    pub rows: Vec<FittedRow>,
    /// `None` when the board has no game, or no fit could be made in time
    /// (a first read of a long history under load); the rows then keep the
    /// live order.
    pub summary: Option<FitSummary>,
}

/// A leaderboard line and its fitted rating.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedRow {
    /// The bot, its live rating under the board's model (see `live`) and its
    /// record over every table size of the board.
    pub row: LeaderboardRow,
    /// Whether the bot has games under the live model; if not, the row's
    /// rating is the model's starting value and means nothing.
    pub live: bool,
    /// `None` when the fit has not seen the bot (or no fit was ready).
    pub fitted: Option<Result<Estimate, Unidentified>>,
    /// An unbeaten bot's least rating, a winless one's most (see
    /// `fit::bound`).
    pub bound: Option<f64>,
    /// The games and deals the fit used for this bot.
    pub fitted_games: usize,
    pub fitted_deals: usize,
}

impl FittedRow {
    /// A line before the fit is read into it.
    fn unfitted(row: LeaderboardRow, live: bool) -> FittedRow {
        FittedRow {
            row,
            live,
            fitted: None,
            bound: None,
            fitted_games: 0,
            fitted_deals: 0,
        }
    }
}

/// A bot is provisional, listed after every established bot, with fewer
/// fitted deals than this (live games when no fit is ready).
/// RULING (ours, issue 36): deals, not games, since the games of a deal are
/// one unit to the fit; ten, as [`crate::ratings::PROVISIONAL_GAMES`] is
/// for the live models. A 2-0 record (one deal) never tops a board.
pub const PROVISIONAL_DEALS: usize = 10;

/// What the fitted column rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct FitSummary {
    pub method: Method,
    pub games: usize,
    pub deals: usize,
    /// `None`: the mean of the rated bots is `anchor_rating`; else the bot
    /// (`name@version`) pinned there.
    pub anchor_bot: Option<String>,
    pub anchor_rating: f64,
    /// The table sizes of the fitted games, ascending.
    pub table_sizes: Vec<u32>,
    /// Each seat's score share per table size.
    pub seat_shares: Vec<SeatShare>,
}

/// One fit per game and variant.
#[derive(Debug, Default)]
pub(crate) struct FitCache {
    boards: Mutex<HashMap<(String, String), Arc<BoardFit>>>,
}

#[derive(Debug)]
struct BoardFit {
    state: watch::Sender<BoardState>,
    refreshing: AtomicBool,
}

#[derive(Debug, Clone, Default)]
struct BoardState {
    fit: Option<Arc<StampedFit>>,
    /// The last refit's failure, shown only to a reader with no fit at all.
    error: Option<String>,
}

#[derive(Debug, Clone)]
struct StampedFit {
    /// The board's version when the fit was checked.
    stamp: BoardVersion,
    /// Whether the board changed while the fit was made (then readers do
    /// not wait for the next one).
    busy: bool,
    /// When the fit was published, and how long it took.
    finished: Instant,
    took: Duration,
    /// The board's own latest result id in the fit.
    board_last: i64,
    /// The games fitted, so a refit reads only the new ones.
    games: Arc<Vec<FitGame>>,
    /// Their table sizes, ascending, and each seat's score share.
    table_sizes: Vec<u32>,
    seat_shares: Vec<SeatShare>,
    fit: Arc<Fit>,
}

impl FitCache {
    fn board(&self, game: &str, variant: &str) -> Arc<BoardFit> {
        let mut boards = self
            .boards
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        Arc::clone(
            boards
                .entry((game.to_string(), variant.to_string()))
                .or_insert_with(|| {
                    Arc::new(BoardFit {
                        state: watch::Sender::new(BoardState::default()),
                        refreshing: AtomicBool::new(false),
                    })
                }),
        )
    }
}

impl Store {
    /// A leaderboard with fitted ratings on the scale `anchor` names: `None`
    /// for a mean of 1500, else `name` or `name@version` of a bot on the
    /// board (a bare name means its highest version there), pinned at 1500.
    pub async fn fitted_leaderboard(
        &self,
        query: &LeaderboardQuery,
        anchor: Option<&str>,
    ) -> Result<FittedLeaderboard, ArenaError> {
        self.leaderboard_inputs(query).await?.fitted(anchor)
    }

    /// What a leaderboard is made from: its live rows and its current fit
    /// (the rows' snapshot and the fit are shared, unchanged, until a write
    /// or a refit replaces them; see [`LeaderboardInputs::same_as`]).
    pub async fn leaderboard_inputs(
        &self,
        query: &LeaderboardQuery,
    ) -> Result<LeaderboardInputs, ArenaError> {
        let rows = self.leaderboard(query).await?;
        // The other table sizes' model: its rows name the bots that never
        // played under this one and hold the rest of everyone's record.
        let model = query.model.or(rows.first().map(|row| row.model));
        let other = match model {
            Some(RatingModel::WengLin) => RatingModel::Glicko2,
            _ => RatingModel::WengLin,
        };
        let others = self
            .leaderboard(&LeaderboardQuery {
                model: Some(other),
                ..query.clone()
            })
            .await?;
        let fit = if rows.is_empty() && others.is_empty() {
            // No game yet: nothing to fit, and nothing cached for a board
            // anyone can name.
            None
        } else {
            self.current_fit(&query.game, &variant_key(&query.options))
                .await?
        };
        Ok(LeaderboardInputs {
            model: model.unwrap_or(RatingModel::WengLin),
            rows,
            others,
            fit,
        })
    }
}

/// A leaderboard's live rows (under its model, and under the model of the
/// other table sizes) and the fit current when they were read.
#[derive(Debug, Clone)]
pub struct LeaderboardInputs {
    model: RatingModel,
    rows: Arc<Vec<LeaderboardRow>>,
    others: Arc<Vec<LeaderboardRow>>,
    fit: Option<Arc<StampedFit>>,
}

impl LeaderboardInputs {
    /// Whether both are the very same snapshot and fit: then every board
    /// made from them is the same (a snapshot or a fit is replaced whole,
    /// never edited, and `self` keeps the old ones alive, so an address
    /// cannot be reused for a new one while compared).
    pub fn same_as(&self, other: &LeaderboardInputs) -> bool {
        let same_fit = match (&self.fit, &other.fit) {
            (None, None) => true,
            (Some(mine), Some(theirs)) => Arc::ptr_eq(mine, theirs),
            _ => false,
        };
        same_fit && Arc::ptr_eq(&self.rows, &other.rows) && Arc::ptr_eq(&self.others, &other.others)
    }

    /// The board's live model.
    pub fn model(&self) -> RatingModel {
        self.model
    }

    /// The board with fitted ratings on the scale `anchor` names (see
    /// [`Store::fitted_leaderboard`]).
    pub fn fitted(&self, anchor: Option<&str>) -> Result<FittedLeaderboard, ArenaError> {
        let mut lines = self.lines();
        let anchor_row = anchor
            .map(|name| find_anchor(lines.iter().map(|line| &line.row), name))
            .transpose()?
            .map(|row| {
                (
                    row.bot_version_id,
                    format!("{}@{}", row.bot_name, row.version),
                )
            });
        let Some(stamped) = &self.fit else {
            for line in &mut lines {
                line.row.provisional = line.row.standing.provisional();
            }
            return Ok(FittedLeaderboard {
                rows: ranked(lines),
                summary: None,
            });
        };
        let fit = &stamped.fit;
        let scale = match &anchor_row {
            None => Anchor::Mean(DEFAULT_MEAN),
            Some((bot_version_id, _)) => Anchor::Bot {
                bot_version_id: *bot_version_id,
                rating: DEFAULT_MEAN,
            },
        };
        let ratings = fit.ratings(scale).map_err(|error| {
            ArenaError::invalid(format!("anchor `{}`: {error}", anchor.unwrap_or_default()))
        })?;
        let by_bot: HashMap<i64, _> = ratings
            .into_iter()
            .map(|rating| (rating.bot_version_id, rating))
            .collect();
        for line in &mut lines {
            let id = line.row.bot_version_id;
            (line.fitted_games, line.fitted_deals) = fit.played(id);
            line.fitted = by_bot.get(&id).map(|rating| rating.estimate);
            line.bound = by_bot.get(&id).and_then(|rating| rating.bound);
            line.row.provisional = line.fitted_deals < PROVISIONAL_DEALS;
        }
        Ok(FittedLeaderboard {
            rows: ranked(lines),
            summary: Some(FitSummary {
                method: fit.method(),
                games: fit.n_games(),
                deals: fit.n_deals(),
                anchor_bot: anchor_row.map(|(_, name)| name),
                anchor_rating: DEFAULT_MEAN,
                table_sizes: stamped.table_sizes.clone(),
                seat_shares: stamped.seat_shares.clone(),
            }),
        })
    }

    /// Every bot of the board once, in live order: its live row if it has
    /// one, its record summed over both models' table sizes (two seats, and
    /// three or more: each game counts under exactly one of them).
    fn lines(&self) -> Vec<FittedRow> {
        let mut lines: Vec<FittedRow> = self
            .rows
            .iter()
            .map(|row| FittedRow::unfitted(row.clone(), true))
            .collect();
        let index: HashMap<i64, usize> = lines
            .iter()
            .enumerate()
            .map(|(at, line)| (line.row.bot_version_id, at))
            .collect();
        for other in self.others.iter() {
            match index.get(&other.bot_version_id) {
                Some(&at) => add_record(&mut lines[at].row.standing, &other.standing),
                None => {
                    let mut row = other.clone();
                    row.model = self.model;
                    row.standing.rating = Standing::initial(self.model).rating;
                    lines.push(FittedRow::unfitted(row, false));
                }
            }
        }
        lines
    }
}

/// `total` plus the games of `more` (rated under another model).
fn add_record(total: &mut Standing, more: &Standing) {
    total.games += more.games;
    total.wins += more.wins;
    total.draws += more.draws;
    total.losses += more.losses;
    total.forfeits += more.forfeits;
}

/// The lines in board order, numbered from 1 (see [`order_key`]); the
/// stable sort keeps the live order among equals.
fn ranked(mut lines: Vec<FittedRow>) -> Vec<FittedRow> {
    lines.sort_by(|a, b| {
        let (a, b) = (order_key(a), order_key(b));
        a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.total_cmp(&b.2))
    });
    for (index, line) in lines.iter_mut().enumerate() {
        line.row.position = index + 1;
    }
    lines
}

impl Store {
    /// Every fitted game of a game and variant, with its deal.
    pub async fn fit_games(&self, game: &str, variant: &str) -> Result<Vec<FitGame>, ArenaError> {
        Ok(self.fit_games_since(game, variant, 0).await?.0)
    }

    /// The games of a game and variant whose result id is above
    /// `after_result_id`, and the highest such id (`after_result_id` when
    /// there are none). Result ids only grow and a result is written once,
    /// so a cached list plus these is the whole history.
    async fn fit_games_since(
        &self,
        game: &str,
        variant: &str,
        after_result_id: i64,
    ) -> Result<(Vec<FitGame>, i64), ArenaError> {
        // The new results first (a range of the results' key), then their
        // games, matches and tournaments by key: joined the other way
        // round, from the board's tournaments down, PostgreSQL's planner
        // walks every game the board ever planned to find a few new ones.
        // Planned for its values each time, as a plan cached for any `$1`
        // would be for a range that may hold the whole history.
        let rows: Vec<(i64, i64, i64, i64, i64)> = sqlx::query_as(concat!(
            "WITH fresh AS MATERIALIZED (SELECT id, game_id FROM results WHERE id > $1) \
             SELECT r.id, t.id, g.seed, rs.bot_version_id, rs.rank FROM fresh r \
             JOIN result_seats rs ON rs.game_id = r.game_id JOIN games g ON g.id = r.game_id \
             JOIN matches m ON m.id = g.match_id JOIN tournaments t ON t.id = m.tournament_id \
             WHERE t.game = $2 AND t.variant = $3 AND t.validates IS NULL AND ",
            rated_result_sql!(),
            " ORDER BY r.id, rs.seat",
        ))
        .persistent(false)
        .bind(after_result_id)
        .bind(game)
        .bind(variant)
        .fetch_all(self.pool())
        .await?;
        let mut games: Vec<FitGame> = Vec::new();
        let mut last_result = None;
        for (result_id, tournament_id, seed, bot_version_id, rank) in rows {
            let seat = FitSeat {
                bot_version_id,
                rank: u32::try_from(rank).unwrap_or(u32::MAX),
            };
            match games.last_mut() {
                Some(game) if last_result == Some(result_id) => game.seats.push(seat),
                _ => {
                    games.push(FitGame {
                        deal: DealKey {
                            tournament_id,
                            seed,
                        },
                        seats: vec![seat],
                    });
                    last_result = Some(result_id);
                }
            }
        }
        Ok((games, last_result.unwrap_or(after_result_id)))
    }

    /// The board's fit, fresh if it can be had within [`FIT_WAIT`].
    async fn current_fit(
        &self,
        game: &str,
        variant: &str,
    ) -> Result<Option<Arc<StampedFit>>, ArenaError> {
        let stamp = self.reads.board_version(game, variant);
        let board = self.fits.board(game, variant);
        let mut receiver = board.state.subscribe();
        let deadline = tokio::time::Instant::now() + FIT_WAIT;
        loop {
            let state = receiver.borrow_and_update().clone();
            if let Some(fit) = state.fit.as_ref().filter(|fit| fit.stamp >= stamp) {
                return Ok(Some(Arc::clone(fit)));
            }
            if !board.refreshing.swap(true, Ordering::AcqRel) {
                tokio::spawn(refresh(
                    self.clone(),
                    Arc::clone(&board),
                    game.to_string(),
                    variant.to_string(),
                ));
            }
            // Waiting gains nothing while results keep arriving (written
            // within the time a refit takes); once the board is quiet, the
            // refit under way is the last one, and worth waiting for.
            if let Some(fit) = state.fit.filter(|fit| {
                fit.busy
                    && self.reads.board_written_after(
                        game,
                        variant,
                        Instant::now().checked_sub(fit.took).unwrap_or(fit.finished),
                    )
            }) {
                return Ok(Some(fit));
            }
            let changed = tokio::time::timeout_at(deadline, receiver.changed()).await;
            if !matches!(changed, Ok(Ok(()))) {
                let state = receiver.borrow().clone();
                return match (state.fit, state.error) {
                    (Some(fit), _) => Ok(Some(fit)),
                    (None, Some(error)) => Err(ArenaError::Internal(error)),
                    (None, None) => Ok(None),
                };
            }
        }
    }
}

/// Refits one board (reusing the fit when none of the new results are the
/// board's) and publishes it; on a busy board, only after a pause.
///
/// The whole refit runs on a blocking thread, reading its rows included:
/// on the server's runtime, streaming a few thousand new rows through the
/// driver held a public thread for about 10 ms, in which no read was
/// answered (the first reads after a burst of results waited 40 ms under
/// load in the arena bench). The fit it replaces is dropped there too.
async fn refresh(store: Store, board: Arc<BoardFit>, game: String, variant: String) {
    let previous = board.state.borrow().fit.clone();
    if let Some(previous) = previous.filter(|fit| fit.busy) {
        let pause = previous.took * REFIT_PAUSE_FACTOR;
        tokio::time::sleep_until((previous.finished + pause).into()).await;
    }
    let runtime = tokio::runtime::Handle::current();
    let refitted = Arc::clone(&board);
    let refitting = tokio::task::spawn_blocking(move || {
        let outcome = runtime.block_on(refit(&store, &refitted, &game, &variant));
        publish(&refitted, outcome);
    });
    if let Err(error) = refitting.await {
        publish(
            &board,
            Err(ArenaError::Internal(format!(
                "the rating fit failed: {error}"
            ))),
        );
    }
}

/// Ends a refresh: its fit, or its failure, for the readers.
fn publish(board: &BoardFit, outcome: Result<Arc<StampedFit>, ArenaError>) {
    board.refreshing.store(false, Ordering::Release);
    board.state.send_modify(|state| match outcome {
        Ok(fit) => {
            state.fit = Some(fit);
            state.error = None;
        }
        Err(error) => state.error = Some(error.to_string()),
    });
}

/// A board's new fit; blocks its thread while it fits (see [`refresh`]).
async fn refit(
    store: &Store,
    board: &BoardFit,
    game: &str,
    variant: &str,
) -> Result<Arc<StampedFit>, ArenaError> {
    let started = Instant::now();
    let stamp = store.reads.board_version(game, variant);
    let previous = board.state.borrow().fit.clone();
    let after = previous.as_ref().map_or(0, |fit| fit.board_last);
    let (new_games, board_last) = store.fit_games_since(game, variant, after).await?;
    if let Some(previous) = previous.as_ref().filter(|_| new_games.is_empty()) {
        return Ok(Arc::new(StampedFit {
            stamp,
            busy: store.reads.board_version(game, variant) != stamp,
            ..StampedFit::clone(previous)
        }));
    }
    let mut games = previous.map_or_else(Vec::new, |fit| fit.games.as_ref().clone());
    games.extend(new_games);
    let fit = fit(&games, &FitConfig::default());
    let table_sizes: BTreeSet<u32> = games.iter().map(|game| game.seats.len() as u32).collect();
    Ok(Arc::new(StampedFit {
        stamp,
        busy: store.reads.board_version(game, variant) != stamp,
        finished: Instant::now(),
        took: started.elapsed(),
        board_last,
        table_sizes: table_sizes.into_iter().collect(),
        seat_shares: seat_shares(&games),
        games: Arc::new(games),
        fit: Arc::new(fit),
    }))
}

fn find_anchor<'a>(
    mut rows: impl Iterator<Item = &'a LeaderboardRow>,
    name: &str,
) -> Result<&'a LeaderboardRow, ArenaError> {
    if name.len() > MAX_ANCHOR_BYTES {
        return Err(ArenaError::invalid(format!(
            "an anchor is a bot name, at most {MAX_ANCHOR_BYTES} bytes"
        )));
    }
    let (bot, version) = match name.rsplit_once('@') {
        Some((bot, version)) => {
            let version = version.parse::<i64>().map_err(|_| {
                ArenaError::invalid(format!(
                    "anchor `{name}`: the version after @ must be a number"
                ))
            })?;
            (bot, Some(version))
        }
        None => (name, None),
    };
    rows.by_ref()
        .filter(|row| row.bot_name == bot && version.is_none_or(|v| row.version == v))
        .max_by_key(|row| row.version)
        .ok_or_else(|| {
            ArenaError::invalid(format!("anchor `{name}` has no games on this leaderboard"))
        })
}

/// Established bots before provisional ones; within each, the unbeaten
/// (by their least rating, then those with no bound), the rated (by
/// rating), the unconnected, the winless (by their most rating, then those
/// with no bound) and bots the fit did not see. A one-sided bound is never
/// compared with a rating: an unbeaten bot beat the rated bots it met, a
/// winless one never did, whatever their bounds say. Live order among
/// equals.
fn order_key(line: &FittedRow) -> (bool, u8, f64) {
    let (class, value) = match (line.fitted, line.bound) {
        (Some(Err(Unidentified::Unbeaten)), Some(bound)) => (0, -bound),
        (Some(Err(Unidentified::Unbeaten)), None) => (1, 0.0),
        (Some(Ok(estimate)), _) => (2, -estimate.rating),
        (Some(Err(Unidentified::Unconnected)), _) => (3, 0.0),
        (Some(Err(Unidentified::Winless)), Some(bound)) => (4, -bound),
        (Some(Err(Unidentified::Winless)), None) => (5, 0.0),
        (None, _) => (6, 0.0),
    };
    (line.row.provisional, class, value)
}

#[cfg(test)]
mod tests;
