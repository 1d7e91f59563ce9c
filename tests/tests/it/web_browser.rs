//! The web pages in a real browser: a real `cairn serve --http` with a
//! real runner plays a small tournament (one bot answers with markup as its
//! action), then headless Chromium, driven through chromedriver's WebDriver
//! HTTP API by a tiny HTTP/1.1 client, loads the leaderboard, opens a
//! replay, steps forward and back with buttons and keys, and checks from
//! the DOM the bot names, the scores and the board at a known step against
//! the JSON the server sends. Screenshots go to `target/<profile>/web-screenshots/`.
//!
//! Needs Debian's `chromium` and `chromium-driver`. Without them the test
//! says loudly what it skipped, unless `CI` is set: then it fails.

use std::path::{Path, PathBuf};

use arena_support::*;
use serde_json::{json, Value};
use webdriver::{http_get, Driver};

use crate::arena_support;
use crate::webdriver;

const MARKUP_ACTION: &str = "<img src=x onerror=\"document.title='pwned'\">";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_follows_the_leaderboard_a_tournament_and_a_replay_step_by_step() {
    let (arena, web) = start_arena_with_http();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "greedy", "greedy");
    add_bot(&arena, &token, "random", "random");
    add_bot(&arena, &token, "first", "first");
    add_markup_bot(&arena, &token);
    let tournament = create_round_robin(&arena, &token, &["greedy", "random", "markup"], 2).await;
    let lords = create(
        &arena,
        &token,
        "lords-of-scotland",
        &["greedy", "random"],
        2,
    )
    .await;
    let frogs = create(
        &arena,
        &token,
        "bullfrogs",
        &["greedy", "random", "first"],
        6,
    )
    .await;
    let knockout = create_format(
        &arena,
        &token,
        &["greedy", "random", "first"],
        "knockout",
        2,
    )
    .await;
    let gauntlet = create_format(&arena, &token, &["greedy", "random"], "gauntlet", 4).await;
    let _runner = arena.runner(30_000, 2);
    for id in [tournament.id, lords, frogs, knockout, gauntlet] {
        wait_for_progress(&arena, id, |p| p.finished).await;
    }
    terminal_viewer_draws_an_arena_game(&arena, &web, lords);

    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let driver = Driver::start(&chromedriver, &chromium);
    let shots = screenshot_dir();
    leaderboard(&driver, &web, &shots);
    standings_and_crosstable(&driver, &web, tournament.id, &shots);
    bracket_page(&driver, &web, knockout, &shots);
    sprt_page(&driver, &web, gauntlet, &shots);
    let game_id = tournament_page(&driver, &web, tournament.id, &shots);
    replay(&driver, &web, game_id, &shots);
    bot_page_keeps_markup_as_text(&driver, &web, &shots);
    lords_of_scotland_board(&driver, &web, lords, &shots);
    bullfrogs_board(&driver, &web, frogs, &shots);
}

