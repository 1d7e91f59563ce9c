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
//! Speed (debug build): about 400 × 201 fits of four bots over 12
//! distinct choices each, a few seconds; no opt-level override needed.

use super::*;

const TOURNAMENTS: u64 = 400;
const DEALS_PER_PAIR: usize = 30;
const DRAW_RATE: f64 = 0.2;
/// True strengths in Elo: A, A2, B, C.
const STRENGTH: [f64; 4] = [0.0, 0.0, 50.0, -50.0];

fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
}

/// Bot 0's rank and bot 1's for a game whose random number is `u`.
fn ranks(gap: f64, u: f64) -> (u32, u32) {
    let expected = 1.0 / (1.0 + 10_f64.powf(-gap / 400.0));
    let win = expected - DRAW_RATE / 2.0;
    if u < win {
        (1, 2)
    } else if u < win + DRAW_RATE {
        (1, 1)
    } else {
        (2, 1)
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
                let shared = rng.below(2) == 0;
                let first = uniform(&mut rng);
                for seating in 0..2 {
                    let u = if shared || seating == 0 {
                        first
                    } else {
                        uniform(&mut rng)
                    };
                    let (rank_a, rank_b) = ranks(strength_a - strength_b, u);
                    // Seat order differs by rotation; the fit must not care.
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
                    if seating == 1 {
                        seats.reverse();
                    }
                    games.push(FitGame {
                        deal: DealKey {
                            tournament_id: 1,
                            seed: deal_seed,
                        },
                        seats,
                    });
                }
            }
        }
    }
    games
}

#[test]
fn intervals_cover_the_true_gaps_95_percent_of_the_time() {
    let mut covered = 0;
    let mut copies_same = 0;
    for seed in 0..TOURNAMENTS {
        let fit = fit(&tournament(seed), &FitConfig::default());
        let gap = fit.difference(2, 3).expect("B and C are rated");
        let truth = STRENGTH[2] - STRENGTH[3];
        covered += usize::from(gap.low <= truth && truth <= gap.high);
        let copies = fit.difference(0, 1).expect("A and A2 are rated");
        copies_same += usize::from(copies.low <= 0.0 && 0.0 <= copies.high);
    }
    let rate = |count: usize| count as f64 / TOURNAMENTS as f64;
    println!(
        "calibration: B-C covered {:.3}, copies not different {:.3}",
        rate(covered),
        rate(copies_same)
    );
    assert!(
        (0.93..=0.97).contains(&rate(covered)),
        "the true gap was covered in {covered} of {TOURNAMENTS}"
    );
    assert!(
        (0.93..=0.97).contains(&rate(copies_same)),
        "two copies were not different in {copies_same} of {TOURNAMENTS}"
    );
}
