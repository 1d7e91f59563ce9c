//! Snapshots against a real SQLite file: shared until a write touches
//! them, rebuilt after, and never missing a write that was answered.

use std::sync::Arc;

use cairn_engine::GameOptions;

use super::*;
use crate::store::{LeaderboardQuery, ManualClock, NewTournament, Owner, Runner, Tournament};
use crate::testkit::{bot_archive, report_by_strength, test_game_check, test_verifier, TEST_DUEL};

struct Arena {
    store: Store,
    runner: Runner,
    owner: Owner,
    _folder: tempfile::TempDir,
}

async fn arena(n_bots: usize) -> Arena {
    let folder = tempfile::tempdir().unwrap();
    let clock = ManualClock::starting_at(1_000_000);
    let store = Store::open(
        folder.path().join("arena.db"),
        crate::store::StoreOptions {
            clock: Arc::new(clock),
            game_check: test_game_check,
            verifier: test_verifier,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (owner, _) = store.register_owner("ada").await.unwrap();
    for index in 0..n_bots {
        let archive = bot_archive(&format!("bot-{index}"), 1);
        store.submit_bot_version(&owner, &archive).await.unwrap();
    }
    let (runner, _) = store.register_runner("box-1").await.unwrap();
    Arena {
        store,
        runner,
        owner,
        _folder: folder,
    }
}

fn round_robin(n_bots: usize, games_per_pairing: usize) -> NewTournament {
    NewTournament {
        game: TEST_DUEL.into(),
        options: GameOptions::new(),
        bots: (0..n_bots).map(|index| format!("bot-{index}")).collect(),
        seats_per_game: 2,
        games_per_pairing,
        seed: 3,
        format: Default::default(),
    }
}

/// An arena of `n_bots` bots and their round robin of `games_per_pairing`.
async fn playing(n_bots: usize, games_per_pairing: usize) -> (Arena, Tournament) {
    let arena = arena(n_bots).await;
    let tournament = arena
        .store
        .create_tournament(&arena.owner, &round_robin(n_bots, games_per_pairing))
        .await
        .unwrap();
    (arena, tournament)
}

fn board() -> LeaderboardQuery {
    LeaderboardQuery {
        game: TEST_DUEL.into(),
        options: GameOptions::new(),
        model: None,
    }
}

/// Leases the next match and reports it whole; its match index.
async fn play_one(arena: &Arena) -> i64 {
    let lease = arena
        .store
        .lease_match(&arena.runner, 30_000)
        .await
        .unwrap()
        .expect("a match waits");
    arena
        .store
        .report_result(&arena.runner, &report_by_strength(&lease, |id| id))
        .await
        .unwrap();
    let page = Page {
        size: 1000,
        after: None,
    };
    let matches = arena.store.list_matches(lease.tournament_id, &page).await;
    matches
        .unwrap()
        .items
        .iter()
        .find(|summary| summary.id == lease.match_id)
        .expect("the match is listed")
        .match_index
}

#[tokio::test]
async fn a_first_page_is_shared_until_one_of_its_matches_changes() {
    let (arena, tournament) = playing(6, 2).await;
    let first = Page {
        size: 3,
        after: None,
    };
    let before = arena
        .store
        .matches_page(tournament.id, &first)
        .await
        .unwrap();
    let again = arena
        .store
        .matches_page(tournament.id, &first)
        .await
        .unwrap();
    assert!(
        Arc::ptr_eq(&before, &again),
        "an unchanged page is not read again"
    );
    assert_eq!(before.items.len(), 3);

    // The first match played is on the page: the next read shows it done.
    assert_eq!(play_one(&arena).await, before.items[0].match_index);
    let after = arena
        .store
        .matches_page(tournament.id, &first)
        .await
        .unwrap();
    assert_eq!(after.items[0].status, "done");
    assert!(after.items[0]
        .games
        .iter()
        .all(|game| !game.result.is_empty()));
    assert_eq!(after.items[1..], before.items[1..]);

    // Matches past the page leave it alone, and it stays true.
    for _ in 0..2 {
        play_one(&arena).await;
    }
    let page = arena
        .store
        .matches_page(tournament.id, &first)
        .await
        .unwrap();
    let played_past = play_one(&arena).await;
    assert!(played_past > page.items[2].match_index);
    let unchanged = arena
        .store
        .matches_page(tournament.id, &first)
        .await
        .unwrap();
    assert!(Arc::ptr_eq(&page, &unchanged));
    let uncached = arena
        .store
        .list_matches(tournament.id, &first)
        .await
        .unwrap();
    assert_eq!(*unchanged, uncached);
}

#[tokio::test]
async fn a_leaderboard_is_shared_until_a_result_on_it_is_recorded() {
    let (arena, _) = playing(3, 2).await;
    let empty = arena.store.leaderboard(&board()).await.unwrap();
    assert!(empty.is_empty());
    play_one(&arena).await;
    let played = arena.store.leaderboard(&board()).await.unwrap();
    assert_eq!(played.len(), 2, "a read after a write sees it");
    let again = arena.store.leaderboard(&board()).await.unwrap();
    assert!(Arc::ptr_eq(&played, &again));
    play_one(&arena).await;
    let later = arena.store.leaderboard(&board()).await.unwrap();
    assert!(!Arc::ptr_eq(&played, &later));
    let games = |rows: &[crate::store::LeaderboardRow]| -> i64 {
        rows.iter().map(|row| row.standing.games).sum()
    };
    assert_eq!(games(&later), 2 * games(&played), "two matches of one size");
}

/// Every fitted leaderboard read also asks the board of the other table
/// sizes' model, which a duel's results never rate: that empty board stays
/// cached through them (patched) instead of being read again after each.
#[tokio::test]
async fn a_board_no_result_rates_is_kept_through_the_results_of_other_models() {
    let (arena, _) = playing(3, 2).await;
    let unrated = LeaderboardQuery {
        model: Some(crate::ratings::RatingModel::WengLin),
        ..board()
    };
    assert!(!crate::ratings::RatingModel::for_seats(2).contains(&unrated.model.unwrap()));
    play_one(&arena).await;
    assert!(arena.store.leaderboard(&unrated).await.unwrap().is_empty());
    let kept = || {
        lock(&arena.store.reads.boards)
            .iter()
            .any(|(key, generation)| key.2 == unrated.model && generation.value.get().is_some())
    };
    for _ in 0..2 {
        play_one(&arena).await;
        assert!(kept(), "dropped by a duel's result, to be read again");
    }
    assert!(arena.store.leaderboard(&unrated).await.unwrap().is_empty());
    assert_eq!(arena.store.leaderboard(&board()).await.unwrap().len(), 3);
}

/// Whether the board of [`board`] is cached, built, before anyone asks.
fn board_is_ready(arena: &Arena) -> bool {
    let boards = lock(&arena.store.reads.boards);
    boards
        .iter()
        .any(|(key, generation)| key.0 == TEST_DUEL && generation.value.get().is_some())
}

#[tokio::test]
async fn a_cached_leaderboard_patched_by_each_result_reads_as_the_database_does() {
    let (arena, _) = playing(4, 4).await;
    let mut patched = 0;
    for _ in 0..12 {
        arena.store.leaderboard(&board()).await.unwrap();
        play_one(&arena).await;
        patched += usize::from(board_is_ready(&arena));
        let cached = arena.store.leaderboard(&board()).await.unwrap();
        let read = arena.store.read_leaderboard(&board()).await.unwrap();
        assert_eq!(*cached, read);
    }
    assert!(
        arena
            .store
            .lease_match(&arena.runner, 30_000)
            .await
            .unwrap()
            .is_none(),
        "every match was played"
    );
    // A board is read again only while a bot version is new to it.
    assert!(patched >= 8, "{patched} of 12 matches patched the board");
}

#[tokio::test]
async fn concurrent_readers_never_see_a_page_older_than_the_last_answered_write() {
    let (arena, tournament) = playing(8, 2).await;
    let arena = Arc::new(arena);
    let readers: Vec<_> = (0..16)
        .map(|_| {
            let arena = Arc::clone(&arena);
            tokio::spawn(async move {
                for _ in 0..50 {
                    let page = arena
                        .store
                        .matches_page(
                            tournament.id,
                            &Page {
                                size: 100,
                                after: None,
                            },
                        )
                        .await
                        .unwrap();
                    // A match is done only with every game's result.
                    for summary in &page.items {
                        let recorded = summary
                            .games
                            .iter()
                            .filter(|game| !game.result.is_empty())
                            .count();
                        assert!(summary.status != "done" || recorded == summary.games.len());
                    }
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for _ in 0..10 {
        play_one(&arena).await;
        let done = arena
            .store
            .matches_page(
                tournament.id,
                &Page {
                    size: 100,
                    after: None,
                },
            )
            .await
            .unwrap()
            .items
            .iter()
            .filter(|summary| summary.status == "done")
            .count();
        let truth = arena
            .store
            .list_matches(
                tournament.id,
                &Page {
                    size: 100,
                    after: None,
                },
            )
            .await
            .unwrap()
            .items
            .iter()
            .filter(|summary| summary.status == "done")
            .count();
        assert_eq!(done, truth);
    }
    for reader in readers {
        reader.await.unwrap();
    }
}

#[tokio::test]
async fn a_page_of_long_matches_holds_fewer_matches_and_every_size_is_answered_rightly() {
    // 12 matches of 3,000 games each: a page holds at most three of them.
    let (arena, tournament) = playing(4, 6_000).await;
    let arena = Arc::new(arena);
    let huge = Page::<i64>::from_request(u32::MAX, "").unwrap();
    let first = arena
        .store
        .matches_page(tournament.id, &huge)
        .await
        .unwrap();
    let games: usize = first.items.iter().map(|m| m.games.len()).sum();
    assert_eq!((first.items.len(), games), (3, 9_000));
    let after = Page::<i64>::from_request(u32::MAX, first.next_page_token.as_deref().unwrap());
    let second = arena
        .store
        .matches_page(tournament.id, &after.unwrap())
        .await
        .unwrap();
    assert_eq!(second.items.len(), 3);
    assert_eq!(second.items[0].match_index, first.items[2].match_index + 1);
    assert!(second.next_page_token.is_some());

    // Callers asking for every page size at once (more callers than
    // snapshots kept) each get the right page.
    let callers: Vec<_> = (1..=300_u32)
        .map(|size| {
            let arena = Arc::clone(&arena);
            tokio::spawn(async move {
                let page = Page {
                    size: size % 7 + 1,
                    after: None,
                };
                let cached = arena.store.matches_page(tournament.id, &page).await;
                (page.size, cached.unwrap())
            })
        })
        .collect();
    let mut by_size: HashMap<u32, Arc<PageOf<MatchSummary>>> = HashMap::new();
    for caller in callers {
        let (size, cached) = caller.await.unwrap();
        let first = by_size.entry(size).or_insert_with(|| Arc::clone(&cached));
        assert_eq!(*first, cached);
    }
    for (size, cached) in by_size {
        let bounded = Page {
            size: size.min(3),
            after: None,
        };
        let truth = arena.store.list_matches(tournament.id, &bounded).await;
        assert_eq!(*cached, truth.unwrap());
    }
}

#[test]
fn a_board_is_busy_while_a_report_of_it_is_under_way() {
    let reads = Arc::new(ReadCache::default());
    let quiet = |game: &str| !reads.board_written_after(game, "", Instant::now());
    assert!(quiet(TEST_DUEL));
    let first = reads.report_under_way(TEST_DUEL, "");
    let second = reads.report_under_way(TEST_DUEL, "");
    assert!(!quiet(TEST_DUEL));
    assert!(quiet("another-game"), "only the reported board is busy");
    drop(first);
    assert!(!quiet(TEST_DUEL), "one report is still under way");
    drop(second);
    assert!(quiet(TEST_DUEL));
}

/// Builds that each wait for a permit, numbered from 1 in the order they
/// begin; a page built by build `n` carries `n` as its token.
struct GatedBuilds {
    gate: tokio::sync::Semaphore,
    begun: std::sync::atomic::AtomicUsize,
}

impl GatedBuilds {
    fn new() -> Arc<GatedBuilds> {
        Arc::new(GatedBuilds {
            gate: tokio::sync::Semaphore::new(0),
            begun: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    fn begun(&self) -> usize {
        self.begun.load(Ordering::SeqCst)
    }

    /// The first page of tournament 1 (size 10) as a reader in a task of
    /// its own reads it; the page holds matches up to index 9.
    fn read(self: &Arc<Self>, reads: &Arc<ReadCache>) -> tokio::task::JoinHandle<String> {
        let (builds, reads) = (Arc::clone(self), Arc::clone(reads));
        tokio::spawn(async move {
            let page = reads
                .first_page((1, 10), || async {
                    let number = builds.begun.fetch_add(1, Ordering::SeqCst) + 1;
                    builds.gate.acquire().await.unwrap().forget();
                    let page = PageOf {
                        items: Vec::new(),
                        next_page_token: Some(number.to_string()),
                    };
                    Ok((page, 9))
                })
                .await
                .unwrap();
            page.next_page_token.clone().unwrap()
        })
    }
}

fn touch_match(reads: &ReadCache, match_index: i64) {
    reads.invalidate(&Touched::Only(vec![Touch::Match {
        tournament_id: 1,
        match_index,
    }]));
}

/// Lets every spawned task run until it waits (the test runtime has one
/// thread).
async fn settle_tasks() {
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
}

/// A reader's answer; a reader left waiting for a build nobody releases
/// fails the test rather than hanging it.
async fn answer<T>(reader: tokio::task::JoinHandle<T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(60), reader)
        .await
        .expect("the reader waits for a build never released")
        .unwrap()
}

#[tokio::test]
async fn a_page_being_built_outlives_writes_past_it_and_no_reader_misses_one_on_it() {
    let reads = Arc::new(ReadCache::default());
    let builds = GatedBuilds::new();

    // Writes past the page while it is read leave the build shared: under
    // a steady stream of reports, readers no longer rebuild it forever.
    let first = builds.read(&reads);
    settle_tasks().await;
    touch_match(&reads, 40);
    let joined = builds.read(&reads);
    settle_tasks().await;
    touch_match(&reads, 41);
    builds.gate.add_permits(1);
    assert_eq!(answer(first).await, "1");
    assert_eq!(answer(joined).await, "1");
    assert_eq!(answer(builds.read(&reads)).await, "1", "still cached");
    assert_eq!(builds.begun(), 1);

    // A write on the page drops the built page.
    touch_match(&reads, 3);
    let before_write = builds.read(&reads);
    settle_tasks().await;
    assert_eq!(builds.begun(), 2);
    // Match 5 changes while build 2 reads: the reader that began before
    // that write may take build 2; one that began after it must not.
    touch_match(&reads, 5);
    let after_write = builds.read(&reads);
    settle_tasks().await;
    builds.gate.add_permits(2);
    assert_eq!(answer(before_write).await, "2");
    assert_eq!(answer(after_write).await, "3", "read anew, on its own");
    // Build 2 may be missing match 5's write: nobody takes it again.
    builds.gate.add_permits(1);
    assert_eq!(answer(builds.read(&reads)).await, "4");
    assert_eq!(answer(builds.read(&reads)).await, "4");
}

/// A board of two bot versions (ids 1 and 2), both with `games` games.
fn two_rows(games: i64) -> Vec<LeaderboardRow> {
    (1..=2)
        .map(|id| LeaderboardRow {
            position: usize::try_from(id).unwrap(),
            bot_version_id: id,
            bot_name: format!("bot-{id}"),
            version: 1,
            owner: "ada".into(),
            model: RatingModel::Elo,
            standing: Standing {
                games,
                ..Standing::initial(RatingModel::Elo)
            },
            provisional: true,
        })
        .collect()
}

#[tokio::test]
async fn a_board_being_built_is_patched_by_the_results_recorded_meanwhile() {
    let reads = Arc::new(ReadCache::default());
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let key: BoardKey = (TEST_DUEL.into(), String::new(), None);
    let reader = {
        let (reads, gate, key) = (Arc::clone(&reads), Arc::clone(&gate), key.clone());
        tokio::spawn(async move {
            let rows = reads
                .board(key, || async {
                    gate.acquire().await.unwrap().forget();
                    Ok(two_rows(4))
                })
                .await
                .unwrap();
            rows.to_vec()
        })
    };
    settle_tasks().await;
    // Bot 2 wins its fifth game while the board is read.
    let mut won = two_rows(5)[1].standing;
    won.rating.value += 16.0;
    let patch = BoardPatch {
        game: TEST_DUEL.into(),
        variant: String::new(),
        standings: vec![(RatingModel::Elo, 2, won)],
    };
    reads.invalidate_patching(
        &Touched::Only(vec![Touch::Board {
            game: TEST_DUEL.into(),
            variant: String::new(),
        }]),
        &[patch],
    );
    gate.add_permits(1);
    let rows = answer(reader).await;
    assert_eq!(rows[0].bot_version_id, 2, "the patched bot leads");
    assert_eq!((rows[0].standing.games, rows[0].position), (5, 1));
    let cached = reads
        .board(key, || async { panic!("the patched build is kept") })
        .await
        .unwrap();
    assert_eq!(*cached, rows);
}
