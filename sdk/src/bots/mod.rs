//! The reference bots, as a library so other programs can run them too
//! (`cairn bot-run NAME` does, which is how `cairn demo` has bots on a
//! machine with nothing but the Rust toolchain). Each also has a binary in
//! `src/bin/`.

mod bullfrogs_greedy;
mod lords_of_scotland_greedy;
mod mcts;
mod schotten_totten_greedy;

pub use self::mcts::{decide as mcts_decide, MctsBot, ThinkPolicy};

pub use self::bullfrogs_greedy::GreedyBot as BullfrogsGreedyBot;
pub use self::lords_of_scotland_greedy::GreedyBot as LordsOfScotlandGreedyBot;
pub use self::schotten_totten_greedy::GreedyBot as SchottenTottenGreedyBot;
use std::time::Duration;

use crate::{run, seeded_rng, Bot, GameObservation, Request, Rng, SdkError};

/// Plays a uniformly random legal action, in any game.
#[derive(Debug)]
pub struct RandomBot {
    pub rng: Rng,
}

impl Bot for RandomBot {
    fn name(&self) -> String {
        "rust-random".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        let pick = self.rng.below(request.legal_actions.len());
        request.legal_actions.get(pick).cloned().unwrap_or_default()
    }
}

/// Always plays the first legal action, in any game.
#[derive(Debug, Clone, Copy, Default)]
pub struct FirstBot;

impl Bot for FirstBot {
    fn name(&self) -> String {
        "rust-first".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        request.legal_actions.first().cloned().unwrap_or_default()
    }
}

/// The greedy bot of whichever game the request is from.
#[derive(Debug, Clone, Copy, Default)]
pub struct GreedyBot;

impl Bot for GreedyBot {
    fn name(&self) -> String {
        "rust-greedy".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        match request.observation.as_ref().and_then(|o| o.game.as_ref()) {
            Some(GameObservation::SchottenTotten(_)) => SchottenTottenGreedyBot.decide(request),
            Some(GameObservation::LordsOfScotland(_)) => LordsOfScotlandGreedyBot.decide(request),
            Some(GameObservation::Bullfrogs(_)) => BullfrogsGreedyBot.decide(request),
            None => request.legal_actions.first().cloned().unwrap_or_default(),
        }
    }
}

/// The names [`run_bundled`] knows.
pub const BUNDLED_BOTS: &[&str] = &[
    "random",
    "first",
    "greedy",
    "schotten-totten-greedy",
    "lords-of-scotland-greedy",
    "bullfrogs-greedy",
    "mcts",
    "mcts-quick",
];

/// The think cap of `mcts-quick`, the searching bot with a short budget
/// (the demo's, so its round robins stay short).
pub const QUICK_THINK: Duration = Duration::from_millis(8);

/// The iteration floor of `mcts-quick`. Its 8 ms are thousands of
/// iterations in Schotten Totten and Lords of Scotland but a few dozen in
/// Bullfrogs, whose playouts are long: at a three-seat table that search
/// places below greedy more often than not, while 100 iterations place
/// above it about seven times in ten. A floor in iterations, not time, so
/// a slower or loaded machine does not weaken the demo's bot.
pub const QUICK_MIN_ITERATIONS: u32 = 128;

/// The think policy of `mcts-quick`.
pub fn quick_policy() -> ThinkPolicy {
    ThinkPolicy {
        cap: Some(QUICK_THINK),
        min_iterations: QUICK_MIN_ITERATIONS,
        ..ThinkPolicy::from_env()
    }
}

/// Runs the reference bot `name` on stdin / stdout; `None` for an unknown name.
pub fn run_bundled(name: &str) -> Option<Result<(), SdkError>> {
    match name {
        "random" => Some(run(RandomBot { rng: seeded_rng() })),
        "first" => Some(run(FirstBot)),
        "greedy" => Some(run(GreedyBot)),
        "schotten-totten-greedy" => Some(run(SchottenTottenGreedyBot)),
        "lords-of-scotland-greedy" => Some(run(LordsOfScotlandGreedyBot)),
        "bullfrogs-greedy" => Some(run(BullfrogsGreedyBot)),
        "mcts" => Some(run(MctsBot::new(seeded_rng(), ThinkPolicy::from_env()))),
        "mcts-quick" => Some(run(MctsBot::new(seeded_rng(), quick_policy()))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::play_local;
    use cairn_engine::GameOptions;

    /// `cairn demo`'s claim that the searching bot tops every leaderboard
    /// rests hardest on its three-seat Bullfrogs table, where the quick
    /// budget is thinnest. Searching with the floor alone (what the
    /// slowest machine gets, and deterministic), on seeded deals with
    /// every seating of the searching bot, greedy and random, it places
    /// above greedy in most games.
    #[test]
    fn the_demos_quick_search_places_above_greedy_at_a_three_seat_bullfrogs_table() {
        let policy = ThinkPolicy {
            iterations: Some(QUICK_MIN_ITERATIONS),
            ..quick_policy()
        };
        let options = GameOptions::new();
        let (mut above, mut games) = (0.0, 0.0);
        for deal in 0..3u64 {
            for mcts_seat in 0..3 {
                let greedy_seat = (mcts_seat + 1) % 3;
                let mut bots: Vec<Box<dyn Bot>> = (0..3)
                    .map(|seat| -> Box<dyn Bot> {
                        if seat == mcts_seat {
                            Box::new(MctsBot::new(Rng::seeded(deal * 3 + seat as u64), policy))
                        } else if seat == greedy_seat {
                            Box::new(GreedyBot)
                        } else {
                            Box::new(RandomBot {
                                rng: Rng::seeded(deal),
                            })
                        }
                    })
                    .collect();
                let outcome = play_local("bullfrogs", &options, 700 + deal, 1000, &mut bots)
                    .expect("the game plays to the end");
                games += 1.0;
                above += match outcome.ranks[mcts_seat].cmp(&outcome.ranks[greedy_seat]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
            }
        }
        assert!(
            above > games / 2.0,
            "above greedy in {above} of {games} games"
        );
    }
}
