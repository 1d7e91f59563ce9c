//! Always plays the first legal action, in any game: the deterministic
//! reference that other languages' first-action bots must match move for move.

fn main() -> Result<(), cairn_sdk::SdkError> {
    cairn_sdk::run(cairn_sdk::bots::FirstBot)
}
