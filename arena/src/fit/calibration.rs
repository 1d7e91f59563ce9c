//! Calibration: tournaments simulated from known strengths (no engine). The
//! 95% intervals must cover the true gaps in 93-97% of 400 tournaments, and
//! two copies of one bot must be called "not different" as often.
//!
//! Each tournament is a two-seat round robin of four bots: `A` and its copy
//! `A2` (equal strength), `B` 50 Elo above them and `C` 50 below. Every pair
//! plays 30 deals, each deal from both seatings. A game is a win, a draw
//! (one game in five) or a loss with expected score `1 / (1 + 10^(-gap/400))`
//! exactly, so the half-point-draw fit is consistent. Half of the deals use
//! one random number for both seatings, so the two games of a deal agree
//! far more often than chance: a bootstrap over single games would be too
//! narrow; one over deals is right.
//!
//! A second test does the same at one four-seat table (A, A2, B, C; 60
//! deals, each from the four rotations), rankings drawn from Plackett-Luce
//! by Gumbel noise.
//!
//! Speed: no opt-level override; in a debug build the two tests take about
//! 4 and 8 CPU seconds (400 × 201 small fits each). Measured: two seats,
//! gap covered 95.3%, copies not different 94.8%; four seats, 95.8% and
//! 93.8% (94.8%, 94.5%, 95.8% and 93.5% before intervals were widened for
//! few deals: every bot here plays 60 or 90 deals, a factor of 1.01).
//!
//! A third test puts a newcomer with 12 games among bots with 180.

use super::*;

const TOURNAMENTS: u64 = 400;
const DEALS_PER_PAIR: usize = 30;
const DRAW_RATE: f64 = 0.2;
/// True strengths in Elo: A, A2, B, C.
const STRENGTH: [f64; 4] = [0.0, 0.0, 50.0, -50.0];

fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
}

/// The random numbers of a deal's two games: half the deals use one for
/// both (the two games of a deal agree far more often than chance).
fn deal_draws(rng: &mut Rng) -> [f64; 2] {
    let shared = rng.below(2) == 0;
    let first = uniform(rng);
    [first, if shared { first } else { uniform(rng) }]
}

/// The expected score of a bot `gap` Elo above its opponent.
fn expected_score(gap: f64) -> f64 {
    1.0 / (1.0 + 10_f64.powf(-gap / 400.0))
}

/// Bot 0's rank and bot 1's for a game whose random number is `u`.
fn ranks(gap: f64, u: f64) -> (u32, u32) {
    let expected = expected_score(gap);
    let win = expected - DRAW_RATE / 2.0;
    if u < win {
        (1, 2)
    } else if u < win + DRAW_RATE {
        (1, 1)
    } else {
        (2, 1)
    }
}

/// A game of bots `a` and `b` on deal `deal_seed` of tournament
/// `tournament_id`, ranked `ranks` (a's, b's); `swapped`: b sits first (seat
/// order differs by rotation, the fit must not care).
fn two_seat_game(
    tournament_id: i64,
    deal_seed: i64,
    (a, b): (usize, usize),
    (rank_a, rank_b): (u32, u32),
    swapped: bool,
) -> FitGame {
    let mut seats = vec![
        FitSeat {
            bot_version_id: a as i64,
            rank: rank_a,
        },
        FitSeat {
            bot_version_id: b as i64,
            rank: rank_b,
        },
    ];
    if swapped {
        seats.reverse();
    }
    FitGame {
        deal: DealKey {
            tournament_id,
            seed: deal_seed,
        },
        seats,
    }
}

fn tournament(seed: u64) -> Vec<FitGame> {
    let mut rng = Rng::seeded(seed);
    let mut games = Vec::new();
    let mut deal_seed = 0;
    for (a, &strength_a) in STRENGTH.iter().enumerate() {
        for (b, &strength_b) in STRENGTH.iter().enumerate().skip(a + 1) {
            for _ in 0..DEALS_PER_PAIR {
                deal_seed += 1;
                for (seating, u) in deal_draws(&mut rng).into_iter().enumerate() {
                    let ranks = ranks(strength_a - strength_b, u);
                    games.push(two_seat_game(1, deal_seed, (a, b), ranks, seating == 1));
                }
            }
        }
    }
    games
}

