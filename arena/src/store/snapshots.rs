//! Versioned snapshots of the hottest reads: the first page of a
//! tournament's matches and a leaderboard's live rows.
//!
//! A snapshot is built once from the database (one reader builds, the
//! others await the same build) and then shared by every reader until a
//! write transaction that changes it commits. Each write declares what it
//! touches ([`Touch`]); one that declares nothing touches everything, so a
//! write added later without a declaration is safe, merely less cached.
//!
//! Invalidation happens after the commit and before the write's caller is
//! answered, so a read that starts after a write was answered sees it. A
//! snapshot is replaced whole, never edited: a reader sees a result
//! entirely or not at all.
//!
//! A snapshot being built keeps the writes of its kind that commit while it
//! reads (its last match index is not known yet, and the build may or may
//! not see them). When it is built, a board is patched with them, and a
//! page checks whether one was on it: if so it is dropped, and a reader
//! that joined after that write was answered reads on its own. Under a
//! steady stream of reports a build is thus never thrown away for writes
//! it does not hold; it used to be, and under load readers rebuilt the
//! same page back to back.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::OnceCell;

use super::leaderboard::LeaderboardRow;
use super::tournaments::MatchSummary;
use super::{Page, PageOf, Store};
use crate::error::ArenaError;
use crate::ratings::{RatingModel, Standing};

/// Snapshots kept of each kind; past that, all are dropped and rebuilt on
/// demand (a caller asking for every page size of every tournament only
/// costs the builds it causes).
const MAX_SNAPSHOTS: usize = 256;

/// What a write transaction changed, as far as cached reads care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Touch {
    /// A match's row, seats or a game's result.
    Match {
        tournament_id: i64,
        match_index: i64,
    },
    /// A rating of a game and variant.
    Board { game: String, variant: String },
}

/// The standings a write gave bot versions on a board (model, bot
/// version, standing): a cached board that holds every one of them is
/// patched with them, in place of being read again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoardPatch {
    pub game: String,
    pub variant: String,
    pub standings: Vec<(RatingModel, i64, Standing)>,
}

/// Everything a transaction touches: `Everything` unless it declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Touched {
    Everything,
    Only(Vec<Touch>),
}

/// Which first page: tournament and page size.
pub(crate) type PageKey = (i64, u32);

/// Which leaderboard: game, variant, and the model asked for.
pub(crate) type BoardKey = (String, String, Option<RatingModel>);

/// One build of a snapshot.
#[derive(Debug)]
struct Generation<T> {
    /// What writes did to it: the writes that committed while it was
    /// being built, then, once built, the highest match index it holds.
    state: Mutex<State>,
    value: OnceCell<Arc<T>>,
}

/// A generation's state (see [`Generation::state`]).
#[derive(Debug)]
enum State {
    /// Being built: the writes of its kind that committed meanwhile, in
    /// commit order. The build may or may not have read each of them.
    Building(Vec<Pending>),
    /// Built: the highest match index it holds, `i64::MAX` when a new
    /// match would join it (a page not full) or when it is not a page.
    /// `stale_from` is the first write of the build's that it may be
    /// missing: readers who joined after that write was answered must not
    /// take it.
    Built {
        last_index: i64,
        stale_from: Option<usize>,
    },
}

/// A write that committed while a snapshot was being built.
#[derive(Debug, Clone)]
enum Pending {
    /// A match of the page's tournament, by index.
    Match(i64),
    /// The standings a write gave on the board, or `None` when it changed
    /// the board in a way a patch cannot follow.
    Board(Option<Vec<(RatingModel, i64, Standing)>>),
}

/// The most writes a build keeps while it runs; past that it is dropped
/// as any build was before writes were kept (a build that slow is rare).
const MAX_PENDING: usize = 10_000;

impl<T> Generation<T> {
    fn new() -> Generation<T> {
        Generation {
            state: Mutex::new(State::Building(Vec::new())),
            value: OnceCell::new(),
        }
    }

