//! `cairn serve` as the README starts it: what it says on start, before
//! anyone connects.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

/// What `cairn serve` prints on stderr up to the line saying it listens.
fn start_lines(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path().join("arena.db"))
        .args(extra)
        .env_remove("CAIRN_ADMIN_TOKEN")
        .env_remove("CAIRN_RUNNER_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut listening = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut listening)
        .unwrap();
    assert!(listening.contains("listening on"), "{listening}");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    stderr
}

#[test]
fn an_arena_no_owner_can_join_says_so_and_names_both_flags() {
    let closed = start_lines(&[]);
    assert!(closed.contains("no owner can register"), "{closed}");
    assert!(
        closed.contains("--admin-token") && closed.contains("--open-registration"),
        "{closed}"
    );
    // The README's line with CAIRN_ADMIN_TOKEN unset passes an empty token.
    let empty = start_lines(&["--admin-token", ""]);
    assert!(empty.contains("no owner can register"), "{empty}");
    let with_token = start_lines(&["--admin-token", "an-admin-token-of-ours"]);
    assert!(
        !with_token.contains("no owner can register"),
        "{with_token}"
    );
    let open = start_lines(&["--open-registration"]);
    assert!(!open.contains("no owner can register"), "{open}");
}
