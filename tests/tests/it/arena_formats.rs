//! Tournament formats end to end: a real `cairn serve`, a real `cairn
//! runner`, the bundled bots; tournaments created and shown with the CLI
//! as owners do. A Swiss and a knockout plan each round when the last one
//! ends and play exactly their matches; an SPRT gauntlet stops once decided
//! and drops the matches left; a solo tournament ranks bots by mean score;
//! a ladder schedules a new bot version by itself until it is settled.

use std::collections::BTreeSet;

use arena_support::*;
use cairn_proto::arena::v1 as pb;

use crate::arena_support;

const BOTS: [(&str, &str); 4] = [
    ("greedy", "schotten-totten-greedy"),
    ("random", "random"),
    ("random-too", "random"),
    ("first", "first"),
];

async fn arena_with_bots() -> (Arena, String) {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    for (name, bundled) in BOTS {
        add_bot(&arena, &token, name, bundled);
    }
    (arena, token)
}

/// `cairn tournament create ... --json`: the tournament's id.
fn create(arena: &Arena, token: &str, args: &[&str]) -> i64 {
    let mut all = vec![
        "tournament",
        "create",
        "--game",
        "schotten-totten",
        "--seed",
        "5",
        "--arena",
        &arena.address,
        "--token",
        token,
        "--json",
    ];
    all.extend_from_slice(args);
    let output = cairn(&all);
    assert!(
        output.status.success(),
        "create: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    json["id"].as_i64().unwrap()
}

/// `cairn tournament show ID --json`.
fn show(arena: &Arena, id: i64) -> serde_json::Value {
    let output = cairn(&[
        "tournament",
        "show",
        &id.to_string(),
        "--arena",
        &arena.address,
        "--json",
    ]);
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).unwrap()
}

fn table(summary: &pb::MatchSummary) -> BTreeSet<String> {
    summary.seats.iter().map(|e| e.bot_name.clone()).collect()
}

