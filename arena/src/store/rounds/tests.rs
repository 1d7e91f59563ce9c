//! Formats through the store: rounds planned as results come, once; an
//! SPRT gauntlet stopped early with its verdict stored.

use super::super::tests::{
    both_backends, count, duel, owner_with_bots, test_store, Scenario, LEASE_MS,
};
use super::super::*;
use crate::stats::Sprt;
use crate::testkit::report_by_strength;

pub(super) const SIX: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

/// Leases and reports every match until none is waiting; seats rank by
/// `strength(match id, bot version id)`. Returns the number of matches
/// played.
pub(super) async fn play_with(
    store: &Store,
    runner: &Runner,
    strength: impl Fn(i64, i64) -> i64 + Copy,
) -> usize {
    let mut played = 0;
    while let Some(lease) = store.lease_match(runner, LEASE_MS).await.unwrap() {
        let report = report_by_strength(&lease, |id| strength(lease.match_id, id));
        store.report_result(runner, &report).await.unwrap();
        // Reported twice: nothing changes, no round is planned twice.
        store.report_result(runner, &report).await.unwrap();
        played += 1;
    }
    played
}

/// [`play_with`] on a new runner where the stronger bot (higher version id,
/// unless `strength` says otherwise) wins.
pub(super) async fn play_out(store: &Store, strength: impl Fn(i64) -> i64 + Copy) -> usize {
    let (runner, _) = store.register_runner("r1").await.unwrap();
    play_with(store, &runner, move |_, id| strength(id)).await
}

/// `request` as a gauntlet of challenger `f` against the rest, under `sprt`.
pub(super) fn sprt_gauntlet(request: NewTournament, sprt: Sprt) -> NewTournament {
    with_format(
        request,
        FormatRequest {
            name: "gauntlet".into(),
            challengers: vec!["f".into()],
            sprt: Some(sprt),
            ..Default::default()
        },
    )
}

pub(super) fn with_format(mut request: NewTournament, format: FormatRequest) -> NewTournament {
    request.format = format;
    request
}

both_backends! {
async fn a_swiss_plans_each_round_when_the_last_one_ends_and_finishes_exactly() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &SIX).await;
    let request = with_format(
        duel(&SIX, 2),
        FormatRequest {
            name: "swiss".into(),
            rounds: 3,
            ..Default::default()
        },
    );
    let tournament = test
        .store
        .create_tournament(&owner, &request)
        .await
        .unwrap();
    // Round one only: three tables of two rotations.
    assert_eq!(count(&test.store, "matches").await, 6);
    let progress = test.store.tournament_progress(tournament.id).await.unwrap();
    assert_eq!(progress.matches_total, 18);
    assert_eq!(play_out(&test.store, |id| id).await, 18);
    let progress = test.store.tournament_progress(tournament.id).await.unwrap();
    assert!(progress.finished(), "{progress:?}");
    assert_eq!((progress.matches_done, progress.games_done), (18, 18));
    let standings = test
        .store
        .tournament_standings(tournament.id)
        .await
        .unwrap();
    // The strongest (the last submitted) won all three rounds.
    assert_eq!(standings.standings[0].entry, 5);
    assert_eq!(standings.standings[0].score, 3.0);
}
}

both_backends! {
async fn a_knockout_plays_its_bracket_and_names_the_champion() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &SIX[..5]).await;
    let request = with_format(
        duel(&SIX[..5], 2),
        FormatRequest {
            name: "knockout".into(),
            ..Default::default()
        },
    );
    let tournament = test
        .store
        .create_tournament(&owner, &request)
        .await
        .unwrap();
    assert_eq!(play_out(&test.store, |id| id).await, 8);
    let progress = test.store.tournament_progress(tournament.id).await.unwrap();
    assert!(progress.finished(), "{progress:?}");
    let standings = test
        .store
        .tournament_standings(tournament.id)
        .await
        .unwrap();
    let final_tie = &standings.bracket.last().unwrap()[0];
    assert_eq!(final_tie.winner, Some(4));
    assert_eq!(standings.bracket.len(), 3);
}
}

both_backends! {
async fn an_sprt_gauntlet_stops_once_decided_and_drops_the_matches_left() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &SIX).await;
    let request = sprt_gauntlet(
        duel(&SIX[..5], 20),
        Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap(),
    );
    let tournament = test
        .store
        .create_tournament(&owner, &request)
        .await
        .unwrap();
    // Five field bots x two rotations, ten games each.
    assert_eq!(count(&test.store, "matches").await, 10);
    // The challenger wins every deal pair but one drawn pair per opponent
    // would be needed for variance; here it wins all but draws against `a`.
    let played = play_out(&test.store, |id| if id == 1 { 6 } else { id }).await;
    let tournament = test.store.tournament(tournament.id).await.unwrap();
    let sprt = tournament.sprt.unwrap();
    assert_eq!(sprt.verdict, Some("h1"), "{sprt:?}");
    assert!(played < 10, "stopped early after {played} matches");
    let progress = test.store.tournament_progress(tournament.id).await.unwrap();
    assert!(progress.finished(), "{progress:?}");
    assert_eq!(progress.matches_total, played as i64);
}
}

