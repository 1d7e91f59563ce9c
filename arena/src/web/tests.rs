//! Every JSON endpoint over real HTTP on 127.0.0.1:0, against a store
//! holding a played tournament: the answers, and the refusals (unknown,
//! malformed and huge ids are 404, never 500; writes are 405).

use std::io::{Read, Write};
use std::net::TcpStream;

use cairn_engine::{new_game, GameOptions, Replay};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::admission::{Admission, AdmissionLimits};
use crate::store::{GameReport, Lease, MatchReport, NewTournament, SeatResult};
use crate::testkit::bot_archive;
use crate::Store;
use cairn_engine::forfeit::{EndedBy, ForfeitReason};

pub(super) const HOSTILE_DETAIL: &str =
    "<img src=x onerror=alert(1)></td><script>alert(2)</script>";

pub(super) struct Server {
    address: String,
    _stop: oneshot::Sender<()>,
    _folder: tempfile::TempDir,
}

/// One answer: status, headers (lowercase names) and body.
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) headers: String,
    pub(super) body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|error| panic!("{error}: {}", self.body))
    }
}

/// A minimal HTTP/1.1 client: one request per connection.
pub(super) async fn request(server: &Server, method: &str, path: &str) -> Answer {
    let address = server.address.clone();
    let request = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(address).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let raw = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        Answer {
            status,
            headers: head.to_ascii_lowercase(),
            body: body.to_string(),
        }
    })
    .await
    .unwrap()
}

pub(super) async fn get(server: &Server, path: &str) -> Answer {
    request(server, "GET", path).await
}

/// A seat's score, rank and forfeit detail.
type SeatOutcome = (i64, u32, Option<String>);

/// A replay file of `replay` as a runner writes it, and its seats' results:
/// played to the end, or stopped by `forfeit` (seat, detail) after its actions.
fn replay_file(
    replay: &Replay,
    names: &[&str],
    forfeit: Option<(usize, &str)>,
) -> (Vec<u8>, Vec<SeatOutcome>) {
    let simulation = replay.simulate().unwrap();
    let hashes: Vec<String> = simulation.hashes[1..]
        .iter()
        .map(|h| format!("{h:016x}"))
        .collect();
    let (score, forfeits, results) = match forfeit {
        None => {
            let outcome = simulation.outcome().unwrap();
            let results = outcome
                .scores
                .iter()
                .zip(&outcome.ranks)
                .map(|(&s, &r)| (i64::from(s), r, None))
                .collect();
            (
                json!({"scores": outcome.scores, "ranks": outcome.ranks, "ended_by": "finished"}),
                json!([]),
                results,
            )
        }
        Some((seat, detail)) => {
            let ranks: Vec<u32> = (0..names.len())
                .map(|s| if s == seat { 2 } else { 1 })
                .collect();
            let results = ranks
                .iter()
                .enumerate()
                .map(|(s, &r)| (0, r, (s == seat).then(|| detail.to_string())))
                .collect();
            (
                json!({"scores": vec![0; names.len()], "ranks": ranks, "ended_by": "forfeit"}),
                json!([{"seat": seat, "reason": "timeout", "detail": detail, "after_actions": replay.actions.len()}]),
                results,
            )
        }
    };
    let mut file = json!({"format": "cairn-replay-1", "games": [{
        "game": replay.game, "options": replay.options, "seed": replay.seed, "seats": names,
        "actions": replay.actions, "hashes": hashes, "forfeits": forfeits, "score": score,
    }]});
    // A finished game as runners write it now, with each decision's CPU
    // time; a forfeited one as replays were before times were kept.
    if forfeit.is_none() {
        let cpu_us: Vec<u64> = (0..replay.actions.len() as u64)
            .map(decision_cpu_us)
            .collect();
        file["games"][0]["cpu_us"] = json!(cpu_us);
    }
    (file.to_string().into_bytes(), results)
}

/// The CPU time the test replays give action `index`, in microseconds.
fn decision_cpu_us(index: u64) -> u64 {
    1_000 * index + 7
}

/// First-legal play of a game from `seed`: to the end, or `n_actions` long.
fn first_moves(game: &str, n_seats: usize, seed: u64, n_actions: usize) -> Replay {
    let mut state = new_game(game, &GameOptions::new(), n_seats, seed).unwrap();
    let mut actions = Vec::new();
    while actions.len() < n_actions {
        let Some(first) = state.legal_actions().into_iter().next() else {
            break;
        };
        state.apply_text(&first).unwrap();
        actions.push(first);
    }
    Replay {
        game: game.into(),
        options: GameOptions::new(),
        seed,
        n_seats,
        actions,
    }
}

