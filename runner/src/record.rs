//! The replay file lives in `cairn-proto` ([`cairn_proto::record`]), shared
//! with the arena, which re-referees every reported game; re-exported here.

pub use cairn_proto::record::{hash_text, GameRecord, RecordError, ReplayFile, REPLAY_FORMAT};
