//! Helpers for tests of the arena and of what drives it (the service tests,
//! the CLI, end-to-end tests): bot archives built in memory, a game check
//! that knows two made-up games so the arena can be tested before and
//! independently of any real engine, and reports that rank seats by a fixed
//! strength so the expected leaderboard is known.

use std::io::Write;

use cairn_engine::{GameOptions, SetupError};

use crate::store::{GameReport, Lease, MatchReport, SeatResult};

/// A two-seat game known only to [`test_game_check`].
pub const TEST_DUEL: &str = "test-duel";
/// A three-to-five-seat game known only to [`test_game_check`].
pub const TEST_TABLE: &str = "test-table";

/// Knows [`TEST_DUEL`] and [`TEST_TABLE`], each taking the option `fast`
/// (`true`/`false`), and refuses everything else as the engine would.
pub fn test_game_check(
    game: &str,
    options: &GameOptions,
    n_seats: usize,
) -> Result<(), SetupError> {
    let (id, allowed, range): (&'static str, &'static str, std::ops::RangeInclusive<usize>) =
        match game {
            TEST_DUEL => (TEST_DUEL, "2", 2..=2),
            TEST_TABLE => (TEST_TABLE, "3 to 5", 3..=5),
            other => return Err(SetupError::UnknownGame(other.to_string())),
        };
    cairn_engine::game::check_option_keys(id, options, &["fast"])?;
    cairn_engine::game::bool_option(id, options, "fast", false)?;
    if !range.contains(&n_seats) {
        return Err(SetupError::SeatCount {
            game: id,
            n_seats,
            allowed,
        });
    }
    Ok(())
}

/// A gzip-compressed tar holding `files` (path, contents), paths taken as is.
pub fn tar_gz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in files {
        let mut header = tar::Header::new_gnu();
        header.as_mut_bytes()[..path.len()].copy_from_slice(path.as_bytes());
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(data.len() as u64);
        header.set_mode(0o755);
        header.set_cksum();
        builder.append(&header, *data).expect("writing to memory");
    }
    let tar_bytes = builder.into_inner().expect("writing to memory");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&tar_bytes).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

/// A valid bot archive named `name`; `revision` changes its contents.
pub fn bot_archive(name: &str, revision: u32) -> Vec<u8> {
    let manifest = format!("name = \"{name}\"\ncommand = [\"python3\", \"bot.py\"]\n");
    let program = format!("# revision {revision}\nprint('hello')\n");
    tar_gz(&[
        ("cairn-bot.toml", manifest.as_bytes()),
        ("bot.py", program.as_bytes()),
    ])
}

/// A report for a whole leased match where seats rank by `strength` of
/// their bot version (higher is better, equal strengths tie); scores are
/// the strengths.
pub fn report_by_strength(lease: &Lease, strength: impl Fn(i64) -> i64) -> MatchReport {
    let strengths: Vec<i64> = lease
        .seats
        .iter()
        .map(|seat| strength(seat.bot_version_id))
        .collect();
    let seats: Vec<SeatResult> = lease
        .seats
        .iter()
        .zip(&strengths)
        .map(|(seat, &mine)| SeatResult {
            bot_version_id: seat.bot_version_id,
            score: mine,
            rank: 1 + strengths.iter().filter(|&&other| other > mine).count() as u32,
            forfeit: None,
        })
        .collect();
    let games = lease
        .games
        .iter()
        .map(|game| GameReport {
            game_index: game.game_index,
            seats: seats.clone(),
            replay: format!("{{\"seed\":{}}}", game.seed).into_bytes(),
        })
        .collect();
    MatchReport {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        games,
    }
}
