//! The SDK's greedy Rust bots beat the random bot clearly, game by game,
//! through the real runner: at least 35 wins in 40 games (on this seed they
//! win 39 and 40). Two bots of equal strength reach 35 with probability
//! P(Bin(40, 1/2) >= 35) < 1e-6, so the margin is the heuristic's, not luck.
//! The random bot is seeded (`CAIRN_BOT_SEED`), so each match is the same
//! on every run.

use cairn_proto::record::ReplayFile;
use cairn_runner::{play_match, BotEntry, PlainLauncher};
use cairn_tests::{match_of, rust_bot};

const GAMES: u32 = 40;
const REQUIRED_WINS: usize = 35;

fn seeded_random_bot() -> BotEntry {
    let mut random = rust_bot("random", "cairn-random-bot");
    random
        .launch
        .env
        .push(("CAIRN_BOT_SEED".into(), "20261122".into()));
    random
}

/// Plays `GAMES` games of `game`, seats rotating, and counts the games the
/// greedy bot (bot 0) won outright, a shared first place not counting.
fn greedy_wins(game: &str, greedy_binary: &str, seed: u64) -> usize {
    let spec = match_of(
        game,
        &[],
        GAMES,
        seed,
        vec![rust_bot("greedy", greedy_binary), seeded_random_bot()],
    );
    let result = play_match(&spec, &PlainLauncher).expect("the match is refereed");
    assert!(
        result
            .games
            .iter()
            .all(|g| g.seats.iter().all(|s| s.forfeit.is_none())),
        "{:?}",
        result.stderr
    );
    ReplayFile::new(result.games.iter().map(|g| g.record.clone()).collect())
        .verify()
        .expect("the replay re-simulates");
    let rank_of = |game: &cairn_runner::GameResult, bot: usize| {
        game.seats.iter().find(|s| s.bot == bot).map(|s| s.rank)
    };
    result
        .games
        .iter()
        .filter(|g| rank_of(g, 0) == Some(1) && rank_of(g, 1) == Some(2))
        .count()
}

#[test]
fn the_lords_of_scotland_greedy_bot_beats_the_random_bot_in_at_least_35_of_40_games() {
    let wins = greedy_wins("lords-of-scotland", "lords-of-scotland-greedy", 11);
    assert!(wins >= REQUIRED_WINS, "greedy won {wins} of {GAMES}");
}

#[test]
fn the_bullfrogs_greedy_bot_beats_the_random_bot_in_at_least_35_of_40_games() {
    let wins = greedy_wins("bullfrogs", "bullfrogs-greedy", 11);
    assert!(wins >= REQUIRED_WINS, "greedy won {wins} of {GAMES}");
}
