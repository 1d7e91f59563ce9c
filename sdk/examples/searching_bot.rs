//! The smallest complete searching bot (PROTOCOL.md, "Writing a searching
//! bot in Rust"): Schotten Totten, 50 ms of ISMCTS per decision.
//! Run it with `cargo run --release -p cairn-sdk --example searching_bot`.

use std::time::Duration;

use cairn_sdk::engine::schotten_totten::SchottenTotten;
use cairn_sdk::engine::Rng;
use cairn_sdk::mcts::{search, Budget};
use cairn_sdk::{run, seeded_rng, Bot, FromWire, Hello, Request};

struct Searcher {
    rng: Rng,
    seat: usize,
}

impl Bot for Searcher {
    fn name(&self) -> String {
        "my-searcher".into()
    }

    fn hello(&mut self, hello: &Hello) {
        self.seat = hello.seat as usize;
    }

    fn decide(&mut self, request: &Request) -> String {
        let budget = Budget {
            think: Duration::from_millis(50),
            iterations: None,
        };
        request
            .observation
            .as_ref()
            .and_then(|wire| SchottenTotten::observation_from_wire(wire).ok())
            .and_then(|seen| search::<SchottenTotten>(&seen, self.seat, budget, &mut self.rng))
            .map(|found| found.action.to_string())
            .unwrap_or_else(|| request.legal_actions[0].clone())
    }
}

fn main() -> Result<(), cairn_sdk::SdkError> {
    run(Searcher {
        rng: seeded_rng(),
        seat: 0,
    })
}
