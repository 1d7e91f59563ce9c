//! Every hostile act of issue 5 played through the sandboxed match loop.
//!
//! Acts the sandbox stops (4 GiB, a fork bomb, a 200 MiB file, a 100 MiB
//! line, a closed stdout) forfeit the game with the right reason. Acts the
//! sandbox simply denies (sockets to loopback, writes to /etc, reading the
//! other bot's folder, opening 5,000 files, writing past the file size
//! limit where the bot survives that, signalling or ptracing the parent or
//! the runner) are tried by `bots/prober.py`, which answers an
//! illegal action if the act got through: a game it finishes without a
//! forfeit proves the denial. Each match has two games, so the runner goes
//! on after the act, and afterwards no process carrying the bot's marker is
//! left. These tests need root and every sandbox layer (as CI has), and
//! fail loudly, naming the missing layers, without them.

use std::io::ErrorKind;
use std::path::Path;

use cairn_engine::forfeit::{EndedBy, ForfeitReason};
use cairn_proto::record::ReplayFile;
use cairn_runner::sandbox::{Limits, Sandbox};
use cairn_runner::{play_match, BotEntry, MatchResult, SandboxLauncher};
use cairn_tests::{
    bot, hostile_bot, process_with_marker_exists, python_bot, schotten_totten, workspace_root,
};

fn full_sandbox() -> SandboxLauncher {
    let missing: Vec<String> = Sandbox::shared()
        .layers()
        .into_iter()
        .filter(|layer| !layer.active)
        .map(|layer| layer.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "these tests need the full sandbox (root); unavailable layers:\n{}",
        missing.join("\n")
    );
    SandboxLauncher::new(Limits::default())
}

/// A command-line word unique to one test's bot, to find its processes.
fn marker(name: &str) -> String {
    format!("cairn-sandboxed-{name}-{}", std::process::id())
}

/// Two games of Schotten Totten, `hostile` (bot 0) against a random bot,
/// in the sandbox; checks that both games were refereed, the replay
/// re-simulates and nothing carrying `marker` is left.
fn sandboxed_match(hostile: BotEntry, marker: &str) -> MatchResult {
    let spec = schotten_totten(
        &[],
        2,
        3,
        vec![hostile, python_bot("random", "random_bot.py")],
    );
    let result = play_match(&spec, &full_sandbox()).expect("the runner survives any bot");
    assert_eq!(result.games.len(), 2, "the runner plays on after the act");
    ReplayFile::new(result.games.iter().map(|g| g.record.clone()).collect())
        .verify()
        .expect("the replay re-simulates");
    assert!(
        !process_with_marker_exists(marker),
        "a process of the bot outlived the match"
    );
    result
}

/// Plays `mode` of `hostile.py` and checks that it forfeits both games with
/// `reason`, its opponent winning; returns the first forfeit's detail.
fn forfeit_in_sandbox(mode: &str, reason: ForfeitReason) -> String {
    let marker = marker(mode);
    let result = sandboxed_match(hostile_bot("hostile.py", &[mode, &marker]), &marker);
    let mut details = Vec::new();
    for game in &result.games {
        assert_eq!(game.record.score.ended_by, EndedBy::Forfeit, "{mode}");
        let hostile = game
            .seats
            .iter()
            .find(|s| s.bot == 0)
            .expect("bot 0 has a seat");
        let forfeit = hostile
            .forfeit
            .as_ref()
            .unwrap_or_else(|| panic!("{mode} did not forfeit: {:?}", result.stderr));
        assert_eq!(forfeit.reason, reason, "{mode}: {}", forfeit.detail);
        assert_eq!(hostile.rank, 2, "{mode}: the opponent wins");
        details.push(forfeit.detail.clone());
    }
    details.swap_remove(0)
}

