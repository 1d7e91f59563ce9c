//! The engine's forfeit reasons and end reasons ([`cairn_engine::forfeit`])
//! and their protobuf enums (declared once, in `game.proto`; the arena API
//! imports them), both ways: one Rust type on each side of every
//! boundary, converted here only. An unknown or unspecified wire value is
//! refused, never guessed.

use cairn_engine::forfeit::{EndedBy, ForfeitReason};

use crate::game::v1 as wire;

/// A wire value that names no known reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {value}")]
pub struct UnknownReason {
    pub what: &'static str,
    pub value: i32,
}

/// Maps between an engine enum and a generated protobuf enum with the same
/// members (the generated enums number them alike: 0 is unspecified).
macro_rules! reason_conversions {
    ($engine:ty, $wire:ty, $what:literal, [$($member:ident),+ $(,)?]) => {
        impl From<$engine> for $wire {
            fn from(reason: $engine) -> $wire {
                match reason {
                    $(<$engine>::$member => <$wire>::$member,)+
                }
            }
        }

        impl TryFrom<$wire> for $engine {
            type Error = UnknownReason;

            fn try_from(reason: $wire) -> Result<$engine, UnknownReason> {
                match reason {
                    $(<$wire>::$member => Ok(<$engine>::$member),)+
                    other => Err(UnknownReason { what: $what, value: other as i32 }),
                }
            }
        }
    };
}

reason_conversions!(
    ForfeitReason,
    wire::ForfeitReason,
    "forfeit reason",
    [
        Timeout,
        Crash,
        Exit,
        ProtocolError,
        IllegalAction,
        ResourceLimit,
        BuildFailed,
        StartFailed
    ]
);
reason_conversions!(
    EndedBy,
    wire::EndReason,
    "end reason",
    [Finished, MoveLimit, Forfeit]
);

/// A forfeit reason as a raw protobuf enum number (what prost fields hold).
pub fn forfeit_reason_from_i32(value: i32) -> Result<ForfeitReason, UnknownReason> {
    let unknown = UnknownReason {
        what: "forfeit reason",
        value,
    };
    wire::ForfeitReason::try_from(value)
        .map_err(|_| unknown)
        .and_then(ForfeitReason::try_from)
}

/// An end reason as a raw protobuf enum number (what prost fields hold).
pub fn end_reason_from_i32(value: i32) -> Result<EndedBy, UnknownReason> {
    let unknown = UnknownReason {
        what: "end reason",
        value,
    };
    wire::EndReason::try_from(value)
        .map_err(|_| unknown)
        .and_then(EndedBy::try_from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_goes_to_the_wire_and_back() {
        for reason in ForfeitReason::ALL {
            let on_wire = wire::ForfeitReason::from(reason);
            assert_eq!(ForfeitReason::try_from(on_wire), Ok(reason));
            assert_eq!(forfeit_reason_from_i32(on_wire as i32), Ok(reason));
        }
        for end in EndedBy::ALL {
            assert_eq!(EndedBy::try_from(wire::EndReason::from(end)), Ok(end));
            assert_eq!(
                end_reason_from_i32(wire::EndReason::from(end) as i32),
                Ok(end)
            );
        }
    }

    #[test]
    fn an_unspecified_or_unknown_reason_is_refused() {
        assert!(ForfeitReason::try_from(wire::ForfeitReason::Unspecified).is_err());
        assert!(forfeit_reason_from_i32(0).is_err());
        assert!(forfeit_reason_from_i32(99).is_err());
        assert!(EndedBy::try_from(wire::EndReason::Unspecified).is_err());
        assert!(end_reason_from_i32(0).is_err());
        assert!(end_reason_from_i32(99).is_err());
    }
}
