//! Helpers for tests of the arena and of what drives it (the service tests,
//! the CLI, end-to-end tests): bot archives built in memory, a game check
//! that knows two made-up games so the arena can be tested before and
//! independently of any real engine (with [`test_verifier`], which reads
//! their made-up replays), reports that rank seats by a fixed strength so
//! the expected leaderboard is known, honest reports of real games
//! ([`played_game_report`]), and a throwaway PostgreSQL server
//! ([`postgres::Postgres`]).

pub mod postgres;

use std::io::Write;

use cairn_engine::descriptor::{GameDescriptor, OptionKind, OptionSpec, SeatRule};
use cairn_engine::forfeit::{final_score, EndedBy};
use cairn_engine::new_game;
use cairn_proto::record::{hash_text, seat_label, GameRecord, ReplayFile};

use crate::error::ArenaError;
use crate::store::{Forfeit, GameReport, Lease, LeasedGame, MatchReport, SeatResult};
use crate::verify::{check_against_plan, verify_game, PlannedGame};

/// A two-seat game known only to [`test_game_check`].
pub const TEST_DUEL: &str = "test-duel";
/// A three-to-five-seat game known only to [`test_game_check`].
pub const TEST_TABLE: &str = "test-table";
/// A two-to-five-seat game known only to [`test_game_check`]: one board
/// holding tables of several sizes.
pub const TEST_PARTY: &str = "test-party";

const FAST: &[OptionSpec] = &[OptionSpec {
    key: "fast",
    kind: OptionKind::Bool,
    default: "false",
    meaning: "a made-up option",
}];

const DUEL: GameDescriptor = GameDescriptor {
    id: TEST_DUEL,
    name: "Test duel",
    seats: &[SeatRule {
        when: None,
        min: 2,
        max: 2,
    }],
    options: FAST,
    actions: &[],
    solo_rank_title: None,
    solo_forfeit_score: None,
};

const TABLE: GameDescriptor = GameDescriptor {
    id: TEST_TABLE,
    name: "Test table",
    seats: &[SeatRule {
        when: None,
        min: 3,
        max: 5,
    }],
    options: FAST,
    actions: &[],
    solo_rank_title: None,
    solo_forfeit_score: None,
};

const PARTY: GameDescriptor = GameDescriptor {
    id: TEST_PARTY,
    name: "Test party",
    seats: &[SeatRule {
        when: None,
        min: 2,
        max: 5,
    }],
    ..TABLE
};

/// Knows [`TEST_DUEL`], [`TEST_TABLE`] and [`TEST_PARTY`], each taking the
/// option `fast` (`true`/`false`), and nothing else.
pub fn test_game_check(game: &str) -> Option<&'static GameDescriptor> {
    match game {
        TEST_DUEL => Some(&DUEL),
        TEST_TABLE => Some(&TABLE),
        TEST_PARTY => Some(&PARTY),
        _ => None,
    }
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

/// [`bot_archive`] with a build command (`make`), whose build can fail.
pub fn built_bot_archive(name: &str, revision: u32) -> Vec<u8> {
    let manifest =
        format!("name = \"{name}\"\ncommand = [\"python3\", \"bot.py\"]\nbuild = [\"make\"]\n");
    let program = format!("# revision {revision}\nprint('hello')\n");
    tar_gz(&[
        ("cairn-bot.toml", manifest.as_bytes()),
        ("bot.py", program.as_bytes()),
    ])
}

/// A report for a whole leased match where seats rank by `strength` of
/// their bot version (higher is better, equal strengths tie); scores are
/// the strengths, and the made-up replay lists them (see [`test_verifier`]).
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
            replay: test_replay(game.seed, &strengths),
            stderr_tails: Vec::new(),
            ended_by: EndedBy::Finished,
        })
        .collect();
    MatchReport {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        games,
    }
}

/// The made-up replay of a test game: its seed and every seat's score.
pub fn test_replay(seed: u64, scores: &[i64]) -> Vec<u8> {
    serde_json::json!({ "seed": seed, "scores": scores })
        .to_string()
        .into_bytes()
}