/// 1 if `interval` holds `value`, else 0 (for counting).
fn covers(interval: &Estimate, value: f64) -> usize {
    usize::from(interval.low <= value && value <= interval.high)
}

/// Fits 400 tournaments and checks both rates: the interval of B - C (bots
/// 2 and 3) covers the true gap, and that of A - A2 (bots 0 and 1) holds 0.
fn assert_calibrated(label: &str, strength: &[f64], tournament: impl Fn(u64) -> Vec<FitGame>) {
    let mut covered = 0;
    let mut copies_same = 0;
    for seed in 0..TOURNAMENTS {
        let fit = fit(&tournament(seed), &FitConfig::default());
        let gap = fit.difference(2, 3).expect("B and C are rated");
        let truth = strength[2] - strength[3];
        covered += covers(&gap, truth);
        let copies = fit.difference(0, 1).expect("A and A2 are rated");
        copies_same += covers(&copies, 0.0);
    }
    let rate = |count: usize| count as f64 / TOURNAMENTS as f64;
    println!(
        "calibration ({label}): B-C covered {:.3}, copies not different {:.3}",
        rate(covered),
        rate(copies_same)
    );
    assert!(
        (0.93..=0.97).contains(&rate(covered)),
        "{label}: the true gap was covered in {covered} of {TOURNAMENTS}"
    );
    assert!(
        (0.93..=0.97).contains(&rate(copies_same)),
        "{label}: two copies were not different in {copies_same} of {TOURNAMENTS}"
    );
}

#[test]
fn intervals_cover_the_true_gaps_95_percent_of_the_time() {
    assert_calibrated("two seats", &STRENGTH, tournament);
}

/// True strengths in Elo for the four-seat calibration: A, A2, B, C.
const TABLE_STRENGTH: [f64; 4] = [0.0, 0.0, 50.0, -50.0];
const TABLE_DEALS: usize = 60;

/// A standard Gumbel draw: `-ln(-ln(u))`.
fn gumbel(rng: &mut Rng) -> f64 {
    let u = ((rng.next_u64() >> 11) as f64 + 0.5) / (1_u64 << 53) as f64;
    -(-u.ln()).ln()
}

/// The four bots at one table, each deal played from the four rotations;
/// rankings are Plackett-Luce drawn by Gumbel noise, the same noise for
/// every rotation of half the deals.
fn table_tournament(seed: u64) -> Vec<FitGame> {
    let mut rng = Rng::seeded(seed);
    let mut games = Vec::new();
    let mut deal_seed = 0;
    {
        let table: Vec<usize> = (0..TABLE_STRENGTH.len()).collect();
        for _ in 0..TABLE_DEALS {
            deal_seed += 1;
            let shared = rng.below(2) == 0;
            let first: Vec<f64> = table.iter().map(|_| gumbel(&mut rng)).collect();
            for rotation in 0..table.len() {
                let noise: Vec<f64> = if shared || rotation == 0 {
                    first.clone()
                } else {
                    table.iter().map(|_| gumbel(&mut rng)).collect()
                };
                let utility: Vec<f64> = table
                    .iter()
                    .zip(&noise)
                    .map(|(&bot, e)| TABLE_STRENGTH[bot] / ELO_PER_NAT + e)
                    .collect();
                let mut seats: Vec<FitSeat> = table
                    .iter()
                    .zip(&utility)
                    .map(|(&bot, &mine)| FitSeat {
                        bot_version_id: bot as i64,
                        rank: 1 + utility.iter().filter(|&&other| other > mine).count() as u32,
                    })
                    .collect();
                seats.rotate_left(rotation);
                games.push(FitGame {
                    deal: DealKey {
                        tournament_id: 2,
                        seed: deal_seed,
                    },
                    seats,
                });
            }
        }
    }
    games
}

#[test]
fn four_seat_intervals_cover_the_true_gaps_95_percent_of_the_time() {
    assert_calibrated("four seats", &TABLE_STRENGTH, table_tournament);
}

