//! The architecture invariants of ARCHITECTURE.md, checked over `cargo
//! metadata` (resolved for this machine's platform, offline: everything it
//! needs was fetched to build these tests).
//! - the engine depends, even transitively, on no async, network, process
//!   or database crate;
//! - nothing depends on `cairn-cli` or `cairn-tests`;
//! - only `cairn-runner` depends directly on process and sandbox crates;
//! - only `cairn-arena` depends on sqlx, and the runner does not depend on
//!   the arena (it talks to it over gRPC only).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Crates that mean async, network, processes or a database.
const ENGINE_FORBIDDEN: &[&str] = &[
    "tokio",
    "futures",
    "futures-util",
    "async-trait",
    "mio",
    "hyper",
    "h2",
    "tonic",
    "reqwest",
    "socket2",
    "sqlx",
    "sqlx-core",
    "libsqlite3-sys",
    "rusqlite",
    "nix",
    "libc",
    "landlock",
    "seccompiler",
];
/// Crates for starting and confining processes.
const PROCESS_CRATES: &[&str] = &["nix", "landlock", "seccompiler", "libc"];

/// The resolved graph: package name to the names of its normal and build
/// dependencies (dev-dependencies do not ship), for every package.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
    members: BTreeSet<String>,
}

fn graph() -> Graph {
    let rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: ").map(str::to_string))
        .expect("rustc names its host");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--offline",
            "--filter-platform",
            &host,
        ])
        .current_dir(cairn_tests::workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let members = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| names[id.as_str().unwrap()].to_string())
        .collect();
    let mut edges = BTreeMap::new();
    for node in metadata["resolve"]["nodes"].as_array().unwrap() {
        let shipped = |dep: &&Value| {
            dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|kind| kind["kind"].as_str() != Some("dev"))
        };
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(shipped)
            .map(|dep| names[dep["pkg"].as_str().unwrap()].to_string())
            .collect();
        edges.insert(names[node["id"].as_str().unwrap()].to_string(), deps);
    }
    Graph { edges, members }
}

impl Graph {
    fn direct(&self, package: &str) -> &BTreeSet<String> {
        &self.edges[package]
    }

    fn transitive(&self, package: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![package.to_string()];
        while let Some(next) = todo.pop() {
            for dep in &self.edges[&next] {
                if seen.insert(dep.clone()) {
                    todo.push(dep.clone());
                }
            }
        }
        seen
    }

    /// Workspace members depending directly on any of `crates`.
    fn members_using(&self, crates: &[&str]) -> BTreeSet<String> {
        self.members
            .iter()
            .filter(|member| {
                self.direct(member)
                    .iter()
                    .any(|dep| crates.contains(&dep.as_str()))
            })
            .cloned()
            .collect()
    }
}

#[test]
fn the_engine_depends_on_no_async_network_process_or_database_crate() {
    let graph = graph();
    let forbidden: Vec<String> = graph
        .transitive("cairn-engine")
        .into_iter()
        .filter(|dep| ENGINE_FORBIDDEN.contains(&dep.as_str()))
        .collect();
    assert!(forbidden.is_empty(), "cairn-engine pulls in {forbidden:?}");
}

#[test]
fn nothing_depends_on_the_cli_or_the_tests() {
    let graph = graph();
    for (package, deps) in &graph.edges {
        assert!(
            !deps.contains("cairn-cli") && !deps.contains("cairn-tests"),
            "{package} depends on the cli or the tests"
        );
    }
}

#[test]
fn only_the_runner_uses_process_and_sandbox_crates() {
    assert_eq!(
        graph().members_using(PROCESS_CRATES),
        BTreeSet::from(["cairn-runner".to_string()])
    );
}

#[test]
fn only_the_arena_touches_sql_and_the_runner_knows_the_arena_only_by_its_api() {
    let graph = graph();
    assert_eq!(
        graph.members_using(&["sqlx", "sqlx-core", "rusqlite", "libsqlite3-sys"]),
        BTreeSet::from(["cairn-arena".to_string()])
    );
    for package in ["cairn-runner", "cairn-proto", "cairn-sdk", "cairn-engine"] {
        assert!(
            !graph.transitive(package).contains("cairn-arena"),
            "{package} depends on cairn-arena"
        );
        assert!(
            !graph.transitive(package).contains("sqlx"),
            "{package} pulls in sqlx"
        );
    }
}