/// Verifies reports of the test games against their
/// made-up replays ([`test_replay`]): the scores must be the replay's and
/// the ranks must follow from them. Real games go to [`verify_game`].
pub fn test_verifier(planned: &PlannedGame, report: &GameReport) -> Result<(), ArenaError> {
    if ![TEST_DUEL, TEST_TABLE, TEST_PARTY].contains(&planned.game.as_str()) {
        return verify_game(planned, report);
    }
    check_against_plan(planned, report)?;
    let replay: serde_json::Value = serde_json::from_slice(&report.replay)
        .map_err(|_| ArenaError::invalid("the test replay is not JSON"))?;
    let scores: Vec<i64> = replay["scores"]
        .as_array()
        .map(|scores| {
            scores
                .iter()
                .filter_map(serde_json::Value::as_i64)
                .collect()
        })
        .unwrap_or_default();
    let reported: Vec<i64> = report.seats.iter().map(|seat| seat.score).collect();
    let ranks: Vec<u32> = scores
        .iter()
        .map(|mine| 1 + scores.iter().filter(|other| *other > mine).count() as u32)
        .collect();
    let reported_ranks: Vec<u32> = report.seats.iter().map(|seat| seat.rank).collect();
    if scores != reported || ranks != reported_ranks || replay["seed"] != planned.seed {
        return Err(ArenaError::invalid(
            "the report does not follow from the test replay",
        ));
    }
    Ok(())
}

/// What the plan says of one leased game, as the store reads it back.
pub fn planned_from_lease(lease: &Lease, game: &LeasedGame) -> PlannedGame {
    PlannedGame {
        game: lease.game.clone(),
        options: lease.options.clone(),
        game_index: game.game_index,
        seed: game.seed,
        seats: lease.seats.iter().map(|seat| seat.bot_version_id).collect(),
        seat_names: lease
            .seats
            .iter()
            .map(|seat| seat_label(&seat.bot_name, seat.version))
            .collect(),
    }
}

/// An honest report of a real game as planned, every seat playing its
/// first legal action (the engine's fixed order makes it deterministic).
pub fn played_game_report(planned: &PlannedGame) -> GameReport {
    PlayedGame::play(planned).report(planned)
}

/// A real game played through, every seat playing its first legal action:
/// what depends only on the game, its options, its seats and its seed, so
/// that it can be played before it is leased (benchmarks replay such games
/// to an arena without playing while they are timed).
#[derive(Debug, Clone)]
pub struct PlayedGame {
    actions: Vec<String>,
    hashes: Vec<String>,
    score: cairn_engine::forfeit::FinalScore,
}

impl PlayedGame {
    /// Plays `planned` (its seat names and bot versions play no part).
    pub fn play(planned: &PlannedGame) -> PlayedGame {
        let n_seats = planned.seats.len();
        let mut state = new_game(&planned.game, &planned.options, n_seats, planned.seed)
            .expect("a planned game sets up");
        let (mut actions, mut hashes) = (Vec::new(), Vec::new());
        while state.current_seat().is_some() {
            let first = state.legal_actions()[0].clone();
            state.apply_text(&first).expect("a legal action applies");
            actions.push(first);
            hashes.push(hash_text(state.state_hash()));
        }
        let score = final_score(&planned.game, state.outcome().as_ref(), n_seats, &[]);
        PlayedGame {
            actions,
            hashes,
            score,
        }
    }

    /// The honest report of this game as `planned` (which must be the
    /// game it was played as) seats it.
    pub fn report(&self, planned: &PlannedGame) -> GameReport {
        let score = self.score.clone();
        let seats = planned
            .seats
            .iter()
            .enumerate()
            .map(|(seat, &bot_version_id)| SeatResult {
                bot_version_id,
                score: i64::from(score.scores[seat]),
                rank: score.ranks[seat],
                forfeit: None::<Forfeit>,
            })
            .collect();
        let ended_by = score.ended_by;
        let record = GameRecord {
            game: planned.game.clone(),
            options: planned.options.clone(),
            seed: planned.seed,
            seats: planned.seat_names.clone(),
            actions: self.actions.clone(),
            hashes: self.hashes.clone(),
            forfeits: Vec::new(),
            score,
            // Times an honest runner could have measured.
            cpu_us: (0..self.actions.len() as u64)
                .map(|index| Some(500 + index))
                .collect(),
        };
        GameReport {
            game_index: planned.game_index,
            seats,
            replay: ReplayFile::new(vec![record]).to_json().into_bytes(),
            stderr_tails: Vec::new(),
            ended_by,
        }
    }
}