/// True strengths in Elo for the newcomer calibration: A, A2, B, C (well
/// below) and the newcomer N (as strong as A).
const NEWCOMER_STRENGTH: [f64; 5] = [0.0, 0.0, 150.0, -200.0, 0.0];
/// The newcomer's deals: 4 against A, 2 against C (12 games).
const NEWCOMER_DEALS: [(usize, usize); 2] = [(0, 4), (3, 2)];

/// The two-seat round robin of A, A2, B and C (180 games each), then a
/// newcomer's 12 games: the shape of a bot that just joined a busy board.
/// Wins and losses only; half of the deals share one random number.
fn newcomer_tournament(seed: u64) -> Vec<FitGame> {
    let mut rng = Rng::seeded(seed);
    let mut pairs = Vec::new();
    for a in 0..4 {
        for b in a + 1..4 {
            pairs.push((a, b, DEALS_PER_PAIR));
        }
    }
    pairs.extend(
        NEWCOMER_DEALS
            .iter()
            .map(|&(opponent, deals)| (4, opponent, deals)),
    );
    let mut games = Vec::new();
    let mut deal_seed = 0;
    for (a, b, deals) in pairs {
        let expected = expected_score(NEWCOMER_STRENGTH[a] - NEWCOMER_STRENGTH[b]);
        for _ in 0..deals {
            deal_seed += 1;
            for (seating, u) in deal_draws(&mut rng).into_iter().enumerate() {
                let ranks = if u < expected { (1, 2) } else { (2, 1) };
                games.push(two_seat_game(3, deal_seed, (a, b), ranks, seating == 1));
            }
        }
    }
    games
}

/// A bot with 12 games among bots with 180 each: its rating's interval
/// (mean anchor) and its gap to A cover the truth 93-97% of the time.
/// Before intervals were widened for few deals (see the RULING in
/// `fit.rs`) this measured 87.9% and 87.9%; now 96.5% and 97.0% (with B and C
/// 50 Elo either side of A: 97.2% and 96.5%). Samples that
/// leave the newcomer unbeaten or winless are common here (its interval is
/// then one-sided in most tournaments), so this also checks the percentile
/// path. About 17 CPU seconds in a debug build.
#[test]
fn a_newcomers_interval_covers_its_true_rating_95_percent_of_the_time() {
    let mean = NEWCOMER_STRENGTH.iter().sum::<f64>() / NEWCOMER_STRENGTH.len() as f64;
    let truth = DEFAULT_MEAN + NEWCOMER_STRENGTH[4] - mean;
    let (mut rated, mut covered, mut gap_covered) = (0, 0, 0);
    for seed in 0..TOURNAMENTS {
        let fit = fit(&newcomer_tournament(seed), &FitConfig::default());
        let ratings = fit
            .ratings(Anchor::default())
            .expect("the mean is an anchor");
        let Some(Ok(newcomer)) = ratings
            .iter()
            .find(|rating| rating.bot_version_id == 4)
            .map(|rating| rating.estimate)
        else {
            continue;
        };
        rated += 1;
        covered += covers(&newcomer, truth);
        let gap = fit.difference(4, 0).expect("the newcomer and A are rated");
        let true_gap = NEWCOMER_STRENGTH[4] - NEWCOMER_STRENGTH[0];
        gap_covered += covers(&gap, true_gap);
    }
    let rate = |count: usize| count as f64 / rated as f64;
    println!(
        "calibration (newcomer): rated in {rated} of {TOURNAMENTS}, rating covered {:.3}, gap to A covered {:.3}",
        rate(covered),
        rate(gap_covered)
    );
    assert!(
        rated >= 380,
        "the newcomer was rated in {rated} of {TOURNAMENTS}"
    );
    assert!(
        (0.93..=0.97).contains(&rate(covered)),
        "the newcomer's true rating was covered in {covered} of {rated}"
    );
    assert!(
        (0.93..=0.97).contains(&rate(gap_covered)),
        "the newcomer's true gap to A was covered in {gap_covered} of {rated}"
    );
}

/// Two bots, `deals` deals each from both seatings, `gap` Elo apart.
fn duel_tournament(seed: u64, gap: f64, deals: usize) -> Vec<FitGame> {
    let mut rng = Rng::seeded(seed);
    let mut games = Vec::new();
    for deal_seed in 0..deals as i64 {
        for (seating, u) in deal_draws(&mut rng).into_iter().enumerate() {
            let ranks = ranks(gap, u);
            games.push(two_seat_game(4, deal_seed, (0, 1), ranks, seating == 1));
        }
    }
    games
}

