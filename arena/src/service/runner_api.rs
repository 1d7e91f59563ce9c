//! The `RunnerService`: runners lease matches, keep leases alive, fetch bot
//! archives and report results. Every call needs a runner token.

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::pb::runner_service_server::RunnerService;
use super::writer::WriterHandle;
use super::{bearer_token, convert, pb};
use crate::error::ArenaError;
use crate::store::{ReportOutcome, Runner, Store};

/// A lease's length when the runner names none.
const DEFAULT_LEASE_MS: i64 = 60_000;
/// Artifacts stream in chunks of this size.
const ARTIFACT_CHUNK_BYTES: usize = 256 * 1024;

/// The `RunnerService` over a store.
#[derive(Debug, Clone)]
pub struct RunnerApi {
    store: Store,
    /// Where the writing calls run: the writer thread when serving (see
    /// [`super::writer`]), else the caller's runtime.
    writer: Option<WriterHandle>,
}

impl RunnerApi {
    pub fn new(store: Store) -> RunnerApi {
        RunnerApi {
            store,
            writer: None,
        }
    }

    pub(crate) fn with_writer(mut self, writer: WriterHandle) -> RunnerApi {
        self.writer = Some(writer);
        self
    }

    async fn runner<T>(&self, request: &Request<T>) -> Result<Runner, ArenaError> {
        let token = bearer_token(request.metadata(), "runner")?;
        self.store.runner_by_token(&token).await
    }

    /// Checks the runner's token, then runs `work` with the store and the
    /// runner on the writer thread.
    async fn write<M, T, F, Fut>(&self, request: Request<M>, work: F) -> Result<T, ArenaError>
    where
        M: Send + 'static,
        T: Send + 'static,
        F: FnOnce(Store, Runner, M) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, ArenaError>> + Send + 'static,
    {
        self.write_with_token(request, |store, token, message| async move {
            let runner = store.runner_by_token(&token).await?;
            work(store, runner, message).await
        })
        .await
    }

    /// Runs `work` on the writer thread with the store and the call's
    /// runner token, which `work` must check.
    async fn write_with_token<M, T, F, Fut>(
        &self,
        request: Request<M>,
        work: F,
    ) -> Result<T, ArenaError>
    where
        M: Send + 'static,
        T: Send + 'static,
        F: FnOnce(Store, String, M) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, ArenaError>> + Send + 'static,
    {
        let token = bearer_token(request.metadata(), "runner")?;
        let job = work(self.store.clone(), token, request.into_inner());
        match &self.writer {
            Some(writer) => writer.run(job).await,
            None => job.await,
        }
    }
}

fn lease_ms(requested: i64) -> i64 {
    if requested == 0 {
        DEFAULT_LEASE_MS
    } else {
        requested
    }
}

type ChunkStream = Pin<Box<dyn Stream<Item = Result<pb::ArtifactChunk, Status>> + Send>>;

#[tonic::async_trait]
impl RunnerService for RunnerApi {
    async fn lease_match(
        &self,
        request: Request<pb::LeaseMatchRequest>,
    ) -> Result<Response<pb::LeaseMatchResponse>, Status> {
        let started = Instant::now();
        let lease = self
            .write(request, |store, runner, request| async move {
                let lease = store
                    .lease_match(&runner, lease_ms(request.lease_ms))
                    .await?;
                if lease.is_some() {
                    store.notify_change();
                }
                Ok(lease)
            })
            .await;
        self.store.metrics().lease_answered(started.elapsed());
        let lease = lease?;
        Ok(Response::new(pb::LeaseMatchResponse {
            lease: lease.as_ref().map(convert::lease),
        }))
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatResponse>, Status> {
        let expires_at_ms = self
            .write(request, |store, runner, request| async move {
                store
                    .heartbeat(
                        &runner,
                        request.match_id,
                        request.lease_generation,
                        lease_ms(request.lease_ms),
                    )
                    .await
            })
            .await?;
        Ok(Response::new(pb::HeartbeatResponse { expires_at_ms }))
    }

    type FetchArtifactStream = ChunkStream;

    async fn fetch_artifact(
        &self,
        request: Request<pb::FetchArtifactRequest>,
    ) -> Result<Response<ChunkStream>, Status> {
        let runner = self.runner(&request).await?;
        let data = self
            .store
            .artifact_for_runner(&runner, &request.into_inner().content_hash)
            .await?;
        let chunks: Vec<Result<pb::ArtifactChunk, Status>> = data
            .chunks(ARTIFACT_CHUNK_BYTES)
            .map(|chunk| {
                Ok(pb::ArtifactChunk {
                    data: chunk.to_vec(),
                })
            })
            .collect();
        Ok(Response::new(Box::pin(tokio_stream::iter(chunks))))
    }

    async fn report_game(
        &self,
        request: Request<pb::ReportGameRequest>,
    ) -> Result<Response<pb::ReportGameResponse>, Status> {
        // The token is checked in the report's first read; a malformed
        // report is answered as such only to a runner.
        let started = Instant::now();
        let recorded = self
            .write_with_token(request, |store, token, request| async move {
                let report = request
                    .game
                    .ok_or_else(|| ArenaError::invalid("a game report needs its game"))
                    .and_then(convert::game_report);
                let report = match report {
                    Ok(report) => report,
                    Err(error) => {
                        store.runner_by_token(&token).await?;
                        return Err(error);
                    }
                };
                store
                    .report_game_with_token(
                        &token,
                        request.match_id,
                        request.lease_generation,
                        &report,
                    )
                    .await
            })
            .await;
        let refused = recorded.as_ref().err();
        (self.store.metrics()).report_answered(started.elapsed(), refused);
        let recorded = recorded?;
        Ok(Response::new(pb::ReportGameResponse {
            already_recorded: recorded.outcome == ReportOutcome::AlreadyRecorded,
            match_done: recorded.match_done,
        }))
    }

    async fn give_back_match(
        &self,
        request: Request<pb::GiveBackMatchRequest>,
    ) -> Result<Response<pb::GiveBackMatchResponse>, Status> {
        let given = self
            .write(request, |store, runner, request| async move {
                store
                    .give_back_match(
                        &runner,
                        request.match_id,
                        request.lease_generation,
                        &request.reason,
                    )
                    .await
            })
            .await?;
        Ok(Response::new(pb::GiveBackMatchResponse {
            attempts: given.attempts,
            failed: given.failed,
        }))
    }

    async fn report_build_failure(
        &self,
        request: Request<pb::ReportBuildFailureRequest>,
    ) -> Result<Response<pb::ReportBuildFailureResponse>, Status> {
        let ended = self
            .write(request, |store, runner, request| async move {
                store
                    .report_build_failure(
                        &runner,
                        request.match_id,
                        request.lease_generation,
                        request.bot_version_id,
                        &request.log,
                    )
                    .await
            })
            .await?;
        Ok(Response::new(pb::ReportBuildFailureResponse {
            matches_ended: ended as i64,
        }))
    }
}
