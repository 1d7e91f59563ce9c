//! Always plays the first legal action, in any game: the deterministic
//! reference that other languages' first-action bots must match move for move.

use cairn_sdk::{run, Bot, Request};

struct FirstBot;

impl Bot for FirstBot {
    fn name(&self) -> String {
        "rust-first".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        request.legal_actions.first().cloned().unwrap_or_default()
    }
}

fn main() -> Result<(), cairn_sdk::SdkError> {
    run(FirstBot)
}
