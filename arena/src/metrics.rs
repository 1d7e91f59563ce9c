//! What one arena process counts for Prometheus (`GET /metrics` on the
//! web address of `cairn serve --http`), and its text exposition
//! (format 0.0.4).
//!
//! Counters live in memory: they are per process and start again from zero
//! at every restart (Prometheus's `rate()` and `increase()` expect that);
//! several arena processes on one PostgreSQL each count their own. The
//! gauges (queue depth, runners seen) are read from the database when
//! scraped, so every process shows the same.
//!
//! Every label value comes from a closed list (a refusal's kind, a
//! forfeit's reason) or is a tournament id, for at most
//! [`MAX_TOURNAMENT_SERIES`] tournaments with matches waiting: no bot name,
//! token, deal or free text is ever a label.

mod exposition;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use cairn_engine::forfeit::ForfeitReason;

pub use self::exposition::{Exposition, CONTENT_TYPE};
use crate::error::ArenaError;

/// The most tournaments whose queue depth is a series of its own (those
/// with the most matches waiting); the total counts them all.
pub const MAX_TOURNAMENT_SERIES: usize = 100;

/// How long a call waited (seconds): the upper bounds of the latency
/// histograms' buckets, from a millisecond to half a minute.
pub const LATENCY_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Why a report was refused, as a label: a closed list, so a caller
/// cannot grow the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalReason {
    /// No runner token, or one of no runner (or a revoked one).
    Unauthenticated,
    /// The lease expired or passed to another runner.
    LeaseLost,
    /// No such match or game.
    NotFound,
    /// Malformed, or does not follow from its replay.
    Invalid,
    /// Past a size limit.
    TooLarge,
    /// The match cannot take reports (cancelled).
    FailedPrecondition,
    /// The database failed.
    Database,
    /// Anything else (a fault of the arena's).
    Other,
}

impl RefusalReason {
    pub const ALL: [RefusalReason; 8] = [
        RefusalReason::Unauthenticated,
        RefusalReason::LeaseLost,
        RefusalReason::NotFound,
        RefusalReason::Invalid,
        RefusalReason::TooLarge,
        RefusalReason::FailedPrecondition,
        RefusalReason::Database,
        RefusalReason::Other,
    ];

    /// The label value.
    pub fn id(self) -> &'static str {
        match self {
            RefusalReason::Unauthenticated => "unauthenticated",
            RefusalReason::LeaseLost => "lease_lost",
            RefusalReason::NotFound => "not_found",
            RefusalReason::Invalid => "invalid",
            RefusalReason::TooLarge => "too_large",
            RefusalReason::FailedPrecondition => "failed_precondition",
            RefusalReason::Database => "database",
            RefusalReason::Other => "other",
        }
    }

    /// The kind of refusal `error` is.
    pub fn of(error: &ArenaError) -> RefusalReason {
        match error {
            ArenaError::Unauthenticated(_) | ArenaError::PermissionDenied(_) => {
                RefusalReason::Unauthenticated
            }
            ArenaError::LeaseLost { .. } => RefusalReason::LeaseLost,
            ArenaError::NotFound { .. } => RefusalReason::NotFound,
            ArenaError::InvalidArgument(_) | ArenaError::Game(_) | ArenaError::Plan(_) => {
                RefusalReason::Invalid
            }
            ArenaError::TooLarge(_) | ArenaError::Archive(_) => RefusalReason::TooLarge,
            ArenaError::FailedPrecondition(_) | ArenaError::AlreadyExists(_) => {
                RefusalReason::FailedPrecondition
            }
            ArenaError::Database(_) | ArenaError::Migration(_) => RefusalReason::Database,
            ArenaError::Internal(_) | ArenaError::Shed(_) | ArenaError::Quota(_) => {
                RefusalReason::Other
            }
        }
    }
}