/// Reports a leased match: played to the end, or (`forfeit`) forfeited
/// by alpha's seat with a hostile detail after five actions.
pub(super) fn report(lease: &Lease, forfeit: bool) -> MatchReport {
    let alpha = lease
        .seats
        .iter()
        .position(|s| s.bot_name == "alpha")
        .unwrap();
    let labels: Vec<String> = lease
        .seats
        .iter()
        .map(|s| cairn_proto::record::seat_label(&s.bot_name, s.version))
        .collect();
    let names: Vec<&str> = labels.iter().map(String::as_str).collect();
    let games = lease
        .games
        .iter()
        .map(|game| {
            let forfeit = forfeit.then_some((alpha, HOSTILE_DETAIL));
            let length = if forfeit.is_some() { 5 } else { usize::MAX };
            let replay = first_moves(&lease.game, lease.seats.len(), game.seed, length);
            let (bytes, results) = replay_file(&replay, &names, forfeit);
            GameReport {
                game_index: game.game_index,
                seats: lease
                    .seats
                    .iter()
                    .zip(results)
                    .map(|(seat, (score, rank, detail))| SeatResult {
                        bot_version_id: seat.bot_version_id,
                        score,
                        rank,
                        forfeit: detail.map(|detail| crate::store::Forfeit {
                            reason: ForfeitReason::Timeout,
                            detail,
                        }),
                    })
                    .collect(),
                replay: bytes,
                // The forfeited game keeps each seat's last words.
                stderr_tails: match forfeit {
                    Some(_) => labels
                        .iter()
                        .map(|l| format!("{l} says <b>bye</b>"))
                        .collect(),
                    None => Vec::new(),
                },
                ended_by: if forfeit.is_some() {
                    EndedBy::Forfeit
                } else {
                    EndedBy::Finished
                },
            }
        })
        .collect();
    MatchReport {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        games,
    }
}

/// A store with bots alpha and beta in one round robin of `game` (2 games
/// a pairing, at `seats` seats) and a runner to play it.
pub(super) async fn with_tournament(
    game: &str,
    options: GameOptions,
    seats: usize,
) -> (Store, tempfile::TempDir, crate::store::Runner) {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(
        folder.path().join("arena.db"),
        crate::store::StoreOptions::default(),
    )
    .await
    .unwrap();
    let (owner, _) = store.register_owner("ada").await.unwrap();
    for bot in ["alpha", "beta"] {
        store
            .submit_bot_version(&owner, &bot_archive(bot, 1))
            .await
            .unwrap();
    }
    let tournament = NewTournament {
        game: game.into(),
        options,
        bots: vec!["alpha".into(), "beta".into()],
        seats_per_game: seats,
        games_per_pairing: 2,
        seed: 9,
        format: Default::default(),
    };
    store.create_tournament(&owner, &tournament).await.unwrap();
    let (runner, _) = store.register_runner("r1").await.unwrap();
    (store, folder, runner)
}

/// A store with one Schotten Totten tournament between two bots, its two
/// one-game matches reported (the second forfeited), served on 127.0.0.1:0.
async fn served() -> Server {
    let (store, folder, runner) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    for forfeit in [false, true] {
        let lease = store.lease_match(&runner, 60_000).await.unwrap().unwrap();
        store
            .report_result(&runner, &report(&lease, forfeit))
            .await
            .unwrap();
    }
    serve_store(store, folder).await
}

/// The web pages of `store` (kept in `folder`) on 127.0.0.1:0.
async fn serve_store(store: Store, folder: tempfile::TempDir) -> Server {
    serve_admitted(store, folder, Admission::default()).await
}

/// [`serve_store`] with its `/api/` reads admitted by `admission`.
pub(super) async fn serve_admitted(
    store: Store,
    folder: tempfile::TempDir,
    admission: Admission,
) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(super::serve(listener, store, admission, async move {
        let _ = stopped.await;
    }));
    Server {
        address,
        _stop: stop,
        _folder: folder,
    }
}

