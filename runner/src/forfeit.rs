//! A misbehaving bot is data, not an error: it forfeits the game with a
//! reason. The reasons, scoring with forfeits and re-refereeing live in the
//! engine ([`cairn_engine::forfeit`]) so the arena scores a reported game
//! exactly as the runner did; they are re-exported here.

pub use cairn_engine::forfeit::{
    build_failed_score, final_score, EndedBy, FinalScore, Forfeit, ForfeitReason,
    MAX_FORFEIT_DETAIL_BYTES,
};
