//! A simple greedy Bullfrogs bot (see `cairn_sdk::bots`).

fn main() -> Result<(), cairn_sdk::SdkError> {
    cairn_sdk::run(cairn_sdk::bots::BullfrogsGreedyBot)
}
