//! The `cairn` binary as users and scripts call it: `play` with bot folders
//! and bare commands, `--json`, `--replay`, and `replay` verifying a file.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::cairn;

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cairn-cli-test-{}-{name}", std::process::id()))
}

#[test]
fn play_json_reports_every_game_and_seat_with_names_scores_ranks_and_forfeits() {
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--games",
        "3",
        "--seed",
        "5",
        "--json",
        "sdk/python",
        "sdk/js",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    for (index, game) in games.iter().enumerate() {
        assert_eq!(game["seed"], cairn_runner::deal_seed(5, index as u64));
        let seats = game["seats"].as_array().unwrap();
        assert_eq!(seats.len(), 2);
        for seat in seats {
            assert!(seat["forfeit"].is_null(), "{seat}");
            assert!(seat["score"].is_i64() && seat["rank"].is_u64());
        }
        let names: Vec<&str> = seats.iter().map(|s| s["bot"].as_str().unwrap()).collect();
        assert!(
            names.contains(&"python-random") && names.contains(&"js-random"),
            "{names:?}"
        );
    }
    assert_eq!(report["options"]["tactics"], "true");
}

#[test]
fn a_misbehaving_command_is_a_forfeit_and_losing_every_game_so_exits_3() {
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--json",
        "cmd:python3 tests/bots/hostile.py garbage",
        "sdk/python",
    ]);
    assert_eq!(output.status.code(), Some(3));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let seats = report["games"][0]["seats"].as_array().unwrap();
    assert_eq!(seats[0]["forfeit"]["reason"], "protocol_error");
    assert_eq!(seats[0]["rank"], 2);
    assert_eq!(seats[1]["rank"], 1);
    let table = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "cmd:python3 tests/bots/hostile.py illegal",
        "sdk/python",
    ]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("forfeit: illegal_action"), "{text}");
}

