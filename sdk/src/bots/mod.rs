//! The reference bots, as a library so other programs can run them too
//! (`cairn bot-run NAME` does, which is how `cairn demo` has bots on a
//! machine with nothing but the Rust toolchain). Each also has a binary in
//! `src/bin/`.

mod greedy;
mod mcts;

pub use self::mcts::{decide as mcts_decide, MctsBot, ThinkPolicy};

pub use self::greedy::bullfrogs::GreedyBot as BullfrogsGreedyBot;
pub use self::greedy::lords_of_scotland::GreedyBot as LordsOfScotlandGreedyBot;
pub use self::greedy::schotten_totten::GreedyBot as SchottenTottenGreedyBot;

use crate::{run, seeded_rng, Bot, GameObservation, GameOver, Hello, Request, Rng, SdkError};

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

    fn reads_observation(&self) -> bool {
        false
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

    fn reads_observation(&self) -> bool {
        false
    }
}

/// The greedy bot of whichever game the request is from.
#[derive(Debug, Clone, Copy, Default)]
pub struct GreedyBot;

impl Bot for GreedyBot {
    fn name(&self) -> String {
        "rust-greedy".into()
    }

    fn decide(&mut self, request: &Request) -> String {
        macro_rules! greedy {
            ([$request:ident] $(($game:ident, $module:ident))*) => {
                match $request.observation.as_ref().and_then(|o| o.game.as_ref()) {
                    $(Some(GameObservation::$game(_)) => greedy::$module::GreedyBot.decide($request),)*
                    None => $request.legal_actions.first().cloned().unwrap_or_default(),
                }
            };
        }
        cairn_engine::for_each_game!(greedy, request)
    }
}

/// The names [`run_bundled`] knows.
pub const BUNDLED_BOTS: &[&str] = &[
    "random",
    "first",
    "greedy",
    "schotten-totten-greedy",
    "lords-of-scotland-greedy",
    "bullfrogs-greedy",
    "mcts",
    "mcts-quick",
];

/// Iterations per decision of `mcts-quick`, the searching bot with a short
/// budget (the demo's, so its round robins stay short), by game. A budget
/// in work, not time (each game's is its greedy module's
/// `QUICK_ITERATIONS`): the demo's bot is as strong on a slow or loaded
/// machine as on a fast one, and given its seed it decides the same.
pub fn quick_iterations(game: &str) -> u32 {
    macro_rules! iterations {
        ([$game_id:ident] $(($game:ident, $module:ident))*) => {
            match $game_id {
                $(<cairn_engine::$module::$game as cairn_engine::Game>::ID => {
                    greedy::$module::QUICK_ITERATIONS
                })*
                _ => QUICK_ITERATIONS_OTHER,
            }
        };
    }
    cairn_engine::for_each_game!(iterations, game)
}

/// A game id outside the table (a newer arena's).
const QUICK_ITERATIONS_OTHER: u32 = 500;

/// The think policy of `mcts-quick` in `game`: [`quick_iterations`], with
/// the time control's share ([`ThinkPolicy::default`]) as a ceiling only,
/// so that a machine too slow for them plays on rather than forfeits.
pub fn quick_policy(game: &str) -> ThinkPolicy {
    ThinkPolicy {
        iterations: Some(quick_iterations(game)),
        ..ThinkPolicy::default()
    }
}

/// `cairn bot-run mcts-quick`: [`MctsBot`] on [`quick_policy`], set for
/// each game from its hello.
#[derive(Debug)]
pub struct QuickMctsBot {
    bot: MctsBot,
}

impl QuickMctsBot {
    pub fn new(rng: Rng) -> QuickMctsBot {
        QuickMctsBot {
            bot: MctsBot::new(rng, ThinkPolicy::default()),
        }
    }
}

impl Bot for QuickMctsBot {
    fn name(&self) -> String {
        "rust-mcts-quick".into()
    }

    fn hello(&mut self, hello: &Hello) {
        self.bot.policy = quick_policy(&hello.game);
        self.bot.hello(hello);
    }

    fn decide(&mut self, request: &Request) -> String {
        self.bot.decide(request)
    }

    fn game_over(&mut self, game_over: &GameOver) {
        self.bot.game_over(game_over);
    }
}

/// Runs the reference bot `name` on stdin / stdout; `None` for an unknown name.
pub fn run_bundled(name: &str) -> Option<Result<(), SdkError>> {
    match name {
        "random" => Some(run(RandomBot { rng: seeded_rng() })),
        "first" => Some(run(FirstBot)),
        "greedy" => Some(run(GreedyBot)),
        "schotten-totten-greedy" => Some(run(SchottenTottenGreedyBot)),
        "lords-of-scotland-greedy" => Some(run(LordsOfScotlandGreedyBot)),
        "bullfrogs-greedy" => Some(run(BullfrogsGreedyBot)),
        "mcts" => Some(run(MctsBot::new(seeded_rng(), ThinkPolicy::from_env()))),
        "mcts-quick" => Some(run(QuickMctsBot::new(seeded_rng()))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::play_local;
    use cairn_engine::GameOptions;

    /// `cairn demo`'s claim that the searching bot tops every leaderboard
    /// rests hardest on its three-seat Bullfrogs table, where the quick
    /// budget is thinnest. The demo's very bot (`mcts-quick`, its
    /// iterations for Bullfrogs), with time to spare so that only the
    /// iterations bound it, on seeded deals with every seating of it,
    /// greedy and random, places above greedy in most games.
    #[test]
    fn the_demos_quick_search_places_above_greedy_at_a_three_seat_bullfrogs_table() {
        const DEALS: u64 = 2;
        let options = GameOptions::new();
        let (mut above, mut games) = (0.0, 0.0);
        for deal in 0..DEALS {
            for mcts_seat in 0..3 {
                let greedy_seat = (mcts_seat + 1) % 3;
                let mut bots: Vec<Box<dyn Bot>> = (0..3)
                    .map(|seat| -> Box<dyn Bot> {
                        if seat == mcts_seat {
                            Box::new(QuickMctsBot::new(Rng::seeded(deal * 3 + seat as u64)))
                        } else if seat == greedy_seat {
                            Box::new(GreedyBot)
                        } else {
                            Box::new(RandomBot {
                                rng: Rng::seeded(deal),
                            })
                        }
                    })
                    .collect();
                let outcome = play_local("bullfrogs", &options, 700 + deal, 1_000_000, &mut bots)
                    .expect("the game plays to the end");
                games += 1.0;
                above += match outcome.ranks[mcts_seat].cmp(&outcome.ranks[greedy_seat]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
            }
        }
        assert!(
            above > games / 2.0,
            "above greedy in {above} of {games} games"
        );
    }
}
