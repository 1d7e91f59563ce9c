//! What the database's sessions were doing during a phase: the arena
//! processes' connections sampled from `pg_stat_activity` every
//! [`EVERY`], tallied by state and wait event (with the statement's first
//! words when it waits on a lock). Where two arena processes gain nothing
//! over one, this names what they queue on.

use std::collections::HashMap;
use std::time::Duration;

use sqlx::PgPool;
use tokio::sync::watch;

const EVERY: Duration = Duration::from_millis(20);
/// The tallies shown, largest first.
const SHOWN: usize = 6;

/// Samples until `stop` turns true; the tally as one line.
pub async fn sample(pool: PgPool, mut stop: watch::Receiver<bool>) -> String {
    let mut tally: HashMap<String, u64> = HashMap::new();
    let mut samples = 0_u64;
    let mut ticks = tokio::time::interval(EVERY);
    while !*stop.borrow() {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = stop.changed() => break,
        }
        let rows: Vec<(String, Option<String>, Option<String>, String)> = sqlx::query_as(
            "SELECT state, wait_event_type, wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 48) \
             FROM pg_stat_activity WHERE datname = current_database() \
             AND pid <> pg_backend_pid() AND state IS NOT NULL AND state <> 'idle'",
        )
        .fetch_all(&pool)
        .await
        .unwrap_or_default();
        samples += 1;
        for (state, kind, event, query) in rows {
            let key = match (kind.as_deref(), event) {
                (Some("Lock"), Some(event)) => format!("{state}/Lock:{event} [{query}]"),
                (Some(kind), Some(event)) => format!("{state}/{kind}:{event}"),
                _ => format!("{state}/on cpu"),
            };
            *tally.entry(key).or_default() += 1;
        }
    }
    let mut tally: Vec<(String, u64)> = tally.into_iter().collect();
    tally.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let shown: Vec<String> = tally
        .iter()
        .take(SHOWN)
        .map(|(key, n)| format!("{:.1} {key}", *n as f64 / samples.max(1) as f64))
        .collect();
    format!("busy sessions on average: {}", shown.join("; "))
}
