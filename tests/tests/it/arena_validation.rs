//! A version is checked before it is rated, and a tournament sheds a
//! broken bot (issue 32), end to end: a real `cairn serve` that validates
//! new versions, real `cairn runner` processes, real bot processes.
//!
//! - a new version plays copies of itself on a runner before it may enter
//!   a tournament; its validation games are rated nowhere and listed
//!   nowhere;
//! - a version that hangs at hello and one that prints garbage fail their
//!   validation, each with its reason and stderr, and join nothing;
//! - a version that passes validation and breaks later is suspended from
//!   the tournament past its forfeit rate: its unplayed match dropped, no
//!   opponent charged, and the tournament finishes.

use std::path::{Path, PathBuf};
use std::process::Output;

use arena_support::{
    authorized, cairn, cairn_binary, create_round_robin, leaderboard, matches_with_games,
    register_owner, wait_for_progress, Arena,
};
use cairn_proto::arena::v1 as pb;

use crate::arena_support;

/// A bot folder named `name` running `command`, playing Schotten Totten
/// only (one validation table: two seats).
fn folder(arena: &Arena, name: &str, command: &[&str]) -> PathBuf {
    let folder = arena.folder.path().join("bots").join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let manifest =
        format!("name = \"{name}\"\ncommand = {command:?}\ngames = [\"schotten-totten\"]\n");
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    folder
}

/// A bundled bot's folder: `cairn` by its bare name, as runners list it.
fn bundled(arena: &Arena, name: &str, bot: &str) -> PathBuf {
    folder(arena, name, &["cairn", "bot-run", bot])
}

