//! # cairn-sdk
//!
//! Everything a Rust bot needs: implement [`Bot`] and hand it to [`run`],
//! which speaks the line protocol (`sdk/PROTOCOL.md`) on stdin / stdout.
//!
//! # Layout
//! - [`Bot`], [`run`], [`run_with`]: the trait and the stdio loop.
//! - [`seeded_rng`]: a random generator for bots that want one.
//! - [`best_action`]: the decision of a one-ply greedy bot.
//! - [`bots`]: the reference bots as a library ([`bots::run_bundled`]),
//!   the searching [`bots::MctsBot`] among them.
//! - [`local`]: games between bots in-process, as the runner would show
//!   them (tests and the strength benchmark).
//! - [`mcts`]: single-observer ISMCTS over any engine [`cairn_engine::Game`],
//!   from determinizations of the seat's observation.
//! - `src/bin/`: reference bots: `cairn-random-bot` and `cairn-first-bot`
//!   (any game), and one greedy bot per game: `schotten-totten-greedy`,
//!   `lords-of-scotland-greedy`, `bullfrogs-greedy`.
//!
//! # Example
//! ```
//! use cairn_sdk::{run_with, Bot, Request};
//!
//! struct First;
//! impl Bot for First {
//!     fn name(&self) -> String {
//!         "first".into()
//!     }
//!     fn decide(&mut self, request: &Request) -> String {
//!         request.legal_actions[0].clone()
//!     }
//! }
//!
//! let input = concat!(
//!     r#"{"hello":{"game":"schotten-totten","seat":0,"nSeats":2}}"#, "\n",
//!     r#"{"fromTheFuture":{}}"#, "\n",
//!     r#"{"request":{"decisionId":1,"legalActions":["play r7 0","play b2 0"]}}"#, "\n",
//!     r#"{"quit":{}}"#, "\n",
//! );
//! let mut output = Vec::new();
//! run_with(First, input.as_bytes(), &mut output).unwrap();
//! let output = String::from_utf8(output).unwrap();
//! assert_eq!(output, "{\"ready\":{\"name\":\"first\"}}\n{\"action\":{\"decisionId\":1,\"action\":\"play r7 0\"}}\n");
//! ```

pub mod bots;
pub mod local;
pub mod mcts;

use std::io::{BufRead, Write};

/// The engine, for bots that search: every game's rules, determinization.
pub use cairn_engine as engine;
pub use cairn_engine::Rng;
/// Observations back from the wire into the engine's types.
pub use cairn_proto::convert::FromWire;
/// Every protocol message, for bots that need more than the re-exports below.
pub use cairn_proto::game::v1 as messages;
use cairn_proto::game::v1::{arena_message::Message, bot_message, Action, BotMessage, Ready};
pub use cairn_proto::game::v1::{
    observation::Game as GameObservation, BullfrogsObservation, GameOver, Hello,
    LordsOfScotlandObservation, Observation, Request, SchottenTottenObservation,
};
use cairn_proto::wire;

/// A bot: it names itself and picks one of the legal actions.
pub trait Bot {
    fn name(&self) -> String;

    /// A game starts (the seat may differ from the previous game's).
    fn hello(&mut self, _hello: &Hello) {}

    /// One of `request.legal_actions`, as text.
    fn decide(&mut self, request: &Request) -> String;

    /// A game ended.
    fn game_over(&mut self, _game_over: &GameOver) {}

    /// Whether [`Bot::decide`] reads the request's observation or events;
    /// a bot that answers `false` gets them empty, and the loop skips
    /// parsing them (most of a request's bytes).
    fn reads_observation(&self) -> bool {
        true
    }
}

/// Why the loop stopped early.
#[derive(Debug)]
pub enum SdkError {
    Io(std::io::Error),
    /// The arena sent a line this SDK cannot read.
    Wire(String),
}

impl std::fmt::Display for SdkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SdkError::Io(e) => write!(f, "i/o: {e}"),
            SdkError::Wire(e) => write!(f, "unreadable arena message: {e}"),
        }
    }
}

impl std::error::Error for SdkError {}

impl From<std::io::Error> for SdkError {
    fn from(e: std::io::Error) -> Self {
        SdkError::Io(e)
    }
}

/// Runs `bot` on stdin / stdout until the arena says quit.
pub fn run<B: Bot>(bot: B) -> Result<(), SdkError> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    run_with(bot, stdin.lock(), stdout.lock())
}

