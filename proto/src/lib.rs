//! # cairn-proto
//!
//! cairn's wire formats: the bot protocol (`game.proto`, package
//! `cairn.game.v1`), its proto3 JSON mapping, and the conversions from engine
//! state to wire messages.
//!
//! # Layout
//! - [`game::v1`]: the generated prost messages, with serde impls for the
//!   proto3 JSON mapping generated from the same descriptors (pbjson).
//! - [`wire`]: one message per line of JSON, as bots read and write them.
//! - [`convert`]: engine to wire: observations, one module per game,
//!   dispatched by game id.
//! - [`json_number`]: the number reader the generated JSON code uses.
//!
//! # Example
//! ```
//! use cairn_proto::game::v1::{bot_message, Action, BotMessage};
//! use cairn_proto::wire;
//!
//! let line = br#"{"action": {"decisionId": 7, "action": "play 3"}}"#;
//! let message = wire::decode_bot_message(line).unwrap();
//! let expected = BotMessage { message: Some(bot_message::Message::Action(Action { decision_id: 7, action: "play 3".into() })) };
//! assert_eq!(message, expected);
//! ```

pub mod convert;
pub mod json_number;
pub mod wire;

/// Generated code for the `cairn.game.v1` protobuf package.
pub mod game {
    pub mod v1 {
        #![allow(missing_debug_implementations, clippy::all)]
        include!(concat!(env!("OUT_DIR"), "/cairn.game.v1.rs"));
        include!(concat!(env!("OUT_DIR"), "/cairn.game.v1.serde.rs"));
    }
}

/// The protocol version spoken by this build, sent in every hello.
pub const PROTOCOL_VERSION: game::v1::ProtocolVersion = game::v1::ProtocolVersion::ProtocolVersion1;
