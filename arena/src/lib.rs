//! # cairn-arena
//!
//! The arena: where bot authors submit bots, tournaments are planned and
//! results turn into ratings. The only crate that touches SQL.
//!
//! # Layout
//! - [`admission`]: the public reads admitted by cost, per client and in
//!   total (shed, with a retry hint, past either), shared by [`service`] and [`web`].
//! - [`service`]: the tonic gRPC service ([`service::run`]) and `From<ArenaError> for Status`.
//! - [`store`]: the store, on SQLite or PostgreSQL (sqlx, `migrations/` at the workspace root).
//! - [`plan`]: round-robin planning, pure and seeded.
//! - [`ratings`]: Elo, Glicko-2 and Weng-Lin updates, pure.
//! - [`fit`]: ratings fitted by maximum likelihood over a whole history
//!   (Bradley-Terry, Plackett-Luce) with bootstrap intervals, pure.
//! - [`stats`]: score, Elo interval, LOS, pentanomial and SPRT formulas
//!   (shared by `cairn play --sprt` and SPRT gauntlets), pure.
//! - [`results_table`]: a tournament's own results table (W/D/L, points,
//!   Elo within it) and crosstable, pure.
//! - [`game_name`]: `TOURNAMENT/MATCH/GAME`, the one public name of a game.
//! - [`format`]: tournament formats (round robin, gauntlet, Swiss,
//!   knockout): which matches come next from the results so far, pure.
//! - [`deal`]: the deal a game is played on, a keyed hash of its planned
//!   seed under the database's secret (why: the module's ruling).
//! - [`report`]: what a runner reports of a game, plain values shared by
//!   the store and `verify`.
//! - [`verify`]: re-refereeing a reported game with the engine, pure.
//! - [`archive`]: checking a submitted bot folder (`tar.gz`); the code lives
//!   in `cairn_proto::archive`, shared with runners, which unpack with it.
//! - [`metrics`]: the process's counters and the gauges read when
//!   scraped, in Prometheus's text format (`/metrics` beside [`web`]).
//! - [`web`]: the read-only web pages and their JSON (`cairn serve --http`).
//! - `testkit` (feature `testkit`, for dev-dependencies): helpers for tests
//!   of the arena and its users.
//! - [`error`]: [`ArenaError`], the one error type.
//!
//! # Example
//! ```
//! use cairn_arena::store::{LeaderboardQuery, Store};
//! use cairn_arena::testkit::{bot_archive, test_game_check, TEST_DUEL};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let folder = tempfile::tempdir().unwrap();
//! let store = Store::open(folder.path().join("arena.db"), cairn_arena::store::StoreOptions { game_check: test_game_check, ..Default::default() }).await.unwrap();
//! let (owner, _token) = store.register_owner("ada").await.unwrap();
//! let submitted = store.submit_bot_version(&owner, &bot_archive("greedy", 1)).await.unwrap();
//! assert_eq!((submitted.version.bot_name.as_str(), submitted.version.version), ("greedy", 1));
//! let query = LeaderboardQuery { game: TEST_DUEL.into(), options: Default::default(), model: None };
//! assert!(store.leaderboard(&query).await.unwrap().is_empty());
//! # });
//! ```
//!
//! Serving it: [`run`]`(listener, store, shutdown)` until `shutdown` completes.

pub use cairn_proto::archive;
pub mod admission;
pub mod deal;
pub mod error;
pub mod fit;
pub mod format;
pub mod game_name;
#[cfg(test)]
mod layers;
pub mod metrics;
pub mod plan;
pub mod ratings;
pub mod report;
pub mod results_table;
pub mod service;
pub mod stats;
pub mod store;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod verify;
pub mod web;

pub use error::ArenaError;
pub use service::run;
pub use store::Store;
