//! Admission of the public reads by cost, per client and in total, so
//! that no reader, nor any crowd of them, starves the writes.
//!
//! A read that is not answered from a cache (a deep page, a page with its
//! games, a tournament's standings, a web `/api/` answer) has a cost in
//! units; a watch stream holds a slot while it is open. A client (its
//! address, or the owner or runner its valid token names) may have
//! [`AdmissionLimits::client_cost`] units running at once and spend
//! [`AdmissionLimits::client_cost_per_s`] on average (a bucket of
//! [`AdmissionLimits::client_burst`]); every client together may have
//! [`AdmissionLimits::total_cost`] running. Past any of these the read is
//! shed at once, never queued: the caller is told when to try again
//! ([`Refusal::retry_after`]). The runners' calls never pass here, so no
//! reader ever sheds a lease or a report.
//!
//! The gRPC service and the web pages share one [`Admission`]: a crowd
//! split between them counts once.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Who a read is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Client {
    /// An anonymous caller, by its address (every port of one host is one
    /// client: a new connection is not a new budget).
    Peer(IpAddr),
    /// An owner, by id, whose token was checked.
    Owner(i64),
    /// A runner, by id, whose token was checked.
    Runner(i64),
    /// A caller whose address is unknown (an in-process call).
    Unknown,
}

/// How much the public reads may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmissionLimits {
    /// Units one client may have running at once.
    pub client_cost: u32,
    /// Units one client may spend per second, on average.
    pub client_cost_per_s: f64,
    /// Units one client may spend at once after a quiet spell.
    pub client_burst: f64,
    /// Units every client together may have running at once.
    pub total_cost: u32,
    /// Watch streams one client may hold open.
    pub client_streams: u32,
    /// Watch streams every client together may hold open.
    pub total_streams: u32,
}

impl Default for AdmissionLimits {
    fn default() -> AdmissionLimits {
        AdmissionLimits {
            client_cost: 8,
            client_cost_per_s: 40.0,
            client_burst: 200.0,
            total_cost: 16,
            client_streams: 32,
            total_streams: 512,
        }
    }
}

/// The cost in units of the reads admitted by cost: one unit is about a
/// page of matches without their games read from the database.
pub mod cost {
    /// A page of matches after the first (the first is kept, see
    /// `service::hot_reads`).
    pub const DEEP_PAGE: u32 = 2;
    /// A page of matches after the first, each with its games.
    pub const DEEP_PAGE_WITH_GAMES: u32 = 6;
    /// A tournament with its standings, table and crosstable; a page of
    /// tournaments with their progress.
    pub const TOURNAMENT: u32 = 4;
    /// A replay, or a bot's versions.
    pub const SINGLE: u32 = 1;
    /// Every leaderboard at once (the web's front page).
    pub const ALL_BOARDS: u32 = 6;
}

/// Why a read was shed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("too many reads from this client at once (at most {limit} units running, asked {asked} with {running} running): retry in {} ms", retry_after.as_millis())]
    ClientBusy {
        limit: u32,
        running: u32,
        asked: u32,
        retry_after: Duration,
    },
    #[error("this client reads faster than {per_s} units a second: retry in {} ms", retry_after.as_millis())]
    ClientRate { per_s: u32, retry_after: Duration },
    #[error("the arena is shedding reads (at most {limit} units running for everyone): retry in {} ms", retry_after.as_millis())]
    Shed { limit: u32, retry_after: Duration },
    #[error("too many watch streams open ({scope} limit {limit}): retry in {} ms", retry_after.as_millis())]
    Streams {
        scope: &'static str,
        limit: u32,
        retry_after: Duration,
    },
}

impl Refusal {
    /// When the caller may try again.
    pub fn retry_after(&self) -> Duration {
        match self {
            Refusal::ClientBusy { retry_after, .. }
            | Refusal::ClientRate { retry_after, .. }
            | Refusal::Shed { retry_after, .. }
            | Refusal::Streams { retry_after, .. } => *retry_after,
        }
    }

    /// Whether the arena as a whole is full, not this client.
    pub fn is_overall(&self) -> bool {
        matches!(
            self,
            Refusal::Shed { .. } | Refusal::Streams { scope: "arena", .. }
        )
    }
}

/// How long a caller shed for concurrency is asked to wait: about one
/// expensive read's time.
const BUSY_RETRY: Duration = Duration::from_millis(250);
/// How long a caller is asked to wait when every stream slot is taken.
const STREAMS_RETRY: Duration = Duration::from_secs(5);
/// Clients remembered; past this, those with nothing running and a full
/// bucket are forgotten (they would start afresh anyway).
const MAX_CLIENTS: usize = 65_536;

/// The admission state shared by every public call.
#[derive(Debug, Clone)]
pub struct Admission {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    limits: AdmissionLimits,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    running: u32,
    streams: u32,
    clients: HashMap<Client, ClientState>,
}

