//! A hostile build on a real runner, sandbox on (issue 9, finding 1): the
//! build tries to reach a listener the test opens on the loopback, to write
//! outside its output folder and to read the runner's token (in the
//! runner's environment and on its command line); each attempt fails, the
//! build still succeeds with what it may do, and the tournament finishes.

use std::net::TcpListener;
use std::process::{Command, Stdio};

use arena_support::{
    add_bot, add_bot_folder, cairn_binary, create_round_robin, register_owner, wait_for_progress,
    Arena, Running, RUNNER_TOKEN,
};
use cairn_proto::arena::v1 as pb;
use cairn_tests::files_holding;

use crate::arena_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_build_on_a_real_runner_is_sandboxed_and_the_tournament_finishes() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let outside = tempfile::tempdir().unwrap();
    let escape = outside.path().join("escape.txt");
    let arena = Arena::start();
    let token = register_owner(&arena, "eve").await;
    add_bot(&arena, &token, "plain", "first");
    let folder = arena.folder.path().join("bots").join("hostile-build");
    std::fs::create_dir_all(&folder).unwrap();
    let build = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1)\" && echo connected >> seen.txt; \
         echo pwned > {escape} && echo wrote >> seen.txt; \
         env >> seen.txt; cat /proc/1/environ /proc/1/cmdline >> seen.txt 2>&1; true",
        escape = escape.display()
    );
    // The bot itself is the bundled random bot (the sandbox shows the
    // runner's own `cairn` binary's folder because it is the command).
    let manifest = format!(
        "name = \"hostile-build\"\nbuild = [\"sh\", \"-c\", {build:?}]\ncommand = [\"cairn\", \"bot-run\", \"random\"]\n"
    );
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    add_bot_folder(&arena, &token, &folder);
    let tournament = create_round_robin(&arena, &token, &["plain", "hostile-build"], 2).await;
    let cache = arena.folder.path().join("sandboxed-runner-cache");
    // The sandboxed runner, its token on its command line and in its environment.
    let _runner = Running(
        Command::new(cairn_binary())
            .args(["runner", "--arena", &arena.address, "--token", RUNNER_TOKEN])
            .args(["--poll-ms", "50", "--lease-ms", "10000", "--jobs", "1"])
            .arg("--cache")
            .arg(&cache)
            .env("CAIRN_RUNNER_TOKEN", RUNNER_TOKEN)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cairn runner starts"),
    );
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    let seen = files_holding(&cache, "PATH=");
    assert_eq!(seen.len(), 1, "the build ran once: {seen:?}");
    let text = std::fs::read_to_string(&seen[0]).unwrap();
    assert!(
        !text.contains("connected") && !text.contains("wrote"),
        "{text}"
    );
    assert!(listener.accept().is_err(), "nothing reached the listener");
    assert!(!escape.exists(), "nothing was written outside");
    assert!(files_holding(&cache, RUNNER_TOKEN).is_empty(), "{text}");
    assert!(files_holding(&cache, "CAIRN_").is_empty(), "{text}");
}

/// A build that never ends holds its lease with heartbeats until its time
/// limit kills it; the failure is reported under that lease, so the bot
/// version is broken once and its matches end, rather than each new lease
/// building it again (attack finding: the lease expired mid-build).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_that_hangs_breaks_its_version_under_a_lease_kept_alive() {
    let arena = Arena::start();
    let token = register_owner(&arena, "eve").await;
    add_bot(&arena, &token, "plain", "first");
    let folder = arena.folder.path().join("bots").join("hanging-build");
    std::fs::create_dir_all(&folder).unwrap();
    let manifest = "name = \"hanging-build\"\nbuild = [\"sh\", \"-c\", \"trap '' TERM; while true; do sleep 1; done\"]\ncommand = [\"cairn\", \"bot-run\", \"random\"]\n";
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    add_bot_folder(&arena, &token, &folder);
    let tournament = create_round_robin(&arena, &token, &["plain", "hanging-build"], 2).await;
    // The lease is shorter than the build's limit: only heartbeats during
    // the build keep it.
    let _runner = Running(
        Command::new(cairn_binary())
            .args(["runner", "--arena", &arena.address, "--token", RUNNER_TOKEN])
            .args(["--poll-ms", "50", "--lease-ms", "900", "--jobs", "1"])
            .args(["--build-wall-s", "3"])
            .arg("--cache")
            .arg(arena.folder.path().join("hanging-cache"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cairn runner starts"),
    );
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    let shown = arena
        .client()
        .await
        .show_bot(pb::ShowBotRequest {
            name: "hanging-build".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(shown.versions[0].broken, "{shown:?}");
    assert!(
        shown.versions[0].build_log.contains("wall-clock"),
        "{shown:?}"
    );
}