/// A solo board lists its bots by mean score (it has no rated rows).
#[tokio::test]
async fn a_solo_board_ranks_its_bots_by_mean_score() {
    let solo = [("solo".to_string(), "true".to_string())].into();
    let (store, folder, runner) = with_tournament("bullfrogs", solo, 1).await;
    while let Some(lease) = store.lease_match(&runner, 60_000).await.unwrap() {
        for game in &lease.games {
            let planned = crate::testkit::planned_from_lease(&lease, game);
            store
                .report_game(
                    &runner,
                    lease.match_id,
                    lease.lease_generation,
                    &crate::testkit::played_game_report(&planned),
                )
                .await
                .unwrap();
        }
    }
    let server = serve_store(store, folder).await;
    let boards = get(&server, "/api/leaderboards").await.json();
    let board = &boards[0];
    assert_eq!(board["variant"], "solo=true", "{boards}");
    assert_eq!(board["rows"].as_array().unwrap().len(), 0, "{boards}");
    let solo = board["solo"].as_array().unwrap();
    let bots: Vec<&str> = solo
        .iter()
        .map(|row| row["bot"].as_str().unwrap())
        .collect();
    assert_eq!(bots.len(), 2, "{boards}");
    assert!(
        bots.contains(&"alpha") && bots.contains(&"beta"),
        "{boards}"
    );
    assert_eq!(solo[0]["position"], 1);
    assert!(solo[0]["mean"].is_f64(), "{boards}");
}

