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
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    let tournament = test
        .store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (runner, _) = test.store.register_runner("box-1").await.unwrap();
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
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    test.store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (slow, _) = test.store.register_runner("slow").await.unwrap();
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
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    test.store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (runner, _) = test.store.register_runner("box-1").await.unwrap();
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

both_backends! {
async fn ratings_updated_incrementally_equal_ratings_recomputed_from_history() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b", "c", "d"]).await;
    let (runner, _) = test.store.register_runner("box-1").await.unwrap();
    test.store
        .create_tournament(&owner, &duel(&["a", "b", "c", "d"], 4))
        .await
        .unwrap();
    let mut table = duel(&["a", "b", "c", "d"], 6);
    (table.game, table.seats_per_game) = (TEST_TABLE.into(), 3);
    test.store.create_tournament(&owner, &table).await.unwrap();
    play_everything(&test.store, &runner).await;
    for (game, model) in [
        (TEST_DUEL, RatingModel::Glicko2),
        (TEST_DUEL, RatingModel::Elo),
        (TEST_TABLE, RatingModel::WengLin),
    ] {
        let query = LeaderboardQuery {
            game: game.into(),
            options: GameOptions::new(),
            model: Some(model),
        };
        let incremental = test.store.leaderboard(&query).await.unwrap();
        let names: Vec<&str> = incremental
            .iter()
            .map(|row| row.bot_name.as_str())
            .collect();
        assert_eq!(
            names,
            ["d", "c", "b", "a"],
            "{model:?}: the strongest (latest registered) bot leads"
        );
        test.store
            .recompute_ratings(game, &GameOptions::new())
            .await
            .unwrap();
        assert_eq!(
            test.store.leaderboard(&query).await.unwrap(),
            incremental,
            "{model:?}"
        );
    }
    let duel_board = test
        .store
        .leaderboard(&LeaderboardQuery {
            game: TEST_DUEL.into(),
            options: GameOptions::new(),
            model: None,
        })
        .await
        .unwrap();
    assert_eq!(duel_board[0].model, RatingModel::Glicko2);
    assert_eq!(
        (
            duel_board[0].standing.games,
            duel_board[0].standing.wins,
            duel_board[3].standing.losses
        ),
        (12, 12, 12)
    );
    assert!(duel_board.iter().all(|row| !row.provisional));
}
}