/// Runs `bot` on any line source and sink (for tests).
pub fn run_with<B: Bot>(
    mut bot: B,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<(), SdkError> {
    let decode = if bot.reads_observation() {
        wire::decode_arena_message
    } else {
        wire::decode_arena_message_without_observation
    };
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.trim_ascii().is_empty() {
            continue;
        }
        let message = match decode(&line) {
            Ok(message) => message,
            // A message kind from a newer arena: not for us.
            Err(wire::WireError::Empty) => continue,
            Err(error) => return Err(SdkError::Wire(error.to_string())),
        };
        let reply = match message.message {
            Some(Message::Hello(hello)) => {
                bot.hello(&hello);
                bot_message::Message::Ready(Ready { name: bot.name() })
            }
            Some(Message::Request(request)) => {
                let action = bot.decide(&request);
                bot_message::Message::Action(Action {
                    decision_id: request.decision_id,
                    action,
                })
            }
            Some(Message::GameOver(game_over)) => {
                bot.game_over(&game_over);
                continue;
            }
            Some(Message::Quit(_)) | None => break,
        };
        output.write_all(&wire::encode_bot_message(&BotMessage {
            message: Some(reply),
        }))?;
        output.flush()?;
    }
    Ok(())
}

/// A generator seeded from `CAIRN_BOT_SEED` when set (reproducible runs),
/// else from the clock and the process id.
pub fn seeded_rng() -> Rng {
    let seed = std::env::var("CAIRN_BOT_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            nanos ^ (std::process::id() as u64) << 32
        });
    Rng::seeded(seed)
}

/// The legal action with the highest `score`, the earliest on a tie (and
/// an empty text if there is none): the whole decision of a one-ply greedy bot.
pub fn best_action(request: &Request, score: impl Fn(&str) -> i32) -> String {
    let mut best: Option<(i32, &String)> = None;
    for action in &request.legal_actions {
        let action_score = score(action);
        if best.is_none_or(|(best_score, _)| action_score > best_score) {
            best = Some((action_score, action));
        }
    }
    best.map(|(_, action)| action.clone()).unwrap_or_default()
}

/// The Schotten Totten view in a request, if the game is Schotten Totten.
pub fn schotten_totten_view(request: &Request) -> Option<&SchottenTottenObservation> {
    match request.observation.as_ref()?.game.as_ref()? {
        GameObservation::SchottenTotten(seen) => Some(seen),
        _ => None,
    }
}

/// The Lords of Scotland view in a request, if the game is Lords of Scotland.
pub fn lords_of_scotland_view(request: &Request) -> Option<&LordsOfScotlandObservation> {
    match request.observation.as_ref()?.game.as_ref()? {
        GameObservation::LordsOfScotland(seen) => Some(seen),
        _ => None,
    }
}

/// The Bullfrogs view in a request, if the game is Bullfrogs.
pub fn bullfrogs_view(request: &Request) -> Option<&BullfrogsObservation> {
    match request.observation.as_ref()?.game.as_ref()? {
        GameObservation::Bullfrogs(seen) => Some(seen),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Keeps what each request showed it.
    struct Recorder {
        reads: bool,
        seen: Rc<RefCell<Vec<Request>>>,
    }

    impl Bot for Recorder {
        fn name(&self) -> String {
            "recorder".into()
        }

        fn decide(&mut self, request: &Request) -> String {
            self.seen.borrow_mut().push(request.clone());
            request.legal_actions.last().cloned().unwrap_or_default()
        }

        fn reads_observation(&self) -> bool {
            self.reads
        }
    }

    #[test]
    fn a_bot_that_reads_no_observation_gets_the_same_request_less_its_observation() {
        let input = concat!(
            r#"{"hello":{"game":"schotten-totten","seat":0,"nSeats":2}}"#,
            "\n\n",
            r#"{"request":{"decisionId":7,"events":[{"seat":1,"action":"pass"}],"observation":{"schottenTotten":{"hand":["r7"]}},"legalActions":["play r7 0","play r7 1"],"bankLeftMs":900}}"#,
            "\r\n",
            r#"{"fromTheFuture":{}}"#,
            "\n",
            r#"{"quit":{}}"#,
            "\n",
        );
        let mut answers = Vec::new();
        for reads in [true, false] {
            let seen = Rc::default();
            let bot = Recorder {
                reads,
                seen: Rc::clone(&seen),
            };
            let mut output = Vec::new();
            run_with(bot, input.as_bytes(), &mut output).unwrap();
            let seen = seen.borrow();
            let [request] = &seen[..] else {
                panic!("one request: {seen:?}")
            };
            assert_eq!(
                (request.decision_id, request.bank_left_ms),
                (7, 900),
                "{reads}"
            );
            assert_eq!(request.legal_actions, ["play r7 0", "play r7 1"]);
            assert_eq!(request.observation.is_some(), reads);
            assert_eq!(request.events.len(), usize::from(reads));
            answers.push(String::from_utf8(output).unwrap());
        }
        assert_eq!(answers[0], answers[1]);
        assert!(answers[0].ends_with("{\"action\":{\"decisionId\":7,\"action\":\"play r7 1\"}}\n"));
    }
}
