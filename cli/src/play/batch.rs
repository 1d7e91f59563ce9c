//! Runs a match's games on several threads, a unit at a time (one game, or
//! one deal's rotations with `--mirror`), each unit with its own bot
//! processes. Seeds and seatings come from the plan, so game `g` is the same
//! whatever thread plays it and whatever the concurrency; bots that draw
//! their randomness from `CAIRN_BOT_SEED` (the SDK's do) get one derived
//! from the unit's deal, so the games themselves repeat too.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use cairn_runner::stderr::KeptStderr;
use cairn_runner::{
    play_match, seeded_bots, BotLauncher, GameResult, MatchError, MatchResult, MatchSpec,
};

/// What the caller wants after each finished unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Go,
    Stop,
}

/// Games played by one set of bot processes: `spec.bots[i]` is the
/// match's bot `bots[i]` (an A/B's units seat NEW or OLD, not both).
pub struct Unit {
    pub spec: MatchSpec,
    pub bots: Vec<usize>,
}

/// Plays `spec.games` in units of `unit_len` games on `concurrency` threads
/// (see [`play`]).
pub fn play_units(
    spec: &MatchSpec,
    unit_len: usize,
    concurrency: usize,
    launcher: &dyn BotLauncher,
    on_unit: impl FnMut(&[GameResult]) -> Next,
) -> Result<MatchResult, MatchError> {
    // Cloned without its games: a clone of the whole plan per unit is
    // quadratic in the plan's length (100,000 games under --sprt).
    let empty = MatchSpec {
        games: Vec::new(),
        ..spec.clone()
    };
    let units = spec
        .games
        .chunks(unit_len.max(1))
        .map(|games| Unit {
            spec: MatchSpec {
                games: games.to_vec(),
                ..empty.clone()
            },
            bots: (0..spec.bots.len()).collect(),
        })
        .collect();
    play(units, spec.bots.len(), concurrency, launcher, on_unit)
}

/// Plays `units` on `concurrency` threads, a match of `n_bots` bots.
/// `on_unit` sees every game finished so far (in finishing order, each
/// unit's games together) and may stop the match: units not yet started
/// are dropped, started ones finish. The result holds the finished games in
/// plan order (the units' games one after another), each with its index in
/// it and its seats' bots as the match numbers them.
pub fn play(
    units: Vec<Unit>,
    n_bots: usize,
    concurrency: usize,
    launcher: &dyn BotLauncher,
    mut on_unit: impl FnMut(&[GameResult]) -> Next,
) -> Result<MatchResult, MatchError> {
    let first_index: Vec<usize> = units
        .iter()
        .scan(0, |next, unit| {
            let first = *next;
            *next += unit.spec.games.len();
            Some(first)
        })
        .collect();
    let stderr_cap = units.first().map_or(0, |unit| unit.spec.limits.stderr_cap);
    let next_unit = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel();
    let mut finished: Vec<GameResult> = Vec::new();
    // Each unit's stderr per match bot, merged in plan order at the end.
    let mut unit_stderr: Vec<Vec<KeptStderr>> =
        vec![vec![KeptStderr::default(); n_bots]; units.len()];
    let mut failure = None;
    // Several threads: each on a CPU of its own, round robin over the
    // allowed ones, so a match's ping-pong with its bots never wakes
    // another CPU (see `cairn_runner::placement`); one: where `run` put it.
    let cpus = cairn_runner::placement::allowed_cpus();
    std::thread::scope(|scope| {
        for worker in 0..concurrency.clamp(1, units.len().max(1)) {
            let sender = sender.clone();
            let worker_cpu =
                (concurrency > 1).then(|| cpus.get(worker % cpus.len().max(1)).copied());
            let (units, next_unit, stop) = (&units, &next_unit, &stop);
            scope.spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let index = next_unit.fetch_add(1, Ordering::SeqCst);
                let Some(unit) = units.get(index) else { break };
                let unit_spec = MatchSpec {
                    bots: seeded_bots(&unit.spec.bots, &unit.spec.games),
                    cpu: worker_cpu.unwrap_or(unit.spec.cpu),
                    ..unit.spec.clone()
                };
                let result = play_match(&unit_spec, launcher);
                if sender.send((index, result)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for (index, result) in receiver {
            match result {
                Ok(mut result) => {
                    let bots = &units[index].bots;
                    for game in &mut result.games {
                        game.index += first_index[index] as u32;
                        for seat in &mut game.seats {
                            seat.bot = bots[seat.bot];
                        }
                    }
                    finished.extend(result.games);
                    for (bot, text) in bots.iter().zip(result.stderr) {
                        unit_stderr[index][*bot] = text;
                    }
                    if on_unit(&finished) == Next::Stop {
                        stop.store(true, Ordering::SeqCst);
                    }
                }
                Err(error) => {
                    stop.store(true, Ordering::SeqCst);
                    failure.get_or_insert(error);
                }
            }
        }
    });
    if let Some(error) = failure {
        return Err(error);
    }
    finished.sort_by_key(|game| game.index);
    let stderr = (0..n_bots)
        .map(|bot| KeptStderr::joined(unit_stderr.iter().map(|unit| &unit[bot]), "", stderr_cap))
        .collect();
    Ok(MatchResult {
        games: finished,
        stderr,
    })
}
