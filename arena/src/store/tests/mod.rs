//! The store against a real SQLite file in a temporary folder and, through
//! [`both_backends!`], the same tests against a fresh database on a
//! throwaway PostgreSQL server (one per test binary).

use std::sync::Arc;

use cairn_engine::GameOptions;

use super::*;
use crate::ratings::RatingModel;
use crate::store::snapshots::Touched;
use crate::testkit::{
    bot_archive, report_by_strength, test_game_check, test_verifier, TEST_DUEL, TEST_TABLE,
};

pub(crate) const LEASE_MS: i64 = 30_000;

pub(crate) struct TestStore {
    pub store: Store,
    pub clock: ManualClock,
    /// Where the store lives (a second `Store` on it races the first).
    pub location: Location,
    _folder: tempfile::TempDir,
}

impl TestStore {
    /// Another store on the same database, as a second arena process
    /// would open it (same clock and test checks).
    pub(crate) async fn second_process(&self) -> Store {
        Store::open(
            &self.location,
            StoreOptions {
                clock: Arc::new(self.clock.clone()),
                game_check: test_game_check,
                verifier: test_verifier,
                ..StoreOptions::default()
            },
        )
        .await
        .unwrap()
    }
}

/// Which database a test's [`test_store`] opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

tokio::task_local! {
    static BACKEND: Backend;
}

/// Runs `test` with [`test_store`] opening `backend`; on PostgreSQL only
/// when a server can be started (skipped loudly outside CI, failing in CI).
pub(crate) async fn on_backend(backend: Backend, test: impl std::future::Future<Output = ()>) {
    if backend == Backend::Postgres
        && crate::testkit::postgres::Postgres::shared("the store tests").is_none()
    {
        return;
    }
    BACKEND.scope(backend, test).await;
}