#[test]
fn a_written_replay_verifies_and_a_tampered_one_does_not() {
    let path = temp_path("replay.json");
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--games",
        "2",
        "--replay",
        path.to_str().unwrap(),
        "sdk/python",
        "sdk/js",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let verified = cairn(&["replay", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&verified.stdout);
    assert!(verified.status.success(), "{text}");
    assert!(
        text.contains("seat 0: ") && text.contains("verified: 2 game(s)"),
        "{text}"
    );
    assert!(
        text.contains("game 1: schotten-totten base, seed ")
            && text.contains("game 2: schotten-totten base, seed "),
        "a game is labelled with its variant as people write it: {text}"
    );

    let mut replay: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let actions = replay["games"][0]["actions"].as_array_mut().unwrap();
    let (first, second) = (actions[0].clone(), actions[1].clone());
    actions[0] = second;
    actions[1] = first;
    std::fs::write(&path, serde_json::to_string(&replay).unwrap()).unwrap();
    let refused = cairn(&["replay", "--quiet", path.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stdout).contains("NOT verified"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn an_unknown_game_or_a_bad_option_is_an_error_before_any_bot_starts() {
    let unknown = cairn(&["play", "--game", "chess", "sdk/python", "sdk/js"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown game `chess`"));
    let bad = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=maybe",
        "sdk/python",
        "sdk/js",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let seats = cairn(&["play", "--game", "schotten-totten", "sdk/python"]);
    assert!(String::from_utf8_lossy(&seats.stderr).contains("2 seats"));
}

#[test]
fn mirror_plays_each_deal_from_both_seats() {
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--games",
        "4",
        "--seed",
        "9",
        "--mirror",
        "--json",
        "sdk/python",
        "sdk/js",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let games = report["games"].as_array().unwrap();
    let seeds: Vec<u64> = games.iter().map(|g| g["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds[0], seeds[1]);
    assert_eq!(seeds[2], seeds[3]);
    assert_ne!(seeds[0], seeds[2]);
    assert_eq!(games[0]["seats"][0]["bot"], games[1]["seats"][1]["bot"]);
}

#[test]
fn mirror_rounds_the_games_up_so_no_deal_is_left_without_its_mirror() {
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--games",
        "3",
        "--mirror",
        "--json",
        &bundled("random"),
        &bundled("first"),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("--mirror: 3 game(s) become 4"), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let seeds: Vec<u64> = report["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["seed"].as_u64().unwrap())
        .collect();
    let deal = |d| cairn_runner::deal_seed(1, d);
    assert_eq!(seeds, vec![deal(0), deal(0), deal(1), deal(1)]);
}

#[test]
fn doctor_lists_every_sandbox_layer_with_a_verdict_that_matches_its_exit_code() {
    let output = cairn(&["doctor"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.lines().count() > 5, "{text}");
    let complete = text.contains("sandbox complete");
    assert!(complete || text.contains("sandbox INCOMPLETE"), "{text}");
    assert_eq!(output.status.success(), complete);
}

/// Runs `cairn args`, which must succeed, and returns its JSON report.
fn json_report(args: &[&str]) -> Value {
    let output = cairn(args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn bundled(name: &str) -> String {
    format!("cmd:{} bot-run {name}", env!("CARGO_BIN_EXE_cairn"))
}

#[test]
fn a_misspelled_bot_folder_is_an_error_that_names_the_cmd_spelling() {
    let output = cairn(&["play", "--game", "schotten-totten", "sdk/pyton", "sdk/js"]);
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        text.contains("no such bot folder `sdk/pyton`; to run a command write `cmd:...`"),
        "{text}"
    );
    let no_manifest = cairn(&["play", "--game", "schotten-totten", "sdk", "sdk/js"]);
    assert_eq!(no_manifest.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_manifest.stderr).contains("has no cairn-bot.toml"));
}

#[test]
fn a_bot_that_forfeits_every_game_makes_the_exit_status_3_and_is_named() {
    let random = bundled("random");
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--no-sandbox",
        "--games",
        "2",
        "cmd:false",
        &random,
    ]);
    assert_eq!(output.status.code(), Some(3));
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(text.contains("`false` forfeited every game"), "{text}");
}

#[test]
fn quiet_hides_the_game_rows_and_the_summary_gives_wdl_elo_and_los() {
    let (greedy, random) = (bundled("schotten-totten-greedy"), bundled("random"));
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--no-sandbox",
        "--games",
        "6",
        "--quiet",
        &greedy,
        &random,
    ]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        !text.contains("forfeit:") && !text.contains(" seat "),
        "{text}"
    );
    let summary = text.lines().find(|l| l.contains(" vs ")).unwrap();
    assert!(summary.contains("6 games, W "), "{text}");
    assert!(text.contains("elo ") && text.contains("LOS "), "{text}");
}

#[test]
fn json_stats_over_mirrored_pairs_and_the_same_games_at_any_concurrency() {
    let (greedy, random) = (bundled("schotten-totten-greedy"), bundled("random"));
    let mut replays = Vec::new();
    for concurrency in ["1", "2"] {
        let path = temp_path(&format!("concurrency-{concurrency}.json"));
        let report = json_report(&[
            "play",
            "--game",
            "schotten-totten",
            "--no-sandbox",
            "--games",
            "8",
            "--mirror",
            "--seed",
            "4",
            "--json",
            "--concurrency",
            concurrency,
            "--replay",
            path.to_str().unwrap(),
            &greedy,
            &random,
        ]);
        let stats = &report["stats"];
        let (w, d, l) = (
            stats["wins"].as_u64().unwrap(),
            stats["draws"].as_u64().unwrap(),
            stats["losses"].as_u64().unwrap(),
        );
        assert_eq!(w + d + l, 8, "{stats}");
        let pairs: Vec<u64> = stats["pentanomial"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .collect();
        assert_eq!(pairs.iter().sum::<u64>(), 4, "{stats}");
        // Points over pairs match points over games.
        let pair_points: u64 = pairs.iter().enumerate().map(|(i, n)| i as u64 * n).sum();
        assert_eq!(pair_points, 2 * w + d, "{stats}");
        assert!(
            stats["los"].is_f64() && (stats["elo"].is_f64() || stats["elo"].is_string()),
            "{stats}"
        );
        // Decision times differ between runs; the play must not.
        let mut replay: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for game in replay["games"].as_array_mut().unwrap() {
            let game = game.as_object_mut().unwrap();
            let times = game.remove("cpu_us").unwrap();
            assert_eq!(
                times.as_array().unwrap().len(),
                game["actions"].as_array().unwrap().len()
            );
        }
        replays.push(replay);
        std::fs::remove_file(&path).unwrap();
    }
    assert_eq!(replays[0], replays[1]);
}

#[test]
fn three_seats_get_each_bots_mean_rank_and_score_with_intervals() {
    let (greedy, random) = (bundled("greedy"), bundled("random"));
    let report = json_report(&[
        "play",
        "--game",
        "bullfrogs",
        "--no-sandbox",
        "--games",
        "3",
        "--json",
        &random,
        &random,
        &greedy,
    ]);
    let bots = report["stats"]["bots"].as_array().unwrap();
    assert_eq!(bots.len(), 3);
    let ranks: f64 = bots.iter().map(|b| b["mean_rank"].as_f64().unwrap()).sum();
    // Every game hands out ranks 1, 2, 3 (or ties below them).
    assert!((3.0..=6.0 + 1e-9).contains(&ranks), "{bots:?}");
    assert!(bots
        .iter()
        .all(|b| b["mean_score_margin"].as_f64().unwrap() >= 0.0));
}

/// Plays an SPRT between two bundled bots and returns its JSON report.
fn sprt_match(first: &str, second: &str) -> Value {
    let (first, second) = (bundled(first), bundled(second));
    json_report(&[
        "play",
        "--game",
        "schotten-totten",
        "--no-sandbox",
        "--mirror",
        "--seed",
        "7",
        "--concurrency",
        "1",
        "--games",
        "400",
        "--json",
        "--quiet",
        "--sprt",
        "elo0=0",
        "elo1=200",
        "alpha=0.05",
        "beta=0.05",
        &first,
        &second,
    ])
}

#[test]
fn an_sprt_between_greedy_and_random_accepts_h1_and_the_reverse_h0_early() {
    let report = sprt_match("schotten-totten-greedy", "random");
    let sprt = &report["stats"]["sprt"];
    assert_eq!(sprt["accepted"], "H1", "{sprt}");
    assert!(sprt["llr"].as_f64().unwrap() >= sprt["upper_bound"].as_f64().unwrap());
    let played = report["games"].as_array().unwrap().len();
    assert!(played < 400 && played % 2 == 0, "{played}");

    let report = sprt_match("random", "schotten-totten-greedy");
    let sprt = &report["stats"]["sprt"];
    assert_eq!(sprt["accepted"], "H0", "{sprt}");
    assert!(sprt["llr"].as_f64().unwrap() <= sprt["lower_bound"].as_f64().unwrap());
    assert!(report["games"].as_array().unwrap().len() < 400);
}

#[test]
fn sprt_parameters_are_checked_before_any_game() {
    let (greedy, random) = (bundled("schotten-totten-greedy"), bundled("random"));
    let args = [
        "play",
        "--game",
        "schotten-totten",
        "--no-sandbox",
        "--sprt",
    ];
    for (sprt, expected) in [
        (vec!["elo0=10", "elo1=0"], "must be below"),
        (vec!["elo0=0", "elo1=10", "alpha=2"], "between 0 and 1"),
        (vec!["elo1=10"], "required"),
    ] {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(sprt);
        all.extend([greedy.as_str(), random.as_str()]);
        let output = cairn(&all);
        assert_eq!(output.status.code(), Some(2));
        let text = String::from_utf8_lossy(&output.stderr);
        assert!(text.contains(expected), "{text}");
    }
    let three = cairn(&[
        "play",
        "--game",
        "bullfrogs",
        "--no-sandbox",
        "--sprt",
        "elo0=0",
        "elo1=10",
        &greedy,
        &random,
        &random,
    ]);
    assert_eq!(three.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&three.stderr).contains("compares two bots"));
}

#[test]
fn two_bots_that_both_fail_to_start_draw_and_show_no_elo_difference() {
    // Issue 29: both seats forfeit at the same step, so neither wins a race
    // between two failures (it printed Elo +107.5).
    let output = cairn(&[
        "play",
        "--game",
        "schotten-totten",
        "--no-sandbox",
        "--games",
        "4",
        "--json",
        "cmd:false",
        "cmd:exit 3",
    ]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let stats = &report["stats"];
    assert_eq!(
        (&stats["wins"], &stats["draws"], &stats["losses"]),
        (&json!(0), &json!(4), &json!(0)),
        "{stats}"
    );
    assert_eq!(stats["elo"], json!(0.0), "{stats}");
}

#[test]
fn copies_of_a_deterministic_bot_score_alike_at_three_and_four_seats() {
    // Issue 29: with seat rotations only, the copy that always moved right
    // after the other came out 176.8 Elo ahead at four seats of Bullfrogs.
    let (first, random) = (bundled("first"), bundled("random"));
    for (bots, games) in [
        (vec![&first, &first, &random, &random], "96"),
        (vec![&first, &first, &random], "60"),
    ] {
        let mut args = vec![
            "play",
            "--game",
            "bullfrogs",
            "--no-sandbox",
            "--mirror",
            "--games",
            games,
            "--json",
        ];
        args.extend(bots.iter().map(|bot| bot.as_str()));
        let report = json_report(&args);
        let standings = report["stats"]["bots"].as_array().unwrap();
        // Each seat's points, whoever sat there: the seat bias, shown.
        let seats = report["stats"]["seats"].as_array().unwrap();
        assert_eq!(seats.len(), bots.len());
        assert!(seats.iter().all(|seat| seat["mean_points"].is_f64()));
        let score = |bot: usize| standings[bot]["mean_score"].as_f64().unwrap();
        let margin = |bot: usize| standings[bot]["mean_score_margin"].as_f64().unwrap();
        assert!(
            (score(0) - score(1)).abs() <= margin(0).max(margin(1)),
            "{} seats: copies at {} ±{} and {} ±{}",
            bots.len(),
            score(0),
            margin(0),
            score(1),
            margin(1)
        );
    }
}

#[test]
fn an_a_b_in_a_field_pairs_each_deal_and_decides_for_the_stronger_bot() {
    let (greedy, random, first) = (bundled("greedy"), bundled("random"), bundled("first"));
    // Seeded alike, the same bot as NEW and OLD replays every game: every
    // pair alike, a difference of 0 whose interval is not a point.
    let same = json_report(&[
        "play",
        "--game",
        "bullfrogs",
        "--no-sandbox",
        "--games",
        "120",
        "--json",
        "--ab",
        &random,
        &random,
        "--field",
        &first,
        &random,
    ]);
    let ab = &same["stats"];
    assert_eq!(
        (&ab["pairs"], &ab["same"], &ab["table_seats"]),
        (&json!(60), &json!(60), &json!(3)),
        "{ab}"
    );
    assert_eq!(ab["elo"], json!(0.0), "{ab}");
    assert!(
        ab["elo_low"].as_f64().unwrap() < -10.0 && ab["elo_high"].as_f64().unwrap() > 10.0,
        "{ab}"
    );
    // Each deal twice, the tested seat moving round.
    let games = same["games"].as_array().unwrap();
    assert_eq!(games.len(), 120);
    assert!(games
        .chunks(2)
        .all(|pair| pair[0]["seed"] == pair[1]["seed"]));
    let stronger = json_report(&[
        "play",
        "--game",
        "lords-of-scotland",
        "--no-sandbox",
        "--json",
        "--sprt",
        "elo0=0",
        "elo1=50",
        "--ab",
        &greedy,
        &random,
        "--field",
        &random,
        &random,
        &random,
    ]);
    let sprt = &stronger["stats"]["sprt"];
    assert_eq!(sprt["accepted"], json!("H1"), "{sprt}");
    assert!(
        stronger["stats"]["elo_low"].as_f64().unwrap() > 0.0,
        "{}",
        stronger["stats"]
    );
}

#[test]
fn an_a_b_names_its_field_with_field() {
    let output = cairn(&[
        "play",
        "--game",
        "bullfrogs",
        "--no-sandbox",
        "--ab",
        "cmd:true",
        "cmd:true",
        "cmd:true",
    ]);
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("--field"), "{said}");
}

/// Games per pairing cover a table's balanced seatings a whole number of
/// times: the help gives the count at every table size the arena plans.
#[test]
fn tournament_create_help_names_the_seatings_games_per_pairing_must_cover() {
    let output = cairn(&["tournament", "create", "--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(!help.contains("a multiple of --seats"), "{help}");
    for (seats, word) in [(2, "two"), (3, "three"), (4, "four"), (5, "five")] {
        let seatings = cairn_engine::seating::seatings_per_table(seats);
        assert!(
            help.contains(&format!("{seatings} at {word}")),
            "{seats}: {help}"
        );
    }
}

#[test]
fn serve_help_names_both_databases() {
    let output = cairn(&["--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    let serve = help
        .lines()
        .find(|line| line.trim_start().starts_with("serve"))
        .unwrap();
    assert!(
        serve.contains("SQLite") && serve.contains("PostgreSQL"),
        "{serve}"
    );
}