/// `cairn bot add FOLDER [--wait]`.
fn bot_add(arena: &Arena, token: &str, folder: &Path, wait: bool) -> Output {
    let mut args = vec![
        "bot",
        "add",
        folder.to_str().unwrap(),
        "--arena",
        &arena.address,
        "--token",
        token,
    ];
    if wait {
        args.push("--wait");
    }
    cairn(&args)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What `cairn tournament show ID` prints.
fn tournament_show(arena: &Arena, id: i64) -> String {
    stdout(&cairn(&[
        "tournament",
        "show",
        &id.to_string(),
        "--arena",
        &arena.address,
    ]))
}

async fn refusal(arena: &Arena, token: &str, bots: &[&str]) -> String {
    let request = pb::CreateTournamentRequest {
        game: "schotten-totten".into(),
        bots: bots.iter().map(|bot| bot.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing: 2,
        seed: 1,
        ..Default::default()
    };
    let refused = arena
        .client()
        .await
        .create_tournament(authorized(request, token))
        .await
        .expect_err("a version that is not ready is entered");
    refused.message().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_version_plays_its_validation_games_on_a_runner_before_it_may_enter() {
    let arena = Arena::start_validating();
    let token = register_owner(&arena, "ada").await;
    let greedy = bundled(&arena, "greedy", "greedy");
    let random = bundled(&arena, "random", "random");
    // No runner yet: the versions wait, and no tournament takes them.
    let added = bot_add(&arena, &token, &greedy, false);
    assert!(added.status.success(), "{added:?}");
    assert!(stdout(&added).contains("state: validating"), "{added:?}");
    assert!(bot_add(&arena, &token, &random, false).status.success());
    let said = refusal(&arena, &token, &["greedy", "random"]).await;
    assert!(said.contains("still validating"), "{said}");
    let _runner = arena.runner(10_000, 2);
    for folder in [&greedy, &random] {
        let waited = bot_add(&arena, &token, folder, true);
        assert!(waited.status.success(), "{waited:?}");
        assert!(stdout(&waited).contains("state: ready"), "{waited:?}");
    }
    let shown = stdout(&cairn(&[
        "bot",
        "show",
        "greedy",
        "--arena",
        &arena.address,
    ]));
    assert!(shown.contains("ready"), "{shown}");
    // Validation games are on no leaderboard and in no listing.
    assert!(leaderboard(&arena, "schotten-totten").await.rows.is_empty());
    let listed = arena
        .client()
        .await
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(listed.tournaments.is_empty(), "{listed:?}");
    // Shown by its id, a validation says what it is.
    let validation = tournament_show(&arena, 1);
    assert!(
        validation.contains("a bot version's validation"),
        "{validation}"
    );
    // Ready: they enter, play, and only the tournament's games are rated.
    let tournament = create_round_robin(&arena, &token, &["greedy", "random"], 2).await;
    let shown = tournament_show(&arena, tournament.id);
    assert!(!shown.contains("validation"), "{shown}");
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    let board = leaderboard(&arena, "schotten-totten").await;
    let rated: i64 = board.rows.iter().map(|row| row.games).sum();
    assert_eq!(rated, 2 * 2, "{board:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_that_hangs_at_hello_or_prints_garbage_fails_validation_with_its_reason() {
    let arena = Arena::start_validating();
    let token = register_owner(&arena, "eve").await;
    let hangs = folder(
        &arena,
        "hangs",
        &["sh", "-c", "echo waking up >&2; exec sleep 1000"],
    );
    let garbage = folder(
        &arena,
        "garbage",
        &[
            "sh",
            "-c",
            "echo my debug print >&2; echo hello there; exec cat",
        ],
    );
    let _runner = arena.runner(30_000, 2);
    for (folder, reason, stderr) in [
        (&garbage, "protocol_error", "my debug print"),
        (&hangs, "timeout", "waking up"),
    ] {
        let waited = bot_add(&arena, &token, folder, true);
        let said = stdout(&waited);
        assert!(!waited.status.success(), "{said}");
        assert!(said.contains("failed validation"), "{said}");
        assert!(said.contains("schotten-totten at 2 seats"), "{said}");
        assert!(said.contains(reason), "{said}");
        assert!(said.contains(stderr), "{said}");
        assert!(said.contains("cairn match show"), "{said}");
    }
    let shown = stdout(&cairn(&["bot", "show", "hangs", "--arena", &arena.address]));
    assert!(shown.contains("failed validation"), "{shown}");
    let said = refusal(&arena, &token, &["hangs", "garbage"]).await;
    assert!(said.contains("failed its validation"), "{said}");
    assert!(leaderboard(&arena, "schotten-totten").await.rows.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_that_breaks_after_validation_is_suspended_and_the_tournament_finishes() {
    let arena = Arena::start_validating();
    let token = register_owner(&arena, "ada").await;
    // Its first two processes (the validation match's two seats) play
    // well; every later one prints garbage.
    let lives = arena.folder.path().join("breaker-lives");
    std::fs::create_dir_all(&lives).unwrap();
    let script = format!(
        "if mkdir {lives}/1 2>/dev/null || mkdir {lives}/2 2>/dev/null; then exec {exe} bot-run greedy; fi; \
         echo broken now >&2; echo garbage; exec cat",
        lives = lives.display(),
        exe = cairn_binary().display()
    );
    let breaker = folder(&arena, "breaker", &["sh", "-c", &script]);
    let _runner = arena.runner(30_000, 1);
    let mut bots = vec![breaker];
    for name in ["greedy", "random", "first"] {
        bots.push(bundled(&arena, name, name));
    }
    for folder in &bots {
        let waited = bot_add(&arena, &token, folder, true);
        assert!(waited.status.success(), "{waited:?}");
    }
    // Six pairs of six games, each pair two matches of three (one per
    // seat rotation): the breaker sits in six. One match at a time: its
    // forfeit rate passes 20% at its tenth game, the first of its fourth
    // match, so its last two are dropped (36 games planned, 30 played).
    let tournament =
        create_round_robin(&arena, &token, &["breaker", "greedy", "random", "first"], 6).await;
    let progress = wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    assert_eq!((progress.matches_total, progress.games_total), (10, 30));
    let status = arena
        .client()
        .await
        .get_tournament(pb::GetTournamentRequest {
            tournament_id: tournament.id,
        })
        .await
        .unwrap()
        .into_inner();
    let [suspension] = status.suspensions.as_slice() else {
        panic!("one suspension: {status:?}");
    };
    let breaker_id = suspension.entry.as_ref().unwrap().bot_version_id;
    assert_eq!(suspension.entry.as_ref().unwrap().bot_name, "breaker");
    assert!(
        suspension.reason.contains("forfeited 10 of its 10 games"),
        "{suspension:?}"
    );
    // No opponent is charged: every forfeit is the breaker's.
    for summary in matches_with_games(&arena, tournament.id).await {
        for game in &summary.games {
            for seat in &game.result {
                if seat.bot_version_id != breaker_id {
                    assert!(seat.forfeit.is_none(), "{summary:?}");
                }
            }
        }
    }
    let shown = tournament_show(&arena, tournament.id);
    assert!(shown.contains("suspended:"), "{shown}");
    assert!(shown.contains("breaker@1: forfeited"), "{shown}");
}

#[test]
fn play_validate_passes_a_sound_bot_and_names_the_first_failure_of_a_noisy_one() {
    let arena_folder = tempfile::tempdir().unwrap();
    let write = |name: &str, command: &[&str]| {
        let folder = arena_folder.path().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let manifest =
            format!("name = \"{name}\"\ncommand = {command:?}\ngames = [\"schotten-totten\"]\n");
        std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
        folder
    };
    let exe = cairn_binary().display().to_string();
    let sound = write("sound", &[&exe, "bot-run", "greedy"]);
    let noisy = write(
        "noisy",
        &[
            "sh",
            "-c",
            "echo my debug print >&2; echo hello there; exec cat",
        ],
    );
    let validate = |folder: &Path| {
        cairn(&[
            "play",
            "--no-sandbox",
            "--validate",
            folder.to_str().unwrap(),
        ])
    };
    let passed = validate(&sound);
    let said = stdout(&passed);
    assert!(passed.status.success(), "{passed:?}");
    assert!(
        said.contains("ok   schotten-totten at 2 seats: 3 game(s)"),
        "{said}"
    );
    assert!(said.contains("valid: sound"), "{said}");
    let failed = validate(&noisy);
    let said = stdout(&failed);
    assert_eq!(failed.status.code(), Some(1), "{failed:?}");
    assert!(
        said.contains("FAIL schotten-totten at 2 seats, game 0"),
        "{said}"
    );
    assert!(said.contains("protocol_error"), "{said}");
    assert!(said.contains("my debug print"), "{said}");
}
