//! Scaling out, end to end: two `cairn serve` processes on one PostgreSQL
//! database, four `cairn runner` processes split between them, a round
//! robin of 2,016 games. Mid-way one arena process and one runner die by
//! SIGKILL; the rest finish. Then the database itself (read directly, not
//! through the arena) must hold every planned game exactly once, and the
//! ratings must be the ones a single-process SQLite arena computes from the
//! same results: every recorded game is reported again, in the order the
//! shared database applied them, to a fresh SQLite [`Store`], and the two
//! leaderboards (online ratings, which depend on order, and fitted ones,
//! which do not) must agree exactly.
//!
//! Each runner reaches the arenas through its own front (one address, as a
//! load balancer gives it): a connection goes to the first arena of the
//! front's order that accepts it, so a runner whose arena died reconnects
//! to the other one, as behind a real load balancer.
//!
//! The same harness runs on one SQLite arena process (the embedded
//! default; only a runner is killed there), so it is known to work apart
//! from the PostgreSQL store.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use arena_support::*;
use cairn_arena::deal::DealSecret;
use cairn_arena::ratings::RatingModel;
use cairn_arena::store::{
    Forfeit, FormatRequest, GameReport, LeaderboardQuery, Lease, NewTournament, Owner, Runner,
    SeatResult,
};
use cairn_arena::testkit::bot_archive;
use cairn_arena::Store;
use cairn_engine::forfeit::ForfeitReason;
use cairn_proto::arena::v1 as pb;
use cairn_proto::record::ReplayFile;
use tokio::net::{TcpListener, TcpStream};

use crate::arena_support;

