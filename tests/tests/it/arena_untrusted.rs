//! Untrusted submissions cannot hurt the arena (issue 9), end to end: a
//! real `cairn serve` on a temporary SQLite file, real `cairn runner`
//! processes, real bot processes.
//!
//! - finding 2: a bot whose build fails does not stop the runner; its
//!   version is marked broken, its games end with `build_failed` forfeits,
//!   and the tournament finishes.
//! - finding 3: a runner's report that does not follow from its replay
//!   (garbage replay, ranks [2, 2], scores of ±i64::MAX, a 3 MiB forfeit
//!   detail) is refused with INVALID_ARGUMENT and nothing is written.
//! - finding 5: a revoked runner is refused on its next call, its lease
//!   requeued; a lease belongs to its runner; `cairn serve` makes a runner
//!   token when given none.
//! - finding 6: every list is paginated with a bounded page.
//! - finding 8: a writer completes while a 100,000-game plan is written.
//! - registration: only with the admin token unless it is open.

use arena_support::*;
use cairn_arena::testkit::played_game_report;
use cairn_proto::arena::v1 as pb;
use tonic::Code;

use crate::arena_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_whose_build_fails_is_charged_and_the_runner_and_tournament_go_on() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "good", "first");
    add_bot(&arena, &token, "also-good", "random");
    let folder = bot_folder(arena.folder.path(), "unbuildable", "first");
    let manifest = std::fs::read_to_string(folder.join("cairn-bot.toml")).unwrap();
    std::fs::write(
        folder.join("cairn-bot.toml"),
        format!("{manifest}build = [\"sh\", \"-c\", \"echo cannot compile >&2; false\"]\n"),
    )
    .unwrap();
    add_bot_folder(&arena, &token, &folder);
    let tournament =
        create_round_robin(&arena, &token, &["good", "unbuildable", "also-good"], 2).await;
    let mut runner = arena.runner(10_000, 1);
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    assert_complete_and_exact(&arena, &tournament, 6).await;
    // Issue 36: the broken version is not rated; the one match it did not
    // sit in is.
    let board = leaderboard(&arena, &tournament.game).await;
    let rated: Vec<&str> = board.rows.iter().map(|row| row.bot_name.as_str()).collect();
    assert_eq!(rated.len(), 2, "{rated:?}");
    assert!(!rated.contains(&"unbuildable"), "{rated:?}");
    // The runner is still there, ready for the next match.
    assert!(runner.0.try_wait().unwrap().is_none(), "the runner exited");
    let shown = arena
        .client()
        .await
        .show_bot(pb::ShowBotRequest {
            name: "unbuildable".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(shown.versions[0].broken);
    assert!(
        shown.versions[0].build_log.contains("cannot compile"),
        "{shown:?}"
    );
    let broken_id = shown.versions[0].id;
    let matches = matches_with_games(&arena, tournament.id).await;
    for game in matches.iter().flat_map(|m| &m.games) {
        for seat in &game.result {
            let forfeit = seat.forfeit.as_ref().map(|f| f.reason);
            if seat.bot_version_id == broken_id {
                assert_eq!(forfeit, Some(pb::ForfeitReason::BuildFailed as i32));
                assert_eq!(seat.rank, 2);
            } else {
                assert_eq!(forfeit, None);
            }
        }
    }
    // A game never played has its result but no replay: `match show` says
    // so, the board viewer refuses it with the reason.
    let unplayed = matches
        .iter()
        .flat_map(|m| &m.games)
        .find(|game| {
            game.result
                .iter()
                .any(|seat| seat.bot_version_id == broken_id)
        })
        .unwrap();
    let id = unplayed.game_id.to_string();
    let shown = cairn(&["match", "show", &id, "--arena", &arena.address]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{shown:?}");
    assert!(
        text.contains("no replay: it was never played") && text.contains("build_failed"),
        "{text}"
    );
    assert!(text.contains("unbuildable@1"), "seats named: {text}");
    let board = cairn(&["match", "show", &id, "--at", "1", "--arena", &arena.address]);
    let refused = String::from_utf8_lossy(&board.stderr);
    assert!(!board.status.success(), "{refused}");
    assert!(refused.contains("has no replay to show"), "{refused}");
    let cache = arena.folder.path().join("runner-cache");
    let partial: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".partial"))
        .collect();
    assert!(partial.is_empty(), "{partial:?}");
    runner.sigkill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_that_do_not_follow_from_their_replay_are_refused_and_write_nothing() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "a", "first");
    add_bot(&arena, &token, "b", "first");
    let tournament = create_round_robin(&arena, &token, &["a", "b"], 2).await;
    let mut runners = arena.runner_client().await;
    let lease = lease_one(&mut runners, 60_000, RUNNER_TOKEN).await;
    let planned = planned_game(&lease, 0);
    let honest = played_game_report(&planned);
    let to_wire = |report: &cairn_arena::store::GameReport| report_to_wire(&lease, report);

    let mut attacks: Vec<(&str, pb::ReportGameRequest)> = Vec::new();
    let mut garbage = to_wire(&honest);
    garbage.game.as_mut().unwrap().replay =
        b"{\"format\":\"cairn-replay-1\",\"games\":[{}]}".to_vec();
    attacks.push(("garbage replay", garbage));
    let mut tied = to_wire(&honest);
    for seat in &mut tied.game.as_mut().unwrap().seats {
        seat.rank = 2;
    }
    attacks.push(("ranks [2, 2]", tied));
    for extreme in [i64::MAX, -i64::MAX] {
        let mut scored = to_wire(&honest);
        scored.game.as_mut().unwrap().seats[0].score = extreme;
        attacks.push(("an extreme score", scored));
    }
    let mut detailed = to_wire(&honest);
    detailed.game.as_mut().unwrap().seats[1].forfeit = Some(pb::Forfeit {
        reason: pb::ForfeitReason::Crash as i32,
        detail: "x".repeat(3 << 20),
    });
    attacks.push(("a 3 MiB forfeit detail", detailed));
    for (what, attack) in attacks {
        let refused = runners
            .report_game(authorized(attack, RUNNER_TOKEN))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{what}: {refused:?}");
    }
    let progress = progress(&arena, tournament.id).await;
    assert_eq!(progress.games_done, 0, "a refused report wrote something");
    // The honest report of the same game is taken.
    let taken = runners
        .report_game(authorized(to_wire(&honest), RUNNER_TOKEN))
        .await
        .unwrap()
        .into_inner();
    assert!(!taken.already_recorded);
}