/// Issue 29: two newcomers on ten deals, where the widening for a newcomer
/// among established bots over-covered (98.5% of 600): every bot here
/// played every deal, so the bootstrap's interval is used as it is. Where
/// the gap has an interval (a bot that won every deal has none), it covers
/// the truth 93-97% of the time.
#[test]
fn two_newcomers_on_ten_deals_are_covered_95_percent_of_the_time() {
    const RUNS: u64 = 600;
    for gap in [0.0, 100.0] {
        let (mut rated, mut covered) = (0, 0);
        for seed in 0..RUNS {
            let fit = fit(&duel_tournament(seed, gap, 10), &FitConfig::default());
            if let Some(estimate) = fit.difference(0, 1) {
                rated += 1;
                covered += covers(&estimate, gap);
            }
        }
        let rate = covered as f64 / rated as f64;
        println!(
            "calibration (two newcomers, gap {gap}): rated {rated} of {RUNS}, covered {rate:.3}"
        );
        assert!(rated >= 500, "rated in {rated} of {RUNS}");
        assert!(
            (0.93..=0.97).contains(&rate),
            "gap {gap}: covered {covered} of {rated}"
        );
    }
}

/// An unbeaten bot's lower bound (see `bound.rs`) is a 97.5% bound: over
/// 2,000 tournaments a bot's bound lies above its true rating in at most
/// 2.5% of them (plus noise), at every strength: a newcomer 200, 400 or
/// 600 Elo above A, with 4 deals against each of A2, B and C.
#[test]
fn an_unbeaten_bots_lower_bound_is_below_its_true_rating() {
    const RUNS: u64 = 2_000;
    let mean_of_rated = STRENGTH.iter().sum::<f64>() / STRENGTH.len() as f64;
    for strong in [200.0, 400.0, 600.0] {
        let truth = DEFAULT_MEAN + strong - mean_of_rated;
        let (mut unbeaten, mut missed, mut below) = (0, 0, 0.0);
        for seed in 0..RUNS {
            let games = with_strong_newcomer(seed, strong);
            let config = FitConfig {
                bootstrap_samples: 0,
                ..FitConfig::default()
            };
            let ratings = fit(&games, &config)
                .ratings(Anchor::default())
                .expect("the mean is an anchor");
            let newcomer = ratings.iter().find(|r| r.bot_version_id == 4);
            let Some(newcomer) = newcomer.filter(|r| r.estimate == Err(Unidentified::Unbeaten))
            else {
                continue;
            };
            let bound = newcomer.bound.expect("it played rated bots");
            unbeaten += 1;
            missed += usize::from(bound > truth);
            below += truth - bound;
        }
        let rate = missed as f64 / RUNS as f64;
        let below = below / unbeaten.max(1) as f64;
        println!(
            "calibration (unbeaten bound, +{strong}): unbeaten in {unbeaten} of {RUNS}, \
             bound above the truth in {rate:.4} of all runs, {below:.0} Elo below it on average"
        );
        assert!(
            rate <= 0.03,
            "+{strong}: the bound was above the truth in {missed} of {RUNS}"
        );
    }
}

/// The round robin of A, A2, B and C, then a newcomer `strong` Elo above A
/// with 4 deals against each of A2, B and C, wins and losses only (a draw
/// would link it to them both ways).
fn with_strong_newcomer(seed: u64, strong: f64) -> Vec<FitGame> {
    let mut games = tournament(seed);
    let mut rng = Rng::seeded(seed ^ 0xB0D);
    for (opponent, &strength) in STRENGTH.iter().enumerate().skip(1) {
        for deal in 0..4 {
            let deal_seed = 1_000 + 10 * opponent as i64 + deal;
            let expected = expected_score(strong - strength);
            for (seating, u) in deal_draws(&mut rng).into_iter().enumerate() {
                let ranks = if u < expected { (1, 2) } else { (2, 1) };
                games.push(two_seat_game(
                    1,
                    deal_seed,
                    (4, opponent),
                    ranks,
                    seating == 1,
                ));
            }
        }
    }
    games
}
