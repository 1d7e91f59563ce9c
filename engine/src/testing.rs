//! The conformance test every game passes (OpenSpiel's `RandomSimTest` in
//! spirit): seeded random games checking the [`Game`] contract at every step.
//! Game modules call [`check_conformance`] from their tests.

use std::collections::HashSet;

use crate::game::{EndReason, Game, GameOptions, Outcome};
use crate::rng::Rng;

/// What a conformance run covers.
#[derive(Debug, Clone)]
pub struct Conformance {
    pub games: u64,
    pub first_seed: u64,
    /// Legal actions applied to a copy at each decision (all if fewer).
    pub legal_sample: usize,
    /// Check observations against resampled hidden state every this many decisions.
    pub leak_every: u64,
    /// A game longer than this many decisions fails the test.
    pub max_decisions: u64,
}

impl Default for Conformance {
    fn default() -> Self {
        Conformance {
            games: 10_000,
            first_seed: 1,
            legal_sample: 8,
            leak_every: 4,
            max_decisions: 20_000,
        }
    }
}

/// Figures from a conformance run, for tests to assert on.
#[derive(Debug, Clone, Default)]
pub struct ConformanceReport {
    pub games: u64,
    pub decisions: u64,
    pub illegal_refused: u64,
    pub leak_checks: u64,
    /// Leak checks where the resampling changed what another seat sees (for
    /// one seat: changed the state), proof that the check was not vacuous.
    pub leak_checks_with_hidden_change: u64,
    pub outcomes: Vec<Outcome>,
}

/// The conformance run every game's tests make: `words` as `key=value`
/// options, the default configuration (10,000 games), and the report's
/// proof that it checked something: every game played, leak checks that
/// moved hidden state, illegal actions refused.
pub fn assert_conforms<G: Game>(words: &[&str], n_seats: usize) -> ConformanceReport {
    let options =
        crate::game::parse_options(words.iter().copied()).expect("test options are key=value");
    let config = Conformance::default();
    let report = check_conformance::<G>(&options, n_seats, &config);
    assert_eq!(report.games, config.games);
    assert!(report.leak_checks_with_hidden_change > 0, "{report:?}");
    assert!(report.illegal_refused > 0, "{report:?}");
    report
}

/// Plays `config.games` seeded random games of `G` and panics with the seed
/// and step on the first broken invariant:
/// - legal actions are non-empty until terminal, free of duplicates, each
///   `is_legal`, each round-trips through its text form and applies;
/// - actions legal elsewhere but not here are refused with the state unchanged;
/// - every game ends within `max_decisions` and never by the move limit;
/// - replaying the action list reproduces the final state hash;
/// - a state resampled for a seat gives that seat the same observation (and,
///   for the seat to move, the same legal actions).
pub fn check_conformance<G: Game>(
    options: &GameOptions,
    n_seats: usize,
    config: &Conformance,
) -> ConformanceReport {
    let mut report = ConformanceReport::default();
    let mut foreign: Vec<G::Action> = Vec::new();
    let mut legal = Vec::new();
    let mut rng = Rng::seeded(config.first_seed ^ 0xC0FF_EE00);
    for seed in config.first_seed..config.first_seed + config.games {
        let mut state = G::new(options, n_seats, seed)
            .unwrap_or_else(|e| panic!("seed {seed}: setup failed: {e}"));
        let initial = state.clone();
        let mut history: Vec<G::Action> = Vec::new();
        while let Some(seat) = state.current_seat() {
            let step = history.len() as u64;
            assert!(
                step < config.max_decisions,
                "seed {seed}: no end after {step} decisions"
            );
            legal.clear();
            state.legal_actions(&mut legal);
            assert!(
                !legal.is_empty(),
                "seed {seed} step {step}: no legal action for seat {seat} in a live game"
            );
            check_legal_actions(&state, &legal, config.legal_sample, &mut rng, seed, step);
            report.illegal_refused +=
                check_foreign_actions_refused(&mut state, &legal, &foreign, seed, step);
            if step % config.leak_every == 0 {
                report.leak_checks += 1;
                if check_no_leak(&state, &legal, seat, &mut rng, seed, step) {
                    report.leak_checks_with_hidden_change += 1;
                }
            }
            let action = legal[rng.below(legal.len())].clone();
            remember_foreign(&mut foreign, &legal, &mut rng);
            state
                .apply(&action)
                .unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
            history.push(action);
        }
        let outcome = state
            .outcome()
            .unwrap_or_else(|| panic!("seed {seed}: terminal state without an outcome"));
        assert_eq!(
            outcome.scores.len(),
            n_seats,
            "seed {seed}: scores for every seat"
        );
        assert_eq!(
            outcome.ranks.len(),
            n_seats,
            "seed {seed}: ranks for every seat"
        );
        assert!(
            outcome.ranks.contains(&1),
            "seed {seed}: somebody ranks first"
        );
        assert_ne!(
            outcome.reason,
            EndReason::MoveLimit,
            "seed {seed}: the move limit ended a legal game"
        );
        let mut replayed = initial;
        for action in &history {
            let text = action.to_string();
            let parsed: G::Action = text.parse().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            replayed
                .apply(&parsed)
                .unwrap_or_else(|e| panic!("seed {seed}: replay: {e}"));
        }
        assert_eq!(
            replayed.state_hash(),
            state.state_hash(),
            "seed {seed}: replay reached another state"
        );
        report.games += 1;
        report.decisions += history.len() as u64;
        report.outcomes.push(outcome);
    }
    report
}