/// A histogram of durations over [`LATENCY_BUCKETS`]: a count per bucket
/// (not cumulative; the exposition sums them), the count and the sum.
#[derive(Debug, Default)]
pub struct Histogram {
    buckets: [AtomicU64; LATENCY_BUCKETS.len()],
    count: AtomicU64,
    sum_ns: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, took: Duration) {
        let seconds = took.as_secs_f64();
        if let Some(bucket) = LATENCY_BUCKETS.iter().position(|&bound| seconds <= bound) {
            self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        }
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.sum_ns.fetch_add(nanos, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// The cumulative count at each bound, the count and the sum (seconds).
    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut cumulative = [0; LATENCY_BUCKETS.len()];
        let mut running = 0;
        for (slot, bucket) in cumulative.iter_mut().zip(&self.buckets) {
            running += bucket.load(Ordering::Relaxed);
            *slot = running;
        }
        // The count is read last, so it is never below the buckets' total.
        let count = self.count.load(Ordering::Relaxed).max(running);
        let sum = self.sum_ns.load(Ordering::Relaxed) as f64 / 1e9;
        HistogramSnapshot {
            cumulative,
            count,
            sum,
        }
    }
}

/// A histogram as scraped.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramSnapshot {
    pub cumulative: [u64; LATENCY_BUCKETS.len()],
    pub count: u64,
    pub sum: f64,
}

/// The counters of one arena process; the store holds one, and every
/// hook reaches it through the store.
#[derive(Debug, Default)]
pub struct Metrics {
    reports_received: AtomicU64,
    reports_refused: [AtomicU64; RefusalReason::ALL.len()],
    games_recorded: AtomicU64,
    forfeits: [AtomicU64; ForfeitReason::ALL.len()],
    leases_granted: AtomicU64,
    leases_expired: AtomicU64,
    leases_given_back: AtomicU64,
    build_failures: AtomicU64,
    database_errors: AtomicU64,
    report_seconds: Histogram,
    lease_seconds: Histogram,
}

/// What the database says when scraped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gauges {
    /// Matches waiting for a runner (queued, or leased under an expired
    /// lease), in every tournament.
    pub matches_waiting: i64,
    /// `(tournament id, matches waiting)`, at most
    /// [`MAX_TOURNAMENT_SERIES`] tournaments, those with the most.
    pub waiting_by_tournament: Vec<(i64, i64)>,
    /// Runners (not revoked) that called within [`RUNNERS_SEEN_WITHIN`].
    pub runners_seen: i64,
}

