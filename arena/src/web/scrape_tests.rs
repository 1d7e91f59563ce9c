//! `/metrics` over real HTTP: what a played tournament counts, what a
//! scrape never shows, and that a scrape is admitted like any read.

use cairn_engine::GameOptions;

use super::tests::{get, report, request, serve_admitted, with_tournament, HOSTILE_DETAIL};
use crate::admission::{Admission, AdmissionLimits};

fn value(text: &str, series: &str) -> Option<String> {
    text.lines()
        .find_map(|line| Some(line.strip_prefix(series)?.strip_prefix(' ')?.to_string()))
}

#[tokio::test]
async fn a_scrape_counts_the_games_leases_and_forfeits_of_a_played_tournament() {
    let (store, folder, runner) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    let (_, runner_token) = store.register_runner("r2").await.unwrap();
    for forfeit in [false, true] {
        let lease = store.lease_match(&runner, 60_000).await.unwrap().unwrap();
        let played = report(&lease, forfeit);
        store.report_result(&runner, &played).await.unwrap();
    }
    let server = serve_admitted(store, folder, Admission::default()).await;
    let scraped = get(&server, "/metrics").await;
    assert_eq!(scraped.status, 200, "{}", scraped.body);
    assert!(
        scraped
            .headers
            .contains("content-type: text/plain; version=0.0.4"),
        "{}",
        scraped.headers
    );
    let text = &scraped.body;
    assert_eq!(value(text, "cairn_games_recorded_total"), Some("2".into()));
    assert_eq!(value(text, "cairn_leases_granted_total"), Some("2".into()));
    assert_eq!(value(text, "cairn_leases_expired_total"), Some("0".into()));
    assert_eq!(
        value(text, r#"cairn_forfeits_total{reason="timeout"}"#),
        Some("1".into())
    );
    assert_eq!(value(text, "cairn_matches_waiting"), Some("0".into()));
    assert_eq!(
        value(text, "cairn_runners_seen"),
        Some("1".into()),
        "r1 leased, r2 never called"
    );
    for secret in [
        runner_token.as_str(),
        "alpha",
        "beta",
        "ada",
        HOSTILE_DETAIL,
        "<img",
    ] {
        assert!(!text.contains(secret), "the scrape shows {secret:?}");
    }
}

#[tokio::test]
async fn the_queue_depth_of_each_tournament_with_matches_waiting_is_a_gauge() {
    let (store, folder, runner) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    let _held = store.lease_match(&runner, 60_000).await.unwrap().unwrap();
    let server = serve_admitted(store, folder, Admission::default()).await;
    let text = get(&server, "/metrics").await.body;
    assert_eq!(
        value(&text, "cairn_matches_waiting"),
        Some("1".into()),
        "{text}"
    );
    let series = r#"cairn_tournament_matches_waiting{tournament="1"}"#;
    assert_eq!(value(&text, series), Some("1".into()), "{text}");
}

#[tokio::test]
async fn a_scrape_is_read_only() {
    let (store, folder, _) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    let server = serve_admitted(store, folder, Admission::default()).await;
    for method in ["POST", "PUT", "DELETE"] {
        let answer = request(&server, method, "/metrics").await;
        assert_eq!(answer.status, 405, "{method}");
    }
}

#[tokio::test]
async fn a_scrape_is_admitted_like_any_read() {
    let (store, folder, _) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    let limits = AdmissionLimits {
        client_cost_per_s: 0.001,
        client_burst: 2.0,
        ..AdmissionLimits::default()
    };
    let server = serve_admitted(store, folder, Admission::new(limits)).await;
    assert_eq!(get(&server, "/metrics").await.status, 200);
    assert_eq!(get(&server, "/metrics").await.status, 200);
    let shed = get(&server, "/metrics").await;
    assert_eq!(shed.status, 429, "{}", shed.body);
}

#[tokio::test]
async fn a_scrape_with_the_database_gone_still_answers_the_counters_and_counts_the_error() {
    let (store, folder, _) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    let closed = store.clone();
    let server = serve_admitted(store, folder, Admission::default()).await;
    closed.close().await;
    let scraped = get(&server, "/metrics").await;
    assert_eq!(scraped.status, 200, "{}", scraped.body);
    let text = &scraped.body;
    assert_eq!(
        value(text, "cairn_database_errors_total"),
        Some("1".into()),
        "{text}"
    );
    assert_eq!(value(text, "cairn_games_recorded_total"), Some("0".into()));
    assert!(!text.contains("cairn_matches_waiting"), "{text}");
}

/// A page's read that the database fails is a 500 that names nothing of
/// the database, and the scrape counts it as a database error.
#[tokio::test]
async fn a_read_the_database_fails_is_a_500_counted_as_a_database_error() {
    use sqlx::Connection;

    let (store, folder, _) = with_tournament("schotten-totten", GameOptions::new(), 2).await;
    let file = folder.path().join("arena.db");
    let server = serve_admitted(store, folder, Admission::default()).await;
    let errors = async || {
        let scraped = get(&server, "/metrics").await;
        assert_eq!(scraped.status, 200, "{}", scraped.body);
        value(&scraped.body, "cairn_database_errors_total")
    };
    assert_eq!(errors().await, Some("0".into()));
    // The table the list reads goes away under the arena (the gauges read
    // none of it).
    let mut connection = sqlx::AnyConnection::connect(&format!("sqlite://{}", file.display()))
        .await
        .unwrap();
    sqlx::raw_sql("ALTER TABLE tournaments RENAME TO tournaments_gone")
        .execute(&mut connection)
        .await
        .unwrap();
    let failed = get(&server, "/api/tournaments").await;
    assert_eq!(failed.status, 500, "{}", failed.body);
    assert!(!failed.body.contains("tournaments"), "{}", failed.body);
    assert_eq!(errors().await, Some("1".into()));
    assert_eq!(get(&server, "/api/tournaments/1").await.status, 500);
    assert_eq!(
        errors().await,
        Some("2".into()),
        "each failed read counts once"
    );
}