#[tokio::test]
async fn the_leaderboard_and_tournaments_list_the_played_tournament() {
    let server = served().await;
    let boards = get(&server, "/api/leaderboards").await;
    assert_eq!(boards.status, 200);
    assert!(boards.headers.contains("content-type: application/json"));
    let boards = boards.json();
    assert_eq!(boards[0]["game"], "schotten-totten");
    let bots: Vec<&str> = boards[0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bot"].as_str().unwrap())
        .collect();
    assert_eq!(bots.len(), 2, "{boards}");
    assert!(bots.contains(&"alpha") && bots.contains(&"beta"));
    // The fitted ranking, as the CLI prints it, with the live rating beside.
    for row in boards[0]["rows"].as_array().unwrap() {
        assert!(
            row.get("fitted").is_some() && row["deals"].is_u64(),
            "{row}"
        );
        assert_eq!(row["provisional"], true, "{row}");
    }
    assert_eq!(boards[0]["fit"]["games"], 2, "{boards}");

    let list = get(&server, "/api/tournaments").await.json();
    assert_eq!(list[0]["id"], 1);
    assert_eq!(
        (
            list[0]["games_done"].as_i64(),
            list[0]["games_total"].as_i64()
        ),
        (Some(2), Some(2))
    );

    let one = get(&server, "/api/tournaments/1").await.json();
    let games = one["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    let forfeited: Vec<&Value> = games[1]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["forfeit_reason"].is_null())
        .collect();
    assert_eq!(forfeited.len(), 1, "{one}");
    assert_eq!(forfeited[0]["bot_name"], "alpha");
    assert_eq!(forfeited[0]["forfeit_detail"], HOSTILE_DETAIL);
}

#[tokio::test]
async fn a_tournament_page_carries_its_own_table_crosstable_and_pages_of_games() {
    let server = served().await;
    let one = get(&server, "/api/tournaments/1").await.json();
    let standings = &one["standings"];
    assert_eq!(standings["format"], "round-robin", "{one}");
    let rows = standings["results"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{standings}");
    let games: u64 = rows.iter().map(|r| r["games"].as_u64().unwrap()).sum();
    assert_eq!(games, 4, "two games, two seats each: {standings}");
    let points: f64 = rows.iter().map(|r| r["points"].as_f64().unwrap()).sum();
    assert_eq!(points, 2.0, "{standings}");
    assert_eq!(
        standings["crosstable"].as_array().unwrap().len(),
        2,
        "{standings}"
    );
    assert!(standings["sprt"].is_null() && standings["bracket"].as_array().unwrap().is_empty());
    assert_eq!(one["games_per_page"], 100);
    assert_eq!(one["page"], 0);
    let past = get(&server, "/api/tournaments/1?page=1").await.json();
    assert_eq!(past["games"].as_array().unwrap().len(), 0, "{past}");
    assert_eq!(past["page"], 1);
    for odd in [
        "?page=-3",
        "?page=x",
        "?page=99999999999999999999",
        "?pages=1",
    ] {
        let shown = get(&server, &format!("/api/tournaments/1{odd}"))
            .await
            .json();
        assert_eq!(shown["page"], 0, "{odd}: {shown}");
        assert_eq!(shown["games"].as_array().unwrap().len(), 2, "{odd}");
    }
}

#[tokio::test]
async fn a_game_is_found_by_its_name_as_by_its_id_and_a_bad_name_is_not_found() {
    let server = served().await;
    let one = get(&server, "/api/tournaments/1").await.json();
    let second = &one["games"][1];
    assert_eq!(second["name"], "1/2/1", "{one}");
    let by_id = get(&server, &format!("/api/games/{}", second["game_id"]))
        .await
        .json();
    let by_name = get(&server, "/api/games/1/2/1").await.json();
    assert_eq!(by_id, by_name);
    assert_eq!(by_name["game"]["name"], "1/2/1");
    for bad in [
        "1/3/1",
        "1/2/2",
        "2/1/1",
        "0/1/1",
        "1/-1/1",
        "1/x/1",
        "1/99999999999999999999/1",
    ] {
        let answer = get(&server, &format!("/api/games/{bad}")).await;
        assert_eq!(answer.status, 404, "{bad}");
    }
}

#[tokio::test]
async fn a_game_carries_each_seats_stderr_tail_as_text() {
    let server = served().await;
    let one = get(&server, "/api/tournaments/1").await.json();
    let forfeited = one["games"][1]["game_id"].as_i64().unwrap();
    let game = get(&server, &format!("/api/games/{forfeited}"))
        .await
        .json();
    let tails = game["game"]["stderr_tails"].as_array().unwrap();
    assert_eq!(tails.len(), 2, "{game}");
    assert!(
        tails
            .iter()
            .all(|t| t.as_str().unwrap().ends_with("says <b>bye</b>")),
        "{game}"
    );
    let played = one["games"][0]["game_id"].as_i64().unwrap();
    let game = get(&server, &format!("/api/games/{played}")).await.json();
    let tails = game["game"]["stderr_tails"].as_array().unwrap();
    assert!(tails.iter().all(|t| t == ""), "{game}");
}

#[tokio::test]
async fn a_bots_page_lists_versions_games_and_forfeits_with_reasons() {
    let server = served().await;
    let page = get(&server, "/api/bots/alpha").await;
    assert_eq!(page.status, 200);
    let page = page.json();
    assert_eq!(page["owner"], "ada");
    assert_eq!(page["versions"].as_array().unwrap().len(), 1);
    let games = page["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    let forfeits: Vec<&Value> = games
        .iter()
        .filter(|g| !g["forfeit_reason"].is_null())
        .collect();
    assert_eq!(forfeits.len(), 1, "{page}");
    assert_eq!(forfeits[0]["forfeit_detail"], HOSTILE_DETAIL);
}

#[tokio::test]
async fn a_game_comes_with_every_step_and_every_seats_view() {
    let server = served().await;
    let tournament = get(&server, "/api/tournaments/1").await.json();
    let game_id = tournament["games"][0]["game_id"].as_i64().unwrap();
    let game = get(&server, &format!("/api/games/{game_id}")).await.json();
    assert_eq!(game["game"]["seats"][0]["bot_name"], "alpha");
    let replay = &game["replay"];
    let steps = replay["steps"].as_array().unwrap();
    assert!(steps.len() > 20, "{}", steps.len());
    assert!(replay["error"].is_null());
    assert_eq!(replay["outcome"]["ranks"].as_array().unwrap().len(), 2);
    assert_eq!(steps[0]["action"], Value::Null);
    assert_eq!(steps[1]["actor"], steps[0]["to_move"]);
    let views = steps[5]["views"].as_array().unwrap();
    assert_eq!(views.len(), 2);
    assert_eq!(views[1]["seat"], 1);
    assert_eq!(views[0]["stones"].as_array().unwrap().len(), 9);
    assert_ne!(views[0]["hand"], views[1]["hand"]);
    assert!(steps[0]["cpu_us"].is_null());
    for (index, step) in steps.iter().enumerate().skip(1) {
        assert_eq!(step["cpu_us"], decision_cpu_us(index as u64 - 1));
    }

    let forfeited = tournament["games"][1]["game_id"].as_i64().unwrap();
    let short = get(&server, &format!("/api/games/{forfeited}"))
        .await
        .json();
    assert_eq!(short["replay"]["steps"].as_array().unwrap().len(), 6);
    assert!(short["replay"]["outcome"].is_null());
    let short_steps = short["replay"]["steps"].as_array().unwrap();
    assert!(short_steps.iter().all(|step| step["cpu_us"].is_null()));
}

#[tokio::test]
async fn unknown_malformed_and_huge_ids_are_not_found_never_a_server_error() {
    let server = served().await;
    let long = "9".repeat(5000);
    let paths = [
        "/api/games/0".to_string(),
        "/api/games/-1".into(),
        "/api/games/99".into(),
        "/api/games/abc".into(),
        "/api/games/1.5".into(),
        "/api/games/%00".into(),
        "/api/games/99999999999999999999999999".into(),
        "/api/games/9223372036854775807".into(),
        format!("/api/games/{long}"),
        "/api/tournaments/0".into(),
        "/api/tournaments/42".into(),
        "/api/tournaments/x%27%20OR%201=1".into(),
        "/api/tournaments/18446744073709551616".into(),
        "/api/bots/nobody".into(),
        "/api/bots/%3Cscript%3E".into(),
        "/api/bots/a%27%20OR%20%271%27=%271".into(),
        "/api/games/1/extra".into(),
        "/api/nothing".into(),
        "/nothing".into(),
    ];
    for path in &paths {
        let answer = get(&server, path).await;
        assert_eq!(answer.status, 404, "{path}: {}", answer.body);
        assert!(answer.json()["error"].is_string(), "{path}");
    }
}

#[tokio::test]
async fn the_pages_are_read_only_and_locked_down() {
    let server = served().await;
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let answer = request(&server, method, "/api/games/1").await;
        assert_eq!(answer.status, 405, "{method}");
    }
    for path in [
        "/",
        "/games/1",
        "/bots/alpha",
        "/tournaments/1",
        "/assets/app.js",
        "/assets/boards.js",
        "/assets/style.css",
    ] {
        let answer = get(&server, path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert!(
            answer
                .headers
                .contains("content-security-policy: default-src 'none'; script-src 'self'"),
            "{path}"
        );
        assert!(
            answer.headers.contains("x-content-type-options: nosniff"),
            "{path}"
        );
    }
    assert!(get(&server, "/games/1")
        .await
        .body
        .contains("/assets/app.js"));
}

fn replay_value(bytes: &[u8]) -> Value {
    serde_json::from_str(&super::replay_json(bytes)).unwrap()
}

#[test]
fn a_stored_replay_that_is_garbage_or_does_not_re_simulate_is_shown_as_an_error() {
    let garbage = replay_value(b"\xff not json");
    assert!(garbage["error"].as_str().unwrap().contains("unreadable"));
    let empty = replay_value(br#"{"format": "cairn-replay-1", "games": []}"#);
    assert!(empty["error"].is_string());
    let chess = replay_value(
        br#"{"games": [{"game": "chess", "options": {}, "seed": 1, "seats": ["a", "b"], "actions": []}]}"#,
    );
    assert!(
        chess["error"].as_str().unwrap().contains("chess"),
        "{chess}"
    );
    let huge_table = replay_value(
        br#"{"games": [{"game": "bullfrogs", "options": {}, "seed": 1, "seats": ["a","a","a","a","a","a","a","a","a"], "actions": []}]}"#,
    );
    assert!(huge_table["error"].is_string(), "{huge_table}");
    let mut replay = first_moves("schotten-totten", 2, 4, 10);
    replay.actions[6] = "claim 99999999999999999999".into();
    let bytes = json!({"games": [{"game": replay.game, "options": {}, "seed": 4, "seats": ["a", "b"], "actions": replay.actions}]})
        .to_string();
    let cut = replay_value(bytes.as_bytes());
    assert_eq!(cut["steps"].as_array().unwrap().len(), 7);
    assert!(
        cut["error"].as_str().unwrap().starts_with("action 6"),
        "{cut}"
    );
}

#[tokio::test]
async fn an_address_past_its_budget_gets_429_with_retry_after_and_the_page_still_loads() {
    let (store, folder, _) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    let limits = AdmissionLimits {
        client_cost_per_s: 0.001,
        client_burst: 8.0,
        ..AdmissionLimits::default()
    };
    let server = serve_admitted(store, folder, Admission::new(limits)).await;
    // Two tournament pages (4 units each) spend the bucket.
    for _ in 0..2 {
        assert_eq!(get(&server, "/api/tournaments").await.status, 200);
    }
    let shed = get(&server, "/api/tournaments/1").await;
    assert_eq!(shed.status, 429, "{}", shed.body);
    let retry_after: u64 = shed
        .headers
        .lines()
        .find_map(|line| line.strip_prefix("retry-after: "))
        .and_then(|value| value.trim().parse().ok())
        .expect("a Retry-After header");
    assert!(retry_after >= 1);
    assert!(shed.json()["error"].as_str().unwrap().contains("retry in"));
    assert!(shed.json()["retry_after_ms"].as_u64().unwrap() > 0);
    // The page and its assets come from memory: never shed.
    assert_eq!(get(&server, "/").await.status, 200);
    assert_eq!(get(&server, "/assets/app.js").await.status, 200);
}