fn check_legal_actions<G: Game>(
    state: &G,
    legal: &[G::Action],
    sample: usize,
    rng: &mut Rng,
    seed: u64,
    step: u64,
) {
    let distinct: HashSet<&G::Action> = legal.iter().collect();
    assert_eq!(
        distinct.len(),
        legal.len(),
        "seed {seed} step {step}: duplicate legal actions {legal:?}"
    );
    for action in legal {
        assert!(
            state.is_legal(action),
            "seed {seed} step {step}: listed action {action} is not is_legal"
        );
        let text = action.to_string();
        let parsed: G::Action = text
            .parse()
            .unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
        assert_eq!(
            &parsed, action,
            "seed {seed} step {step}: `{text}` does not round-trip"
        );
    }
    let picks: Vec<usize> = if legal.len() <= sample {
        (0..legal.len()).collect()
    } else {
        (0..sample).map(|_| rng.below(legal.len())).collect()
    };
    for index in picks {
        let mut copy = state.clone();
        copy.apply(&legal[index])
            .unwrap_or_else(|e| panic!("seed {seed} step {step}: listed action refused: {e}"));
    }
}

fn check_foreign_actions_refused<G: Game>(
    state: &mut G,
    legal: &[G::Action],
    foreign: &[G::Action],
    seed: u64,
    step: u64,
) -> u64 {
    let before = state.state_hash();
    let mut refused = 0;
    for action in foreign.iter().filter(|a| !legal.contains(a)).take(4) {
        assert!(
            !state.is_legal(action),
            "seed {seed} step {step}: {action} is_legal but not listed"
        );
        assert!(
            state.apply(action).is_err(),
            "seed {seed} step {step}: unlisted {action} applied"
        );
        assert_eq!(
            state.state_hash(),
            before,
            "seed {seed} step {step}: a refused action changed the state"
        );
        refused += 1;
    }
    refused
}

fn remember_foreign<A: Clone>(foreign: &mut Vec<A>, legal: &[A], rng: &mut Rng) {
    const KEEP: usize = 64;
    if let Some(action) = rng.choose(legal) {
        if foreign.len() < KEEP {
            foreign.push(action.clone());
        } else {
            let slot = rng.below(KEEP);
            foreign[slot] = action.clone();
        }
    }
}

/// Returns whether the resampled state differed from the real one somewhere.
fn check_no_leak<G: Game>(
    state: &G,
    legal: &[G::Action],
    to_move: usize,
    rng: &mut Rng,
    seed: u64,
    step: u64,
) -> bool {
    let mut changed = false;
    let n_seats = state.n_seats();
    for viewer in 0..n_seats {
        let seen = state.observation(viewer);
        let resampled = state.resample_hidden(viewer, rng);
        // Something hidden from the viewer really moved if another seat now
        // sees something else (alone at the table: if the state differs).
        changed |= if n_seats == 1 {
            resampled.state_hash() != state.state_hash()
        } else {
            (0..n_seats).any(|other| {
                other != viewer && resampled.observation(other) != state.observation(other)
            })
        };
        assert_eq!(
            resampled.observation(viewer),
            seen,
            "seed {seed} step {step}: seat {viewer}'s observation depends on what it cannot see"
        );
        assert_eq!(
            resampled.current_seat(),
            state.current_seat(),
            "seed {seed} step {step}: resampling changed the turn"
        );
        if viewer == to_move {
            let mut again = Vec::new();
            resampled.legal_actions(&mut again);
            assert_eq!(
                again, legal,
                "seed {seed} step {step}: legal actions depend on hidden state"
            );
        }
    }
    changed
}