    fn ready(value: T) -> Generation<T> {
        Generation {
            state: Mutex::new(State::Built {
                last_index: i64::MAX,
                stale_from: None,
            }),
            value: OnceCell::new_with(Some(Arc::new(value))),
        }
    }

    /// Whether a write touching match `match_index` leaves it current: a
    /// build under way keeps the touch for when it is done.
    fn outlives_match(&self, match_index: i64) -> bool {
        match &mut *lock(&self.state) {
            State::Building(pending) => keep_pending(pending, Pending::Match(match_index)),
            State::Built { last_index, .. } => match_index > *last_index,
        }
    }

    /// The writes it has kept so far: a reader joining now needs every
    /// one of them in what it reads.
    fn writes_seen(&self) -> usize {
        match &*lock(&self.state) {
            State::Building(pending) => pending.len(),
            State::Built { .. } => 0,
        }
    }

    /// Whether a reader that joined after `seen` kept writes may take the
    /// built value.
    fn current_for(&self, seen: usize) -> bool {
        match &*lock(&self.state) {
            State::Built {
                stale_from: Some(from),
                ..
            } => seen <= *from,
            _ => true,
        }
    }
}

/// Keeps a write for a build under way; false (drop the build) when it
/// has kept too many.
fn keep_pending(pending: &mut Vec<Pending>, write: Pending) -> bool {
    if pending.len() >= MAX_PENDING {
        return false;
    }
    pending.push(write);
    true
}

type Snapshots<K, T> = Mutex<HashMap<K, Arc<Generation<T>>>>;

/// A board's version: it changes whenever a write touches the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct BoardVersion {
    /// Bumped by every write that declared nothing (it may touch any board).
    epoch: u64,
    /// Bumped by every write that touched this board.
    writes: u64,
}

/// A report of a board under way (see [`ReadCache::report_under_way`]).
#[derive(Debug)]
pub(crate) struct ReportUnderWay {
    reads: Arc<ReadCache>,
    board: (String, String),
}

impl Drop for ReportUnderWay {
    fn drop(&mut self) {
        let mut under_way = lock(&self.reads.reports_under_way);
        if let Some(count) = under_way.get_mut(&self.board) {
            *count -= 1;
            if *count == 0 {
                under_way.remove(&self.board);
            }
        }
    }
}

/// The store's snapshots, shared by every clone of the store.
#[derive(Debug, Default)]
pub(crate) struct ReadCache {
    first_pages: Snapshots<PageKey, PageOf<MatchSummary>>,
    boards: Snapshots<BoardKey, Vec<LeaderboardRow>>,
    epoch: AtomicU64,
    board_writes: Mutex<HashMap<(String, String), u64>>,
    /// When each board was last written, and when a write that declared
    /// nothing last committed (it may have written any board).
    board_written_at: Mutex<HashMap<(String, String), Instant>>,
    everything_written_at: Mutex<Option<Instant>>,
    /// Reports under way in this process, by board (see
    /// [`ReadCache::report_under_way`]).
    reports_under_way: Mutex<HashMap<(String, String), usize>>,
}

impl ReadCache {
    /// The first page of a tournament's matches, built by `build` (which
    /// also gives the page's last match index) unless a current one exists.
    pub(crate) async fn first_page<F, Fut>(
        &self,
        key: PageKey,
        build: F,
    ) -> Result<Arc<PageOf<MatchSummary>>, ArenaError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<(PageOf<MatchSummary>, i64), ArenaError>>,
    {
        snapshot(
            &self.first_pages,
            key,
            build,
            |page, last_index, pending| {
                // A match on the page that changed while it was read: the
                // page may be missing that write.
                let stale_from = pending.iter().position(
                    |write| matches!(write, Pending::Match(index) if *index <= last_index),
                );
                (page, stale_from)
            },
        )
        .await
    }