#[tokio::test]
async fn without_a_test_check_games_are_checked_against_the_engine() {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(folder.path().join("arena.db"), StoreOptions::default())
        .await
        .unwrap();
    let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
    let mut request = duel(&["a", "b"], 2);
    request.game = "no-such-game".into();
    let refused = store.create_tournament(&owner, &request).await;
    assert!(
        matches!(refused, Err(ArenaError::Game(cairn_engine::SetupError::UnknownGame(ref game))) if game == "no-such-game"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_reopened_store_keeps_its_leases_and_requeues_them_when_they_expire() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("arena.db");
    let clock = ManualClock::starting_at(5_000);
    let open = || async {
        Store::open(
            &path,
            StoreOptions {
                clock: Arc::new(clock.clone()),
                game_check: test_game_check,
                verifier: test_verifier,
                ..StoreOptions::default()
            },
        )
        .await
        .unwrap()
    };
    let store = open().await;
    let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
    let tournament = store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (runner, token) = store.register_runner("box-1").await.unwrap();
    let lost = store.lease_match(&runner, 1_000).await.unwrap().unwrap();
    // No orderly close: the process is gone and another opens the file.
    drop(store);
    let store = open().await;
    let runner = store.runner_by_token(&token).await.unwrap();
    let progress = store.tournament_progress(tournament.id).await.unwrap();
    assert_eq!((progress.matches_leased, progress.matches_queued), (1, 1));
    clock.advance_ms(1_000);
    let mut leased = Vec::new();
    while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
        store
            .report_result(&runner, &report_by_strength(&lease, |id| id))
            .await
            .unwrap();
        leased.push(lease.match_id);
    }
    leased.sort_unstable();
    assert!(
        leased.contains(&lost.match_id) && leased.len() == 2,
        "{leased:?}"
    );
    let progress = store.tournament_progress(tournament.id).await.unwrap();
    assert_eq!((progress.games_done, progress.games_total), (2, 2));
}

both_backends! {
async fn each_variant_has_its_own_leaderboard() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    let (runner, _) = test.store.register_runner("box-1").await.unwrap();
    let mut fast = duel(&["a", "b"], 2);
    fast.options.insert("fast".into(), "true".into());
    test.store.create_tournament(&owner, &fast).await.unwrap();
    play_everything(&test.store, &runner).await;
    let board = |options: GameOptions| LeaderboardQuery {
        game: TEST_DUEL.into(),
        options,
        model: None,
    };
    assert_eq!(
        test.store
            .leaderboard(&board(fast.options.clone()))
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(test
        .store
        .leaderboard(&board(GameOptions::new()))
        .await
        .unwrap()
        .is_empty());
}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_runners_play_every_match_exactly_once() {
    let test = test_store().await;
    let names = ["a", "b", "c", "d", "e", "f"];
    let owner = owner_with_bots(&test.store, "ada", &names).await;
    let tournament = test
        .store
        .create_tournament(&owner, &duel(&names, 2))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for index in 0..4 {
        let store = test.store.clone();
        let (runner, _) = store
            .register_runner(&format!("box-{index}"))
            .await
            .unwrap();
        tasks.push(tokio::spawn(async move {
            let mut played = Vec::new();
            while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
                assert_eq!(
                    store
                        .report_result(&runner, &report_by_strength(&lease, |id| id))
                        .await
                        .unwrap(),
                    ReportOutcome::Recorded
                );
                played.push(lease.match_id);
            }
            played
        }));
    }
    let (played, planned) = played_and_planned(&test.store, tournament.id, tasks).await;
    assert_eq!(played, planned, "every match once, none twice");
    assert_eq!(count(&test.store, "results").await, 30);
}

both_backends! {
async fn a_revoked_runner_is_refused_at_once_and_its_leases_go_back_to_the_queue() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
    test.store
        .create_tournament(&owner, &duel(&["a", "b"], 2))
        .await
        .unwrap();
    let (bad, bad_token) = test.store.register_runner("box-1").await.unwrap();
    let (good, good_token) = test.store.register_runner("box-2").await.unwrap();
    let lease = test
        .store
        .lease_match(&bad, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    // A lease belongs to the runner that took it.
    assert!(matches!(
        test.store
            .heartbeat(&good, lease.match_id, lease.lease_generation, LEASE_MS)
            .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    assert!(matches!(
        test.store
            .report_result(&good, &report_by_strength(&lease, |id| id))
            .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    assert_eq!(test.store.revoke_runner("box-1").await.unwrap(), 1);
    assert!(matches!(
        test.store.runner_by_token(&bad_token).await,
        Err(ArenaError::Unauthenticated(_))
    ));
    let listed = test.store.list_runners().await.unwrap();
    assert!(listed[0].revoked_at.is_some() && listed[1].revoked_at.is_none());
    // The match it held is leased again, by the other runner, at once.
    let retaken = test
        .store
        .lease_match(&good, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(retaken.match_id, lease.match_id);
    assert!(matches!(
        test.store
            .report_result(&bad, &report_by_strength(&lease, |id| id))
            .await,
        Err(ArenaError::LeaseLost { .. })
    ));
    // A report checks its token in its first read: a revoked or unknown
    // token hears nothing else, not even that no such match exists.
    let game = &report_by_strength(&retaken, |id| id).games[0];
    let by_token = async |token: &str, match_id: i64| {
        test.store
            .report_game_with_token(token, match_id, retaken.lease_generation, game)
            .await
    };
    for (token, match_id) in [
        (bad_token.as_str(), retaken.match_id),
        (bad_token.as_str(), -1),
        ("no-such-token", retaken.match_id),
    ] {
        assert!(
            matches!(
                by_token(token, match_id).await,
                Err(ArenaError::Unauthenticated("runner"))
            ),
            "{token} {match_id}"
        );
    }
    assert!(matches!(
        by_token(&good_token, -1).await,
        Err(ArenaError::NotFound { .. })
    ));
    let recorded = by_token(&good_token, retaken.match_id).await.unwrap();
    assert_eq!(recorded.outcome, ReportOutcome::Recorded);
    let recorded_by: i64 = sqlx::query_scalar("SELECT runner_id FROM results")
        .fetch_one(test.store.pool())
        .await
        .unwrap();
    assert_eq!(recorded_by, good.id);
    assert!(matches!(
        test.store.revoke_runner("nobody").await,
        Err(ArenaError::NotFound { .. })
    ));
}
}

both_backends! {
async fn matches_are_listed_a_page_at_a_time_with_their_results() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &["a", "b", "c", "d"]).await;
    let tournament = test
        .store
        .create_tournament(&owner, &duel(&["a", "b", "c", "d"], 4))
        .await
        .unwrap();
    let (runner, _) = test.store.register_runner("box-1").await.unwrap();
    let lease = test
        .store
        .lease_match(&runner, LEASE_MS)
        .await
        .unwrap()
        .unwrap();
    test.store
        .report_result(&runner, &report_by_strength(&lease, |id| id))
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut page = Page {
        size: 5,
        after: None,
    };
    loop {
        let got = test.store.list_matches(tournament.id, &page).await.unwrap();
        assert!(got.items.len() <= 5);
        seen.extend(got.items);
        match got.next_page_token {
            Some(token) => page = Page::from_request(5, &token).unwrap(),
            None => break,
        }
    }
    let indices: Vec<i64> = seen.iter().map(|m| m.match_index).collect();
    assert_eq!(indices, (0..seen.len() as i64).collect::<Vec<_>>());
    assert_eq!(seen.len() as i64, count(&test.store, "matches").await);
    for summary in &seen {
        assert_eq!(summary.seats.len(), 2);
        let reported = summary.id == lease.match_id;
        assert!(summary
            .games
            .iter()
            .all(|game| game.result.len() == if reported { 2 } else { 0 }));
        assert_eq!(summary.games.len(), lease.games.len());
    }
    let mut bots = Vec::new();
    let mut page = Page::<String> {
        size: 3,
        after: None,
    };
    loop {
        let got = test.store.list_bots(&page).await.unwrap();
        bots.extend(got.items.into_iter().map(|bot| bot.name));
        match got.next_page_token {
            Some(token) => page = Page::from_request(3, &token).unwrap(),
            None => break,
        }
    }
    assert_eq!(bots, ["a", "b", "c", "d"]);
}
}

/// PostgreSQL only (two stores on one SQLite file are not two arena
/// processes).
/// Two stores on one database, as two arena processes: their runners race
/// for leases, and every report reaches both stores at once. Every match is
/// leased once, every game recorded once, and the ratings updated as the
/// reports arrived equal the ratings replayed serially in result order.
#[tokio::test]
async fn two_stores_on_one_database_never_share_a_match_and_rate_exactly() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let second = test.second_process().await;
        let names = ["a", "b", "c", "d", "e"];
        let owner = owner_with_bots(&test.store, "ada", &names).await;
        let tournament = test
            .store
            .create_tournament(&owner, &duel(&names, 2))
            .await
            .unwrap();
        let mut tasks = Vec::new();
        for index in 0..6 {
            let stores = [test.store.clone(), second.clone()];
            let (runner, _) = stores[index % 2]
                .register_runner(&format!("box-{index}"))
                .await
                .unwrap();
            tasks.push(tokio::spawn(async move {
                let mut played = Vec::new();
                let mine = &stores[index % 2];
                while let Some(lease) = mine.lease_match(&runner, LEASE_MS).await.unwrap() {
                    let report = report_by_strength(&lease, |id| id);
                    let (first, other) = tokio::join!(
                        stores[0].report_result(&runner, &report),
                        stores[1].report_result(&runner, &report)
                    );
                    let outcomes = [first.unwrap(), other.unwrap()];
                    assert!(outcomes.contains(&ReportOutcome::Recorded), "{outcomes:?}");
                    played.push(lease.match_id);
                }
                played
            }));
        }
        let (played, planned) = played_and_planned(&test.store, tournament.id, tasks).await;
        assert_eq!(played, planned, "every match leased once, none twice");
        assert_eq!(count(&test.store, "results").await, 20, "every game once");
        let models = RatingModel::for_seats(2).len() as i64;
        assert_eq!(count(&test.store, "rating_history").await, 20 * 2 * models);
        for model in RatingModel::for_seats(2) {
            let query = LeaderboardQuery {
                game: TEST_DUEL.into(),
                options: GameOptions::new(),
                model: Some(*model),
            };
            let live = test.store.leaderboard(&query).await.unwrap();
            assert_eq!(live.len(), names.len());
            second
                .recompute_ratings(TEST_DUEL, &GameOptions::new())
                .await
                .unwrap();
            let fresh = test.second_process().await;
            assert_eq!(
                fresh.leaderboard(&query).await.unwrap(),
                live,
                "{model:?}: as replayed serially in result order"
            );
        }
    })
    .await;
}

/// PostgreSQL only (two stores on one SQLite file are not two arena
/// processes): a runner revoked through one store is refused a lease by
/// the other at once, though the other trusted its token a moment ago and
/// may not have heard of the revocation yet.
#[tokio::test]
async fn a_runner_revoked_by_another_process_is_refused_its_next_lease() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let other = test.second_process().await;
        let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
        test.store
            .create_tournament(&owner, &duel(&["a", "b"], 4))
            .await
            .unwrap();
        let (_, token) = test.store.register_runner("box-1").await.unwrap();
        let runner = test.store.runner_by_token(&token).await.unwrap();
        let lease = test.store.lease_match(&runner, LEASE_MS).await.unwrap();
        assert!(lease.is_some());
        assert_eq!(other.revoke_runner("box-1").await.unwrap(), 1);
        assert!(matches!(
            test.store.lease_match(&runner, LEASE_MS).await,
            Err(ArenaError::Unauthenticated(_))
        ));
        assert!(matches!(
            other.runner_by_token(&token).await,
            Err(ArenaError::Unauthenticated(_))
        ));
    })
    .await;
}

