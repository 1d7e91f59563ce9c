//! The searching bot (single-observer ISMCTS, see `cairn_sdk::bots::MctsBot`),
//! the same as `cairn bot-run mcts`.

fn main() -> Result<(), cairn_sdk::SdkError> {
    cairn_sdk::run(cairn_sdk::bots::MctsBot::new(
        cairn_sdk::seeded_rng(),
        cairn_sdk::bots::ThinkPolicy::from_env(),
    ))
}