/// Plays `prober.py` trying `probe`, and checks that it was denied: the
/// prober finished both games without a forfeit and says so on stderr.
/// Returns the prober's stderr.
fn denied_in_sandbox(probe: &str, argument: &str) -> String {
    let marker = marker(probe);
    let prober = bot(
        "prober",
        &workspace_root().join("tests/bots"),
        &["python3", "prober.py", probe, &marker, argument],
    );
    let result = sandboxed_match(prober, &marker);
    let stderr = result.stderr[0].to_string();
    for game in &result.games {
        assert_eq!(
            game.record.score.ended_by,
            EndedBy::Finished,
            "{probe}: {stderr}"
        );
        assert!(
            game.seats.iter().all(|s| s.forfeit.is_none()),
            "{probe} got through: {stderr}"
        );
    }
    assert!(
        stderr.contains(&format!("probe {probe}: denied")),
        "{stderr}"
    );
    stderr
}

#[test]
fn allocating_four_gib_forfeits_on_the_memory_limit() {
    let detail = forfeit_in_sandbox("memory-4gib", ForfeitReason::ResourceLimit);
    assert_eq!(detail, "broke the memory limit of 512 MiB");
}

#[test]
fn a_fork_bomb_forfeits_on_the_process_limit_and_no_child_is_left() {
    let detail = forfeit_in_sandbox("fork-bomb", ForfeitReason::ResourceLimit);
    assert_eq!(
        detail,
        "broke the processes limit of 64 processes and threads"
    );
}

#[test]
fn writing_a_200_mib_file_forfeits_on_the_file_size_limit() {
    let detail = forfeit_in_sandbox("big-file", ForfeitReason::ResourceLimit);
    assert_eq!(detail, "broke the file_size limit of 16 MiB");
}

#[test]
fn a_python_bot_writing_a_200_mib_file_is_refused_past_the_limit_and_plays_on() {
    let stderr = denied_in_sandbox("big-file", "");
    assert!(stderr.contains("EFBIG"), "{stderr}");
}

#[test]
fn a_100_mib_line_is_a_protocol_error_in_the_sandbox() {
    let detail = forfeit_in_sandbox("long-line", ForfeitReason::ProtocolError);
    assert!(detail.contains("longer than"), "{detail}");
}

#[test]
fn closing_stdout_in_the_sandbox_forfeits_with_exit() {
    let detail = forfeit_in_sandbox("close-stdout", ForfeitReason::Exit);
    assert!(detail.contains("closed its stdout"), "{detail}");
}

#[test]
fn tcp_to_a_loopback_listener_of_the_host_is_denied_and_nothing_arrives() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("host listener");
    listener.set_nonblocking(true).expect("non-blocking");
    let port = listener.local_addr().expect("address").port().to_string();
    denied_in_sandbox("tcp", &port);
    let accepted = listener.accept().map(|(_, peer)| peer);
    assert_eq!(
        accepted.map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "a bot connected"
    );
}

#[test]
fn udp_to_a_loopback_socket_of_the_host_is_denied_and_nothing_arrives() {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").expect("host socket");
    socket.set_nonblocking(true).expect("non-blocking");
    let port = socket.local_addr().expect("address").port().to_string();
    denied_in_sandbox("udp", &port);
    let received = socket.recv(&mut [0; 64]);
    assert_eq!(
        received.map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "a datagram arrived"
    );
}

#[test]
fn writing_to_etc_is_denied() {
    denied_in_sandbox("write-etc", "");
    assert!(!Path::new(&format!("/etc/cairn-probe-{}", marker("write-etc"))).exists());
}

#[test]
fn reading_the_other_bots_folder_is_denied() {
    // The opponent's program, which is there on the host.
    let other = workspace_root().join("sdk/python/random_bot.py");
    assert!(other.is_file());
    denied_in_sandbox("read-other", other.to_str().expect("utf-8 path"));
}

#[test]
fn opening_5000_files_is_stopped_at_the_open_files_limit() {
    let stderr = denied_in_sandbox("open-files", "");
    assert!(stderr.contains("EMFILE"), "{stderr}");
    let opened: usize = stderr
        .split("stopped after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no count in {stderr}"));
    assert!(opened < 256, "{opened} files under a limit of 256");
}

#[test]
fn signalling_the_parent_or_the_runner_is_denied() {
    denied_in_sandbox("signal-parent", &std::process::id().to_string());
}

#[test]
fn ptracing_the_parent_or_the_runner_is_denied() {
    denied_in_sandbox("ptrace-parent", &std::process::id().to_string());
}
