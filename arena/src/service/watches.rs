//! `WatchTournament`'s streams share one progress read per tournament.
//!
//! A tournament's progress counts its matches; read once per watcher on
//! every change, 2,000 watchers made every report cost 2,000 such reads
//! and the arena stalled. Here one task per watched tournament reads the
//! progress after a change, at most once per [`MIN_READ_INTERVAL`], and
//! every watcher of it forwards the same value.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tonic::Status;

use super::{convert, pb};
use crate::admission::Ticket;
use crate::error::ArenaError;
use crate::store::{Store, TournamentProgress};

/// The least time between two progress reads of one tournament: changes
/// within it are seen together, in the read that follows.
const MIN_READ_INTERVAL: Duration = Duration::from_millis(100);

type Progress = Result<TournamentProgress, Status>;

/// The tournaments watched, each with its latest progress.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watches {
    hubs: Arc<Mutex<HashMap<i64, watch::Receiver<Progress>>>>,
}

impl Watches {
    /// A stream of `tournament_id`'s progress: the progress now, then
    /// after every change until it is finished. `ticket` is held while the
    /// stream is open.
    pub(crate) async fn watch(
        &self,
        store: &Store,
        tournament_id: i64,
        ticket: Ticket,
    ) -> Result<mpsc::Receiver<Result<pb::TournamentProgress, Status>>, ArenaError> {
        let progress = self.subscribe(store, tournament_id).await?;
        let (sender, receiver) = mpsc::channel(16);
        tokio::spawn(forward(progress, sender, ticket));
        Ok(receiver)
    }

    async fn subscribe(
        &self,
        store: &Store,
        tournament_id: i64,
    ) -> Result<watch::Receiver<Progress>, ArenaError> {
        if let Some(hub) = self.live_hub(tournament_id) {
            return Ok(hub);
        }
        // Subscribed before the first read, so no change slips between them.
        let changes = store.subscribe_changes();
        let first = store.tournament_progress(tournament_id).await?;
        let mut hubs = lock(&self.hubs);
        if let Some(hub) = hubs
            .get(&tournament_id)
            .filter(|hub| hub.has_changed().is_ok())
        {
            return Ok(hub.clone());
        }
        let (sender, receiver) = watch::channel(Ok(first));
        hubs.insert(tournament_id, receiver.clone());
        drop(hubs);
        let watches = self.clone();
        let store = store.clone();
        tokio::spawn(async move {
            read_on_change(store, tournament_id, changes, &sender).await;
            watches.forget(tournament_id, &sender);
        });
        Ok(receiver)
    }

    fn live_hub(&self, tournament_id: i64) -> Option<watch::Receiver<Progress>> {
        let hubs = lock(&self.hubs);
        let hub = hubs.get(&tournament_id)?;
        // A hub whose task ended (the tournament finished) is not reused.
        hub.has_changed().is_ok().then(|| hub.clone())
    }

    fn forget(&self, tournament_id: i64, sender: &watch::Sender<Progress>) {
        let mut hubs = lock(&self.hubs);
        if hubs
            .get(&tournament_id)
            .is_some_and(|hub| hub.same_channel(&sender.subscribe()))
        {
            hubs.remove(&tournament_id);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

fn finished(progress: &Progress) -> bool {
    progress.as_ref().map_or(true, TournamentProgress::finished)
}

/// Reads the progress after every change into `sender` until it is
/// finished, a read fails, or nobody watches.
async fn read_on_change(
    store: Store,
    tournament_id: i64,
    mut changes: watch::Receiver<u64>,
    sender: &watch::Sender<Progress>,
) {
    while !finished(&sender.borrow()) {
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            () = sender.closed() => return,
        }
        tokio::time::sleep(MIN_READ_INTERVAL).await;
        // Changes during the pause are in the read below.
        changes.borrow_and_update();
        let read = store
            .tournament_progress(tournament_id)
            .await
            .map_err(Status::from);
        sender.send_if_modified(|last| match (&*last, &read) {
            (Ok(last), Ok(read)) if last == read => false,
            _ => {
                *last = read;
                true
            }
        });
    }
}

/// Sends each new progress to one watcher until it is finished or the
/// watcher hangs up; the watcher's `ticket` lives as long.
async fn forward(
    mut progress: watch::Receiver<Progress>,
    sender: mpsc::Sender<Result<pb::TournamentProgress, Status>>,
    ticket: Ticket,
) {
    loop {
        let now = progress.borrow_and_update().clone();
        let done = finished(&now);
        if sender
            .send(now.map(|now| convert::progress(&now)))
            .await
            .is_err()
            || done
        {
            break;
        }
        tokio::select! {
            changed = progress.changed() => if changed.is_err() { break },
            () = sender.closed() => break,
        }
    }
    drop(ticket);
}