/// Each test written inside becomes two, `NAME::sqlite` and
/// `NAME::postgres`: the same body, over a store on each backend.
macro_rules! both_backends {
    ($($(#[doc = $doc:literal])* async fn $name:ident() $body:block)*) => {$(
        $(#[doc = $doc])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test]
            async fn sqlite() {
                $crate::store::tests::on_backend($crate::store::tests::Backend::Sqlite, async $body)
                    .await;
            }

            #[tokio::test]
            async fn postgres() {
                $crate::store::tests::on_backend($crate::store::tests::Backend::Postgres, async $body)
                    .await;
            }
        }
    )*};
}
pub(crate) use both_backends;

/// A store for the current test: SQLite unless [`on_backend`] says otherwise.
pub(crate) async fn test_store() -> TestStore {
    let backend = BACKEND
        .try_with(|backend| *backend)
        .unwrap_or(Backend::Sqlite);
    let folder = tempfile::tempdir().unwrap();
    let location = match backend {
        Backend::Sqlite => Location::Sqlite(folder.path().join("arena.db")),
        Backend::Postgres => {
            let server = crate::testkit::postgres::Postgres::shared("the store tests")
                .expect("on_backend checked the server");
            Location::Postgres(server.fresh_database().unwrap())
        }
    };
    let clock = ManualClock::starting_at(1_000_000);
    let store = Store::open(
        &location,
        StoreOptions {
            clock: Arc::new(clock.clone()),
            game_check: test_game_check,
            verifier: test_verifier,
            ..StoreOptions::default()
        },
    )
    .await
    .unwrap();
    TestStore {
        store,
        clock,
        location,
        _folder: folder,
    }
}

pub(crate) async fn owner_with_bots(store: &Store, owner: &str, bots: &[&str]) -> Owner {
    let (owner, _) = store.register_owner(owner).await.unwrap();
    for bot in bots {
        store
            .submit_bot_version(&owner, &bot_archive(bot, 1))
            .await
            .unwrap();
    }
    owner
}

/// [`owner_with_bots`] whose bots have a build command.
pub(crate) async fn owner_with_built_bots(store: &Store, owner: &str, bots: &[&str]) -> Owner {
    let (owner, _) = store.register_owner(owner).await.unwrap();
    for bot in bots {
        let archive = crate::testkit::built_bot_archive(bot, 1);
        store.submit_bot_version(&owner, &archive).await.unwrap();
    }
    owner
}

/// The start most store tests share, in a line: a store, the owner `ada`
/// with `bots`, a [`duel`] of them (or another tournament, [`Scenario::of`])
/// and a runner `runner`.
pub(crate) struct Scenario {
    pub test: TestStore,
    pub owner: Owner,
    pub tournament: Tournament,
    pub runner: Runner,
}

impl Scenario {
    pub(crate) async fn duel(bots: &[&str], games_per_pairing: usize, runner: &str) -> Scenario {
        Scenario::of(bots, &duel(bots, games_per_pairing), runner).await
    }

    /// The scenario with the tournament `request` (of `bots`) instead.
    pub(crate) async fn of(bots: &[&str], request: &NewTournament, runner: &str) -> Scenario {
        let test = test_store().await;
        let owner = owner_with_bots(&test.store, "ada", bots).await;
        Scenario::finish(test, owner, request, runner).await
    }

    /// [`Scenario::of`] whose bots have a build command.
    pub(crate) async fn built(bots: &[&str], request: &NewTournament, runner: &str) -> Scenario {
        let test = test_store().await;
        let owner = owner_with_built_bots(&test.store, "ada", bots).await;
        Scenario::finish(test, owner, request, runner).await
    }

    async fn finish(
        test: TestStore,
        owner: Owner,
        request: &NewTournament,
        runner: &str,
    ) -> Scenario {
        let tournament = test.store.create_tournament(&owner, request).await.unwrap();
        let (runner, _) = test.store.register_runner(runner).await.unwrap();
        Scenario {
            test,
            owner,
            tournament,
            runner,
        }
    }
}

pub(crate) fn duel(bots: &[&str], games_per_pairing: usize) -> NewTournament {
    NewTournament {
        game: TEST_DUEL.into(),
        options: GameOptions::new(),
        bots: bots.iter().map(|bot| bot.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing,
        seed: 7,
        format: Default::default(),
    }
}

/// The matches the runner tasks played, sorted, and the matches the
/// tournament planned.
async fn played_and_planned(
    store: &Store,
    tournament_id: i64,
    tasks: Vec<tokio::task::JoinHandle<Vec<i64>>>,
) -> (Vec<i64>, Vec<i64>) {
    let mut played = Vec::new();
    for task in tasks {
        played.extend(task.await.unwrap());
    }
    played.sort_unstable();
    let planned = store
        .list_matches(tournament_id, &Page::first())
        .await
        .unwrap()
        .items
        .iter()
        .map(|m| m.id)
        .collect();
    (played, planned)
}

pub(crate) async fn count(store: &Store, table: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
        .fetch_one(store.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn the_database_runs_in_wal_mode_with_foreign_keys_on() {
    let test = test_store().await;
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(test.store.pool())
        .await
        .unwrap();
    let foreign_keys: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(test.store.pool())
        .await
        .unwrap();
    assert_eq!((mode.as_str(), foreign_keys), ("wal", 1));
    let orphan =
        sqlx::query("INSERT INTO bots (owner_id, name, created_at) VALUES (999, 'orphan', 0)")
            .execute(test.store.pool())
            .await;
    assert!(orphan.is_err(), "a bot without an owner is refused");
}

both_backends! {
async fn owners_are_known_by_their_token_which_is_stored_only_hashed() {
    let test = test_store().await;
    let (owner, token) = test.store.register_owner("ada").await.unwrap();
    assert_eq!(test.store.owner_by_token(&token).await.unwrap(), owner);
    assert!(matches!(
        test.store.owner_by_token("guess").await,
        Err(ArenaError::Unauthenticated("owner"))
    ));
    assert!(matches!(
        test.store.register_owner("ada").await,
        Err(ArenaError::AlreadyExists(_))
    ));
    assert!(matches!(
        test.store.register_owner("no spaces").await,
        Err(ArenaError::InvalidArgument(_))
    ));
    let stored: String = sqlx::query_scalar("SELECT token_hash FROM owners")
        .fetch_one(test.store.pool())
        .await
        .unwrap();
    assert_ne!(stored, token);
}
}

both_backends! {
async fn submitting_the_same_folder_twice_returns_the_same_version() {
    let test = test_store().await;
    let (owner, _) = test.store.register_owner("ada").await.unwrap();
    let first = test
        .store
        .submit_bot_version(&owner, &bot_archive("greedy", 1))
        .await
        .unwrap();
    let again = test
        .store
        .submit_bot_version(&owner, &bot_archive("greedy", 1))
        .await
        .unwrap();
    let second = test
        .store
        .submit_bot_version(&owner, &bot_archive("greedy", 2))
        .await
        .unwrap();
    assert!(first.created && !again.created && second.created);
    assert_eq!(first.version.id, again.version.id);
    assert_eq!((first.version.version, second.version.version), (1, 2));
    assert_eq!(
        test.store.resolve_bot_version("greedy").await.unwrap().id,
        second.version.id
    );
    assert_eq!(
        test.store.resolve_bot_version("greedy@1").await.unwrap().id,
        first.version.id
    );
    assert!(matches!(
        test.store.resolve_bot_version("greedy@9").await,
        Err(ArenaError::NotFound { .. })
    ));
    assert_eq!(
        test.store
            .artifact(&first.version.content_hash)
            .await
            .unwrap(),
        bot_archive("greedy", 1)
    );
}
}

both_backends! {
async fn a_stranger_cannot_add_versions_to_or_delete_another_owners_bot() {
    let test = test_store().await;
    owner_with_bots(&test.store, "ada", &["greedy"]).await;
    let (stranger, _) = test.store.register_owner("mallory").await.unwrap();
    let before = count(&test.store, "bot_versions").await;
    let submitted = test
        .store
        .submit_bot_version(&stranger, &bot_archive("greedy", 2))
        .await;
    assert!(
        matches!(submitted, Err(ArenaError::PermissionDenied(_))),
        "{submitted:?}"
    );
    assert!(matches!(
        test.store.delete_bot(&stranger, "greedy").await,
        Err(ArenaError::PermissionDenied(_))
    ));
    assert_eq!(count(&test.store, "bot_versions").await, before);
    assert!(!test.store.list_bots(&Page::first()).await.unwrap().items[0].deleted);
}
}

both_backends! {
async fn a_deleted_bot_keeps_its_versions_but_joins_no_tournament() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    test.store.delete_bot(&owner, "b").await.unwrap();
    assert!(test.store.list_bots(&Page::first()).await.unwrap().items[1].deleted);
    let refused = test
        .store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await;
    assert!(
        matches!(refused, Err(ArenaError::InvalidArgument(ref message)) if message.contains("deleted")),
        "{refused:?}"
    );
    assert_eq!(count(&test.store, "tournaments").await, 0);
}
}

both_backends! {
async fn a_tournament_stores_exactly_its_plan() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b", "c", "d"]).await;
    let tournament = test
        .store
        .create_tournament(&owner, &duel(&["a", "b", "c", "d"], 4))
        .await
        .unwrap();
    assert_eq!(tournament.entries.len(), 4);
    let progress = test.store.tournament_progress(tournament.id).await.unwrap();
    assert_eq!(
        (
            progress.matches_total,
            progress.games_total,
            progress.games_done
        ),
        (12, 24, 0)
    );
    let matches = test
        .store
        .list_matches(tournament.id, &Page::first())
        .await
        .unwrap()
        .items;
    assert!(matches
        .iter()
        .all(|m| m.status == "queued" && m.seats.len() == 2 && m.games.len() == 2));
}
}

both_backends! {
async fn refused_tournaments_leave_the_database_unchanged() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b", "c"]).await;
    let mut unknown_game = duel(&["a", "b"], 2);
    unknown_game.game = "chess".into();
    let mut bad_option = duel(&["a", "b"], 2);
    bad_option.options.insert("speed".into(), "1".into());
    let mut table_of_two = duel(&["a", "b"], 2);
    table_of_two.game = TEST_TABLE.into();
    let cases = [
        unknown_game,
        bad_option,
        table_of_two,
        duel(&["a", "b"], 3),
        duel(&["a", "a"], 2),
        duel(&["a", "nobody"], 2),
    ];
    for case in cases {
        let refused = test.store.create_tournament(&owner, &case).await;
        assert!(refused.is_err(), "{case:?}");
    }
    assert_eq!(
        (
            count(&test.store, "tournaments").await,
            count(&test.store, "matches").await
        ),
        (0, 0)
    );
}
}

both_backends! {
async fn a_reported_match_is_recorded_once() {
    let Scenario { test, tournament, runner, .. } =
        Scenario::duel(&["a", "b"], 2, "box-1").await;
    let lease = test
        .store
        .lease_match(&runner, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (lease.seats.len(), lease.games.len(), lease.lease_generation),
        (2, 1, 1)
    );
    let report = report_by_strength(&lease, |id| id);
    assert_eq!(
        test.store.report_result(&runner, &report).await.unwrap(),
        ReportOutcome::Recorded
    );
    assert_eq!(
        test.store.report_result(&runner, &report).await.unwrap(),
        ReportOutcome::AlreadyRecorded
    );
    assert_eq!(count(&test.store, "results").await, 1);
    let game_id = lease.games[0].game_id;
    assert_eq!(
        test.store.replay(game_id).await.unwrap().as_ref(),
        Some(&report.games[0].replay)
    );
    assert_eq!(
        test.store.game_result(game_id).await.unwrap(),
        report.games[0].seats
    );
    let second = test
        .store
        .lease_match(&runner, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    test.store
        .report_result(&runner, &report_by_strength(&second, |id| id))
        .await
        .unwrap();
    assert!(test
        .store
        .tournament_progress(tournament.id)
        .await
        .unwrap()
        .finished());
    assert_eq!(
        test.store.lease_match(&runner, LEASE_MS).await.unwrap(),
        None
    );
}
}

both_backends! {
async fn an_expired_lease_returns_the_match_to_the_queue_and_its_report_is_refused() {
    let Scenario { test, runner: slow, .. } =
        Scenario::duel(&["a", "b"], 2, "slow").await;
    let (fast, _) = test.store.register_runner("fast").await.unwrap();
    let first = test.store.lease_match(&slow, 1_000).await.unwrap().unwrap();
    test.store
        .heartbeat(&slow, first.match_id, first.lease_generation, 1_000)
        .await
        .unwrap();
    test.clock.advance_ms(1_001);
    let heartbeat = test
        .store
        .heartbeat(&slow, first.match_id, first.lease_generation, 1_000)
        .await;
    assert!(matches!(heartbeat, Err(ArenaError::LeaseLost { .. })));
    let retaken = test
        .store
        .lease_match(&fast, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (retaken.match_id, retaken.lease_generation),
        (first.match_id, 2)
    );
    // The arena counts the expiry when the match is leased again.
    let counted = test.store.metrics().render(None);
    assert!(counted.contains("\ncairn_leases_granted_total 2\n"), "{counted}");
    assert!(counted.contains("\ncairn_leases_expired_total 1\n"), "{counted}");
    let late = test
        .store
        .report_result(&slow, &report_by_strength(&first, |id| id))
        .await;
    assert!(
        matches!(late, Err(ArenaError::LeaseLost { .. })),
        "{late:?}"
    );
    assert_eq!(count(&test.store, "results").await, 0);
    let outcome = test
        .store
        .report_result(&fast, &report_by_strength(&retaken, |id| id))
        .await
        .unwrap();
    assert_eq!(outcome, ReportOutcome::Recorded);
    // Games are idempotent by match and index: a stale report of a game
    // already recorded changes nothing.
    let again = test
        .store
        .report_result(&slow, &report_by_strength(&first, |id| id))
        .await;
    assert!(matches!(again, Ok(ReportOutcome::AlreadyRecorded)));
    assert_eq!(
        count(&test.store, "results").await,
        first.games.len() as i64
    );
}
}

both_backends! {
async fn a_malformed_report_is_refused_and_records_nothing() {
    let Scenario { test, runner, .. } =
        Scenario::duel(&["a", "b"], 2, "box-1").await;
    let lease = test
        .store
        .lease_match(&runner, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    let good = report_by_strength(&lease, |id| id);
    let mut bad_index = good.clone();
    bad_index.games[0].game_index = 5;
    let mut one_seat = good.clone();
    one_seat.games[0].seats.pop();
    let mut wrong_bot = good.clone();
    wrong_bot.games[0].seats[0].bot_version_id = 999;
    let mut rank_zero = good.clone();
    rank_zero.games[0].seats[0].rank = 0;
    let mut huge_replay = good.clone();
    huge_replay.games[0].replay = vec![b' '; results::MAX_REPLAY_BYTES + 1];
    for bad in [bad_index, one_seat, wrong_bot, rank_zero, huge_replay] {
        let refused = test.store.report_result(&runner, &bad).await;
        assert!(
            matches!(
                refused,
                Err(ArenaError::InvalidArgument(_)
                    | ArenaError::TooLarge(_)
                    | ArenaError::NotFound { .. })
            ),
            "{refused:?}"
        );
    }
    assert_eq!(
        (
            count(&test.store, "results").await,
            count(&test.store, "ratings").await
        ),
        (0, 0)
    );
    assert_eq!(
        test.store.report_result(&runner, &good).await.unwrap(),
        ReportOutcome::Recorded
    );
}
}

/// Plays every match of the queue with seats ranked by bot version id.
async fn play_everything(store: &Store, runner: &Runner) {
    while let Some(lease) = store.lease_match(runner, LEASE_MS).await.unwrap() {
        store
            .report_result(runner, &report_by_strength(&lease, |id| id))
            .await
            .unwrap();
    }
}

pub(crate) mod backends;
mod leases_and_ratings;

both_backends! {
async fn the_metrics_gauges_count_waiting_matches_and_runners_seen_lately() {
    let Scenario { test, tournament, runner, .. } =
        Scenario::duel(&["a", "b"], 2, "r1").await;
    let before = test.store.metrics_gauges().await.unwrap();
    assert!(before.matches_waiting >= 1, "{before:?}");
    assert_eq!(before.runners_seen, 0);
    let waiting = before.matches_waiting;
    assert_eq!(before.waiting_by_tournament, vec![(tournament.id, waiting)]);
    test.store.lease_match(&runner, 1_000).await.unwrap().unwrap();
    let leased = test.store.metrics_gauges().await.unwrap();
    assert_eq!(leased.matches_waiting, waiting - 1);
    assert_eq!(leased.runners_seen, 1);
    // An expired lease's match waits again; the runner is seen no longer.
    test.clock.advance_ms(61_000);
    let expired = test.store.metrics_gauges().await.unwrap();
    assert_eq!(expired.matches_waiting, waiting);
    assert_eq!(expired.runners_seen, 0);
}
}