    /// A leaderboard's live rows, built by `build` unless a current one exists.
    pub(crate) async fn board<F, Fut>(
        &self,
        key: BoardKey,
        build: F,
    ) -> Result<Arc<Vec<LeaderboardRow>>, ArenaError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<Vec<LeaderboardRow>, ArenaError>>,
    {
        let model = key.2;
        snapshot(
            &self.boards,
            key,
            || async { build().await.map(|rows| (rows, i64::MAX)) },
            |mut rows, _, pending| {
                // Each result recorded while the board was read patches it
                // (a standing it already holds is left as it is).
                for (position, write) in pending.iter().enumerate() {
                    let patched = match write {
                        Pending::Board(Some(standings)) => patched_rows(&rows, model, standings),
                        _ => None,
                    };
                    match patched {
                        Some(patched) => rows = patched,
                        None => return (rows, Some(position)),
                    }
                }
                (rows, None)
            },
        )
        .await
    }

    /// The version of a game and variant's board, read before the board's
    /// results are: a fit made from them is current while this is unchanged.
    pub(crate) fn board_version(&self, game: &str, variant: &str) -> BoardVersion {
        // The epoch first: a write that declares nothing bumps it after its
        // commit, so a version read concurrently is at worst too old.
        let epoch = self.epoch.load(Ordering::Acquire);
        let writes = lock(&self.board_writes)
            .get(&(game.to_string(), variant.to_string()))
            .copied()
            .unwrap_or(0);
        BoardVersion { epoch, writes }
    }

    /// Bumped after every write that declared nothing it touched, here or
    /// (notified) in another process: anything may have changed.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Whether a write may have touched a game and variant's board after
    /// `since`, or a report of the board is under way.
    pub(crate) fn board_written_after(&self, game: &str, variant: &str, since: Instant) -> bool {
        let board_key = (game.to_string(), variant.to_string());
        if lock(&self.reports_under_way).contains_key(&board_key) {
            return true;
        }
        let everything = *lock(&self.everything_written_at);
        let board = lock(&self.board_written_at).get(&board_key).copied();
        everything.max(board).is_some_and(|at| at > since)
    }

    /// Marks a report of a board as under way until the guard drops: the
    /// board is busy meanwhile, however long the report waits for its
    /// turn. Without it, a board whose reports stalled for longer than a
    /// refit (a writer starved of CPU under many readers) looked quiet, and
    /// its readers waited for a refit the next result made stale at once.
    pub(crate) fn report_under_way(self: &Arc<Self>, game: &str, variant: &str) -> ReportUnderWay {
        let board = (game.to_string(), variant.to_string());
        *lock(&self.reports_under_way)
            .entry(board.clone())
            .or_default() += 1;
        ReportUnderWay {
            reads: Arc::clone(self),
            board,
        }
    }

    /// Drops every snapshot a committed write touched.
    pub(crate) fn invalidate(&self, touched: &Touched) {
        self.invalidate_patching(touched, &[]);
    }

    /// Drops every snapshot a committed write touched, except the boards
    /// that `patches` bring up to date: those are replaced by patched
    /// copies, so no reader waits for the board to be read again.
    pub(crate) fn invalidate_patching(&self, touched: &Touched, patches: &[BoardPatch]) {
        let touches = match touched {
            Touched::Everything => {
                lock(&self.first_pages).clear();
                lock(&self.boards).clear();
                self.epoch.fetch_add(1, Ordering::AcqRel);
                *lock(&self.everything_written_at) = Some(Instant::now());
                return;
            }
            Touched::Only(touches) => touches,
        };
        for touch in touches {
            match touch {
                Touch::Match {
                    tournament_id,
                    match_index,
                } => lock(&self.first_pages).retain(|&(tournament, _), generation| {
                    tournament != *tournament_id || generation.outlives_match(*match_index)
                }),
                Touch::Board { game, variant } => {
                    *lock(&self.board_writes)
                        .entry((game.clone(), variant.clone()))
                        .or_default() += 1;
                    lock(&self.board_written_at)
                        .insert((game.clone(), variant.clone()), Instant::now());
                    let patch = patches
                        .iter()
                        .find(|patch| patch.game == *game && patch.variant == *variant);
                    self.patch_boards(game, variant, patch);
                }
            }
        }
    }
}

