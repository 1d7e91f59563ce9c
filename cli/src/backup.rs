//! `cairn backup --db FILE OUT`: a consistent copy of a live SQLite arena,
//! taken while it serves and runners report.

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_arena::store::{backup, Location, DEFAULT_DB_PATH};

#[derive(Debug, clap::Args)]
pub struct BackupArgs {
    /// The arena's SQLite file (a PostgreSQL arena is backed up with
    /// `pg_dump`; see the README).
    #[arg(long, default_value = DEFAULT_DB_PATH, value_parser = crate::serve::parse_db)]
    db: Location,
    /// The new file to write (never overwritten). It holds the deal
    /// secret: keep it as private as the database.
    out: PathBuf,
}

pub fn run(args: BackupArgs) -> anyhow::Result<ExitCode> {
    let Location::Sqlite(db) = &args.db else {
        anyhow::bail!(
            "{} is a PostgreSQL arena: back it up with `pg_dump --format=custom` (the README's \"Backups\")",
            args.db
        );
    };
    let summary = crate::client::runtime()?.block_on(backup(db, &args.out))?;
    outln!(
        "backed up {} ({} games, {:.1} MiB) to {}",
        db.display(),
        summary.games,
        summary.bytes as f64 / (1024.0 * 1024.0),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
