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
//! - [`steps`]: a replay re-simulated step by step, every seat's view of
//!   every state (what the replay viewers draw).
//! - [`json_number`]: the number reader the generated JSON code uses.
//! - [`reasons`]: the engine's forfeit and end reasons to their protobuf
//!   enums (bot protocol and arena API) and back.
//! - [`record`]: the replay file a runner writes and the arena checks,
//!   verified by re-refereeing it.
//! - `arena::v1` (feature `arena-api`): the arena API (`arena.proto`,
//!   package `cairn.arena.v1`): tonic clients for the CLI and runners,
//!   servers for the arena, and the descriptor set for reflection.
//! - `archive` (feature `archive`): checking, packing and unpacking bot
//!   archives, shared by the arena (submissions), runners (fetched
//!   artifacts) and the CLI (`bot add`).
//!
//! Bots (through `cairn-sdk`) use neither feature, so they do not compile
//! tonic or the archive code.
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

#[cfg(feature = "archive")]
pub mod archive;
pub mod convert;
pub mod json_number;
pub mod reasons;
pub mod record;
pub mod steps;
pub mod wire;

/// Generated code for the `cairn.game.v1` protobuf package.
pub mod game {
    pub mod v1 {
        #![allow(missing_debug_implementations, clippy::all)]
        include!(concat!(env!("OUT_DIR"), "/cairn.game.v1.rs"));
        include!(concat!(env!("OUT_DIR"), "/cairn.game.v1.serde.rs"));
    }
}

/// Generated code for the `cairn.arena.v1` protobuf package.
#[cfg(feature = "arena-api")]
pub mod arena {
    pub mod v1 {
        #![allow(missing_debug_implementations, clippy::all)]
        tonic::include_proto!("cairn.arena.v1");

        /// Declared once, in the game protocol; named here too because the
        /// arena's messages carry them.
        pub use crate::game::v1::{EndReason, ForfeitReason};

        /// The encoded descriptors of `arena.proto`, for reflection.
        pub const FILE_DESCRIPTOR_SET: &[u8] =
            include_bytes!(concat!(env!("OUT_DIR"), "/arena_descriptor.bin"));
    }
}

/// How much of a seat's stderr a game's report carries: its last bytes,
/// written during that game (runners cut it, the arena refuses more).
pub const STDERR_TAIL_CAP: usize = 8 << 10;

/// The protocol version spoken by this build, sent in every hello.
pub const PROTOCOL_VERSION: game::v1::ProtocolVersion = game::v1::ProtocolVersion::ProtocolVersion1;
