//! Tournaments end to end: a real `cairn serve`, real `cairn runner`
//! processes, real bot processes; runners and the arena killed with SIGKILL
//! mid-tournament; exact game counts afterwards.

use arena_support::*;
use cairn_proto::arena::v1 as pb;

use crate::arena_support;

const FOUR_BOTS: [&str; 4] = ["greedy", "random", "random-too", "first"];

async fn arena_with_four_bots() -> (Arena, String) {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    for (name, bundled) in
        FOUR_BOTS
            .iter()
            .zip(["schotten-totten-greedy", "random", "random", "first"])
    {
        add_bot(&arena, &token, name, bundled);
    }
    (arena, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_robin_of_four_bots_plays_exactly_the_planned_games_and_greedy_rates_above_random()
{
    let (arena, token) = arena_with_four_bots().await;
    // 6 pairs x 10 games.
    let tournament = create_round_robin(&arena, &token, &FOUR_BOTS, 10).await;
    let _runner = arena.runner(10_000, 2);
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    assert_complete_and_exact(&arena, &tournament, 60).await;
    let board = leaderboard(&arena, "schotten-totten").await;
    let position = |name: &str| {
        board
            .rows
            .iter()
            .find(|row| row.bot_name == name)
            .map(|row| row.position)
            .unwrap()
    };
    assert_eq!(position("greedy"), 1, "{board:?}");
    assert!(board.rows.iter().all(|row| row.forfeits == 0), "{board:?}");
    let ratings = cairn(&[
        "ratings",
        "--game",
        "schotten-totten",
        "--json",
        "--arena",
        &arena.address,
    ]);
    assert!(ratings.status.success());
    let json: serde_json::Value = serde_json::from_slice(&ratings.stdout).unwrap();
    assert_eq!(json["rows"][0]["bot"], "greedy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_killed_mid_tournament_loses_its_leases_and_another_runner_finishes_exactly() {
    let (arena, token) = arena_with_four_bots().await;
    let tournament = create_round_robin(&arena, &token, &FOUR_BOTS, 4).await;
    // A lease taken and never reported, as by a runner that died at once.
    let orphan = arena
        .runner_client()
        .await
        .lease_match(authorized(
            pb::LeaseMatchRequest { lease_ms: 500 },
            RUNNER_TOKEN,
        ))
        .await
        .unwrap()
        .into_inner()
        .lease;
    assert!(orphan.is_some());
    let mut doomed = arena.runner(600, 1);
    wait_for_progress(&arena, tournament.id, |p| p.matches_done >= 2).await;
    doomed.sigkill();
    let _survivor = arena.runner(600, 2);
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    assert_complete_and_exact(&arena, &tournament, 24).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_killed_mid_tournament_resumes_on_the_same_database_and_finishes_exactly() {
    let (mut arena, token) = arena_with_four_bots().await;
    let tournament = create_round_robin(&arena, &token, &FOUR_BOTS, 4).await;
    let mut runner = arena.runner(600, 1);
    wait_for_progress(&arena, tournament.id, |p| p.matches_done >= 2).await;
    arena.kill_and_restart();
    let progress = progress(&arena, tournament.id).await;
    assert!(
        progress.matches_done >= 2,
        "results written before the kill survive it: {progress:?}"
    );
    // The runner rides out the restart; a second one joins to show nothing depends on the first.
    let _another = arena.runner(600, 1);
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    runner.sigkill();
    assert_complete_and_exact(&arena, &tournament, 24).await;
}

#[test]
fn a_runner_stops_cleanly_on_ctrl_c() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let arena = Arena::start();
    let mut runner = Command::new(cairn_binary())
        .args([
            "runner",
            "--arena",
            &arena.address,
            "--token",
            RUNNER_TOKEN,
            "--no-sandbox",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(runner.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.starts_with("runner: connected"), "{line}");
    let interrupt = Command::new("kill")
        .args(["-INT", &runner.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupt.success());
    // Waits on the process's exit in a thread, so a hang fails under the deadline.
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut rest);
        let _ = sender.send((runner.wait().unwrap(), rest));
    });
    let (status, rest) = receiver
        .recv_timeout(DEADLINE)
        .expect("the runner exits after Ctrl-C");
    assert!(status.success(), "{status:?} {rest}");
    assert!(rest.contains("runner stopped"), "{rest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_build_command_runs_before_it_plays_and_each_artifact_is_cached_once_by_content_hash(
) {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "plain", "first");
    // This bot refuses to start unless its build step left `built.txt` behind.
    let folder = arena.folder.path().join("bots").join("built");
    std::fs::create_dir_all(&folder).unwrap();
    let command = format!(
        "test -f built.txt && exec {:?} bot-run random",
        cairn_binary().display().to_string()
    );
    let manifest = format!("name = \"built\"\nbuild = [\"sh\", \"-c\", \"echo ok > built.txt\"]\ncommand = [\"sh\", \"-c\", {command:?}]\n");
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    add_bot_folder(&arena, &token, &folder);
    let tournament = create_round_robin(&arena, &token, &["plain", "built"], 4).await;
    let _runner = arena.runner(10_000, 2);
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    assert_complete_and_exact(&arena, &tournament, 4).await;
    let board = leaderboard(&arena, "schotten-totten").await;
    assert!(board.rows.iter().all(|row| row.forfeits == 0), "{board:?}");
    let mut cached: Vec<String> = std::fs::read_dir(arena.folder.path().join("runner-cache"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    cached.sort();
    assert_eq!(cached.len(), 2, "{cached:?}");
    assert!(
        cached
            .iter()
            .all(|name| name.len() == 64 && name.chars().all(|c| c.is_ascii_hexdigit())),
        "{cached:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_on_the_runners_port_plays_a_tournament_and_that_port_serves_runner_calls_only() {
    let folder = tempfile::tempdir().unwrap();
    let (_process, line) = serve_line(
        &folder.path().join("arena.sqlite"),
        "127.0.0.1:0",
        &[
            "--open-registration",
            "--runner-listen",
            "127.0.0.1:0",
            // One thread for the public API, as on a 2-core machine.
            "--api-threads",
            "1",
        ],
    );
    let address_after = |label: &str| -> String {
        let (_, rest) = line.split_once(label).unwrap_or_else(|| panic!("{line:?}"));
        let address = rest.split([' ', ')', ';']).next().unwrap();
        assert!(address.starts_with("http://"), "{line:?}");
        address.to_string()
    };
    let arena = Arena {
        address: address_after("listening on "),
        process: _process,
        folder,
    };
    let runner_port = address_after("runners' port ");
    assert_ne!(runner_port, arena.address);

    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "first", "first");
    add_bot(&arena, &token, "random", "random");
    let tournament = create_round_robin(&arena, &token, &["first", "random"], 4).await;
    let _runner = runner_at(
        &runner_port,
        &arena.folder.path().join("runner-cache"),
        10_000,
        2,
    );
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    assert_complete_and_exact(&arena, &tournament, 4).await;

    // The public calls' threads yield the cores to the writes: they run
    // 10 lower (`--api-nice`'s default) than the arena's own thread, the
    // writer thread and SQLite's threads for the writes and the runners'
    // reads, which all started before them. (SQLite's threads for the
    // public reads start from the public threads, at their priority.)
    let threads = thread_nices(arena.process.0.id());
    let base = threads[0].1;
    let of = |name: &str| -> Vec<i32> {
        let nices = threads.iter().filter(|(comm, _)| comm == name);
        nices.map(|(_, nice)| *nice).collect()
    };
    // (Its blocking threads, if any started, share its name.)
    let api = of("cairn-api");
    assert!(
        !api.is_empty() && api.iter().all(|nice| *nice == base + 10),
        "{threads:?}"
    );
    assert_eq!(of("cairn-arena-wri"), [base], "{threads:?}");
    let sqlite = of("sqlx-sqlite-wor");
    assert!(
        sqlite.iter().filter(|nice| **nice == base).count() >= 2,
        "{threads:?}"
    );

    // Runner calls need their token there as anywhere; the owners' and
    // viewers' API is not served there at all.
    let channel = tonic::transport::Channel::from_shared(runner_port)
        .unwrap()
        .connect()
        .await
        .unwrap();
    let unauthenticated = pb::runner_service_client::RunnerServiceClient::new(channel.clone())
        .lease_match(pb::LeaseMatchRequest { lease_ms: 0 })
        .await
        .unwrap_err();
    assert_eq!(unauthenticated.code(), tonic::Code::Unauthenticated);
    let public = pb::arena_client::ArenaClient::new(channel)
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .unwrap_err();
    assert_eq!(public.code(), tonic::Code::Unimplemented, "{public:?}");
}

/// Each thread of process `pid` (the main thread first): its name, as Linux
/// shortens it to 15 bytes, and its niceness.
fn thread_nices(pid: u32) -> Vec<(String, i32)> {
    let mut threads: Vec<(u32, String, i32)> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
        .filter_map(|task| {
            let tid = task.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            let (head, rest) = stat.rsplit_once(") ")?;
            let comm = head.split_once(" (")?.1.to_string();
            let nice = rest.split_whitespace().nth(16)?.parse().ok()?;
            Some((tid, comm, nice))
        })
        .collect();
    threads.sort_by_key(|(tid, ..)| (*tid != pid, *tid));
    threads
        .into_iter()
        .map(|(_, comm, nice)| (comm, nice))
        .collect()
}