/// Eight bots (bundled, cheap), every pair meeting 72 times: 28 x 72 =
/// 2,016 games in 56 matches of 36 games.
const BOTS: [(&str, &str); 8] = [
    ("first", "first"),
    ("first-too", "first"),
    ("random", "random"),
    ("random-too", "random"),
    ("random-three", "random"),
    ("greedy", "greedy"),
    ("st-greedy", "schotten-totten-greedy"),
    ("st-greedy-too", "schotten-totten-greedy"),
];
const GAMES_PER_PAIRING: u32 = 72;
const PLANNED_GAMES: i64 = 28 * GAMES_PER_PAIRING as i64;
/// The kill comes once this many games are recorded.
const KILL_AFTER_GAMES: i64 = 700;
/// The longest either half of the tournament may take. SQLite plays the
/// whole of it in about a minute on 2 busy cores; the PostgreSQL store
/// (every write under one lock, each a dozen round trips) needs several.
const PLAY_DEADLINE: Duration = Duration::from_secs(900);
/// How long an arena that records nothing may lag behind the one that
/// recorded the last game.
const OBSERVER_DEADLINE: Duration = Duration::from_secs(30);
/// Short, so a dead runner's matches go back to the queue soon.
const LEASE_MS: u64 = 2_000;
const GAME: &str = "schotten-totten";
/// Leaderboard reads until a fit covers every game (each waits for a
/// refit at most `FIT_WAIT`).
const FIT_READS: usize = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_arenas_on_one_postgres_survive_a_killed_arena_and_runner_and_rate_as_sqlite_does() {
    let Some(server) =
        cairn_arena::testkit::postgres::Postgres::start_or_skip("the scale-out test")
    else {
        return;
    };
    let url = server.fresh_database().expect("a fresh database");
    scale_out(&url, 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_sqlite_arena_survives_a_killed_runner_and_rates_as_a_replay_does() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("arena.sqlite");
    scale_out(db.to_str().unwrap(), 1).await;
}

/// The whole scenario on `n_arenas` arena processes sharing `db`.
async fn scale_out(db: &str, n_arenas: usize) {
    let mut arenas: Vec<Arena> = (0..n_arenas).map(|_| start_arena(db)).collect();
    let token = register_owner(&arenas[0], "ada").await;
    for (name, bundled) in BOTS {
        add_bot(&arenas[0], &token, name, bundled);
    }
    let names: Vec<&str> = BOTS.iter().map(|(name, _)| *name).collect();
    let tournament = create_round_robin(&arenas[0], &token, &names, GAMES_PER_PAIRING).await;
    assert_eq!(
        progress(&arenas[n_arenas - 1], tournament.id)
            .await
            .games_total,
        PLANNED_GAMES,
        "every arena process sees the plan"
    );

    // Runners 0 and 1 prefer the first arena, 2 and 3 the last.
    let cache = tempfile::tempdir().unwrap();
    let backends: Vec<String> = arenas.iter().map(|arena| arena.address.clone()).collect();
    let mut runners = Vec::new();
    for index in 0..4 {
        let mut order = backends.clone();
        if index >= 2 {
            order.reverse();
        }
        let address = front(order).await;
        let runner_cache = cache.path().join(format!("runner-{index}"));
        runners.push(runner_at(&address, &runner_cache, LEASE_MS, 2));
    }

    // One more arena process that no runner reaches, on PostgreSQL: it
    // writes nothing, so what it serves is fresh only if the others'
    // writes reach its caches and its progress streams.
    let observer = (n_arenas > 1).then(|| start_arena(db));
    let survivor = n_arenas - 1;
    let at_kill = wait_for_progress_within(&arenas[survivor], tournament.id, PLAY_DEADLINE, |p| {
        p.games_done >= KILL_AFTER_GAMES
    })
    .await;
    assert!(!at_kill.finished, "the kill must come mid-way: {at_kill:?}");
    let mut observed = match &observer {
        Some(observer) => Some(watch_from(observer, tournament.id).await),
        None => None,
    };
    runners[0].sigkill();
    if n_arenas > 1 {
        arenas[0].process.sigkill();
    }
    wait_for_progress_within(&arenas[survivor], tournament.id, PLAY_DEADLINE, |p| {
        p.finished
    })
    .await;
    drop(runners);

    let arena = &arenas[survivor];
    assert_complete_and_exact(arena, &tournament, PLANNED_GAMES).await;
    let recorded = recorded_games(db).await;
    assert_each_game_recorded_once(db, &recorded).await;
    let secret = deal_secret(db).await;
    assert_dealt_under(&secret, tournament.id, &recorded);
    let reference = replay_into_sqlite(&recorded, &names, &tournament, secret).await;
    assert_same_online_ratings(arena, db, &reference).await;
    assert_same_fitted_ratings(arena, &reference).await;
    if let (Some(observer), Some(stream)) = (&observer, &mut observed) {
        let seen = tokio::time::timeout(OBSERVER_DEADLINE, async {
            while let Some(progress) = stream.message().await.unwrap() {
                if progress.finished {
                    return progress;
                }
            }
            panic!("the observer's progress stream ended")
        })
        .await
        .expect("an arena process that records nothing still follows the tournament");
        assert_eq!(seen.games_done, PLANNED_GAMES);
        assert_same_online_ratings(observer, db, &reference).await;
        assert_same_fitted_ratings(observer, &reference).await;
    }
    arenas.clear();
}

/// A tournament's progress stream, after reading every leaderboard once
/// (so an arena that caches them has them cached).
async fn watch_from(arena: &Arena, tournament_id: i64) -> tonic::Streaming<pb::TournamentProgress> {
    for model in ["", "glicko2", "elo"] {
        arena
            .client()
            .await
            .get_leaderboard(pb::GetLeaderboardRequest {
                game: GAME.into(),
                model: model.into(),
                ..Default::default()
            })
            .await
            .unwrap();
    }
    arena
        .client()
        .await
        .watch_tournament(pb::WatchTournamentRequest { tournament_id })
        .await
        .unwrap()
        .into_inner()
}

/// `cairn serve --db DB` on a free port.
fn start_arena(db: &str) -> Arena {
    let folder = tempfile::tempdir().unwrap();
    let (process, address) = serve_with(Path::new(db), "127.0.0.1:0", &["--open-registration"]);
    Arena {
        folder,
        address,
        process,
    }
}

/// One address in front of `backends` (`http://HOST:PORT`): each accepted
/// connection is joined to the first backend that accepts one, in order.
async fn front(backends: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let backends: Vec<String> = backends
        .iter()
        .map(|backend| backend.trim_start_matches("http://").to_string())
        .collect();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let backends = backends.clone();
            tokio::spawn(async move {
                for backend in &backends {
                    if let Ok(mut outbound) = TcpStream::connect(backend).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        return;
                    }
                }
            });
        }
    });
    address
}

