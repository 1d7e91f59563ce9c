//! # cairn-arena
//!
//! The arena: where bot authors submit bots, tournaments are planned and
//! results turn into ratings. The only crate that touches SQL.
//!
//! # Layout
//! - [`service`]: the tonic gRPC service ([`service::run`]) and `From<ArenaError> for Status`.
//! - [`store`]: the SQLite store (sqlx, `migrations/` at the workspace root).
//! - [`plan`]: round-robin planning, pure and seeded.
//! - [`ratings`]: Elo, Glicko-2 and Weng-Lin updates, pure.
//! - [`archive`]: checking a submitted bot folder (`tar.gz`).
//! - [`testkit`]: helpers for tests of the arena and its users.
//! - [`error`]: [`ArenaError`], the one error type.

pub mod archive;
pub mod error;
pub mod plan;
pub mod ratings;
pub mod service;
pub mod store;
pub mod testkit;

pub use error::ArenaError;
pub use service::run;
pub use store::Store;
