//! The gRPC service: the `Arena` API for owners and viewers, the
//! `RunnerService` for runners, gRPC health, and reflection (v1 and
//! v1alpha, so older grpcurl builds work too).
//!
//! This module maps [`ArenaError`] to a gRPC status, in one place.

mod admitted;
mod arena_api;
mod coalesce;
mod convert;
mod hot_reads;
mod request_errors;
mod runner_api;
mod watches;
mod writer;

use std::future::Future;

use tokio::net::TcpListener;
use tonic::metadata::MetadataMap;
use tonic::transport::server::TcpIncoming;
use tonic::transport::Server;
use tonic::{Code, Status};
use tower::util::MapResponseLayer;

pub use self::arena_api::ArenaApi;
pub use self::runner_api::RunnerApi;
use crate::admission::Admission;
use crate::archive::{ArchiveError, MAX_ARCHIVE_BYTES};
use crate::error::ArenaError;
use crate::plan::PlanError;
use crate::store::Store;

/// The generated messages, clients and servers of `proto/arena.proto`
/// (compiled in `cairn-proto`, which the runner and the CLI use too).
pub use cairn_proto::arena::v1 as pb;

/// The largest request the `Arena` service decodes: an archive at the cap
/// plus room for framing, so an archive just over the cap gets our clear
/// "too large" answer rather than a transport error.
const MAX_ARENA_REQUEST_BYTES: usize = MAX_ARCHIVE_BYTES + 1024 * 1024;
/// The largest runner request: one game's report (a replay is at most
/// 4 MiB, see [`crate::verify::MAX_REPLAY_BYTES`]).
pub const MAX_RUNNER_REQUEST_BYTES: usize = 5 * 1024 * 1024;
/// Calls one connection may have open at once (hyper's own default, which
/// tonic turns off): a caller that never reads its answers holds at most
/// this many of them in the arena's memory per connection.
const MAX_STREAMS_PER_CONNECTION: u32 = 200;

/// The worker threads a server's runtime should have on a machine with
/// `cores` cores: all but one, which is left to the writer thread (every
/// write, and the runners' port) and SQLite's connection thread, which
/// readers' tasks otherwise starve (figures in docs/performance.md, "A core
/// left to the writes"). Heavy work (fits, archive checks, replays) runs on
/// tokio's blocking threads.
pub fn api_threads(cores: usize) -> usize {
    cores.saturating_sub(1).max(1)
}

/// The core `cairn serve --write-cpu auto` keeps for the writes, of the
/// `cores` the process may use: the last, given two or more (see
/// [`ServeOptions::place_writer`]); `None` leaves every thread where the
/// kernel puts it.
pub fn write_core(cores: &[usize]) -> Option<usize> {
    match cores {
        [_, .., last] => Some(*last),
        _ => None,
    }
}

/// How much lower than the arena's writes `cairn serve` runs the threads
/// serving the public calls (niceness; `--api-nice`): with every core busy,
/// an even share halves ingest (figures in docs/performance.md, "Public
/// calls run lower than the writes").
pub const API_NICE: u8 = 10;

/// Runs first on a thread the server starts, to place it (CPU set,
/// priority); what the thread starts afterwards inherits that placement.
pub type Placement = std::sync::Arc<dyn Fn() + Send + Sync>;

/// How [`run`] serves: where its threads run, and what it accepts.
#[derive(Clone)]
pub struct ServeOptions {
    /// Runs first on the writer thread, which then opens the write path's
    /// SQLite connections, so SQLite's threads for them start from it,
    /// placed as it is. `cairn serve` keeps them all on one core and the
    /// public calls on the others (`--write-cpu`): a report passes about
    /// fifteen times between these threads, and each pass across cores
    /// waits for a core under load (figures in docs/performance.md, "The
    /// writes on one core").
    pub place_writer: Option<Placement>,
    /// The largest runner message decoded (tests lower it, so a match too
    /// large for one message needs few games); at most, and by default,
    /// [`MAX_RUNNER_REQUEST_BYTES`].
    pub max_report_bytes: usize,
    /// The public reads' admission; give the web pages the same one.
    pub admission: Admission,
    /// Serves the public port plainly, a bug-hunting aid: every write sent
    /// as h2 makes it (no [`coalesce`]) and the hot reads answered as any
    /// other call (no [`hot_reads`] cache). The answers are the same.
    pub plain_reads: bool,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            place_writer: None,
            max_report_bytes: MAX_RUNNER_REQUEST_BYTES,
            admission: Admission::default(),
            plain_reads: false,
        }
    }
}