/// One recorded game as the database holds it.
#[derive(Debug, Clone)]
struct RecordedGame {
    game_id: i64,
    match_index: i64,
    game_index: i64,
    seed: i64,
    /// By seat.
    seats: Vec<SeatRow>,
    replay: Vec<u8>,
}

#[derive(sqlx::FromRow)]
struct ResultRow {
    game_id: i64,
    match_index: i64,
    game_index: i64,
    seed: i64,
    replay: Option<Vec<u8>>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct SeatRow {
    game_id: i64,
    name: String,
    score: i64,
    rank: i64,
    forfeit_reason: Option<String>,
    forfeit_detail: Option<String>,
}

/// A read-only connection to the arena's database, whichever it is.
async fn database(db: &str) -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    let url = if db.starts_with("postgres://") {
        db.to_string()
    } else {
        format!("sqlite://{db}?mode=ro")
    };
    sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .expect("the arena's database opens")
}

/// Every recorded game, in the order the database applied them to the
/// ratings (each game's first rating_history row: history rows are
/// written in the same transaction as the result, one rating update at a
/// time per leaderboard).
async fn recorded_games(db: &str) -> Vec<RecordedGame> {
    let pool = database(db).await;
    let rows: Vec<ResultRow> = sqlx::query_as(
        "SELECT r.game_id, m.match_index, g.game_index, g.seed, r.replay FROM results r \
         JOIN games g ON g.id = r.game_id JOIN matches m ON m.id = g.match_id \
         ORDER BY (SELECT MIN(h.id) FROM rating_history h WHERE h.result_id = r.id)",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let seats: Vec<SeatRow> = sqlx::query_as(
        "SELECT rs.game_id, b.name, rs.score, rs.rank, rs.forfeit_reason, rs.forfeit_detail \
         FROM result_seats rs JOIN bot_versions v ON v.id = rs.bot_version_id JOIN bots b ON b.id = v.bot_id \
         ORDER BY rs.game_id, rs.seat",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut by_game: HashMap<i64, Vec<SeatRow>> = HashMap::new();
    for seat in seats {
        by_game.entry(seat.game_id).or_default().push(seat);
    }
    rows.into_iter()
        .map(|row| RecordedGame {
            game_id: row.game_id,
            match_index: row.match_index,
            game_index: row.game_index,
            seed: row.seed,
            seats: by_game.remove(&row.game_id).unwrap_or_default(),
            replay: row.replay.unwrap_or_default(),
        })
        .collect()
}

/// The shared database's deal secret, read as its operator can.
async fn deal_secret(db: &str) -> DealSecret {
    let hex: String = sqlx::query_scalar("SELECT secret FROM deal_secret WHERE id = 1")
        .fetch_one(&database(db).await)
        .await
        .unwrap();
    DealSecret::from_hex(&hex).expect("a stored secret reads")
}

/// Every game was dealt from its planned seed's deal seed under the
/// database's secret, never from the listed seed itself.
fn assert_dealt_under(secret: &DealSecret, tournament_id: i64, recorded: &[RecordedGame]) {
    for game in recorded {
        let replay = ReplayFile::from_json(std::str::from_utf8(&game.replay).unwrap()).unwrap();
        let dealt = replay.games[0].seed;
        assert_ne!(
            dealt, game.seed as u64,
            "game {} dealt its listed seed",
            game.game_id
        );
        assert_eq!(dealt, secret.deal_seed(tournament_id, game.seed as u64));
    }
}

/// Read from the database, not through the arena: one plan, one result
/// per planned game, two seats each, rated once under each model.
async fn assert_each_game_recorded_once(db: &str, recorded: &[RecordedGame]) {
    let pool = database(db).await;
    let count = |sql: &'static str| {
        let pool = pool.clone();
        async move {
            let n: i64 = sqlx::query_scalar(sql).fetch_one(&pool).await.unwrap();
            n
        }
    };
    assert_eq!(count("SELECT COUNT(*) FROM games").await, PLANNED_GAMES);
    assert_eq!(count("SELECT COUNT(*) FROM results").await, PLANNED_GAMES);
    assert_eq!(
        count("SELECT COUNT(DISTINCT game_id) FROM results").await,
        PLANNED_GAMES,
        "a game was recorded twice"
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM result_seats").await,
        2 * PLANNED_GAMES
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM matches WHERE status <> 'done'").await,
        0
    );
    for model in RatingModel::for_seats(2) {
        let sql = match model {
            RatingModel::Glicko2 => "SELECT COUNT(*) FROM rating_history WHERE model = 'glicko2'",
            _ => "SELECT COUNT(*) FROM rating_history WHERE model = 'elo'",
        };
        assert_eq!(
            count(sql).await,
            2 * PLANNED_GAMES,
            "{model:?} rated a game twice or missed one"
        );
    }
    assert_eq!(recorded.len() as i64, PLANNED_GAMES);
    assert!(recorded.iter().all(|game| game.seats.len() == 2));
}

/// A fresh single-process SQLite store that played the same tournament:
/// the same bots entered in the same order, so the same plan, dealt under
/// the same `secret`, and every recorded game reported to it in
/// `recorded`'s order.
async fn replay_into_sqlite(
    recorded: &[RecordedGame],
    names: &[&str],
    tournament: &pb::Tournament,
    secret: DealSecret,
) -> (Store, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(
        folder.path().join("reference.sqlite"),
        cairn_arena::store::StoreOptions {
            deal_secret: Some(secret.clone()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let (owner, _) = store.register_owner("ada").await.unwrap();
    for name in names {
        store
            .submit_bot_version(&owner, &bot_archive(name, 1))
            .await
            .unwrap();
    }
    let created = create_same_tournament(&store, &owner, names, tournament).await;
    // The tournament's id is part of what is dealt.
    assert_eq!(created, tournament.id, "the same tournament id");
    let runner = store
        .register_runner_with_token("runner", RUNNER_TOKEN)
        .await
        .unwrap();
    let leases = lease_everything(&store, &runner, created).await;
    for game in recorded {
        let lease = &leases[&game.match_index];
        let planned = lease
            .games
            .iter()
            .find(|planned| planned.game_index == game.game_index)
            .expect("the game is planned in the reference too");
        assert_eq!(
            planned.seed,
            secret.deal_seed(created, game.seed as u64),
            "the same plan, dealt alike"
        );
        let report = reference_report(lease, game);
        store
            .report_game(&runner, lease.match_id, lease.lease_generation, &report)
            .await
            .unwrap_or_else(|error| panic!("game {}: {error}", game.game_id));
    }
    (store, folder)
}

async fn create_same_tournament(
    store: &Store,
    owner: &Owner,
    names: &[&str],
    tournament: &pb::Tournament,
) -> i64 {
    let request = NewTournament {
        game: GAME.into(),
        options: Default::default(),
        bots: names.iter().map(|name| name.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing: GAMES_PER_PAIRING as usize,
        seed: tournament.seed,
        format: FormatRequest::default(),
    };
    store.create_tournament(owner, &request).await.unwrap().id
}

/// Every match of the reference tournament, leased for an hour, by match
/// index (plan order, which is match id order in a fresh database).
async fn lease_everything(
    store: &Store,
    runner: &Runner,
    tournament_id: i64,
) -> HashMap<i64, Lease> {
    let mut leases = HashMap::new();
    while let Some(lease) = store.lease_match(runner, 60 * 60 * 1000).await.unwrap() {
        assert_eq!(lease.tournament_id, tournament_id);
        leases.insert(leases.len() as i64, lease);
    }
    assert_eq!(leases.len() as i64 * 36, PLANNED_GAMES);
    leases
}

/// `game` as the reference's runner reports it: the same seats (by name),
/// scores, ranks, forfeits and replay.
fn reference_report(lease: &Lease, game: &RecordedGame) -> GameReport {
    let seats = lease
        .seats
        .iter()
        .zip(&game.seats)
        .map(|(leased, seat)| {
            assert_eq!(leased.bot_name, seat.name, "the same seating");
            SeatResult {
                bot_version_id: leased.bot_version_id,
                score: seat.score,
                rank: seat.rank as u32,
                forfeit: seat.forfeit_reason.as_deref().map(|reason| Forfeit {
                    reason: ForfeitReason::from_name(reason).expect("a known reason"),
                    detail: seat.forfeit_detail.clone().unwrap_or_default(),
                }),
            }
        })
        .collect();
    let replay = ReplayFile::from_json(std::str::from_utf8(&game.replay).unwrap()).unwrap();
    GameReport {
        game_index: game.game_index,
        seats,
        ended_by: replay.games[0].score.ended_by,
        replay: game.replay.clone(),
        stderr_tails: Vec::new(),
    }
}

/// Online ratings (Glicko-2 and Elo): the arena's leaderboard and the
/// shared database's rows equal the reference's, to the last bit.
async fn assert_same_online_ratings(
    arena: &Arena,
    db: &str,
    reference: &(Store, tempfile::TempDir),
) {
    let pool = database(db).await;
    for &model in RatingModel::for_seats(2) {
        let query = LeaderboardQuery {
            game: GAME.into(),
            options: Default::default(),
            model: Some(model),
        };
        // By name: the arena serves rows in fitted order, the store in live order.
        let mut expected: Vec<(String, f64, f64, i64, i64, i64, i64)> = reference
            .0
            .leaderboard(&query)
            .await
            .unwrap()
            .iter()
            .map(|row| {
                let s = &row.standing;
                (
                    row.bot_name.clone(),
                    s.rating.value,
                    s.rating.uncertainty,
                    s.games,
                    s.wins,
                    s.draws,
                    s.losses,
                )
            })
            .collect();
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        let mut served: Vec<_> = arena
            .client()
            .await
            .get_leaderboard(pb::GetLeaderboardRequest {
                game: GAME.into(),
                model: model.id().into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .rows
            .into_iter()
            .map(|row| {
                (
                    row.bot_name,
                    row.rating,
                    row.uncertainty,
                    row.games,
                    row.wins,
                    row.draws,
                    row.losses,
                )
            })
            .collect();
        served.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            served, expected,
            "{model:?} as the surviving arena serves it"
        );
        let stored: Vec<(String, f64, f64, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT b.name, r.rating, r.uncertainty, r.games, r.wins, r.draws, r.losses FROM ratings r \
             JOIN bot_versions v ON v.id = r.bot_version_id JOIN bots b ON b.id = v.bot_id \
             WHERE r.model = $1 ORDER BY b.name",
        )
        .bind(model.id())
        .fetch_all(&pool)
        .await
        .unwrap();
        assert_eq!(stored, expected, "{model:?} as the database holds it");
    }
}

/// Fitted ratings (order-independent): the surviving arena's, once its fit
/// covers every game, equal the reference's.
async fn assert_same_fitted_ratings(arena: &Arena, reference: &(Store, tempfile::TempDir)) {
    let query = LeaderboardQuery {
        game: GAME.into(),
        options: Default::default(),
        model: None,
    };
    // Each read waits for a refit (at most `FIT_WAIT`) and answers from
    // the last fit; a few reads reach the fit of every game.
    let mut expected = None;
    for _ in 0..FIT_READS {
        let board = reference.0.fitted_leaderboard(&query, None).await.unwrap();
        if board
            .summary
            .as_ref()
            .is_some_and(|s| s.games as i64 == PLANNED_GAMES)
        {
            expected = Some(board);
            break;
        }
    }
    let expected = expected.expect("the reference fits every game");
    let expected: Vec<(String, Option<f64>)> = expected
        .rows
        .iter()
        .map(|row| {
            let rating = row
                .fitted
                .and_then(|fitted| fitted.ok())
                .map(|estimate| estimate.rating);
            (row.row.bot_name.clone(), rating)
        })
        .collect();
    let mut served = None;
    for _ in 0..FIT_READS {
        let board = arena
            .client()
            .await
            .get_leaderboard(pb::GetLeaderboardRequest {
                game: GAME.into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        if board
            .fit
            .as_ref()
            .is_some_and(|fit| fit.games == PLANNED_GAMES)
        {
            served = Some(board);
            break;
        }
    }
    let served =
        served.expect("the surviving arena fits every game, those the dead one recorded too");
    let served: Vec<(String, Option<f64>)> = served
        .rows
        .into_iter()
        .map(|row| {
            let rating = row
                .fitted
                .filter(|fitted| fitted.identifiable)
                .map(|fitted| fitted.rating);
            (row.bot_name, rating)
        })
        .collect();
    assert_eq!(served, expected, "fitted ratings");
}
