//! What Bullfrogs declares about itself (see [`crate::descriptor`]).

use crate::descriptor::{
    ActionForm, GameDescriptor, OptionKind, OptionSpec, PlayoutBench, SeatRule,
};

pub const DESCRIPTOR: GameDescriptor = GameDescriptor {
    id: "bullfrogs",
    name: "Bullfrogs",
    seats: &[
        SeatRule {
            when: Some(("solo", "true")),
            min: 1,
            max: 1,
        },
        SeatRule {
            when: None,
            min: 2,
            max: 4,
        },
    ],
    options: &[OptionSpec {
        key: "solo",
        kind: OptionKind::Bool,
        default: "false",
        meaning: "one seat against the automaton Isaac, driven by seeded dice",
    }],
    actions: &[
        ActionForm {
            form: "play PAD at X,Y",
            meaning: "play a lily pad card from hand (`pad3`, `pad4` or `pad5`) at a cell",
            examples: &["play pad3 at -1,1"],
        },
        ActionForm {
            form: "recruit PIECE at X,Y",
            meaning: "recruit a `frog` or `bullfrog` from supply onto a card",
            examples: &["recruit frog at 0,1", "recruit bullfrog at 1,0"],
        },
        ActionForm {
            form: "move frog from X,Y to X,Y",
            meaning: "recruit with an empty supply: move one of your frogs between pads",
            examples: &["move frog from 2,0 to 0,1"],
        },
        ActionForm {
            form: "sabotage COLOR from X,Y to X,Y",
            meaning: "jump an opponent's frog of that color to an adjacent card",
            examples: &["sabotage blue from 0,1 to 1,1"],
        },
        ActionForm {
            form: "stop",
            meaning: "end the action step early",
            examples: &["stop"],
        },
        ActionForm {
            form: "score X,Y",
            meaning: "score this full pad next",
            examples: &["score 1,1"],
        },
        ActionForm {
            form: "jump COLOR PIECE to X,Y",
            meaning: "jump a piece of that color from the sinking pad to a neighbour",
            examples: &["jump green frog to 0,1"],
        },
        ActionForm {
            form: "marker to X,Y",
            meaning: "solo: put Isaac's marker on this card",
            examples: &["marker to 1,0"],
        },
        ActionForm {
            form: "slide X,Y to X,Y",
            meaning: "slide a card cut off from the others back into place",
            examples: &["slide 2,-1 to 1,0"],
        },
    ],
    solo_rank_title: Some(super::cards::solo_rank_title),
    solo_forfeit_score: Some(super::cards::SOLO_FORFEIT_SCORE),
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
        name: "solo",
        options: &["solo=true"],
        n_seats: 1,
    },
];
