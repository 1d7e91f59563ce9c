//! The searching bot: single-observer ISMCTS ([`crate::mcts`]) in every game
//! and variant, from nothing but the protocol. Each request's observation
//! comes back from the wire into the engine's type, the engine completes it
//! into whole states at random ([`cairn_engine::Game::determinize`]), and
//! the search plays them out.
//!
//! Time: each decision thinks for a fixed share of what the time control
//! gives ([`ThinkPolicy`]): three quarters of the per-decision allowance
//! plus a fortieth of the bank left, measured in this thread's CPU time
//! (what the runner charges), so the bank is never overdrawn. Given
//! `CAIRN_BOT_SEED` the random choices are the same on every run; with an
//! iteration cap (`CAIRN_MCTS_ITERATIONS`, or [`ThinkPolicy::iterations`])
//! and time to spare, so are the decisions.

use std::time::Duration;

use cairn_engine::{Game, Rng};
use cairn_proto::convert::FromWire;

use super::GreedyBot;
use crate::mcts::{search, Budget, Playout};
use crate::{Bot, Hello, Observation, Request};

/// How long each decision thinks.
#[derive(Debug, Clone, Copy)]
pub struct ThinkPolicy {
    /// Share of the per-decision allowance spent on every decision.
    pub per_decision_share: f64,
    /// Every decision also spends the bank left divided by this.
    pub bank_divisor: u32,
    /// Never think longer than this.
    pub cap: Option<Duration>,
    /// Stop after this many iterations even with time left.
    pub iterations: Option<u32>,
}

impl Default for ThinkPolicy {
    fn default() -> Self {
        ThinkPolicy {
            per_decision_share: 0.75,
            bank_divisor: 40,
            cap: None,
            iterations: None,
        }
    }
}

impl ThinkPolicy {
    /// The policy of `cairn bot-run mcts`: the default, with an iteration
    /// cap from `CAIRN_MCTS_ITERATIONS` when set.
    pub fn from_env() -> ThinkPolicy {
        ThinkPolicy {
            iterations: std::env::var("CAIRN_MCTS_ITERATIONS")
                .ok()
                .and_then(|text| text.parse().ok()),
            ..ThinkPolicy::default()
        }
    }

    /// The thinking time for a decision with `bank_left_ms` in the bank.
    pub fn think(&self, hello: Option<&Hello>, bank_left_ms: u32) -> Duration {
        let per_decision_ms = hello
            .and_then(|hello| hello.time_control)
            .map_or(0, |control| control.per_decision_ms);
        let ms = per_decision_ms as f64 * self.per_decision_share
            + bank_left_ms as f64 / self.bank_divisor.max(1) as f64;
        let think = Duration::from_secs_f64(ms / 1000.0);
        self.cap.map_or(think, |cap| think.min(cap))
    }
}

/// The ISMCTS bot, for every game.
#[derive(Debug)]
pub struct MctsBot {
    pub rng: Rng,
    pub policy: ThinkPolicy,
    hello: Option<Hello>,
}

impl MctsBot {
    pub fn new(rng: Rng, policy: ThinkPolicy) -> MctsBot {
        MctsBot {
            rng,
            policy,
            hello: None,
        }
    }

    /// The search's choice, `None` when the observation cannot be used.
    fn searched(&mut self, request: &Request, budget: Budget) -> Option<String> {
        let game = self.hello.as_ref()?.game.clone();
        let seen = request.observation.as_ref()?;
        let seat = self.hello.as_ref()?.seat as usize;
        let rng = &mut self.rng;
        macro_rules! search {
            ([$game_id:ident, $seen:ident, $seat:ident, $budget:ident, $rng:ident]
             $(($game:ident, $module:ident))*) => {
                match $game_id.as_str() {
                    $(<cairn_engine::$module::$game as Game>::ID => {
                        decide::<cairn_engine::$module::$game>($seen, $seat, $budget, $rng)
                    })*
                    // A game id outside the table (a newer arena's).
                    _ => None,
                }
            };
        }
        cairn_engine::for_each_game!(search, game, seen, seat, budget, rng)
    }
}

/// One decision of game `G`: the searched action's text.
pub fn decide<G: FromWire + Playout>(
    seen: &Observation,
    seat: usize,
    budget: Budget,
    rng: &mut Rng,
) -> Option<String> {
    let seen = G::observation_from_wire(seen).ok()?;
    search::<G>(&seen, seat, budget, rng).map(|result| result.action.to_string())
}

impl Bot for MctsBot {
    fn name(&self) -> String {
        "rust-mcts".into()
    }

    fn hello(&mut self, hello: &Hello) {
        self.hello = Some(hello.clone());
    }

    fn decide(&mut self, request: &Request) -> String {
        if request.legal_actions.len() == 1 {
            return request.legal_actions[0].clone();
        }
        let budget = Budget {
            think: self.policy.think(self.hello.as_ref(), request.bank_left_ms),
            iterations: self.policy.iterations,
        };
        match self.searched(request, budget) {
            Some(action) if request.legal_actions.contains(&action) => action,
            // An observation the search cannot use (a newer arena, a bug):
            // play on with the greedy choice rather than forfeit.
            _ => GreedyBot.decide(request),
        }
    }
}

#[cfg(test)]
mod tests {
    use cairn_engine::{new_game, GameOptions, GAMES};

    use super::*;

    #[test]
    fn the_searching_bot_searches_every_game_of_the_engine_table() {
        for game in GAMES {
            let id = game.descriptor.id;
            let n_seats = game.descriptor.seat_bounds().0.max(2);
            let state = new_game(id, &GameOptions::new(), n_seats, 7).unwrap();
            let seat = state.current_seat().unwrap();
            let mut bot = MctsBot::new(Rng::seeded(1), ThinkPolicy::default());
            bot.hello(&Hello {
                game: id.to_string(),
                seat: seat as u32,
                n_seats: n_seats as u32,
                ..Hello::default()
            });
            let request = Request {
                observation: Some(cairn_proto::convert::observation(state.as_ref(), seat).unwrap()),
                legal_actions: state.legal_actions(),
                ..Request::default()
            };
            let budget = Budget {
                think: Duration::from_secs(5),
                iterations: Some(20),
            };
            let action = bot.searched(&request, budget);
            assert!(action.is_some(), "{id} has no search arm");
            assert!(request.legal_actions.contains(&action.unwrap()), "{id}");
        }
    }
}