/// PostgreSQL only: the notification a lease writes in SQL reads back as
/// the one the store writes for the same touched match.
#[tokio::test]
async fn a_match_touch_notified_in_sql_reads_back_as_written() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let sql = format!(
            "SELECT {} FROM (SELECT CAST(7 AS BIGINT) AS t, CAST(3 AS BIGINT) AS i) AS m",
            super::backend::invalidate::match_payload_sql("$1", "m.t", "m.i")
        );
        let payload: String = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind("42")
            .fetch_one(test.store.pool())
            .await
            .unwrap();
        let touched = Touched::Only(vec![Touch::Match {
            tournament_id: 7,
            match_index: 3,
        }]);
        assert_eq!(
            super::backend::invalidate::parse(&payload),
            super::backend::invalidate::parse(&super::backend::invalidate::payload(42, &touched))
        );
        assert_eq!(
            super::backend::invalidate::parse(&payload),
            (Some(42), touched)
        );
    })
    .await;
}

/// PostgreSQL only (two stores on one SQLite file are not two arena
/// processes): a result recorded through one store wakes the other's
/// watchers and is in the other's next leaderboard read, though that board
/// was a snapshot.
#[tokio::test]
async fn a_result_recorded_by_another_process_reaches_this_ones_snapshots() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let other = test.second_process().await;
        let owner = owner_with_bots(&test.store, "ada", &["a", "b"]).await;
        test.store
            .create_tournament(&owner, &duel(&["a", "b"], 2))
            .await
            .unwrap();
        let query = LeaderboardQuery {
            game: TEST_DUEL.into(),
            options: GameOptions::new(),
            model: None,
        };
        assert!(test.store.leaderboard(&query).await.unwrap().is_empty());
        let mut changes = test.store.subscribe_changes();
        changes.borrow_and_update();
        let (runner, _) = other.register_runner("box-1").await.unwrap();
        let lease = other.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
        other
            .report_result(&runner, &report_by_strength(&lease, |id| id))
            .await
            .unwrap();
        let board = other.leaderboard(&query).await.unwrap();
        assert_eq!(board.len(), 2);
        // Every write of the other store wakes this one's watchers, its
        // lease too (as a lease wakes them in one process): the wake the
        // result's notification brings leaves this store's snapshot current.
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            tokio::time::timeout_at(deadline, changes.changed())
                .await
                .expect("the other store's result is heard")
                .unwrap();
            if test.store.leaderboard(&query).await.unwrap() == board {
                break;
            }
        }
    })
    .await;
}

