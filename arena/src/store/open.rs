//! Opening a store: where it is ([`Location`]) and how it runs
//! ([`StoreOptions`]), in one call.

use std::sync::Arc;

use cairn_engine::GameDescriptor;
use tokio::sync::watch;

use super::backend::Backend;
use super::{
    deal_secret, Clock, Location, Quotas, Registration, Store, SystemClock, Validation,
    DEFAULT_MAX_ATTEMPTS,
};
use crate::deal::DealSecret;
use crate::error::ArenaError;
use crate::verify::{verify_game, GameVerifier};

/// Finds a game's descriptor by id: its seats and options.
pub type GameCheck = fn(&str) -> Option<&'static GameDescriptor>;

/// The engine's table of games.
pub fn engine_game_check(game: &str) -> Option<&'static GameDescriptor> {
    cairn_engine::descriptor(game)
}

/// How a store runs, wherever it is.
#[derive(Clone)]
pub struct StoreOptions {
    /// Where the time comes from (a manual clock in tests).
    pub clock: Arc<dyn Clock>,
    /// Finds a game's descriptor (the engine's table unless a test swaps it).
    pub game_check: GameCheck,
    /// Checks a reported game against its plan and its replay (the engine
    /// unless a test with made-up games swaps it).
    pub verifier: GameVerifier,
    /// Give-backs a match gets before it is given up as failed (at least 1).
    pub max_attempts: u32,
    /// Whether new versions play validation games before they are ready.
    pub validation: Validation,
    /// Who may register an owner.
    pub registration: Registration,
    /// How much one owner may ask.
    pub quotas: Quotas,
    /// Deals under this secret instead of the database's (`cairn demo`,
    /// whose bundled bots must play the same deals on every run, and
    /// tests); `cairn serve` never sets it.
    pub deal_secret: Option<DealSecret>,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            clock: Arc::new(SystemClock),
            game_check: engine_game_check,
            verifier: verify_game,
            max_attempts: DEFAULT_MAX_ATTEMPTS as u32,
            validation: Validation::Off,
            registration: Registration::Open,
            quotas: Quotas::default(),
            deal_secret: None,
        }
    }
}

impl std::fmt::Debug for StoreOptions {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StoreOptions")
            .field("max_attempts", &self.max_attempts)
            .field("validation", &self.validation)
            .field("quotas", &self.quotas)
            .field("deal_secret", &self.deal_secret.is_some())
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens the store at `location` (an SQLite file, created if missing,
    /// or a PostgreSQL database), migrates it, and runs it as `options`
    /// say.
    pub async fn open(
        location: impl Into<Location>,
        options: StoreOptions,
    ) -> Result<Store, ArenaError> {
        let (backend, pool) = Backend::open(&location.into()).await?;
        let deal_secret = match options.deal_secret {
            Some(secret) => secret,
            None => deal_secret::load_or_make(backend.writer()).await?,
        };
        let (changes, _) = watch::channel(0);
        let store = Store {
            pool,
            backend,
            clock: options.clock,
            game_check: options.game_check,
            verifier: options.verifier,
            max_attempts: i64::from(options.max_attempts.max(1)),
            validation: options.validation,
            registration: options.registration,
            quotas: options.quotas,
            changes: Arc::new(changes),
            fits: Arc::default(),
            reads: Arc::default(),
            runners: Arc::default(),
            reviews: Arc::default(),
            deal_secret,
            metrics: Arc::default(),
        };
        let (reads, changes) = (Arc::downgrade(&store.reads), Arc::downgrade(&store.changes));
        store.backend.listen(reads, changes).await?;
        store.canonicalise_stored_variants().await?;
        Ok(store)
    }

    /// The same store (its database and caches), giving a match up after
    /// `max_attempts` give-backs.
    #[cfg(test)]
    pub(crate) fn with_max_attempts(mut self, max_attempts: u32) -> Store {
        self.max_attempts = i64::from(max_attempts.max(1));
        self
    }

    /// The same store with other per-owner quotas.
    #[cfg(test)]
    pub(crate) fn with_quotas(mut self, quotas: Quotas) -> Store {
        self.quotas = quotas;
        self
    }

    /// The same store, dealing under `secret`.
    #[cfg(test)]
    pub(crate) fn with_deal_secret(mut self, secret: DealSecret) -> Store {
        self.deal_secret = secret;
        self
    }

    /// The same store, validating new versions or not.
    #[cfg(test)]
    pub(crate) fn with_validation(mut self, validation: Validation) -> Store {
        self.validation = validation;
        self
    }

    /// The same store, checking games with `game_check`.
    #[cfg(test)]
    pub(crate) fn with_game_check(mut self, game_check: GameCheck) -> Store {
        self.game_check = game_check;
        self
    }

    /// The same store, checking reports with `verifier`.
    #[cfg(test)]
    pub(crate) fn with_verifier(mut self, verifier: GameVerifier) -> Store {
        self.verifier = verifier;
        self
    }
}