both_backends! {
async fn formats_refuse_what_does_not_fit_them() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &SIX).await;
    let refused = |format: FormatRequest| {
        let request = with_format(duel(&SIX[..4], 2), format);
        let store = test.store.clone();
        let owner = owner.clone();
        async move { store.create_tournament(&owner, &request).await.is_err() }
    };
    assert!(
        refused(FormatRequest {
            name: "ladder-of-doom".into(),
            ..Default::default()
        })
        .await
    );
    assert!(
        refused(FormatRequest {
            name: "swiss".into(),
            ..Default::default()
        })
        .await
    );
    assert!(
        refused(FormatRequest {
            name: "gauntlet".into(),
            challengers: vec!["nobody".into()],
            ..Default::default()
        })
        .await
    );
    assert!(
        refused(FormatRequest {
            name: "swiss".into(),
            rounds: 2,
            sprt: Some(Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap()),
            ..Default::default()
        })
        .await
    );
    assert!(
        refused(FormatRequest {
            name: "knockout".into(),
            rounds: 3,
            ..Default::default()
        })
        .await
    );
    assert!(
        refused(FormatRequest {
            name: "swiss".into(),
            rounds: 2,
            width: 100,
            ..Default::default()
        })
        .await
    );
    assert!(
        refused(FormatRequest {
            name: "ladder".into(),
            ..Default::default()
        })
        .await
    );
    assert!(
        refused(FormatRequest {
            name: "gauntlet".into(),
            challengers: vec!["a".into(), "b".into(), "c".into(), "d".into()],
            ..Default::default()
        })
        .await,
        "a gauntlet without a field"
    );
    assert_eq!(count(&test.store, "tournaments").await, 0);
}
}

#[tokio::test]
async fn a_solo_tournament_seats_each_bot_alone_on_the_same_deals_and_ranks_by_mean_score() {
    use crate::testkit::{bot_archive, played_game_report};
    let folder = tempfile::tempdir().unwrap();
    // The engine's own game check and referee: Bullfrogs solo is real.
    let store = Store::open(folder.path().join("arena.db"), StoreOptions::default())
        .await
        .unwrap();
    let (owner, _) = store.register_owner("ada").await.unwrap();
    for bot in ["a", "b", "c"] {
        store
            .submit_bot_version(&owner, &bot_archive(bot, 1))
            .await
            .unwrap();
    }
    let options: cairn_engine::GameOptions = [("solo".to_string(), "true".to_string())].into();
    let request = NewTournament {
        game: "bullfrogs".into(),
        options: options.clone(),
        bots: vec!["a".into(), "b".into(), "c".into()],
        seats_per_game: 1,
        games_per_pairing: 3,
        seed: 4,
        format: Default::default(),
    };
    // A table of one is for solo games only.
    let duel = NewTournament {
        game: "schotten-totten".into(),
        options: Default::default(),
        ..request.clone()
    };
    assert!(store.create_tournament(&owner, &duel).await.is_err());
    let tournament = store.create_tournament(&owner, &request).await.unwrap();
    let (runner, _) = store.register_runner("r1").await.unwrap();
    let mut seeds = Vec::new();
    while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
        assert_eq!(lease.seats.len(), 1);
        seeds.push(lease.games.iter().map(|g| g.seed).collect::<Vec<_>>());
        for game in &lease.games {
            let planned = store
                .planned_result(lease.match_id, game.game_index)
                .await
                .unwrap();
            let report = played_game_report(&planned.planned);
            store
                .report_game(&runner, lease.match_id, lease.lease_generation, &report)
                .await
                .unwrap();
        }
    }
    assert_eq!(seeds.len(), 3);
    assert!(
        seeds.iter().all(|s| *s == seeds[0]),
        "the same deals: {seeds:?}"
    );
    let board = store
        .solo_leaderboard("bullfrogs", "solo=true")
        .await
        .unwrap();
    assert_eq!(board.len(), 3);
    // Every bot played the engine's first legal action: the same scores.
    for row in &board {
        assert_eq!(row.standing.deals, 3);
        assert_eq!(row.standing.score.rating, board[0].standing.score.rating);
        assert!(row.title.is_some_and(|title| !title.is_empty()));
    }
    let gap = board[0].ahead_of_next.unwrap();
    assert_eq!((gap.rating, gap.low, gap.high), (0.0, 0.0, 0.0));
    // The tournament's own results are the same board, its deals alone.
    assert_eq!(store.tournament_solo(&tournament).await.unwrap(), board);
    // Nobody is rated against anybody in a solo game.
    let query = LeaderboardQuery {
        game: "bullfrogs".into(),
        options,
        model: None,
    };
    assert!(store.leaderboard(&query).await.unwrap().is_empty());
}