both_backends! {
/// sqlx's SQLite driver binds `$N` by its number, as PostgreSQL does: a
/// placeholder used twice or out of order gets the right value.
async fn numbered_placeholders_bind_by_number_on_both_backends() {
    let test = test_store().await;
    let (difference, first, again): (i64, i64, i64) = sqlx::query_as("SELECT $2 - $1, $1, $2")
        .bind(10_i64)
        .bind(3_i64)
        .fetch_one(test.store.pool())
        .await
        .unwrap();
    assert_eq!((difference, first, again), (-7, 10, 3));
}
}

/// PostgreSQL only: a lease that another arena process is taking is
/// skipped, not waited for; when that process dies mid-transaction, its
/// half-taken lease is undone and the match is leased again.
#[tokio::test]
async fn a_lease_half_taken_by_a_killed_process_is_undone() {
    on_backend(Backend::Postgres, async {
        let test = test_store().await;
        let owner = owner_with_bots(&test.store, "ada", &["a", "b", "c"]).await;
        test.store
            .create_tournament(&owner, &duel(&["a", "b", "c"], 2))
            .await
            .unwrap();
        let (runner, _) = test.store.register_runner("box-1").await.unwrap();
        let Location::Postgres(url) = &test.location else {
            unreachable!("on PostgreSQL");
        };
        let mut dying = <sqlx::AnyConnection as sqlx::Connection>::connect(url)
            .await
            .unwrap();
        sqlx::raw_sql("BEGIN").execute(&mut dying).await.unwrap();
        let (taken, pid): (i64, i32) = sqlx::query_as(
            "UPDATE matches SET status = 'leased', lease_holder = NULL, lease_expires_at = 1 \
             WHERE id = (SELECT MIN(id) FROM matches) RETURNING id, pg_backend_pid()",
        )
        .fetch_one(&mut dying)
        .await
        .unwrap();
        let skipped = test
            .store
            .lease_match(&runner, LEASE_MS)
            .await
            .unwrap()
            .unwrap();
        assert_ne!(
            skipped.match_id, taken,
            "a locked match is skipped, not waited for"
        );
        let killed: super::Flag = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
            .bind(pid)
            .fetch_one(test.store.pool())
            .await
            .unwrap();
        assert!(killed.0);
        drop(dying);
        let mut leased = Vec::new();
        while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
            leased.push(lease.match_id);
        }
        assert!(
            leased.contains(&taken),
            "{leased:?} holds the undone lease's match"
        );
        assert_eq!(leased.len() as i64, count(&test.store, "matches").await - 1);
    })
    .await;
}