impl ReadCache {
    /// Replaces each cached board of `game` and `variant` by a copy with
    /// `patch` applied, or drops it when it cannot be patched (no patch,
    /// a board still being built, a bot version new to it).
    fn patch_boards(&self, game: &str, variant: &str, patch: Option<&BoardPatch>) {
        let mut boards = lock(&self.boards);
        let keys: Vec<BoardKey> = boards
            .keys()
            .filter(|(board_game, board_variant, _)| board_game == game && board_variant == variant)
            .cloned()
            .collect();
        for key in keys {
            let Some(generation) = boards.get(&key) else {
                continue;
            };
            let standings = patch.map(|patch| patch.standings.clone());
            let patched = match &mut *lock(&generation.state) {
                // Patched when its build is done.
                State::Building(pending) => {
                    if keep_pending(pending, Pending::Board(standings)) {
                        continue;
                    }
                    None
                }
                State::Built { .. } => standings
                    .and_then(|standings| patched_rows(generation.value.get()?, key.2, &standings)),
            };
            match patched {
                Some(rows) => {
                    boards.insert(key, Arc::new(Generation::ready(rows)));
                }
                None => {
                    boards.remove(&key);
                }
            }
        }
    }
}

/// `rows` with `standings` of their model applied, in the order the board
/// is read in (best rating first, then name and version), or `None` when a
/// bot version is not on the board yet (its name and owner are not known
/// here). A standing older than the row's (fewer games: another write got
/// there first) is left out.
fn patched_rows(
    rows: &[LeaderboardRow],
    asked: Option<RatingModel>,
    standings: &[(RatingModel, i64, Standing)],
) -> Option<Vec<LeaderboardRow>> {
    // A board asked by its model is that model's even while empty: a result
    // rated under other models only leaves it as it is.
    let model = asked.or_else(|| Some(rows.first()?.model))?;
    let mut rows = rows.to_vec();
    for (_, bot_version_id, standing) in standings.iter().filter(|(of, ..)| *of == model) {
        let row = rows
            .iter_mut()
            .find(|row| row.bot_version_id == *bot_version_id)?;
        if standing.games > row.standing.games {
            row.standing = *standing;
            row.provisional = standing.provisional();
        }
    }
    rows.sort_by(|a, b| {
        b.standing
            .rating
            .value
            .total_cmp(&a.standing.rating.value)
            .then_with(|| a.bot_name.cmp(&b.bot_name))
            .then(a.version.cmp(&b.version))
    });
    for (index, row) in rows.iter_mut().enumerate() {
        row.position = index + 1;
    }
    Some(rows)
}

/// The most games a page of matches carries (beyond its first match): a
/// page of 1,000 matches of 22,000 games each would be 22 million rows.
pub const MAX_GAMES_PER_PAGE: i64 = 10_000;

impl Store {
    /// A page of a tournament's matches, as [`Store::list_matches`], with
    /// fewer matches when they hold many games (see [`MAX_GAMES_PER_PAGE`]);
    /// the first page of each size is a snapshot shared until one of its
    /// matches changes.
    pub async fn matches_page(
        &self,
        tournament_id: i64,
        page: &Page<i64>,
    ) -> Result<Arc<PageOf<MatchSummary>>, ArenaError> {
        if page.after.is_some() {
            let page = self.bounded_by_games(tournament_id, page).await?;
            return Ok(Arc::new(self.list_matches(tournament_id, &page).await?));
        }
        self.reads
            .first_page((tournament_id, page.size), || async {
                let page = self.bounded_by_games(tournament_id, page).await?;
                let first = self.list_matches(tournament_id, &page).await?;
                let last_index = match (&first.next_page_token, first.items.last()) {
                    (Some(_), Some(last)) => last.match_index,
                    // Not full: a match planned later would join it.
                    _ => i64::MAX,
                };
                Ok((first, last_index))
            })
            .await
    }
}