/// Figures from a determinization run.
#[derive(Debug, Clone, Default)]
pub struct DeterminizationReport {
    pub checks: u64,
    /// Checks where two draws from the same observation differed in what
    /// another seat sees (alone at the table: in the state), proof that the
    /// hidden part is really drawn, not a fixed function of the observation.
    pub checks_that_varied: u64,
    pub playouts: u64,
}

/// The determinization property every game's tests check over `games`
/// seeded random games: at every `every`-th decision, for every seat, a
/// state rebuilt from that seat's observation alone gives the seat the same
/// observation, the same seat to move and (for the seat to move) the same
/// legal actions; a second draw shows whether the hidden part varies; and a
/// random playout from the rebuilt state reaches the end of the game.
pub fn assert_determinizes<G: Game>(
    words: &[&str],
    n_seats: usize,
    games: u64,
    every: u64,
) -> DeterminizationReport {
    let options =
        crate::game::parse_options(words.iter().copied()).expect("test options are key=value");
    let mut report = DeterminizationReport::default();
    let mut rng = Rng::seeded(0xD0_0D1E ^ games);
    let mut legal = Vec::new();
    for seed in 1..=games {
        let mut state = G::new(&options, n_seats, seed).expect("test setups are valid");
        let mut step = 0u64;
        while let Some(to_move) = state.current_seat() {
            legal.clear();
            state.legal_actions(&mut legal);
            if step % every == 0 {
                for viewer in 0..n_seats {
                    check_determinized(&state, viewer, to_move, &legal, &mut rng, &mut report)
                        .unwrap_or_else(|why| {
                            panic!("seed {seed} step {step} seat {viewer}: {why}")
                        });
                }
            }
            let action = legal[rng.below(legal.len())].clone();
            state.apply(&action).expect("a legal action applies");
            step += 1;
        }
    }
    assert!(report.checks > 0, "{report:?}");
    report
}

fn check_determinized<G: Game>(
    state: &G,
    viewer: usize,
    to_move: usize,
    legal: &[G::Action],
    rng: &mut Rng,
    report: &mut DeterminizationReport,
) -> Result<(), String> {
    let seen = state.observation(viewer);
    let rebuilt = G::determinize(&seen, rng).map_err(|e| e.to_string())?;
    let again = G::determinize(&seen, rng).map_err(|e| e.to_string())?;
    report.checks += 1;
    if rebuilt.observation(viewer) != seen {
        return Err(format!(
            "the rebuilt state looks different: {:?} instead of {seen:?}",
            rebuilt.observation(viewer)
        ));
    }
    if rebuilt.current_seat() != Some(to_move) {
        return Err("the rebuilt state has another seat to move".into());
    }
    if viewer == to_move {
        let mut rebuilt_legal = Vec::new();
        rebuilt.legal_actions(&mut rebuilt_legal);
        if rebuilt_legal != legal {
            return Err(format!(
                "the rebuilt state has other legal actions: {rebuilt_legal:?} instead of {legal:?}"
            ));
        }
    }
    let n_seats = state.n_seats();
    let varied = if n_seats == 1 {
        rebuilt.state_hash() != again.state_hash()
    } else {
        (0..n_seats)
            .any(|other| other != viewer && rebuilt.observation(other) != again.observation(other))
    };
    report.checks_that_varied += varied as u64;
    if report.checks % 16 == 0 {
        report.playouts += 1;
        random_playout(rebuilt, rng)?;
    }
    Ok(())
}

/// Plays random legal actions to the end (a searching bot's playout).
fn random_playout<G: Game>(mut state: G, rng: &mut Rng) -> Result<(), String> {
    let mut legal = Vec::new();
    for _ in 0..100_000 {
        if state.is_terminal() {
            return Ok(());
        }
        legal.clear();
        state.legal_actions(&mut legal);
        let action = rng
            .choose(&legal)
            .ok_or("a live rebuilt state without legal actions")?
            .clone();
        state.apply(&action).map_err(|e| e.to_string())?;
    }
    Err("a playout from the rebuilt state never ends".into())
}
