//! Fitted ratings on a long history: a fit plus its 200-sample bootstrap
//! over 100,000 games among 50 bots, two-seat and four-seat.
//!
//! Prints `bench: arena/fit_bradley_terry_100k_ms` and
//! `bench: arena/fit_plackett_luce_100k_ms`: the median of three fits, in
//! milliseconds of this process's CPU time (the fit is single-threaded), so
//! a machine shared with other work does not inflate them.
//!
//! The games are laid out as the arena plans them: every deal is played
//! from each rotation of its table (a pair, or a four-seat table of a
//! round-robin plan), and results come from known strengths, with draws.

use cairn_arena::fit::{fit, Anchor, DealKey, FitConfig, FitGame, FitSeat};
use cairn_arena::plan::plan_round_robin;
use cairn_engine::Rng;

const N_BOTS: usize = 50;
const N_GAMES: usize = 100_000;
/// Strengths 10 Elo apart, in natural-log units.
const STEP: f64 = 10.0 * std::f64::consts::LN_10 / 400.0;

fn uniform(rng: &mut Rng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1_u64 << 53) as f64
}

/// One game of `table` in rotation `rotation`: Plackett-Luce ranks drawn by
/// Gumbel noise, with the top two tied one game in ten.
fn play(table: &[usize], rotation: usize, deal: DealKey, rng: &mut Rng) -> FitGame {
    let mut scored: Vec<(f64, usize)> = table
        .iter()
        .map(|&bot| (bot as f64 * STEP - (-uniform(rng).ln()).ln(), bot))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let tie = rng.below(10) == 0;
    let mut seats: Vec<FitSeat> = scored
        .iter()
        .enumerate()
        .map(|(place, &(_, bot))| FitSeat {
            bot_version_id: bot as i64,
            rank: if tie && place == 1 {
                1
            } else {
                place as u32 + 1
            },
        })
        .collect();
    seats.rotate_left(rotation % table.len());
    FitGame { deal, seats }
}

/// `N_GAMES` games: deal `d` is played on `tables[d % tables.len()]` from
/// each rotation of its seats.
fn history(tables: &[Vec<usize>], seed: u64) -> Vec<FitGame> {
    let mut rng = Rng::seeded(seed);
    let seats = tables[0].len();
    (0..N_GAMES / seats)
        .flat_map(|d| {
            let deal = DealKey {
                tournament_id: 1,
                seed: d as i64,
            };
            let table = tables[d % tables.len()].clone();
            (0..seats)
                .map(|rotation| play(&table, rotation, deal, &mut rng))
                .collect::<Vec<FitGame>>()
        })
        .collect()
}

/// User + system CPU time of this process, from /proc (10 ms ticks);
/// wall time where /proc is missing.
fn cpu_seconds() -> f64 {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            let after_name = &stat[stat.rfind(')')? + 2..];
            let fields: Vec<&str> = after_name.split(' ').collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        });
    match ticks {
        Some(ticks) => ticks as f64 / 100.0,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
    }
}

/// The median of three fits, in milliseconds of CPU time.
fn time_fit(games: &[FitGame]) -> f64 {
    let mut times: Vec<f64> = (0..3)
        .map(|_| {
            let started = cpu_seconds();
            let fitted = fit(games, &FitConfig::default());
            let ratings = fitted.ratings(Anchor::default()).expect("mean anchor");
            assert_eq!(ratings.len(), N_BOTS);
            assert!(ratings.iter().all(|r| r.estimate.is_ok()));
            (cpu_seconds() - started) * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[1]
}

fn main() {
    let pairs: Vec<Vec<usize>> = (0..N_BOTS)
        .flat_map(|a| (a + 1..N_BOTS).map(move |b| vec![a, b]))
        .collect();
    let two_seat = history(&pairs, 1);
    println!(
        "bench: arena/fit_bradley_terry_100k_ms {:.0} ms",
        time_fit(&two_seat)
    );
    // Four seats play each table in its 12 balanced seatings; the fit wants
    // only the tables.
    let plan = plan_round_robin(N_BOTS, 4, 12, 7).expect("a valid plan");
    let mut tables: Vec<Vec<usize>> = plan
        .iter()
        .map(|planned| {
            let mut table = planned.seats.clone();
            table.sort_unstable();
            table
        })
        .collect();
    tables.dedup();
    let four_seat = history(&tables, 2);
    println!(
        "bench: arena/fit_plackett_luce_100k_ms {:.0} ms",
        time_fit(&four_seat)
    );
}