/// Luck from the match decides most games, so every bot wins and loses.
pub(super) fn luck(match_id: i64, bot_version_id: i64) -> i64 {
    (bot_version_id + match_id * 7) % 5
}

both_backends! {
async fn a_new_version_joins_the_ladder_and_plays_until_its_interval_is_narrow() {
    let request = with_format(
        duel(&SIX[..3], 8),
        FormatRequest {
            name: "ladder".into(),
            width: 900,
            ..Default::default()
        },
    );
    let Scenario { test, owner, tournament: ladder, runner } =
        Scenario::of(&SIX[..3], &request, "r1").await;
    assert!(play_with(&test.store, &runner, luck).await > 0);
    let settled = test.store.tournament_progress(ladder.id).await.unwrap();
    assert!(settled.finished(), "{settled:?}");
    // A new bot joins: the ladder wakes up and schedules it.
    let added = test
        .store
        .submit_bot_version(&owner, &crate::testkit::bot_archive("newcomer", 1))
        .await
        .unwrap();
    assert_eq!(test.store.enter_ladders(added.version.id).await.unwrap(), 1);
    assert_eq!(test.store.enter_ladders(added.version.id).await.unwrap(), 0);
    let waiting = test.store.tournament_progress(ladder.id).await.unwrap();
    assert!(
        !waiting.finished() && waiting.matches_queued > 0,
        "{waiting:?}"
    );
    assert!(play_with(&test.store, &runner, luck).await > 0);
    let standings = test.store.tournament_standings(ladder.id).await.unwrap();
    let newcomer = standings
        .standings
        .iter()
        .find(|row| row.entry == 3)
        .unwrap();
    assert!(newcomer.games > 0);
    let width = crate::format::ladder::interval_width(&newcomer.rating);
    assert!(
        width <= 900.0 || newcomer.games >= crate::format::ladder::MAX_GAMES_PER_ENTRY,
        "{newcomer:?}"
    );
}
}

#[tokio::test]
async fn migration_0005_keeps_every_tournament_and_what_refers_to_it() {
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("arena.db");
    let options = SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true)
        .foreign_keys(true);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await
        .unwrap();
    // A database as the arena left it before formats existed.
    crate::store::backend::SQLITE_MIGRATOR
        .run_to(4, &pool)
        .await
        .unwrap();
    for statement in [
        "INSERT INTO owners (id, name, token_hash, created_at) VALUES (1, 'ada', 'h', 0)",
        "INSERT INTO bots (id, owner_id, name, created_at) VALUES (1, 1, 'a', 0)",
        "INSERT INTO artifacts (content_hash, size_bytes, data, created_at) VALUES ('c', 1, x'00', 0)",
        "INSERT INTO bot_versions (id, bot_id, version, content_hash, manifest, created_at) VALUES (1, 1, 1, 'c', '{}', 0)",
        "INSERT INTO tournaments (id, owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at, planned_matches, planning_done) \
         VALUES (7, 1, 'test-duel', '{}', '', 2, 2, 3, 0, 1, 1)",
        "INSERT INTO tournament_entries VALUES (7, 0, 1)",
        "INSERT INTO matches (id, tournament_id, match_index, status) VALUES (5, 7, 0, 'queued')",
        "INSERT INTO seats VALUES (5, 0, 1)",
        "INSERT INTO games (id, match_id, game_index, seed) VALUES (9, 5, 0, 11)",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    pool.close().await;
    let store = Store::open(
        &path,
        StoreOptions {
            game_check: crate::testkit::test_game_check,
            ..StoreOptions::default()
        },
    )
    .await
    .unwrap();
    let tournament = store.tournament(7).await.unwrap();
    assert_eq!(tournament.format, crate::format::Format::RoundRobin);
    assert_eq!((tournament.entries.len(), tournament.seed), (1, 3));
    let progress = store.tournament_progress(7).await.unwrap();
    assert_eq!((progress.matches_total, progress.games_total), (1, 1));
    let broken: Vec<(String, i64, String, i64)> = sqlx::query_as("PRAGMA foreign_key_check")
        .fetch_all(store.pool())
        .await
        .unwrap();
    assert!(broken.is_empty(), "{broken:?}");
    // The references still hold, and a table of one is allowed now.
    let orphan = sqlx::query(
        "INSERT INTO matches (tournament_id, match_index, status) VALUES (99, 0, 'queued')",
    )
    .execute(store.pool())
    .await;
    assert!(orphan.is_err());
    let solo = sqlx::query(
        "INSERT INTO tournaments (owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at) \
         VALUES (1, 'bullfrogs', '{}', 'solo=true', 1, 3, 1, 0)",
    )
    .execute(store.pool())
    .await;
    assert!(solo.is_ok());
    let empty_table = sqlx::query(
        "INSERT INTO tournaments (owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at) \
         VALUES (1, 'bullfrogs', '{}', '', 0, 3, 1, 0)",
    )
    .execute(store.pool())
    .await;
    assert!(empty_table.is_err());
}