/// `cairn match show ID --show --at N` draws the same step the pages do.
fn terminal_viewer_draws_an_arena_game(arena: &Arena, web: &str, tournament_id: i64) {
    let tournament = http_get(&format!("{web}/api/tournaments/{tournament_id}"));
    let game_id = tournament["games"][0]["game_id"].to_string();
    let api = http_get(&format!("{web}/api/games/{game_id}"));
    let step = &api["replay"]["steps"][3];
    let output = cairn(&[
        "match",
        "show",
        &game_id,
        "--show",
        "--at",
        "3",
        "--seat",
        "1",
        "--arena",
        &arena.address,
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("step 3/"), "{text}");
    let cpu_us = step["cpu_us"].as_u64().expect("a recorded decision time");
    let shown = format!("took {:.1} ms of CPU", cpu_us as f64 / 1000.0);
    assert!(text.contains(&shown), "{shown} not in {text}");
    let seen = step["action_seen"][1].as_str().unwrap();
    assert!(
        text.contains(&format!("played `{seen}`")),
        "{seen:?} not in {text}"
    );
    let scores: Vec<String> = step["views"][1]["scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("score {s}"))
        .collect();
    for score in scores {
        assert!(text.contains(&score), "{score} not in {text}");
    }
}

/// A tournament of `game` between `bots`, all at one table.
async fn create(
    arena: &Arena,
    token: &str,
    game: &str,
    bots: &[&str],
    games_per_pairing: u32,
) -> i64 {
    let request = cairn_proto::arena::v1::CreateTournamentRequest {
        game: game.into(),
        options: Default::default(),
        bots: bots.iter().map(|b| b.to_string()).collect(),
        seats_per_game: bots.len() as u32,
        games_per_pairing,
        seed: 11,
        ..Default::default()
    };
    let created = arena
        .client()
        .await
        .create_tournament(authorized(request, token))
        .await;
    created.unwrap().into_inner().id
}

/// A two-seat Schotten Totten tournament of `format`: a knockout, or a
/// gauntlet of the first bot under an SPRT.
async fn create_format(
    arena: &Arena,
    token: &str,
    bots: &[&str],
    format: &str,
    games_per_pairing: u32,
) -> i64 {
    let gauntlet = format == "gauntlet";
    let request = cairn_proto::arena::v1::CreateTournamentRequest {
        game: "schotten-totten".into(),
        bots: bots.iter().map(|b| b.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing,
        seed: 13,
        format: format.into(),
        challengers: if gauntlet {
            vec![bots[0].to_string()]
        } else {
            Vec::new()
        },
        sprt: gauntlet.then_some(cairn_proto::arena::v1::SprtParameters {
            elo0: 0.0,
            elo1: 200.0,
            alpha: 0.05,
            beta: 0.05,
            ..Default::default()
        }),
        ..Default::default()
    };
    let created = arena
        .client()
        .await
        .create_tournament(authorized(request, token))
        .await;
    created.unwrap().into_inner().id
}

/// The round robin's own results table and crosstable, as the JSON says.
fn standings_and_crosstable(driver: &Driver, web: &str, tournament_id: i64, shots: &Path) {
    let api = http_get(&format!("{web}/api/tournaments/{tournament_id}"));
    let results = api["standings"]["results"].as_array().unwrap();
    driver.go(&format!("{web}/tournaments/{tournament_id}"));
    driver.find("#results");
    let shown: Value = driver.run(
        "return [...document.querySelectorAll('#results tbody tr')].map(r => [...r.cells].map(c => c.textContent));",
    );
    let shown = shown.as_array().unwrap();
    assert_eq!(shown.len(), 3, "{shown:?}");
    for (row, api_row) in shown.iter().zip(results) {
        assert_eq!(row[1], api_row["bot"], "{shown:?}");
        assert_eq!(row[2], json!(api_row["games"].to_string()), "{shown:?}");
        let wdl: Vec<String> = ["wins", "draws", "losses"]
            .iter()
            .map(|key| api_row[key].to_string())
            .collect();
        for (offset, count) in wdl.iter().enumerate() {
            assert_eq!(row[3 + offset], json!(count), "{shown:?}");
        }
    }
    let cross: Value = driver.run(
        "return [...document.querySelectorAll('#crosstable tbody tr')].map(r => [...r.cells].slice(2).map(c => c.textContent));",
    );
    let cross = cross.as_array().unwrap();
    assert_eq!(cross.len(), 3, "{cross:?}");
    for (i, row) in cross.iter().enumerate() {
        let row = row.as_array().unwrap();
        assert_eq!(row.len(), 3);
        assert_eq!(row[i], "×", "{cross:?}");
        // Every pair met: two games a pairing.
        for (j, cell) in row.iter().enumerate().filter(|&(j, _)| j != i) {
            let sum: u32 = cell
                .as_str()
                .unwrap()
                .split('-')
                .map(|n| n.parse::<u32>().unwrap())
                .sum();
            assert_eq!(sum, 2, "{i},{j}: {cross:?}");
        }
    }
    driver.screenshot(&shots.join("standings.png"));
}

/// A knockout's bracket: one box per tie, a champion in the last round.
fn bracket_page(driver: &Driver, web: &str, tournament_id: i64, shots: &Path) {
    let api = http_get(&format!("{web}/api/tournaments/{tournament_id}"));
    let ties = api["standings"]["bracket"].as_array().unwrap();
    driver.go(&format!("{web}/tournaments/{tournament_id}"));
    driver.find("#bracket");
    assert_eq!(driver.find_all("#bracket .tie").len(), ties.len());
    let champion = ties.last().unwrap()["winner"].as_str().unwrap().to_string();
    let last: Value = driver.run(
        "const rounds = document.querySelectorAll('#bracket .bracket-round'); return rounds[rounds.length - 1].textContent;",
    );
    assert!(
        last.as_str().unwrap().contains(&format!("→ {champion}")),
        "{last}"
    );
    assert!(!driver.find_all("#games tr.round-head").is_empty());
    driver.screenshot(&shots.join("bracket.png"));
}

/// An SPRT gauntlet: its verdict and LLR as the JSON says.
fn sprt_page(driver: &Driver, web: &str, tournament_id: i64, shots: &Path) {
    let api = http_get(&format!("{web}/api/tournaments/{tournament_id}"));
    let sprt = &api["standings"]["sprt"];
    driver.go(&format!("{web}/tournaments/{tournament_id}"));
    driver.find("#sprt-verdict");
    let verdict = driver.run("return document.getElementById('sprt-verdict').dataset.verdict;");
    assert_eq!(verdict, sprt["verdict"]);
    assert_eq!(
        driver.text(&driver.find("#sprt-llr")),
        format!("{:.2}", sprt["llr"].as_f64().unwrap())
    );
    driver.find("#results");
    driver.screenshot(&shots.join("sprt.png"));
}

/// The first game of a tournament, opened at `step` (from the page's URL).
fn open_game(driver: &Driver, web: &str, tournament_id: i64, step: usize) -> Value {
    let tournament = http_get(&format!("{web}/api/tournaments/{tournament_id}"));
    let game_id = tournament["games"][0]["game_id"].as_i64().unwrap();
    let api = http_get(&format!("{web}/api/games/{game_id}"));
    let last = api["replay"]["steps"].as_array().unwrap().len() - 1;
    let step = step.min(last);
    driver.go(&format!("{web}/games/{game_id}#step={step}"));
    assert_eq!(
        driver.text(&driver.find("#step-info")),
        format!("step {step} / {last}")
    );
    api["replay"]["steps"][step].clone()
}

/// Lords of Scotland: each seat's score and the recruit row as the JSON says.
fn lords_of_scotland_board(driver: &Driver, web: &str, tournament_id: i64, shots: &Path) {
    let step = open_game(driver, web, tournament_id, 30);
    let view = &step["views"][0];
    let scores: Value = driver.run("return [...document.querySelectorAll('.los-seat [data-score]')].map(s => Number(s.dataset.score));");
    assert_eq!(scores, view["scores"]);
    let recruits = driver.find_all("#recruits .card");
    assert_eq!(recruits.len(), view["recruits"].as_array().unwrap().len());
    // Each seat's army total, and cards named by their whole clan.
    let totals: Value = driver.run(
        "return [...document.querySelectorAll('.los-seat [data-army-total]')].map(t => t.textContent);",
    );
    let totals = totals.as_array().unwrap();
    assert_eq!(totals.len(), view["scores"].as_array().unwrap().len());
    assert!(
        totals
            .iter()
            .all(|t| t.as_str().unwrap().starts_with("army ")),
        "{totals:?}"
    );
    let cut: Value = driver.run(
        "return [...document.querySelectorAll('.los .card[data-card] small')].filter(s => !s.parentElement.dataset.card.startsWith(s.textContent) || !/^[a-z]+$/.test(s.textContent) || s.parentElement.dataset.card.replace(/[0-9]+[a-z]?$/, '') !== s.textContent).length;",
    );
    assert_eq!(cut, json!(0), "every card shows its whole clan name");
    driver.screenshot(&shots.join("lords-of-scotland-step-30.png"));
}

/// Bullfrogs: one pad on the grid for every card on the table, at its cell.
fn bullfrogs_board(driver: &Driver, web: &str, tournament_id: i64, shots: &Path) {
    let step = open_game(driver, web, tournament_id, 40);
    let mut expected: Vec<String> = step["views"][0]["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|slot| slot["at"].as_str().unwrap().to_string())
        .collect();
    let shown: Value = driver.run(
        "return [...document.querySelectorAll('svg.bf-grid g[data-at]')].map(g => g.dataset.at);",
    );
    let mut shown: Vec<String> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|at| at.as_str().unwrap().to_string())
        .collect();
    expected.sort();
    shown.sort();
    assert_eq!(shown, expected);
    assert_eq!(driver.find_all(".bf-seat").len(), 3);
    driver.screenshot(&shots.join("bullfrogs-step-40.png"));
}

/// The leaderboard names every bot; the tournament is listed as complete.
fn leaderboard(driver: &Driver, web: &str, shots: &Path) {
    driver.go(&format!("{web}/"));
    driver.find("table.leaderboard");
    let board: Value = driver.run(
        "return [...document.querySelectorAll('h2.board-title')].find(h => h.textContent === 'schotten-totten · base').nextElementSibling.innerText;",
    );
    let board = board.as_str().unwrap();
    for bot in ["greedy", "random", "markup"] {
        assert!(
            board.contains(bot),
            "{bot} missing from the leaderboard: {board}"
        );
    }
    let tournaments = driver.text(&driver.find("#tournaments table"));
    assert!(tournaments.contains("6/6"), "{tournaments}");
    driver.screenshot(&shots.join("leaderboard.png"));
}

/// The tournament lists its six games; returns the first replay's game id.
fn tournament_page(driver: &Driver, web: &str, tournament_id: i64, shots: &Path) -> i64 {
    driver.go(&format!("{web}/tournaments/{tournament_id}"));
    let links = driver.find_all("a.replay-link");
    assert_eq!(links.len(), 6);
    let games = driver.text(&driver.find("#games table"));
    assert!(!games.contains("[object"), "{games}");
    assert_eq!(games.matches(" vs ").count(), 6, "{games}");
    for bot in [
        "greedy@1",
        "random@1",
        "markup@1",
        "forfeit: illegal_action",
    ] {
        assert!(games.contains(bot), "{bot} missing from {games}");
    }
    driver.screenshot(&shots.join("tournament.png"));
    // Replays are linked by the game's one public name, TOURNAMENT/MATCH/GAME.
    let first = driver.attribute(&links[0], "href");
    let name = first.split("/games/").nth(1).unwrap().to_string();
    assert_eq!(name, format!("{tournament_id}/1/1"));
    let by_name = http_get(&format!("{web}/api/games/{name}"));
    driver.click(&links[0]);
    assert_eq!(
        driver.text(&driver.find("#game-name")),
        format!(
            "game {name} (tournament/match/game; game id {})",
            by_name["game"]["game_id"]
        )
    );
    by_name["game"]["game_id"].as_i64().unwrap()
}

/// Steps through a replay and checks names, scores and the board against
/// the server's JSON.
fn replay(driver: &Driver, web: &str, game_id: i64, shots: &Path) {
    let api = http_get(&format!("{web}/api/games/{game_id}"));
    let steps = api["replay"]["steps"].as_array().unwrap();
    let last = steps.len() - 1;
    assert_eq!(
        driver.text(&driver.find("#step-info")),
        format!("step 0 / {last}")
    );
    let seats = driver.text(&driver.find("#seats"));
    for seat in api["game"]["seats"].as_array().unwrap() {
        let shown = format!(
            "{}@{} · score {}",
            seat["bot_name"].as_str().unwrap(),
            seat["version"],
            seat["score"]
        );
        assert!(seats.contains(&shown), "{shown:?} not in {seats:?}");
    }
    let next = driver.find("#step-next");
    for _ in 0..5 {
        driver.click(&next);
    }
    driver.key("\u{E012}"); // ArrowLeft
    assert_eq!(
        driver.text(&driver.find("#step-info")),
        format!("step 4 / {last}")
    );
    assert_eq!(
        driver.text(&driver.find("#action-text")),
        steps[4]["action"].as_str().unwrap()
    );
    assert_board_matches(driver, &steps[4]);
    // The runner recorded each decision's CPU time; the page shows it.
    let cpu_us = steps[4]["cpu_us"]
        .as_u64()
        .expect("a recorded decision time");
    let time = driver.text(&driver.find("#decision-time"));
    let shown = format!("took {:.1} ms of CPU", cpu_us as f64 / 1000.0);
    assert!(time.contains(&shown), "{shown:?} not in {time:?}");
    driver.screenshot(&shots.join("replay-step-4.png"));

    driver.click(&driver.find("#perspective option[value='0']"));
    let hidden = driver.text(&driver.find("[data-hand='1']"));
    assert!(hidden.contains("hidden"), "{hidden}");
    assert!(!driver
        .text(&driver.find("[data-hand='0']"))
        .contains("hidden"));
    driver.screenshot(&shots.join("replay-step-4-seat-0.png"));

    driver.key("\u{E010}"); // End
    assert_eq!(
        driver.text(&driver.find("#step-info")),
        format!("step {last} / {last}")
    );
    let outcome = driver.text(&driver.find("#outcome"));
    let scores: Vec<String> = api["replay"]["outcome"]["scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    assert!(outcome.contains(&scores.join(" : ")), "{outcome}");
    assert_board_matches(driver, &steps[last]);
    driver.screenshot(&shots.join("replay-last-step.png"));
    driver.click(&driver.find("#step-first"));
    assert_eq!(
        driver.text(&driver.find("#step-info")),
        format!("step 0 / {last}")
    );
}

/// Every stone side on the page holds the cards the step's JSON puts there.
fn assert_board_matches(driver: &Driver, step: &Value) {
    let stones = step["views"][0]["stones"].as_array().unwrap();
    let on_page: Value = driver.run(
        "return [...document.querySelectorAll('.st-side')].map(s => [Number(s.dataset.stone), Number(s.dataset.side), [...s.querySelectorAll('[data-card]')].map(c => c.dataset.card)]);",
    );
    let on_page = on_page.as_array().unwrap();
    assert_eq!(on_page.len(), 18);
    for side in on_page {
        let (stone, seat) = (
            side[0].as_u64().unwrap() as usize,
            side[1].as_u64().unwrap() as usize,
        );
        let mut shown: Vec<&str> = side[2]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        if seat == 1 {
            shown.reverse(); // seat 1's cards are stacked from the stone upwards
        }
        let expected: Vec<&str> = stones[stone]["sides"][seat]["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(shown, expected, "stone {stone} seat {seat}");
    }
}

/// The bot that answered with markup forfeited; its page shows the detail
/// as text, and the markup never became an element or ran.
fn bot_page_keeps_markup_as_text(driver: &Driver, web: &str, shots: &Path) {
    driver.go(&format!("{web}/bots/markup"));
    let detail = driver.text(&driver.find("tr.forfeit td.detail"));
    assert!(detail.contains("<img src=x onerror="), "{detail}");
    assert_eq!(
        driver.text(&driver.find("tr.forfeit td.reason")),
        "illegal_action"
    );
    let images: Value =
        driver.run("return document.querySelectorAll('img').length + ':' + document.title;");
    assert_eq!(images, json!("0:markup · cairn arena"));
    driver.screenshot(&shots.join("bot-markup.png"));
}

// ---- setup ----------------------------------------------------------------

/// The browser and its driver, or `None` after saying loudly what is skipped
/// (outside CI only: in CI a missing browser fails the test).
fn browser() -> Option<(PathBuf, PathBuf)> {
    let found = (which("chromium"), which("chromedriver"));
    if let (Some(chromium), Some(chromedriver)) = found {
        return Some((chromium, chromedriver));
    }
    skip_loudly(
        "chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)",
        "the browser test",
        "run the browser test",
    );
    None
}

/// A Python bot that answers every request with markup as its action.
fn add_markup_bot(arena: &Arena, token: &str) {
    let folder = arena.folder.path().join("bots").join("markup");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("cairn-bot.toml"),
        "name = \"markup\"\ncommand = [\"python3\", \"bot.py\"]\n",
    )
    .unwrap();
    let program = format!(
        "import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if 'hello' in m:\n        print(json.dumps({{'ready': {{'name': 'markup'}}}}), flush=True)\n    elif 'request' in m:\n        print(json.dumps({{'action': {{'decisionId': m['request']['decisionId'], 'action': {MARKUP_ACTION:?}}}}}), flush=True)\n    elif 'quit' in m:\n        break\n"
    );
    std::fs::write(folder.join("bot.py"), program).unwrap();
    add_bot_folder(arena, token, &folder);
}

fn screenshot_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let dir = profile_dir.join("web-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
