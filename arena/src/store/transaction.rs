//! The write transaction every write runs in: it ends on every path
//! before the call returns, committed or rolled back and the rollback
//! awaited (a transaction merely dropped keeps its locks until its
//! connection is next used), and on commit drops (or patches) the read
//! snapshots it touched. How it begins, locks and commits is its
//! backend's ([`super::backend::Open`]).

use std::sync::Arc;

use sqlx::AnyConnection;

use super::backend::Open;
use super::leases::LeaseState;
use super::snapshots::{BoardPatch, ReadCache, Touch, Touched};
use crate::error::ArenaError;

/// A write transaction holding the store's write lock until it ends.
#[derive(Debug)]
pub(crate) struct WriteTransaction {
    open: Open,
    /// What the commit drops from the read snapshots.
    touched: Touched,
    /// What a statement of the transaction already told the other arena
    /// processes (see [`WriteTransaction::notified`]).
    notified: Option<Touched>,
    /// The boards the commit patches rather than drops (when cached).
    board_patches: Vec<BoardPatch>,
    reads: Arc<ReadCache>,
}

impl WriteTransaction {
    pub(super) fn open(&self) -> &Open {
        &self.open
    }

    pub(super) fn open_mut(&mut self) -> &mut Open {
        &mut self.open
    }

    pub(super) fn new(open: Open, reads: Arc<ReadCache>) -> WriteTransaction {
        WriteTransaction {
            open,
            touched: Touched::Everything,
            notified: None,
            board_patches: Vec::new(),
            reads,
        }
    }

    /// Declares that this transaction changes what `touch` names. A
    /// transaction that declares must declare every cached read it changes;
    /// one that declares nothing drops every snapshot.
    pub(crate) fn touches(&mut self, touch: Touch) {
        match &mut self.touched {
            Touched::Everything => self.touched = Touched::Only(vec![touch]),
            Touched::Only(touches) => touches.push(touch),
        }
    }

    /// Match `match_id`'s lease, its row locked until the transaction ends
    /// where the backend needs it (see `Open::lock_match_sql`): a
    /// heartbeat, a report or a give-back of one match wait for each other.
    pub(crate) async fn lock_match(&mut self, match_id: i64) -> Result<LeaseState, ArenaError> {
        sqlx::query_as(self.open.lock_match_sql())
            .bind(match_id)
            .fetch_optional(&mut **self)
            .await?
            .ok_or_else(|| ArenaError::not_found("match", match_id))
    }

    /// What the next statement must open with, on a transaction whose
    /// backend has not begun it yet (see `Open::begin_sql`).
    pub(crate) fn begin_sql(&mut self) -> &'static str {
        self.open.begin_sql()
    }

    /// What the transaction's last statement may end with to commit in the
    /// same round trip, where the backend can (see `Open::commit_sql`; no
    /// statement may follow, and the transaction's end then only drops the
    /// snapshots it touched).
    pub(crate) fn commit_sql(&mut self) -> &'static str {
        self.open.commit_sql()
    }

    /// Declares that this transaction changes the standings `patch` holds
    /// on its board, and nothing else on it: a cached copy of the board
    /// is patched on commit rather than read again.
    pub(crate) fn patches_board(&mut self, patch: BoardPatch) {
        self.touches(Touch::Board {
            game: patch.game.clone(),
            variant: patch.variant.clone(),
        });
        self.board_patches.push(patch);
    }

    /// The id this store's notifications to other processes carry (to fold
    /// one into a statement), where the backend has other processes.
    pub(crate) fn notifier(&self) -> Option<u64> {
        self.open.notifier()
    }

    /// Records that a statement of this transaction sent `touched` as its
    /// notification (one round trip fewer than the commit's own): the
    /// commit sends none unless what the transaction touched by then is
    /// more than that.
    pub(crate) fn notified(&mut self, touched: Touched) {
        self.notified = Some(touched);
    }

    /// Declares that this transaction changes nothing a snapshot holds.
    pub(crate) fn touches_nothing_cached(&mut self) {
        if self.touched == Touched::Everything {
            self.touched = Touched::Only(Vec::new());
        }
    }

    /// Runs `body` in the transaction, then ends it as `body`'s outcome
    /// says ([`WriteTransaction::finish`]).
    pub(super) async fn run<T>(
        mut self,
        body: impl AsyncFnOnce(&mut WriteTransaction) -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        let outcome = body(&mut self).await;
        self.finish(outcome).await
    }

    /// Ends the transaction as `outcome` says, and returns it: on `Ok`
    /// commits ([`WriteTransaction::commit`]; a failed commit is the
    /// outcome then), on `Err` rolls back and waits for the rollback.
    ///
    /// A transaction merely dropped is rolled back too, but later: sqlx
    /// queues the `ROLLBACK` and sends it when the connection is next
    /// used, and until then the transaction keeps its row and advisory
    /// locks (a lease that skips locked matches would skip one whose lock a
    /// refused heartbeat still holds). So every
    /// transaction ends here, on every path.
    pub(crate) async fn finish<T>(self, outcome: Result<T, ArenaError>) -> Result<T, ArenaError> {
        match outcome {
            Ok(value) => self.commit().await.map(|()| value),
            Err(error) => Err(self.roll_back(error).await),
        }
    }

    /// Rolls back (waiting for it) a transaction refused with `error`,
    /// which it returns.
    async fn roll_back(self, error: ArenaError) -> ArenaError {
        // A broken connection is dropped: the server ends the transaction
        // with it, and the next writer opens another.
        let rolled_back = self.open.roll_back().await;
        if let Err(rollback_error) = rolled_back {
            // The connection is broken: the server ends the transaction
            // with it. The caller hears the first error.
            tracing::warn!(%rollback_error, %error, "rolling back a refused write");
        }
        error
    }

    /// Commits, then drops the snapshots the transaction touched (still
    /// under the write lock, before the writer's caller is answered).
    async fn commit(mut self) -> Result<(), ArenaError> {
        let touches_a_snapshot = self.touched != Touched::Only(Vec::new());
        let told = self.notified.as_ref() == Some(&self.touched);
        if touches_a_snapshot && !told {
            if let Err(error) = self.open.announce(&self.touched).await {
                return Err(self.roll_back(error.into()).await);
            }
        }
        let (touched, board_patches, reads) = (self.touched, self.board_patches, self.reads);
        self.open.commit().await?;
        reads.invalidate_patching(&touched, &board_patches);
        Ok(())
    }
}

impl std::ops::Deref for WriteTransaction {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        self.open.connection()
    }
}

impl std::ops::DerefMut for WriteTransaction {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        self.open.connection_mut()
    }
}
