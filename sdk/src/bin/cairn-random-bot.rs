//! Plays a uniformly random legal action, in any game (see `cairn_sdk::bots`).

fn main() -> Result<(), cairn_sdk::SdkError> {
    cairn_sdk::run(cairn_sdk::bots::RandomBot {
        rng: cairn_sdk::seeded_rng(),
    })
}
