//! The runners' calls, and the owners' writes, run on a thread of their
//! own, so they never queue behind readers on the server's runtime (nor
//! wait, holding the write lock, for a core behind the public calls, whose
//! threads `cairn serve` runs at a lower priority).
//!
//! A report is some twenty statements, each a round trip between a task and
//! SQLite's connection thread. On the server's runtime every one of those
//! wake-ups waits behind whatever the readers queued (hundreds of calls
//! under load), which made ingestion many times slower; here the only
//! other tasks are the runners' own.

use std::future::Future;
use std::thread::JoinHandle;

use tokio::runtime::Handle;
use tokio::sync::oneshot;

use crate::error::ArenaError;

/// A thread running a single-threaded runtime, stopped when dropped.
#[derive(Debug)]
pub(crate) struct WriterThread {
    handle: Handle,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl WriterThread {
    /// Starts the thread; `placement` runs first on it (see
    /// [`super::ServeOptions::place_writer`]).
    pub(crate) fn start(placement: Option<super::Placement>) -> Result<WriterThread, ArenaError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| ArenaError::Internal(format!("writer runtime: {error}")))?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("cairn-arena-writer".into())
            .spawn(move || {
                if let Some(place) = placement {
                    place();
                }
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })
            .map_err(|error| ArenaError::Internal(format!("writer thread: {error}")))?;
        Ok(WriterThread {
            handle,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub(crate) fn handle(&self) -> WriterHandle {
        WriterHandle(self.handle.clone())
    }
}

impl Drop for WriterThread {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // The runtime drops its unfinished tasks (their callers are gone)
        // when the thread ends; nothing to wait for here.
        drop(self.thread.take());
    }
}

/// Where the runners' calls run.
#[derive(Debug, Clone)]
pub(crate) struct WriterHandle(Handle);

impl WriterHandle {
    /// Runs `work` on the writer thread and waits for its answer. If the
    /// caller goes away the work still finishes (a write is never cut in
    /// the middle by a hung-up runner).
    pub(crate) async fn run<T, F>(&self, work: F) -> Result<T, ArenaError>
    where
        F: Future<Output = Result<T, ArenaError>> + Send + 'static,
        T: Send + 'static,
    {
        self.0
            .spawn(work)
            .await
            .map_err(|error| ArenaError::Internal(format!("the writer stopped: {error}")))?
    }

    /// Runs `work` on the writer thread, beside the runners' calls.
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> tokio::task::JoinHandle<T> {
        self.0.spawn(work)
    }
}