/// Every row a report writes is there and points where it should: seats,
/// ratings and their history under the game's own result, matches done.
#[tokio::test]
async fn a_report_writes_its_result_seats_ratings_history_and_match_done_together() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        on_backend(backend, async {
            let test = test_store().await;
            let names = ["a", "b", "c"];
            let owner = owner_with_bots(&test.store, "ada", &names).await;
            let tournament = test
                .store
                .create_tournament(&owner, &duel(&names, 4))
                .await
                .unwrap();
            let (runner, _) = test.store.register_runner("box-1").await.unwrap();
            while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
                let report = report_by_strength(&lease, |id| id);
                test.store.report_result(&runner, &report).await.unwrap();
            }
            let results = count(&test.store, "results").await;
            assert_eq!(results, 12);
            assert_eq!(count(&test.store, "result_seats").await, 2 * results);
            let models = RatingModel::for_seats(2).len() as i64;
            let history_of_own_seats: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM rating_history h JOIN results r ON r.id = h.result_id \
                 JOIN result_seats s ON s.game_id = r.game_id AND s.bot_version_id = h.bot_version_id",
            )
            .fetch_one(test.store.pool())
            .await
            .unwrap();
            assert_eq!(history_of_own_seats, 2 * models * results);
            assert_eq!(count(&test.store, "rating_history").await, history_of_own_seats);
            let unfinished: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM matches WHERE tournament_id = $1 \
                 AND (status <> 'done' OR finished_at IS NULL)",
            )
            .bind(tournament.id)
            .fetch_one(test.store.pool())
            .await
            .unwrap();
            assert_eq!(unfinished, 0);
            // Each bot's last change is its live rating, under every model.
            for model in RatingModel::for_seats(2) {
                let query = LeaderboardQuery {
                    game: TEST_DUEL.into(),
                    options: GameOptions::new(),
                    model: Some(*model),
                };
                for row in test.store.read_leaderboard(&query).await.unwrap() {
                    let last: f64 = sqlx::query_scalar(
                        "SELECT rating_after FROM rating_history WHERE model = $1 \
                         AND bot_version_id = $2 ORDER BY result_id DESC LIMIT 1",
                    )
                    .bind(model.id())
                    .bind(row.bot_version_id)
                    .fetch_one(test.store.pool())
                    .await
                    .unwrap();
                    assert_eq!(last, row.standing.rating.value, "{model:?} {}", row.bot_name);
                }
            }
        })
        .await;
    }
}

