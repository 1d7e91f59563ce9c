//! What Lords of Scotland declares about itself (see [`crate::descriptor`]).

use crate::descriptor::{
    ActionForm, GameDescriptor, OptionKind, OptionSpec, PlayoutBench, SeatRule,
};

pub const DESCRIPTOR: GameDescriptor = GameDescriptor {
    id: "lords-of-scotland",
    name: "Lords of Scotland",
    seats: &[SeatRule {
        when: None,
        min: 2,
        max: super::MAX_SEATS,
    }],
    options: &[OptionSpec {
        key: "bruce",
        kind: OptionKind::Bool,
        default: "false",
        meaning: "shuffle the two Bruce cards (the royal clan) into the deck",
    }],
    actions: &[
        ActionForm {
            form: "recruit SLOT",
            meaning: "take the recruit in slot 0 to 4 into hand",
            examples: &["recruit 3"],
        },
        ActionForm {
            form: "muster CARD SIDE",
            meaning: "play a card from hand into your army, face `up` or `down`",
            examples: &["muster scott7 up", "muster wemyss3 down"],
        },
        ActionForm {
            form: "pass",
            meaning: "nothing else is possible (empty hand, no recruit left)",
            examples: &["pass"],
        },
        ActionForm {
            form: "skip",
            meaning: "leave a power unused",
            examples: &["skip"],
        },
        ActionForm {
            form: "activate",
            meaning: "use the power of Forsyth, Cochrane, MacDonnell or Bruce",
            examples: &["activate"],
        },
        ActionForm {
            form: "copy CLAN",
            meaning: "Scott: copy the power of a face-up follower's clan",
            examples: &["copy cochrane"],
        },
        ActionForm {
            form: "also CARD SIDE",
            meaning: "Makgill: muster another card from hand",
            examples: &["also wemyss3 down"],
        },
        ActionForm {
            form: "exchange SUPPORTER",
            meaning: "Cockburn: swap this card with that supporter",
            examples: &["exchange forsyth9"],
        },
        ActionForm {
            form: "swap FOLLOWER",
            meaning:
                "Fergusson: swap with a follower, face up by card or face down as `seatN/downK`",
            examples: &["swap fergusson4", "swap seat1/down0"],
        },
        ActionForm {
            form: "discard FOLLOWER",
            meaning: "Wemyss: discard a follower, face up by card or face down as `seatN/downK`",
            examples: &["discard scott2", "discard seat0/down1"],
        },
        ActionForm {
            form: "support CARD",
            meaning: "take that supporter at the end of the skirmish",
            examples: &["support cochrane11"],
        },
    ],
    solo_rank_title: None,
    solo_forfeit_score: None,
};

/// The tables the playout bench times this game at.
pub const PLAYOUT_BENCHES: &[PlayoutBench] = &[
    PlayoutBench {
        name: "2p",
        options: &[],
        n_seats: 2,
    },
    PlayoutBench {
        name: "4p",
        options: &[],
        n_seats: 4,
    },
    PlayoutBench {
        name: "5p/bruce",
        options: &["bruce=true"],
        n_seats: 5,
    },
];
