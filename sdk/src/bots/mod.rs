//! The reference bots, as a library so other programs can run them too
//! (`cairn bot-run NAME` does, which is how `cairn demo` has bots on a
//! machine with nothing but the Rust toolchain). Each also has a binary in
//! `src/bin/`.

mod schotten_totten_greedy;

pub use self::schotten_totten_greedy::GreedyBot as SchottenTottenGreedyBot;
use crate::{run, seeded_rng, Bot, Request, Rng, SdkError};

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

/// The names [`run_bundled`] knows.
pub const BUNDLED_BOTS: &[&str] = &["random", "first", "schotten-totten-greedy"];

/// Runs the reference bot `name` on stdin / stdout; `None` for an unknown name.
pub fn run_bundled(name: &str) -> Option<Result<(), SdkError>> {
    match name {
        "random" => Some(run(RandomBot { rng: seeded_rng() })),
        "first" => Some(run(FirstBot)),
        "schotten-totten-greedy" => Some(run(SchottenTottenGreedyBot)),
        _ => None,
    }
}
