//! Plays a uniformly random legal action, in any game.

use cairn_sdk::{run, seeded_rng, Bot, Request, Rng};

struct RandomBot {
    rng: Rng,
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

fn main() -> Result<(), cairn_sdk::SdkError> {
    run(RandomBot { rng: seeded_rng() })
}
