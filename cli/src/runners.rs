//! `cairn runners add|list|revoke`: named runners, each with its own token,
//! managed on the arena's database file (the operator's machine; no token
//! travels over the network). Revocation takes effect on the runner's next
//! call, and the matches it held go back to the queue.

use std::process::ExitCode;

use anyhow::Context;
use cairn_arena::store::{Location, StoreOptions, DEFAULT_DB_PATH};
use cairn_arena::Store;
use serde_json::json;

use crate::table::Table;

#[derive(Debug, clap::Subcommand)]
pub enum RunnersCommand {
    /// Add a runner and print its token (shown once).
    Add {
        name: String,
        /// An SQLite file or a PostgreSQL URL (as `cairn serve --db`).
        #[arg(long, default_value = DEFAULT_DB_PATH, value_parser = crate::serve::parse_db)]
        db: Location,
        #[arg(long)]
        json: bool,
    },
    /// List the runners.
    List {
        /// An SQLite file or a PostgreSQL URL (as `cairn serve --db`).
        #[arg(long, default_value = DEFAULT_DB_PATH, value_parser = crate::serve::parse_db)]
        db: Location,
        #[arg(long)]
        json: bool,
    },
    /// Revoke a runner's token; its leased matches go back to the queue.
    Revoke {
        name: String,
        /// An SQLite file or a PostgreSQL URL (as `cairn serve --db`).
        #[arg(long, default_value = DEFAULT_DB_PATH, value_parser = crate::serve::parse_db)]
        db: Location,
    },
}

async fn open(db: &Location) -> anyhow::Result<Store> {
    // An operator command on a file that does not exist is a typo, not a
    // request for a new arena.
    if let Location::Sqlite(path) = db {
        anyhow::ensure!(path.is_file(), "no arena database at {}", path.display());
    }
    Store::open(db, StoreOptions::default())
        .await
        .with_context(|| format!("cannot open the database {db}"))
}

/// `active`, `revoked`, or `quarantined: WHY` (the arena's figures).
fn runner_state(runner: &cairn_arena::store::RunnerInfo) -> String {
    match (&runner.quarantine_reason, runner.revoked_at) {
        (Some(reason), _) => format!("quarantined: {reason}"),
        (None, Some(_)) => "revoked".into(),
        (None, None) => "active".into(),
    }
}

pub fn run(command: RunnersCommand) -> anyhow::Result<ExitCode> {
    crate::client::runtime()?.block_on(async {
        match command {
            RunnersCommand::Add { name, db, json } => {
                let (runner, token) = open(&db).await?.register_runner(&name).await?;
                if json {
                    outln!("{}", json!({"id": runner.id, "name": runner.name, "token": token}));
                } else {
                    outln!("runner {} added; its token (shown once): {token}", runner.name);
                }
            }
            RunnersCommand::List { db, json } => {
                let runners = open(&db).await?.list_runners().await?;
                if json {
                    let rows: Vec<_> = runners
                        .iter()
                        .map(|r| json!({"id": r.id, "name": r.name, "created_at_ms": r.created_at, "last_seen_at_ms": r.last_seen_at, "revoked_at_ms": r.revoked_at, "quarantine_reason": r.quarantine_reason, "leases": r.leases}))
                        .collect();
                    outln!("{}", serde_json::Value::Array(rows));
                } else {
                    let mut table = Table::new(&["runner", "state", ">leases", ">last seen"]);
                    let now_ms = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis() as i64);
                    for runner in &runners {
                        table.row(vec![
                            runner.name.clone(),
                            runner_state(runner),
                            runner.leases.to_string(),
                            runner
                                .last_seen_at
                                .map_or("never".into(), |at| age_text(now_ms - at)),
                        ]);
                    }
                    out!("{}", table.render());
                }
            }
            RunnersCommand::Revoke { name, db } => {
                let requeued = open(&db).await?.revoke_runner(&name).await?;
                outln!("runner {name} revoked; {requeued} leased match(es) back in the queue");
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `3s ago`, `4m ago`, `2h ago`, `5d ago`: how long since a sighting
/// (the arena writes one at most every few seconds per runner).
fn age_text(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    match seconds {
        s if s < 120 => format!("{s}s ago"),
        s if s < 7_200 => format!("{}m ago", s / 60),
        s if s < 172_800 => format!("{}h ago", s / 3_600),
        s => format!("{}d ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_age_reads_in_the_largest_unit_that_keeps_it_short() {
        let cases = [
            (-5, "0s ago"),
            (3_400, "3s ago"),
            (119_999, "119s ago"),
            (120_000, "2m ago"),
            (7_200_000, "2h ago"),
            (3 * 86_400_000, "3d ago"),
        ];
        for (ms, text) in cases {
            assert_eq!(super::age_text(ms), text, "{ms} ms");
        }
    }
}
