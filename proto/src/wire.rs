//! The line format: each message is one line of JSON in the proto3 JSON
//! mapping, ended by `\n`. Both directions live here so the runner and the
//! Rust SDK can never disagree about it.

use crate::game::v1::{ArenaMessage, BotMessage};

mod request_head;

/// A line that is not a message of the expected kind.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("not valid JSON for this message: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the message names none of the known kinds")]
    Empty,
}

/// One arena message as a line, newline included.
pub fn encode_arena_message(message: &ArenaMessage) -> Vec<u8> {
    encode_line(message)
}

/// One arena message as a line into `line` (cleared first), so a caller
/// sending many can reuse one buffer.
pub fn encode_arena_message_into(message: &ArenaMessage, line: &mut Vec<u8>) {
    line.clear();
    // As in `encode_line`: generated messages always serialise.
    if serde_json::to_writer(&mut *line, message).is_err() {
        line.clear();
    }
    line.push(b'\n');
}

/// One bot message as a line, newline included.
pub fn encode_bot_message(message: &BotMessage) -> Vec<u8> {
    encode_line(message)
}

fn encode_line<T: serde::Serialize>(message: &T) -> Vec<u8> {
    // Serialising generated messages into a Vec cannot fail: every field
    // is a plain string, number, list or map with string keys.
    let mut line = serde_json::to_vec(message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Reads a bot's line (with or without its newline).
pub fn decode_bot_message(line: &[u8]) -> Result<BotMessage, WireError> {
    let message: BotMessage = serde_json::from_slice(trim_line(line))?;
    match message.message {
        Some(_) => Ok(message),
        None => Err(WireError::Empty),
    }
}

/// Reads an arena line (with or without its newline).
pub fn decode_arena_message(line: &[u8]) -> Result<ArenaMessage, WireError> {
    let message: ArenaMessage = serde_json::from_slice(trim_line(line))?;
    match message.message {
        Some(_) => Ok(message),
        None => Err(WireError::Empty),
    }
}

/// Reads an arena line as [`decode_arena_message`] does, except that a
/// request's events and observation are skipped unread and left empty: for
/// a bot that decides from the legal actions alone, the observation is most
/// of a request's bytes and nearly all of its parsing. A request in the
/// arena's own spelling is read by hand ([`request_head`]); any other line
/// (another kind, another spelling) is decoded whole.
pub fn decode_arena_message_without_observation(line: &[u8]) -> Result<ArenaMessage, WireError> {
    match request_head::read(trim_line(line)) {
        Some(head) => Ok(head.into_message()),
        None => decode_arena_message(line),
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::v1::{arena_message, bot_message, Action, Hello, Ready, Request, TimeControl};

    #[test]
    fn a_hello_round_trips_through_one_json_line() {
        let hello = Hello {
            protocol_version: crate::PROTOCOL_VERSION as i32,
            game: "schotten-totten".into(),
            options: [("tactics".to_string(), "true".to_string())].into(),
            seat: 0,
            n_seats: 2,
            time_control: Some(TimeControl {
                per_decision_ms: 1000,
                bank_ms: 10_000,
            }),
            game_index: 0,
            n_games: 3,
        };
        let message = ArenaMessage {
            message: Some(arena_message::Message::Hello(hello)),
        };
        let line = encode_arena_message(&message);
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        assert!(line.ends_with(b"\n"));
        let text = String::from_utf8(line.clone()).unwrap();
        assert!(
            text.contains(r#""protocolVersion":"PROTOCOL_VERSION_1""#),
            "{text}"
        );
        assert!(
            text.contains(r#""seat":0"#),
            "default values are written out: {text}"
        );
        assert_eq!(decode_arena_message(&line).unwrap(), message);
        let mut reused = b"old contents".to_vec();
        encode_arena_message_into(&message, &mut reused);
        assert_eq!(reused, line);
    }

    #[test]
    fn bot_messages_accept_snake_case_and_ignore_unknown_fields() {
        let line = br#"{"action":{"decision_id":3,"action":"pass","note":"thinking"}}"#;
        let expected = BotMessage {
            message: Some(bot_message::Message::Action(Action {
                decision_id: 3,
                action: "pass".into(),
            })),
        };
        assert_eq!(decode_bot_message(line).unwrap(), expected);
        let ready = encode_bot_message(&BotMessage {
            message: Some(bot_message::Message::Ready(Ready { name: "x".into() })),
        });
        assert_eq!(ready, b"{\"ready\":{\"name\":\"x\"}}\n");
    }

    /// Every request of random games of every game, at its fewest and most
    /// seats, as the arena writes it, given to `each` with its game's id.
    fn every_request_line(mut each: impl FnMut(&str, &[u8])) -> u32 {
        let mut rng = cairn_engine::Rng::seeded(11);
        let mut requests = 0;
        for game in cairn_engine::GAMES {
            let (min, max) = game.descriptor.seat_bounds();
            for (n_seats, seed) in [(min.max(2), 5), (max, 6), (max, 7)] {
                let options = cairn_engine::GameOptions::new();
                let mut state =
                    cairn_engine::new_game(game.descriptor.id, &options, n_seats, seed).unwrap();
                while let Some(seat) = state.current_seat() {
                    let legal = state.legal_actions();
                    let whole = ArenaMessage {
                        message: Some(arena_message::Message::Request(Request {
                            decision_id: requests,
                            events: vec![crate::game::v1::Event {
                                seat: 1,
                                action: "pass".into(),
                            }],
                            observation: Some(
                                crate::convert::observation(state.as_ref(), seat).unwrap(),
                            ),
                            legal_actions: legal.clone(),
                            bank_left_ms: requests * 7,
                        })),
                    };
                    each(game.descriptor.id, &encode_arena_message(&whole));
                    requests += 1;
                    state.apply_text(&legal[rng.below(legal.len())]).unwrap();
                }
            }
        }
        requests
    }

    /// A line read whole, with what the shortcut skips left out.
    fn whole_without_observation(line: &[u8]) -> Result<ArenaMessage, WireError> {
        let mut message = decode_arena_message(line)?;
        if let Some(arena_message::Message::Request(request)) = &mut message.message {
            request.events.clear();
            request.observation = None;
        }
        Ok(message)
    }

    /// Every request of every game, read by the shortcut (by hand, never
    /// falling back) and read whole, agree but for what the shortcut skips;
    /// so do the other kinds and a request in another spelling.
    #[test]
    fn a_request_read_without_its_observation_agrees_with_the_whole_read() {
        let requests = every_request_line(|_, line| {
            assert!(request_head::read(trim_line(line)).is_some());
            assert_eq!(
                decode_arena_message_without_observation(line).unwrap(),
                whole_without_observation(line).unwrap()
            );
        });
        assert!(requests > 1_000, "{requests} requests");
        let snake = br#"{"request":{"decision_id":4,"legal_actions":["pass"]}}"#;
        assert_eq!(
            decode_arena_message_without_observation(snake).unwrap(),
            decode_arena_message(snake).unwrap()
        );
        let hello = encode_arena_message(&ArenaMessage {
            message: Some(arena_message::Message::Hello(Hello::default())),
        });
        assert_eq!(
            decode_arena_message_without_observation(&hello).unwrap(),
            decode_arena_message(&hello).unwrap()
        );
        for refused in [
            &b"{}"[..],
            b"nonsense",
            br#"{"request":{"decisionId":"x"}}"#,
        ] {
            assert!(decode_arena_message_without_observation(refused).is_err());
        }
    }

    /// Damaged requests (cut short, or one byte replaced by a bracket, a
    /// quote, an escape, a comma or a letter): the hand reading refuses
    /// every cut line, and what it reads of a damaged one is what the whole
    /// reading reads, unless the whole reading refuses the line (the damage
    /// is then inside a member the hand reading skips unread).
    #[test]
    fn a_damaged_request_is_never_read_as_another_request() {
        let mut seen = std::collections::BTreeMap::<String, u32>::new();
        every_request_line(|game, line| {
            let count = seen.entry(game.to_string()).or_default();
            *count += 1;
            if *count % 97 != 1 {
                return;
            }
            let line = trim_line(line);
            for end in 0..line.len() {
                assert!(request_head::read(&line[..end]).is_none());
            }
            for at in 0..line.len() {
                for byte in [b'"', b'{', b']', b',', b'\\', b'x'] {
                    let mut damaged = line.to_vec();
                    damaged[at] = byte;
                    let Some(head) = request_head::read(&damaged) else {
                        continue;
                    };
                    if let Ok(whole) = whole_without_observation(&damaged) {
                        let read = head.into_message();
                        assert_eq!(whole, read, "{}", String::from_utf8_lossy(&damaged));
                    }
                }
            }
        });
        assert_eq!(seen.len(), cairn_engine::GAMES.len());
    }

    #[test]
    fn garbage_and_empty_envelopes_are_refused() {
        assert!(matches!(
            decode_bot_message(b"hello there"),
            Err(WireError::Json(_))
        ));
        assert!(matches!(decode_bot_message(b"{}"), Err(WireError::Empty)));
        assert!(matches!(
            decode_bot_message(br#"{"action":{"decisionId":"x"}}"#),
            Err(WireError::Json(_))
        ));
        assert!(decode_bot_message(b"").is_err());
    }
}