/// How recently a runner must have called to count as seen.
pub const RUNNERS_SEEN_WITHIN: Duration = Duration::from_secs(60);

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn read(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

impl Metrics {
    /// A report call answered: `refused` with its error, or not.
    pub fn report_answered(&self, took: Duration, refused: Option<&ArenaError>) {
        bump(&self.reports_received);
        if let Some(error) = refused {
            let reason = RefusalReason::of(error);
            let index = RefusalReason::ALL.iter().position(|&r| r == reason);
            bump(&self.reports_refused[index.unwrap_or(RefusalReason::ALL.len() - 1)]);
        }
        self.report_seconds.observe(took);
    }

    /// A lease call answered (granted, empty, or refused).
    pub fn lease_answered(&self, took: Duration) {
        self.lease_seconds.observe(took);
    }

    /// A game written, with the forfeit of each seat that forfeited.
    pub fn game_recorded(&self, forfeits: impl IntoIterator<Item = ForfeitReason>) {
        bump(&self.games_recorded);
        for reason in forfeits {
            let index = ForfeitReason::ALL.iter().position(|&r| r == reason);
            if let Some(index) = index {
                bump(&self.forfeits[index]);
            }
        }
    }

    /// A match leased; `reclaimed` when its previous lease had expired.
    pub fn lease_granted(&self, reclaimed: bool) {
        bump(&self.leases_granted);
        if reclaimed {
            bump(&self.leases_expired);
        }
    }

    pub fn lease_given_back(&self) {
        bump(&self.leases_given_back);
    }

    pub fn build_failed(&self) {
        bump(&self.build_failures);
    }

    /// Counts `result`'s error if the database failed; returns it unchanged.
    pub fn database<T>(&self, result: Result<T, ArenaError>) -> Result<T, ArenaError> {
        if result.as_ref().is_err_and(ArenaError::is_database) {
            self.database_failed();
        }
        result
    }

    /// Counts one database error (met where no `Result` passes by here).
    pub fn database_failed(&self) {
        bump(&self.database_errors);
    }

    /// Every metric, with `gauges` (`None` when the database could not be
    /// read: the gauges are left out, the counters still answer).
    pub fn render(&self, gauges: Option<&Gauges>) -> String {
        let mut out = Exposition::default();
        self.render_reports(&mut out);
        self.render_leases(&mut out);
        out.counter("cairn_build_failures_total", "Failed builds of a bot version reported by runners, charged to the version or sent to another runner first (per process, reset on restart).", read(&self.build_failures));
        out.counter("cairn_database_errors_total", "Database errors met by the arena's writes, the runners' reads, the public gRPC reads, the web pages' reads and scrapes (per process, reset on restart).", read(&self.database_errors));
        if let Some(gauges) = gauges {
            render_gauges(&mut out, gauges);
        }
        out.finish()
    }

    fn render_reports(&self, out: &mut Exposition) {
        out.counter(
            "cairn_reports_received_total",
            "Game reports received from runners, refused or not (per process, reset on restart).",
            read(&self.reports_received),
        );
        let refused = RefusalReason::ALL
            .iter()
            .zip(&self.reports_refused)
            .map(|(reason, count)| (reason.id(), read(count)));
        out.labelled_counter(
            "cairn_reports_refused_total",
            "Game reports refused, by kind of refusal (per process, reset on restart).",
            "reason",
            refused,
        );
        out.counter(
            "cairn_games_recorded_total",
            "Games recorded, reported or ended by a failed build (per process, reset on restart).",
            read(&self.games_recorded),
        );
        let forfeits = ForfeitReason::ALL
            .iter()
            .zip(&self.forfeits)
            .map(|(reason, count)| (reason.as_str(), read(count)));
        out.labelled_counter(
            "cairn_forfeits_total",
            "Seats forfeited in recorded games, by reason (per process, reset on restart).",
            "reason",
            forfeits,
        );
        out.histogram("cairn_report_duration_seconds", "Time to answer a runner's game report, refused or not (per process, reset on restart).", &self.report_seconds.snapshot());
    }

    fn render_leases(&self, out: &mut Exposition) {
        out.counter(
            "cairn_leases_granted_total",
            "Matches leased to runners (per process, reset on restart).",
            read(&self.leases_granted),
        );
        out.counter("cairn_leases_expired_total", "Leases found expired when their match was leased again (per process, reset on restart).", read(&self.leases_expired));
        out.counter("cairn_leases_given_back_total", "Matches given back by runners after a fault of theirs (per process, reset on restart).", read(&self.leases_given_back));
        out.histogram("cairn_lease_duration_seconds", "Time to answer a runner's lease call, granted, empty or refused (per process, reset on restart).", &self.lease_seconds.snapshot());
    }
}

fn render_gauges(out: &mut Exposition, gauges: &Gauges) {
    out.gauge("cairn_matches_waiting", "Matches waiting for a runner (queued, or under an expired lease), read from the database when scraped.", gauges.matches_waiting);
    let by_tournament = gauges
        .waiting_by_tournament
        .iter()
        .take(MAX_TOURNAMENT_SERIES)
        .map(|(tournament, waiting)| (tournament.to_string(), *waiting));
    out.labelled_gauge("cairn_tournament_matches_waiting", "Matches waiting for a runner per tournament, for the tournaments with the most waiting, read when scraped.", "tournament", by_tournament);
    out.gauge("cairn_runners_seen", "Runners (not revoked) that called an arena process within the last 60 seconds, read when scraped.", gauges.runners_seen);
}

#[cfg(test)]
mod tests;