async fn tournament(arena: &Arena, id: i64) -> pb::Tournament {
    arena
        .client()
        .await
        .get_tournament(pb::GetTournamentRequest { tournament_id: id })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_of_four_plays_three_rounds_meeting_every_pair_once_exactly() {
    let (arena, token) = arena_with_bots().await;
    let id = create(
        &arena,
        &token,
        &[
            "--format",
            "swiss",
            "--rounds",
            "3",
            "greedy",
            "random",
            "random-too",
            "first",
        ],
    );
    // Only round one is planned: two tables, two rotations each.
    assert_eq!(matches_with_games(&arena, id).await.len(), 4);
    let _runner = arena.runner(10_000, 2);
    wait_for_progress(&arena, id, |p| p.finished).await;
    // 3 rounds x 2 tables x 2 rotations, one game each.
    let played = tournament(&arena, id).await;
    assert_complete_and_exact(&arena, &played, 12).await;
    let all = matches_with_games(&arena, id).await;
    assert_eq!(all.len(), 12);
    // Four bots meet in three rounds without a repeat: every pair once.
    let tables: BTreeSet<BTreeSet<String>> = all.iter().map(table).collect();
    assert_eq!(tables.len(), 6, "{tables:?}");
    let shown = show(&arena, id);
    assert_eq!(shown["tournament"]["format"], "swiss");
    let standings = shown["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 4);
    let total: f64 = standings
        .iter()
        .map(|row| row["score"].as_f64().unwrap())
        .sum();
    // Every round hands out one point per table of two.
    assert_eq!(total, 6.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_knockout_of_three_gives_the_first_seed_a_bye_and_plays_two_ties_exactly() {
    let (arena, token) = arena_with_bots().await;
    let id = create(
        &arena,
        &token,
        &[
            "--format",
            "knockout",
            "--games-per-pairing",
            "4",
            "greedy",
            "random",
            "first",
        ],
    );
    let _runner = arena.runner(10_000, 2);
    wait_for_progress(&arena, id, |p| p.finished).await;
    // Two ties (three bots, one goes home per tie) x two rotations x 2 games.
    let played = tournament(&arena, id).await;
    assert_complete_and_exact(&arena, &played, 8).await;
    let all = matches_with_games(&arena, id).await;
    assert_eq!(all.len(), 4);
    // Round one: seeds 2 and 3, the first seed rests.
    let first_round: BTreeSet<String> = table(&all[0]);
    assert_eq!(first_round, ["first", "random"].map(String::from).into());
    assert_eq!(table(&all[1]), first_round);
    assert!(table(&all[2]).contains("greedy"));
    let shown = show(&arena, id);
    let bracket = shown["bracket"].as_array().unwrap();
    assert_eq!(bracket.len(), 3, "a bye, a tie, the final: {bracket:?}");
    assert_eq!(bracket[0]["winner"], "greedy@1");
    assert!(bracket[0]["second"].is_null());
    let final_tie = &bracket[2];
    let champion = final_tie["winner"].as_str().unwrap();
    assert!(
        [&final_tie["first"], &final_tie["second"]]
            .iter()
            .any(|finalist| finalist.as_str() == Some(champion)),
        "{final_tie}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sprt_gauntlet_stops_once_decided_and_never_plays_the_dropped_matches() {
    let (arena, token) = arena_with_bots().await;
    // random challenges greedy (it loses nearly every deal), random-too (even)
    // and first: three pairings, two rotations, ten deals each.
    let id = create(
        &arena,
        &token,
        &[
            "--format",
            "gauntlet",
            "--challenger",
            "random",
            "--games-per-pairing",
            "20",
            "--sprt",
            "elo0=0",
            "elo1=100",
            "greedy",
            "random-too",
            "first",
        ],
    );
    assert_eq!(matches_with_games(&arena, id).await.len(), 6);
    // One job: matches are leased one at a time in plan order.
    let _runner = arena.runner(10_000, 1);
    let progress = wait_for_progress(&arena, id, |p| p.finished).await;
    let shown = show(&arena, id);
    assert_eq!(shown["sprt"]["verdict"], "h0", "{shown}");
    let llr = shown["sprt"]["llr"].as_f64().unwrap();
    assert!(llr <= shown["sprt"]["lower_bound"].as_f64().unwrap());
    let all = matches_with_games(&arena, id).await;
    eprintln!("the sprt decided after {} of 6 matches", all.len());
    // It decides at the end of a pairing (a deal pair is complete only then)
    // and before the last one, whose matches are dropped.
    assert!(all.len() < 6 && all.len() % 2 == 0, "{} matches", all.len());
    assert!(all.iter().all(|m| m.status == "done"));
    assert_eq!(progress.matches_total, all.len() as i64);
    assert_eq!(progress.matches_done, all.len() as i64);
    assert_eq!(progress.games_done, 10 * all.len() as i64);
    assert_eq!(progress.games_total, progress.games_done);
    let pairs: u64 = shown["sprt"]["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|count| count.as_u64().unwrap())
        .sum();
    assert_eq!(pairs, 5 * all.len() as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solo_tournament_plays_every_bot_on_the_same_deals_and_ranks_them_by_mean_score() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    for (name, bundled) in [
        ("frog", "bullfrogs-greedy"),
        ("tadpole", "random"),
        ("egg", "first"),
    ] {
        add_bot(&arena, &token, name, bundled);
    }
    let id = create_solo(&arena, &token);
    let _runner = arena.runner(10_000, 2);
    let progress = wait_for_progress(&arena, id, |p| p.finished).await;
    // Three bots alone, three deals each.
    assert_eq!((progress.matches_done, progress.games_done), (3, 9));
    let all = matches_with_games(&arena, id).await;
    assert_eq!(all.len(), 3);
    let deals: Vec<Vec<u64>> = all
        .iter()
        .map(|m| m.games.iter().map(|g| g.seed).collect())
        .collect();
    assert!(deals.iter().all(|d| *d == deals[0]), "{deals:?}");
    assert!(all
        .iter()
        .flat_map(|m| &m.games)
        .all(|g| g.result.len() == 1 && g.result[0].forfeit.is_none()));
    let output = cairn(&[
        "ratings",
        "--game",
        "bullfrogs",
        "--opt",
        "solo=true",
        "--json",
        "--arena",
        &arena.address,
    ]);
    assert!(output.status.success());
    let board: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let solo = board["solo"].as_array().unwrap();
    assert_eq!(solo.len(), 3, "{board}");
    let means: Vec<f64> = solo
        .iter()
        .map(|row| row["mean"].as_f64().unwrap())
        .collect();
    assert!(means.windows(2).all(|pair| pair[0] >= pair[1]), "{means:?}");
    for row in solo {
        assert_eq!(row["deals"], 3);
        assert!(!row["title"].as_str().unwrap().is_empty());
    }
    assert!(
        board["rows"].as_array().unwrap().is_empty(),
        "no live rating alone"
    );
    let text = cairn(&[
        "ratings",
        "--game",
        "bullfrogs",
        "--opt",
        "solo=true",
        "--arena",
        &arena.address,
    ]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("paired by deal"));
    // The tournament's own results are its bots' mean scores.
    let show = cairn(&[
        "tournament",
        "show",
        &id.to_string(),
        "--arena",
        &arena.address,
    ]);
    let show = String::from_utf8_lossy(&show.stdout);
    assert!(!show.contains("no game recorded yet"), "{show}");
    let title = solo[0]["title"].as_str().unwrap();
    assert!(
        show.contains("ranked by mean score") && show.contains(title),
        "{show}"
    );
}

fn create_solo(arena: &Arena, token: &str) -> i64 {
    let output = cairn(&[
        "tournament",
        "create",
        "--game",
        "bullfrogs",
        "--opt",
        "solo=true",
        "--seats",
        "1",
        "--games-per-pairing",
        "3",
        "--arena",
        &arena.address,
        "--token",
        token,
        "--json",
        "frog",
        "tadpole",
        "egg",
    ]);
    assert!(
        output.status.success(),
        "create: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    json["id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_schedules_a_new_version_until_its_interval_is_narrow() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    for name in ["coin", "coin-too"] {
        add_bot(&arena, &token, name, "random");
    }
    let id = create(
        &arena,
        &token,
        &[
            "--format",
            "ladder",
            "--width",
            "1200",
            "--games-per-pairing",
            "8",
            "coin",
            "coin-too",
        ],
    );
    let _runner = arena.runner(10_000, 2);
    let settled = wait_for_progress(&arena, id, |p| p.finished).await;
    // A new bot arrives: the ladder enters it and plays it, by itself.
    add_bot(&arena, &token, "coin-three", "random");
    let done = wait_for_progress(&arena, id, |p| {
        p.finished && p.matches_done > settled.matches_done
    })
    .await;
    assert_eq!(done.matches_total, done.matches_done);
    let output = cairn(&[
        "ladder",
        "--game",
        "schotten-totten",
        "--json",
        "--arena",
        &arena.address,
    ]);
    assert!(output.status.success());
    let ladders: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = ladders[0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{ladders}");
    let newcomer = rows
        .iter()
        .find(|row| row["bot"] == "coin-three@1")
        .unwrap();
    assert!(newcomer["games"].as_i64().unwrap() > 0);
    assert_eq!(newcomer["settled"], true, "{newcomer}");
    let all = matches_with_games(&arena, id).await;
    assert_eq!(all.len() as i64, done.matches_total);
    // The newcomer's interval is the widest (it has none): it sits first.
    let first_after = &all[settled.matches_done as usize];
    assert!(
        first_after.seats.iter().any(|e| e.bot_name == "coin-three"),
        "{first_after:?}"
    );
}