impl Store {
    /// `page` with no more matches than [`MAX_GAMES_PER_PAGE`] games allow,
    /// judged by the page's first match.
    // RULING: the plan gives every match of a tournament the same number of
    // games, so the first match of the page stands for the others; one
    // indexed count, whatever the tournament's size.
    async fn bounded_by_games(
        &self,
        tournament_id: i64,
        page: &Page<i64>,
    ) -> Result<Page<i64>, ArenaError> {
        let games: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM games WHERE match_id = \
             (SELECT id FROM matches WHERE tournament_id = $1 AND match_index > $2 ORDER BY match_index LIMIT 1)",
        )
        .bind(tournament_id)
        .bind(page.after.unwrap_or(-1))
        .fetch_one(self.pool())
        .await?;
        let fits = (MAX_GAMES_PER_PAGE / games.max(1)).max(1);
        Ok(Page {
            size: page.size.min(u32::try_from(fits).unwrap_or(u32::MAX)),
            after: page.after,
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// The current snapshot under `key`, or a new one. A generation is
/// registered before its build reads, and the writes of its kind that
/// commit meanwhile are kept on it: when the build is done, `settle` brings
/// the value up to date with them (a board is patched) or names the first
/// one it may be missing, and the generation is dropped from `snapshots`.
/// A reader that joined after that write was answered reads on its own,
/// so no reader ever misses a write answered before it began; the others
/// share the build, however many writes commit while it runs.
async fn snapshot<K, T, F, Fut>(
    snapshots: &Snapshots<K, T>,
    key: K,
    build: F,
    settle: impl FnOnce(T, i64, &[Pending]) -> (T, Option<usize>),
) -> Result<Arc<T>, ArenaError>
where
    K: Eq + Hash + Clone,
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(T, i64), ArenaError>>,
{
    let (generation, seen) = {
        let mut snapshots = lock(snapshots);
        if let Some(current) = snapshots.get(&key) {
            let seen = current.writes_seen();
            (Arc::clone(current), seen)
        } else {
            if snapshots.len() >= MAX_SNAPSHOTS {
                // Readers holding a dropped generation still get its value.
                snapshots.clear();
            }
            let generation = Arc::new(Generation::new());
            snapshots.insert(key.clone(), Arc::clone(&generation));
            (generation, 0)
        }
    };
    let value = generation
        .value
        .get_or_try_init(|| async {
            let (value, last_index) = build().await?;
            // Under the map's lock, so no write lands between settling and
            // dropping a stale generation.
            let mut current = lock(snapshots);
            let mut state = lock(&generation.state);
            // Built from here on: the kept writes are settled once.
            let pending = match &mut *state {
                State::Building(pending) => std::mem::take(pending),
                State::Built { .. } => Vec::new(),
            };
            let (value, stale_from) = settle(value, last_index, &pending);
            *state = State::Built {
                last_index,
                stale_from,
            };
            if stale_from.is_some()
                && current
                    .get(&key)
                    .is_some_and(|held| Arc::ptr_eq(held, &generation))
            {
                current.remove(&key);
            }
            Ok::<_, ArenaError>(Arc::new(value))
        })
        .await?;
    if generation.current_for(seen) {
        return Ok(Arc::clone(value));
    }
    // A write this reader must see came after the build read: read anew,
    // uncached (the next reader builds the next generation).
    let (value, _) = build().await?;
    Ok(Arc::new(value))
}

#[cfg(test)]
mod tests;
