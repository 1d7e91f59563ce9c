//! The shared runner token across restarts (issue 30, finding 6), with a
//! real `cairn serve` on one SQLite file: a new `--runner-token` replaces
//! the old one (which is refused from then on), and a start without a
//! token keeps the runner it has instead of adding one.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use arena_support::{authorized, cairn, cairn_binary, channel, Running};
use cairn_proto::arena::v1 as pb;
use pb::runner_service_client::RunnerServiceClient;

use crate::arena_support;

const FIRST: &str = "first-runner-token-0123456789";
const SECOND: &str = "second-runner-token-0123456789";

/// Starts `cairn serve` on `db` with `token_flags`; the process, its
/// address and the first line it says on stderr.
fn serve(db: &Path, token_flags: &[&str]) -> (Running, String, String) {
    let mut child = Command::new(cairn_binary())
        .args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--no-validation", "--open-registration"])
        .args(token_flags)
        .env_remove("CAIRN_RUNNER_TOKEN")
        .env_remove("CAIRN_ADMIN_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cairn serve starts");
    let mut address = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut address)
        .unwrap();
    let mut said = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut said)
        .unwrap();
    let address = address
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {address:?}"))
        .to_string();
    (Running(child), address, said)
}

/// The code a runner call with `token` is answered with.
async fn answer_to(address: &str, token: &str) -> tonic::Code {
    let mut runners = RunnerServiceClient::new(channel(address).await);
    let request = pb::LeaseMatchRequest { lease_ms: 1000 };
    match runners.lease_match(authorized(request, token)).await {
        Ok(_) => tonic::Code::Ok,
        Err(status) => status.code(),
    }
}

fn runners_listed(db: &Path) -> usize {
    let listed = cairn(&["runners", "list", "--db", db.to_str().unwrap(), "--json"]);
    assert!(listed.status.success(), "{listed:?}");
    String::from_utf8_lossy(&listed.stdout)
        .matches("\"name\"")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_with_a_new_runner_token_replaces_the_old_and_one_without_keeps_it() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("arena.sqlite");
    let (first, address, said) = serve(&db, &["--runner-token", FIRST]);
    assert!(!said.contains(FIRST), "a given token is not logged: {said}");
    assert_eq!(answer_to(&address, FIRST).await, tonic::Code::Ok);
    drop(first);
    let (second, address, said) = serve(&db, &["--runner-token", SECOND]);
    assert!(said.contains("runner token replaced"), "{said}");
    assert_eq!(answer_to(&address, SECOND).await, tonic::Code::Ok);
    assert_eq!(
        answer_to(&address, FIRST).await,
        tonic::Code::Unauthenticated
    );
    drop(second);
    for _ in 0..2 {
        let (without, address, said) = serve(&db, &[]);
        assert!(said.contains("--runner-token NEW"), "{said}");
        assert_eq!(answer_to(&address, SECOND).await, tonic::Code::Ok);
        drop(without);
    }
    assert_eq!(runners_listed(&db), 1, "a start added a runner");
}