#[derive(Debug, Clone, Copy)]
struct ClientState {
    running: u32,
    streams: u32,
    /// Units left in the bucket at `filled_at`.
    bucket: f64,
    filled_at: Instant,
}

/// A read admitted: its units run until this is dropped.
#[derive(Debug)]
#[must_use = "the read counts as running while the ticket lives"]
pub struct Ticket {
    shared: Arc<Shared>,
    client: Client,
    cost: u32,
    stream: bool,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut state = lock(&self.shared.state);
        if self.stream {
            state.streams = state.streams.saturating_sub(1);
        } else {
            state.running = state.running.saturating_sub(self.cost);
        }
        if let Some(client) = state.clients.get_mut(&self.client) {
            if self.stream {
                client.streams = client.streams.saturating_sub(1);
            } else {
                client.running = client.running.saturating_sub(self.cost);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

impl Default for Admission {
    fn default() -> Admission {
        Admission::new(AdmissionLimits::default())
    }
}

impl Admission {
    pub fn new(limits: AdmissionLimits) -> Admission {
        Admission {
            shared: Arc::new(Shared {
                limits,
                state: Mutex::new(State::default()),
            }),
        }
    }

    pub fn limits(&self) -> AdmissionLimits {
        self.shared.limits
    }

    /// Admits a read of `cost` units for `client`, or says why not; a
    /// refused read spends nothing.
    pub fn admit(&self, client: Client, cost: u32) -> Result<Ticket, Refusal> {
        let limits = self.shared.limits;
        let now = Instant::now();
        let mut state = lock(&self.shared.state);
        let total_running = state.running;
        let entry = client_entry(&mut state, &client, limits, now);
        let asked = cost.min(limits.client_cost);
        if entry.running + asked > limits.client_cost {
            return Err(Refusal::ClientBusy {
                limit: limits.client_cost,
                running: entry.running,
                asked: cost,
                retry_after: BUSY_RETRY,
            });
        }
        let wanted = f64::from(cost).min(limits.client_burst);
        if entry.bucket < wanted {
            let short = wanted - entry.bucket;
            let wait = Duration::from_secs_f64(short / limits.client_cost_per_s.max(1e-3));
            return Err(Refusal::ClientRate {
                per_s: limits.client_cost_per_s.round() as u32,
                retry_after: wait.max(Duration::from_millis(1)),
            });
        }
        if total_running + asked > limits.total_cost {
            return Err(Refusal::Shed {
                limit: limits.total_cost,
                retry_after: BUSY_RETRY,
            });
        }
        entry.bucket -= wanted;
        entry.running += asked;
        state.running += asked;
        Ok(Ticket {
            shared: self.shared.clone(),
            client,
            cost: asked,
            stream: false,
        })
    }

    /// Admits a watch stream for `client`: a slot held while it is open.
    pub fn admit_stream(&self, client: Client) -> Result<Ticket, Refusal> {
        let limits = self.shared.limits;
        let mut state = lock(&self.shared.state);
        let total_streams = state.streams;
        let entry = client_entry(&mut state, &client, limits, Instant::now());
        if entry.streams >= limits.client_streams {
            return Err(Refusal::Streams {
                scope: "client",
                limit: limits.client_streams,
                retry_after: STREAMS_RETRY,
            });
        }
        if total_streams >= limits.total_streams {
            return Err(Refusal::Streams {
                scope: "arena",
                limit: limits.total_streams,
                retry_after: STREAMS_RETRY,
            });
        }
        entry.streams += 1;
        state.streams += 1;
        Ok(Ticket {
            shared: self.shared.clone(),
            client,
            cost: 0,
            stream: true,
        })
    }
}

/// `client`'s state, its bucket refilled to `now`.
fn client_entry<'a>(
    state: &'a mut State,
    client: &Client,
    limits: AdmissionLimits,
    now: Instant,
) -> &'a mut ClientState {
    if state.clients.len() >= MAX_CLIENTS && !state.clients.contains_key(client) {
        state.clients.retain(|_, kept| {
            kept.running > 0
                || kept.streams > 0
                || now.duration_since(kept.filled_at).as_secs_f64() * limits.client_cost_per_s
                    + kept.bucket
                    < limits.client_burst
        });
    }
    let entry = state.clients.entry(client.clone()).or_insert(ClientState {
        running: 0,
        streams: 0,
        bucket: limits.client_burst,
        filled_at: now,
    });
    let refill = now.duration_since(entry.filled_at).as_secs_f64() * limits.client_cost_per_s;
    entry.bucket = (entry.bucket + refill).min(limits.client_burst);
    entry.filled_at = now;
    entry
}

#[cfg(test)]
mod tests;
