//! A real Prometheus scrapes a real arena (issue 33): `cairn serve --http`
//! on 127.0.0.1:0 plays a small tournament with a real `cairn runner`, a
//! malformed report is sent and refused, and Prometheus (Debian's
//! `prometheus`, its own temporary config and storage, scraping every
//! second) is asked back through its HTTP query API: the games-recorded
//! counter equals the games the database holds, the leases granted are at
//! least the matches, and the refusal shows under its reason.
//!
//! Without the `prometheus` binary the test says loudly what it skipped,
//! unless `CI` is set: then it fails (`.ci/test` installs it).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arena_support::*;
use cairn_proto::arena::v1 as pb;
use serde_json::Value;

use crate::arena_support;

/// How long Prometheus may take to start and to scrape what is asked.
const SCRAPE_DEADLINE: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_reads_back_the_games_leases_and_refusals_the_arena_counted() {
    let Some(prometheus) = prometheus_binary() else {
        return;
    };
    let (arena, web) = start_arena_with_http();
    let web = web.trim_start_matches("http://").to_string();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "greedy", "greedy");
    add_bot(&arena, &token, "random", "random");
    let tournament = create_round_robin(&arena, &token, &["greedy", "random"], 4).await;
    let runner = arena.runner(30_000, 2);
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    drop(runner);
    send_a_report_without_its_game(&arena).await;
    let (games, matches) = games_and_matches(&arena).await;
    assert!(games > 0 && matches > 0);

    let server = Prometheus::start(&prometheus, arena.folder.path(), &web);
    let recorded = server.wait_for("cairn_games_recorded_total", |value| value == games as f64);
    assert_eq!(recorded, games as f64);
    let leases = server.wait_for("cairn_leases_granted_total", |_| true);
    assert!(
        leases >= matches as f64,
        "{leases} leases for {matches} matches"
    );
    let refused = server.wait_for(r#"cairn_reports_refused_total{reason="invalid"}"#, |_| true);
    assert_eq!(refused, 1.0);
    let received = server.wait_for("cairn_reports_received_total", |_| true);
    assert!(
        received > games as f64,
        "{received} reports for {games} games and a refusal"
    );
    let report_count = server.wait_for("cairn_report_duration_seconds_count", |_| true);
    assert_eq!(report_count, received);
    let waiting = server.wait_for("cairn_matches_waiting", |_| true);
    assert_eq!(waiting, 0.0);
}

/// The `prometheus` binary, or `None` after saying loudly what is skipped
/// (outside CI only: in CI a missing Prometheus fails the test).
fn prometheus_binary() -> Option<PathBuf> {
    let found = which("prometheus");
    if found.is_none() {
        skip_loudly(
            "prometheus is not installed (Debian: apt-get install prometheus; `.ci/test` installs it)",
            "the Prometheus test",
            "run the Prometheus test",
        );
    }
    found
}

/// A report with the runner's token and no game: refused as invalid.
async fn send_a_report_without_its_game(arena: &Arena) {
    let request = pb::ReportGameRequest {
        match_id: 1,
        lease_generation: 1,
        game: None,
    };
    let refused = arena
        .runner_client()
        .await
        .report_game(authorized(request, RUNNER_TOKEN))
        .await
        .expect_err("a report without its game is refused");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
}

/// The games recorded and the matches in the arena's database.
async fn games_and_matches(arena: &Arena) -> (i64, i64) {
    sqlx::any::install_default_drivers();
    let url = format!("sqlite://{}?mode=ro", arena.db().display());
    let pool = sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .expect("the arena's database opens");
    sqlx::query_as("SELECT (SELECT COUNT(*) FROM results), (SELECT COUNT(*) FROM matches)")
        .fetch_one(&pool)
        .await
        .unwrap()
}

/// A Prometheus server on 127.0.0.1 with a config of its own, killed
/// (with its storage removed) when dropped.
struct Prometheus {
    address: String,
    _process: Running,
}

impl Prometheus {
    fn start(binary: &Path, folder: &Path, target: &str) -> Prometheus {
        let config = folder.join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
                 scrape_configs:\n  - job_name: cairn\n    metrics_path: /metrics\n\
                 \x20   static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let address = format!("127.0.0.1:{}", free_port());
        let process = Command::new(binary)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                folder.join("tsdb").display()
            ))
            .arg(format!("--web.listen-address={address}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus starts");
        Prometheus {
            address,
            _process: Running(process),
        }
    }

    /// Polls Prometheus for the instant value of `query` until `accept`
    /// takes it, under [`SCRAPE_DEADLINE`]; the value.
    fn wait_for(&self, query: &str, accept: impl Fn(f64) -> bool) -> f64 {
        let started = Instant::now();
        let mut last = String::new();
        while started.elapsed() < SCRAPE_DEADLINE {
            match self.query(query) {
                Ok(Some(value)) if accept(value) => return value,
                Ok(value) => last = format!("{value:?}"),
                Err(error) => last = error,
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("prometheus never answered {query} as expected: last {last}");
    }

    /// The value of `query`'s single series, `None` while it has none.
    fn query(&self, query: &str) -> Result<Option<f64>, String> {
        let path = format!("/api/v1/query?query={}", percent_encoded(query));
        let body = http_get(&self.address, &path)?;
        let answer: Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?;
        if answer["status"] != "success" {
            return Err(body);
        }
        let series = answer["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        match series.as_slice() {
            [] => Ok(None),
            [one] => {
                let text = one["value"][1].as_str().ok_or_else(|| body.clone())?;
                text.parse().map(Some).map_err(|_| body.clone())
            }
            _ => Err(format!("more than one series: {body}")),
        }
    }
}

/// A port free now on 127.0.0.1 (Prometheus is told which to listen on).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `text` with everything but unreserved characters percent-encoded.
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// One HTTP/1.1 GET to `address`, `Connection: close`: the body of a 200.
/// A refused connection (Prometheus still starting) is an error to retry.
fn http_get(address: &str, path: &str) -> Result<String, String> {
    let mut stream = TcpStream::connect(address).map_err(|error| error.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|error| error.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|error| error.to_string())?;
    let mut raw = String::new();
    stream
        .read_to_string(&mut raw)
        .map_err(|error| error.to_string())?;
    let (head, body) = raw.split_once("\r\n\r\n").ok_or("no header")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(raw);
    }
    // Prometheus may answer in chunks: keep the JSON between the braces.
    let start = body.find('{').ok_or_else(|| body.to_string())?;
    let end = body.rfind('}').ok_or_else(|| body.to_string())?;
    Ok(body[start..=end].to_string())
}
