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
        "mcts-quick" => Some(run(MctsBot::new(
            seeded_rng(),
            ThinkPolicy {
                cap: Some(QUICK_THINK),
                ..ThinkPolicy::from_env()
            },
        ))),
        _ => None,
    }
}