/// `cairn runners add NAME --db` on the arena's database; the new token.
fn add_runner(arena: &Arena, name: &str) -> String {
    let output = cairn(&[
        "runners",
        "add",
        name,
        "--db",
        arena.db().to_str().unwrap(),
        "--json",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    answer["token"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_runner_is_refused_on_its_next_call_and_its_lease_requeued() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "a", "first");
    add_bot(&arena, &token, "b", "first");
    create_round_robin(&arena, &token, &["a", "b"], 2).await;
    let box_9 = add_runner(&arena, "box-9");
    let mut runners = arena.runner_client().await;
    let lease = lease_one(&mut runners, 600_000, &box_9).await;
    // Another runner cannot keep box-9's lease alive.
    let heartbeat = pb::HeartbeatRequest {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        lease_ms: 600_000,
    };
    let foreign = runners
        .heartbeat(authorized(heartbeat, RUNNER_TOKEN))
        .await
        .unwrap_err();
    assert_eq!(foreign.code(), Code::FailedPrecondition);
    let revoked = cairn(&[
        "runners",
        "revoke",
        "box-9",
        "--db",
        arena.db().to_str().unwrap(),
    ]);
    assert!(
        revoked.status.success(),
        "{}",
        String::from_utf8_lossy(&revoked.stderr)
    );
    let refused = runners
        .heartbeat(authorized(heartbeat, &box_9))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    // Its match is back in the queue at once, long before its lease would end.
    let retaken = lease_one(&mut runners, 60_000, RUNNER_TOKEN).await;
    assert_eq!(retaken.match_id, lease.match_id);
    // A runner process with the revoked token stops with the token error.
    let output = std::process::Command::new(cairn_binary())
        .args([
            "runner",
            "--arena",
            &arena.address,
            "--token",
            &box_9,
            "--no-sandbox",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("token"));
    let listed = cairn(&[
        "runners",
        "list",
        "--db",
        arena.db().to_str().unwrap(),
        "--json",
    ]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let box_9_row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "box-9")
        .unwrap();
    assert!(box_9_row["revoked_at_ms"].is_i64());
}

#[test]
fn serve_without_a_runner_token_makes_one_and_a_short_one_leaves_no_database() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("arena.sqlite");
    let refused = cairn(&[
        "serve",
        "--db",
        db.to_str().unwrap(),
        "--runner-token",
        "short",
    ]);
    assert!(!refused.status.success());
    assert!(!db.exists(), "a refused start left a database");
    // An address already taken: nothing is written, no runner token made.
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = holder.local_addr().unwrap().to_string();
    let refused = cairn(&[
        "serve",
        "--db",
        db.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--http",
        &taken,
    ]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && said.contains("cannot listen"),
        "{said}"
    );
    assert!(!said.contains("runner token"), "{said}");
    assert!(
        !db.exists(),
        "a start that could not listen left a database"
    );
    let mut serve = std::process::Command::new(cairn_binary())
        .args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--runner-token",
            "",
        ])
        .env_remove("CAIRN_RUNNER_TOKEN")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(serve.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(line.starts_with("runner token"), "{line}");
    assert!(
        line.trim_end().rsplit(' ').next().unwrap().len() >= 16,
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_list_is_paginated_with_a_bounded_page() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    let names = ["a", "b", "c", "d", "e"];
    for name in names {
        add_bot(&arena, &token, name, "first");
    }
    // 10 pairs x 2 seatings: 20 matches.
    let tournament = create_round_robin(&arena, &token, &names, 2).await;
    let mut client = arena.client().await;
    let (mut seen, mut page_token) = (Vec::new(), String::new());
    loop {
        let page = client
            .list_matches(pb::ListMatchesRequest {
                tournament_id: tournament.id,
                page_size: 6,
                page_token,
                with_games: false,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.matches.len() <= 6);
        seen.extend(page.matches.iter().map(|m| m.match_index));
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    assert_eq!(seen, (0..20).collect::<Vec<i64>>());
    let huge = client
        .list_matches(pb::ListMatchesRequest {
            tournament_id: tournament.id,
            page_size: u32::MAX,
            page_token: String::new(),
            with_games: false,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (huge.matches.len(), huge.next_page_token.as_str()),
        (20, "")
    );
    let first_two = client
        .list_bots(pb::ListBotsRequest {
            page_size: 2,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first_two.bots.len(), 2);
    assert_eq!(first_two.next_page_token, "b");
    let forged = client
        .list_tournaments(pb::ListTournamentsRequest {
            page_size: 1,
            page_token: "not a token".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(forged.code(), Code::InvalidArgument);
    // The CLI reads every page.
    let listed = cairn(&[
        "match",
        "list",
        &tournament.id.to_string(),
        "--arena",
        &arena.address,
        "--json",
    ]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 20);
}

/// The newest tournament's games written so far (0 before it exists).
async fn games_written(arena: &Arena) -> i64 {
    let listed = arena
        .client()
        .await
        .list_tournaments(pb::ListTournamentsRequest {
            page_size: 1,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    listed
        .tournaments
        .first()
        .and_then(|status| status.progress)
        .map_or(0, |progress| progress.games_total)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_completes_while_a_100_000_game_tournament_is_being_planned() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "a", "first");
    add_bot(&arena, &token, "b", "first");
    let planning = {
        let request = pb::CreateTournamentRequest {
            game: "schotten-totten".into(),
            bots: vec!["a".into(), "b".into()],
            seats_per_game: 2,
            games_per_pairing: 100_000,
            seed: 7,
            ..Default::default()
        };
        let mut client = arena.client().await;
        let token = token.clone();
        tokio::spawn(async move { client.create_tournament(authorized(request, &token)).await })
    };
    let mut runners = arena.runner_client().await;
    // A heartbeat takes the write lock (and is refused: no such lease). One
    // that completes between two readings of a half-written plan proves the
    // plan does not hold the lock: a plan written in one transaction is
    // never seen half-written.
    let mut proofs = 0;
    loop {
        let before = games_written(&arena).await;
        let heartbeat = pb::HeartbeatRequest {
            match_id: 1,
            lease_generation: 1,
            lease_ms: 1_000,
        };
        // Refused inside its write transaction: no such match yet, or not held.
        let answer = runners.heartbeat(authorized(heartbeat, RUNNER_TOKEN)).await;
        let code = answer.unwrap_err().code();
        assert!(
            matches!(code, Code::NotFound | Code::FailedPrecondition),
            "{code:?}"
        );
        let after = games_written(&arena).await;
        if before > 0 && after < 100_000 {
            proofs += 1;
        }
        if after == 100_000 || planning.is_finished() {
            break;
        }
    }
    let tournament = planning.await.unwrap().unwrap().into_inner();
    assert!(
        proofs > 0,
        "no writer completed while the plan was half written"
    );
    let progress = progress(&arena, tournament.id).await;
    assert_eq!(
        (progress.games_total, progress.matches_queued),
        (100_000, 2)
    );
}

#[test]
fn owners_register_only_with_the_admin_token_unless_registration_is_open() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("arena.sqlite");
    let register = |address: &str, admin: Option<&str>| {
        let mut args = vec!["owner", "register", "ada", "--arena", address];
        if let Some(admin) = admin {
            args.extend(["--admin-token", admin]);
        }
        cairn(&args)
    };
    let (mut closed, address) = serve_with(&db, "127.0.0.1:0", &[]);
    let refused = register(&address, None);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("registers no owners"));
    closed.sigkill();
    let admin = "admin-token-0123456789abcdef";
    let (mut guarded, address) = serve_with(&db, "127.0.0.1:0", &["--admin-token", admin]);
    assert!(!register(&address, None).status.success());
    assert!(!register(&address, Some("a-guess-at-the-token"))
        .status
        .success());
    let taken = register(&address, Some(admin));
    assert!(
        taken.status.success(),
        "{}",
        String::from_utf8_lossy(&taken.stderr)
    );
    guarded.sigkill();
}