/// SQLite: the writer connection the write lock holds survives every way a
/// transaction ends. A body refused after its folded `BEGIN`, a batch that
/// fails before its folded `COMMIT`, and a transaction whose future is
/// dropped half-way each leave nothing written, and the next write works.
#[tokio::test]
async fn an_sqlite_write_that_fails_or_is_dropped_half_way_leaves_nothing_and_the_next_one_works() {
    let test = test_store().await;
    let owners = async || count(&test.store, "owners").await;
    let insert = |name: &str| {
        format!("INSERT INTO owners (name, token_hash, created_at) VALUES ('{name}', '{name}', 0)")
    };
    // Refused after the statement that opened the transaction.
    let refused = test
        .store
        .write_report(async |tx| {
            let sql = format!("{}{}", tx.begin_sql(), insert("refused"));
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **tx)
                .await?;
            Err::<(), _>(ArenaError::invalid("no"))
        })
        .await;
    assert!(matches!(refused, Err(ArenaError::InvalidArgument(_))));
    // A batch whose second statement fails never reaches its `COMMIT`.
    let failed = test
        .store
        .write_report(async |tx| {
            let sql = format!(
                "{}{}; INSERT INTO no_such_table VALUES (1){}",
                tx.begin_sql(),
                insert("failed"),
                tx.commit_sql()
            );
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **tx)
                .await?;
            Ok(())
        })
        .await;
    assert!(failed.is_err());
    // Dropped half-way, holding the write lock with a row written.
    let (written, wait) = tokio::sync::oneshot::channel();
    let hung = test.store.write(async |tx| {
        sqlx::raw_sql(sqlx::AssertSqlSafe(insert("dropped")))
            .execute(&mut **tx)
            .await?;
        let _ = written.send(());
        std::future::pending::<Result<(), ArenaError>>().await
    });
    tokio::select! {
        _ = hung => unreachable!("the write never ends"),
        _ = wait => {}
    }
    assert_eq!(owners().await, 0, "nothing of the three");
    // The next writes open, commit in their batch, and commit at the end.
    test.store
        .write_report(async |tx| {
            let sql = format!("{}{}{}", tx.begin_sql(), insert("folded"), tx.commit_sql());
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut **tx)
                .await?;
            Ok(())
        })
        .await
        .unwrap();
    test.store.register_owner("ada").await.unwrap();
    assert_eq!(owners().await, 2);
}
