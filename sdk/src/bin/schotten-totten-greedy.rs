//! A simple greedy Schotten Totten bot (see `cairn_sdk::bots`).

fn main() -> Result<(), cairn_sdk::SdkError> {
    cairn_sdk::run(cairn_sdk::bots::SchottenTottenGreedyBot)
}