impl std::fmt::Debug for ServeOptions {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ServeOptions")
            .field("place_writer", &self.place_writer.is_some())
            .field("max_report_bytes", &self.max_report_bytes)
            .field("admission", &self.admission.limits())
            .field("plain_reads", &self.plain_reads)
            .finish()
    }
}

/// Where [`run`] listens: the public port (every service) and, if given,
/// a port for the runner service alone (with health). That port is served
/// on the writer thread (see `writer`), so a runner's calls there never
/// queue behind the public reads on the server's runtime (figures in
/// docs/performance.md). The port may also be closed to all but the runners.
#[derive(Debug)]
pub struct Listeners {
    pub public: TcpListener,
    pub runners: Option<TcpListener>,
}

impl From<TcpListener> for Listeners {
    fn from(public: TcpListener) -> Listeners {
        Listeners {
            public,
            runners: None,
        }
    }
}

/// Serves the arena on `listeners` until `shutdown` completes.
pub async fn run(
    listeners: impl Into<Listeners>,
    store: Store,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ArenaError> {
    let Listeners {
        public: listener,
        runners: runner_listener,
    } = listeners.into();
    let writer = writer::WriterThread::start(options.place_writer)?;
    let reopened = store.clone();
    writer
        .handle()
        .run(async move { reopened.reopen_write_path().await })
        .await?;
    let api = ArenaApi::new(store.clone())
        .with_writer(writer.handle())
        .with_admission(options.admission.clone());
    let arena = hot_reads::HotReads::new(
        api.clone(),
        pb::arena_server::ArenaServer::new(api).max_decoding_message_size(MAX_ARENA_REQUEST_BYTES),
        options.plain_reads,
    );
    let max_report_bytes = options.max_report_bytes.min(MAX_RUNNER_REQUEST_BYTES);
    let runners = pb::runner_service_server::RunnerServiceServer::new(
        RunnerApi::new(store).with_writer(writer.handle()),
    )
    .max_decoding_message_size(max_report_bytes);
    let (health_reporter, health) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<pb::arena_server::ArenaServer<ArenaApi>>()
        .await;
    health_reporter
        .set_serving::<pb::runner_service_server::RunnerServiceServer<RunnerApi>>()
        .await;
    let reflection_error = |error: tonic_reflection::server::Error| {
        ArenaError::Internal(format!("reflection: {error}"))
    };
    let reflection_v1 = reflection_builder().build_v1().map_err(reflection_error)?;
    let reflection_v1alpha = reflection_builder()
        .build_v1alpha()
        .map_err(reflection_error)?;
    // Without TCP_NODELAY, small answers wait ~40 ms on delayed ACKs.
    let incoming = tokio_stream::StreamExt::map(
        TcpIncoming::from(listener).with_nodelay(Some(true)),
        move |accepted| accepted.map(|io| coalesce::Coalesced::new(io, options.plain_reads)),
    );
    let (stop_runner_port, runner_port_stopped) = tokio::sync::watch::channel(false);
    let runner_port = runner_listener.map(|runner_listener| {
        let mut stopped = runner_port_stopped.clone();
        let serving = Server::builder()
            .max_concurrent_streams(MAX_STREAMS_PER_CONNECTION)
            .layer(MapResponseLayer::new(
                request_errors::correct_status::<tonic::body::Body>,
            ))
            .add_service(health.clone())
            .add_service(runners.clone())
            .serve_with_incoming_shutdown(
                TcpIncoming::from(runner_listener).with_nodelay(Some(true)),
                async move {
                    let _ = stopped.wait_for(|stop| *stop).await;
                },
            );
        writer.handle().spawn(serving)
    });
    Server::builder()
        .max_concurrent_streams(MAX_STREAMS_PER_CONNECTION)
        .layer(MapResponseLayer::new(
            request_errors::correct_status::<tonic::body::Body>,
        ))
        .add_service(health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(arena)
        .add_service(runners)
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await
        .map_err(|error| ArenaError::Internal(format!("server: {error}")))?;
    let _ = stop_runner_port.send(true);
    if let Some(runner_port) = runner_port {
        runner_port
            .await
            .map_err(|error| ArenaError::Internal(format!("the runner port stopped: {error}")))?
            .map_err(|error| ArenaError::Internal(format!("runner port: {error}")))?;
    }
    drop(writer);
    Ok(())
}

/// Reflection over every service served, whichever reflection version asks.
fn reflection_builder() -> tonic_reflection::server::Builder<'static> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET)
}

/// The metadata key of a shed read's retry hint, in milliseconds (gRPC's
/// retry pushback).
pub const RETRY_PUSHBACK: &str = "grpc-retry-pushback-ms";

/// The bearer token in a request's `authorization` metadata.
fn bearer_token(metadata: &MetadataMap, whose: &'static str) -> Result<String, ArenaError> {
    let value = metadata
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .ok_or(ArenaError::Unauthenticated(whose))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .unwrap_or(value)
        .trim();
    if token.is_empty() {
        return Err(ArenaError::Unauthenticated(whose));
    }
    Ok(token.to_string())
}

impl From<ArenaError> for Status {
    fn from(error: ArenaError) -> Status {
        let code = match &error {
            ArenaError::Database(sqlx::Error::PoolTimedOut) => Code::Unavailable,
            error if error.is_disk_full() => Code::Unavailable,
            ArenaError::Database(_) | ArenaError::Migration(_) | ArenaError::Internal(_) => {
                Code::Internal
            }
            ArenaError::Unauthenticated(_) => Code::Unauthenticated,
            ArenaError::PermissionDenied(_) => Code::PermissionDenied,
            ArenaError::NotFound { .. } => Code::NotFound,
            ArenaError::AlreadyExists(_) => Code::AlreadyExists,
            ArenaError::LeaseLost { .. } | ArenaError::FailedPrecondition(_) => {
                Code::FailedPrecondition
            }
            ArenaError::TooLarge(_) | ArenaError::Quota(_) | ArenaError::Shed(_) => {
                Code::ResourceExhausted
            }
            ArenaError::Archive(
                ArchiveError::TooLarge { .. }
                | ArchiveError::UnpacksTooLarge { .. }
                | ArchiveError::TooManyEntries { .. },
            ) => Code::ResourceExhausted,
            ArenaError::Plan(PlanError::TooManyGames { .. }) => Code::ResourceExhausted,
            ArenaError::InvalidArgument(_)
            | ArenaError::Game(_)
            | ArenaError::Archive(_)
            | ArenaError::Plan(_) => Code::InvalidArgument,
        };
        let mut status = Status::new(code, error.client_message());
        if error.is_database() {
            status.set_source(std::sync::Arc::new(DatabaseFailed));
        }
        if let ArenaError::Shed(refusal) = &error {
            // gRPC's own retry pushback, which its retrying clients obey.
            let millis = refusal.retry_after().as_millis().max(1).to_string();
            if let Ok(value) = millis.parse() {
                status.metadata_mut().insert(RETRY_PUSHBACK, value);
            }
        }
        status
    }
}

/// The source of a status made from a database error, for the public
/// service's wrapper ([`hot_reads::HotReads`]) to count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DatabaseFailed;

impl std::fmt::Display for DatabaseFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the database failed")
    }
}

impl std::error::Error for DatabaseFailed {}

#[cfg(test)]
mod tests;
