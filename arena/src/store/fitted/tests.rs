//! The fitted column against a real SQLite file: deals read back as the
//! plan laid them out, the fit ordering the board, anchors, and refits.

use std::collections::BTreeSet;
use std::sync::Arc;

use cairn_engine::forfeit::EndedBy;
use cairn_engine::{GameOptions, Rng};

use super::*;
use crate::store::{GameReport, Lease, ManualClock, MatchReport, NewTournament, SeatResult};
use crate::testkit::{
    bot_archive, report_by_strength, test_game_check, test_replay, test_verifier, TEST_DUEL,
    TEST_PARTY,
};

struct Arena {
    store: Store,
    runner: crate::store::Runner,
    owner: crate::store::Owner,
    _folder: tempfile::TempDir,
}

async fn arena(bots: &[&str]) -> Arena {
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
    for bot in bots {
        store
            .submit_bot_version(&owner, &bot_archive(bot, 1))
            .await
            .unwrap();
    }
    let (runner, _) = store.register_runner("box-1").await.unwrap();
    Arena {
        store,
        runner,
        owner,
        _folder: folder,
    }
}

fn duel(bots: &[&str], games_per_pairing: usize, seed: u64) -> NewTournament {
    NewTournament {
        game: TEST_DUEL.into(),
        options: GameOptions::new(),
        bots: bots.iter().map(|bot| bot.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing,
        seed,
        format: Default::default(),
    }
}

/// Seats rank by bot version id plus luck drawn from the game's id, so
/// every bot wins some and loses some.
fn report_with_luck(lease: &Lease) -> MatchReport {
    let games = lease
        .games
        .iter()
        .map(|game| {
            let strengths: Vec<i64> = lease
                .seats
                .iter()
                .map(|seat| {
                    // The game's id, not its seed: deal seeds mix in the store's secret.
                    let luck = Rng::seeded((game.game_id as u64) << 8 ^ seat.bot_version_id as u64)
                        .below(4);
                    seat.bot_version_id + luck as i64
                })
                .collect();
            let seats = lease
                .seats
                .iter()
                .zip(&strengths)
                .map(|(seat, &mine)| SeatResult {
                    bot_version_id: seat.bot_version_id,
                    score: mine,
                    rank: 1 + strengths.iter().filter(|&&other| other > mine).count() as u32,
                    forfeit: None,
                })
                .collect();
            GameReport {
                game_index: game.game_index,
                seats,
                replay: test_replay(game.seed, &strengths),
                stderr_tails: Vec::new(),
                ended_by: EndedBy::Finished,
            }
        })
        .collect();
    MatchReport {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        games,
    }
}

async fn play(arena: &Arena, report: impl Fn(&Lease) -> MatchReport) {
    while let Some(lease) = arena
        .store
        .lease_match(&arena.runner, 30_000)
        .await
        .unwrap()
    {
        arena
            .store
            .report_result(&arena.runner, &report(&lease))
            .await
            .unwrap();
    }
}

fn duel_board() -> LeaderboardQuery {
    LeaderboardQuery {
        game: TEST_DUEL.into(),
        options: GameOptions::new(),
        model: None,
    }
}

#[tokio::test]
async fn every_rotation_of_a_deal_is_read_back_under_one_deal_key() {
    let arena = arena(&["a", "b", "c"]).await;
    arena
        .store
        .create_tournament(&arena.owner, &duel(&["a", "b", "c"], 4, 7))
        .await
        .unwrap();
    play(&arena, report_with_luck).await;
    let games = arena.store.fit_games(TEST_DUEL, "").await.unwrap();
    assert_eq!(games.len(), 12);
    let deals: BTreeSet<DealKey> = games.iter().map(|game| game.deal).collect();
    assert_eq!(
        deals.len(),
        6,
        "3 pairs × 2 deals, each played from both seats"
    );
    for deal in deals {
        let seatings: BTreeSet<Vec<i64>> = games
            .iter()
            .filter(|game| game.deal == deal)
            .map(|game| game.seats.iter().map(|seat| seat.bot_version_id).collect())
            .collect();
        assert_eq!(seatings.len(), 2, "one deal, both seatings: {seatings:?}");
    }
}

#[tokio::test]
async fn the_board_is_ordered_by_fitted_rating_with_its_interval() {
    let arena = arena(&["a", "b", "c", "d"]).await;
    arena
        .store
        .create_tournament(&arena.owner, &duel(&["a", "b", "c", "d"], 20, 3))
        .await
        .unwrap();
    play(&arena, report_with_luck).await;
    let board = arena
        .store
        .fitted_leaderboard(&duel_board(), None)
        .await
        .unwrap();
    let summary = board.summary.clone().unwrap();
    assert_eq!(
        (summary.method, summary.games, summary.deals),
        (Method::BradleyTerry, 120, 60)
    );
    let ratings: Vec<Estimate> = board
        .rows
        .iter()
        .map(|line| line.fitted.unwrap().unwrap())
        .collect();
    assert!(ratings
        .windows(2)
        .all(|pair| pair[0].rating >= pair[1].rating));
    assert!(ratings
        .iter()
        .all(|e| e.low < e.rating && e.rating < e.high));
    let mean = ratings.iter().map(|e| e.rating).sum::<f64>() / 4.0;
    assert!((mean - DEFAULT_MEAN).abs() < 1e-6);
    let positions: Vec<usize> = board.rows.iter().map(|line| line.row.position).collect();
    assert_eq!(positions, [1, 2, 3, 4]);
    assert_eq!(
        board.rows[0].row.bot_name, "d",
        "the latest bot has the most luck added"
    );

    let anchored = arena
        .store
        .fitted_leaderboard(&duel_board(), Some("b"))
        .await
        .unwrap();
    let b = anchored
        .rows
        .iter()
        .find(|line| line.row.bot_name == "b")
        .unwrap();
    let b = b.fitted.unwrap().unwrap();
    assert_eq!(
        (b.rating, b.low, b.high),
        (DEFAULT_MEAN, DEFAULT_MEAN, DEFAULT_MEAN)
    );
    assert_eq!(anchored.summary.unwrap().anchor_bot.as_deref(), Some("b@1"));
    assert!(arena
        .store
        .fitted_leaderboard(&duel_board(), Some("b@1"))
        .await
        .is_ok());
    let long = "b".repeat(10_000);
    for refused in ["nobody", "b@2", "b@one", "@", &long] {
        let error = arena
            .store
            .fitted_leaderboard(&duel_board(), Some(refused))
            .await;
        assert!(
            matches!(error, Err(ArenaError::InvalidArgument(_))),
            "{refused}: {error:?}"
        );
    }
}

#[tokio::test]
async fn bots_that_always_win_or_lose_are_flagged_and_sorted_around_the_rest() {
    let arena = arena(&["a", "b", "c"]).await;
    arena
        .store
        .create_tournament(&arena.owner, &duel(&["a", "b", "c"], 4, 5))
        .await
        .unwrap();
    play(&arena, |lease| report_by_strength(lease, |id| id)).await;
    let board = arena
        .store
        .fitted_leaderboard(&duel_board(), None)
        .await
        .unwrap();
    let lines: Vec<(&str, Option<Result<Estimate, Unidentified>>)> = board
        .rows
        .iter()
        .map(|line| (line.row.bot_name.as_str(), line.fitted))
        .collect();
    assert_eq!(
        lines,
        [
            ("c", Some(Err(Unidentified::Unbeaten))),
            ("b", Some(Err(Unidentified::Unconnected))),
            ("a", Some(Err(Unidentified::Winless))),
        ]
    );
    let error = arena
        .store
        .fitted_leaderboard(&duel_board(), Some("c"))
        .await;
    assert!(
        matches!(error, Err(ArenaError::InvalidArgument(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn new_results_are_refitted_before_the_next_read() {
    let arena = arena(&["a", "b", "c"]).await;
    let empty = arena
        .store
        .fitted_leaderboard(&duel_board(), None)
        .await
        .unwrap();
    assert!(empty.rows.is_empty());
    assert_eq!(empty.summary, None);
    arena
        .store
        .create_tournament(&arena.owner, &duel(&["a", "b", "c"], 4, 1))
        .await
        .unwrap();
    play(&arena, report_with_luck).await;
    let first = arena
        .store
        .fitted_leaderboard(&duel_board(), None)
        .await
        .unwrap();
    assert_eq!(first.summary.unwrap().games, 12);
    arena
        .store
        .create_tournament(&arena.owner, &duel(&["a", "b", "c"], 6, 2))
        .await
        .unwrap();
    play(&arena, report_with_luck).await;
    let second = arena
        .store
        .fitted_leaderboard(&duel_board(), None)
        .await
        .unwrap();
    assert_eq!(second.summary.as_ref().unwrap().games, 30);
    // Reading again without new results gives the very same fit.
    let third = arena
        .store
        .fitted_leaderboard(&duel_board(), None)
        .await
        .unwrap();
    assert_eq!(third, second);
}

fn party(bots: &[&str], seats_per_game: usize, games_per_pairing: usize) -> NewTournament {
    NewTournament {
        game: TEST_PARTY.into(),
        seats_per_game,
        ..duel(bots, games_per_pairing, seats_per_game as u64)
    }
}

/// A board of `two_seat_games` games of a and b at two seats, then 12 of
/// b, c and d at three, and the query for it with the default live model.
async fn mixed_board(two_seat_games: usize) -> (Arena, LeaderboardQuery) {
    let arena = arena(&["a", "b", "c", "d"]).await;
    let tables = [
        party(&["a", "b"], 2, two_seat_games),
        party(&["b", "c", "d"], 3, 12),
    ];
    for tournament in tables {
        arena
            .store
            .create_tournament(&arena.owner, &tournament)
            .await
            .unwrap();
        play(&arena, report_with_luck).await;
    }
    let query = LeaderboardQuery {
        game: TEST_PARTY.into(),
        options: GameOptions::new(),
        model: None,
    };
    (arena, query)
}

#[tokio::test]
async fn a_board_of_mixed_table_sizes_lists_every_fitted_bot_with_its_whole_record() {
    // Issue 29: on a board of two- and three-seat tables, the Glicko-2 board
    // hid the bots that played only at three seats, and counted only the
    // two-seat games in everyone's record.
    let (arena, query) = mixed_board(20).await;
    let board = arena.store.fitted_leaderboard(&query, None).await.unwrap();
    let summary = board.summary.clone().unwrap();
    assert_eq!(summary.table_sizes, [2, 3]);
    assert_eq!((summary.method, summary.games), (Method::PlackettLuce, 32));
    let line = |name: &str| {
        board
            .rows
            .iter()
            .find(|line| line.row.bot_name == name)
            .unwrap_or_else(|| panic!("{name} is missing from {board:?}"))
    };
    // Live under Glicko-2 (two seats) only where they played two seats.
    let live: Vec<bool> = ["a", "b", "c", "d"].map(|name| line(name).live).to_vec();
    assert_eq!(live, [true, true, false, false]);
    // b's record holds both tables: 20 games with a, 12 with c and d.
    let b = &line("b").row.standing;
    assert_eq!(b.games, 32);
    assert_eq!(b.wins + b.draws + b.losses, 32);
    for name in ["a", "b", "c", "d"] {
        let line = line(name);
        assert_eq!(line.row.standing.games, line.fitted_games as i64, "{name}");
        assert!(line.fitted.is_some(), "{name} is fitted");
    }
}

#[tokio::test]
async fn a_board_mostly_played_at_three_seats_shows_weng_lin_live() {
    // 4 two-seat games (8 seats rated by Glicko-2) against 12 three-seat
    // games (36 seats rated by Weng-Lin).
    let (arena, query) = mixed_board(4).await;
    let rows = arena.store.leaderboard(&query).await.unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|row| row.model == RatingModel::WengLin),
        "{rows:?}"
    );
}

#[tokio::test]
async fn a_bot_with_few_deals_is_listed_after_every_established_bot() {
    let arena = arena(&["a", "b", "c", "late"]).await;
    arena
        .store
        .create_tournament(&arena.owner, &duel(&["a", "b", "c"], 20, 9))
        .await
        .unwrap();
    play(&arena, report_with_luck).await;
    // One deal, won from both seats: 2-0 against the best bot.
    arena
        .store
        .create_tournament(&arena.owner, &duel(&["c", "late"], 2, 10))
        .await
        .unwrap();
    play(&arena, |lease| {
        crate::testkit::report_by_strength(lease, |id| id)
    })
    .await;
    let board = arena
        .store
        .fitted_leaderboard(&duel_board(), None)
        .await
        .unwrap();
    let last = board.rows.last().unwrap();
    assert_eq!(last.row.bot_name, "late", "{board:?}");
    assert!(last.row.provisional);
    assert_eq!((last.fitted_games, last.fitted_deals), (2, 1));
    assert!(board.rows[..3].iter().all(|line| !line.row.provisional));
    assert_eq!(last.fitted, Some(Err(Unidentified::Unbeaten)));
    // Unbeaten, so it has a least rating; on one deal, a low one.
    assert!(
        last.bound.is_some_and(|bound| bound < DEFAULT_MEAN),
        "{last:?}"
    );
}

fn line(name: &str, fitted: Result<Estimate, Unidentified>, bound: Option<f64>) -> FittedRow {
    let row = LeaderboardRow {
        position: 0,
        bot_version_id: name.len() as i64,
        bot_name: name.into(),
        version: 1,
        owner: "ada".into(),
        model: RatingModel::Elo,
        standing: Standing::initial(RatingModel::Elo),
        provisional: true,
    };
    let mut line = FittedRow::unfitted(row, true);
    line.fitted = Some(fitted);
    line.bound = bound;
    line
}

fn rated(name: &str, rating: f64) -> FittedRow {
    let estimate = Estimate {
        rating,
        low: rating - 100.0,
        high: rating + 100.0,
    };
    line(name, Ok(estimate), None)
}

/// A one-sided bound is not a rating: an unbeaten bot whose least rating
/// is below a rated bot's still beat it, a winless one whose most is above
/// never did.
#[test]
fn unbeaten_bots_rank_above_every_rated_bot_and_winless_ones_below() {
    let lines = vec![
        line("winless", Err(Unidentified::Winless), Some(1603.0)),
        rated("strong", 1525.0),
        line("unbeaten", Err(Unidentified::Unbeaten), Some(1400.0)),
        rated("weak", 1475.0),
    ];
    let board = ranked(lines);
    let board: Vec<(usize, &str)> = board
        .iter()
        .map(|line| (line.row.position, line.row.bot_name.as_str()))
        .collect();
    assert_eq!(
        board,
        [(1, "unbeaten"), (2, "strong"), (3, "weak"), (4, "winless")]
    );
}
