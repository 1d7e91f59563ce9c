//! Random-playout throughput of every game on one core, at each table its
//! engine module lists in `PLAYOUT_BENCHES`.
//! Prints `bench: GAME/VARIANT/SEATS VALUE games/s` lines. Rates are per
//! second of this process's CPU time (single-threaded), so a busy machine
//! does not deflate them; `--quick` shortens every run to 100 ms.
//! `--games N` plays exactly N games a variant instead (a fixed amount of
//! work, for counting instructions under callgrind) and `--only PREFIX`
//! runs just the variants whose name starts with PREFIX.

use std::time::{Duration, Instant};

use cairn_engine::game::parse_options;
use cairn_engine::{Game, Rng};

/// How long each variant runs.
#[derive(Debug, Clone, Copy)]
enum Amount {
    Time(Duration),
    Games(u64),
}

impl Amount {
    fn more(self, start: Instant, games: u64) -> bool {
        match self {
            Amount::Time(budget) => start.elapsed() < budget,
            Amount::Games(n) => games < n,
        }
    }
}

/// Plays seeded random games of `G` for `amount` and prints the rate.
fn bench_game<G: Game>(name: &str, options: &[&str], n_seats: usize, amount: Amount) {
    let options = parse_options(options.iter().copied()).expect("benchmark options are valid");
    let mut rng = Rng::seeded(0xBE_4C4);
    let mut legal = Vec::new();
    let mut games = 0u64;
    let mut decisions = 0u64;
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    while amount.more(start, games) {
        let batch = match amount {
            Amount::Time(_) => 64,
            Amount::Games(_) => 1,
        };
        for _ in 0..batch {
            let mut state = G::new(&options, n_seats, games + 1).expect("benchmark setup is valid");
            while !state.is_terminal() {
                legal.clear();
                state.legal_actions(&mut legal);
                let action = &legal[rng.below(legal.len())];
                state.apply_legal(action);
                decisions += 1;
            }
            games += 1;
        }
    }
    let seconds = (cpu_seconds() - cpu_start).max(1e-3);
    println!("bench: {name} {:.0} games/s", games as f64 / seconds);
    println!(
        "bench: {name}/decisions {:.0} decisions/s",
        decisions as f64 / seconds
    );
}

/// User + system CPU time of this process, from /proc (10 ms ticks);
/// falls back to wall time where /proc is missing.
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

/// The value after `flag` on the command line, if given.
fn flag_value(flag: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == flag)?;
    args.get(at + 1).cloned()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let amount = match flag_value("--games").and_then(|n| n.parse().ok()) {
        Some(n) => Amount::Games(n),
        None => Amount::Time(Duration::from_millis(if quick { 100 } else { 2000 })),
    };
    let only = flag_value("--only").unwrap_or_default();
    macro_rules! every_game {
        ([$amount:ident, $only:ident] $(($game:ident, $module:ident))*) => {$(
            for table in cairn_engine::$module::PLAYOUT_BENCHES {
                let name = format!("{}/{}", stringify!($module), table.name);
                if name.starts_with($only.as_str()) {
                    bench_game::<cairn_engine::$module::$game>(
                        &name,
                        table.options,
                        table.n_seats,
                        $amount,
                    );
                }
            }
        )*};
    }
    cairn_engine::for_each_game!(every_game, amount, only);
}
