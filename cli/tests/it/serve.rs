//! `cairn serve` as the README starts it: what it says on start, before
//! anyone connects.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

/// What `cairn serve` prints on stderr up to the line saying it listens.
fn start_lines(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    start_lines_with(&dir.path().join("arena.db"), extra).1
}

/// The line saying `cairn serve` listens, on the SQLite file `db`.
fn start_lines_on(db: &std::path::Path) -> String {
    start_lines_with(db, &[]).0
}

/// `cairn serve` on `db` until it listens: its first stdout line and what
/// it printed on stderr.
fn start_lines_with(db: &std::path::Path, extra: &[&str]) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(db)
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
    (listening, stderr)
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

#[test]
fn a_second_arena_on_one_sqlite_file_is_refused_and_one_off_commands_still_open_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("arena.db");
    let cairn = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cairn"));
        command
            .env_remove("CAIRN_ADMIN_TOKEN")
            .env_remove("CAIRN_RUNNER_TOKEN");
        command
    };
    let mut first = cairn()
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut listening = String::new();
    BufReader::new(first.stdout.take().unwrap())
        .read_line(&mut listening)
        .unwrap();
    assert!(listening.contains("listening on"), "{listening}");
    let second = cairn()
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let added = cairn()
        .args(["runners", "add", "extra", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("another arena process serves") && stderr.contains("PostgreSQL"),
        "{stderr}"
    );
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    // Once the first has stopped, the file is free again.
    let third = start_lines_on(&db);
    assert!(third.contains("listening on"), "{third}");
}
