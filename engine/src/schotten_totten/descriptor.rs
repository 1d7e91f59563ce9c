//! What Schotten Totten declares about itself (see [`crate::descriptor`]).

use crate::descriptor::{
    ActionForm, GameDescriptor, OptionKind, OptionSpec, PlayoutBench, SeatRule,
};

pub const DESCRIPTOR: GameDescriptor = GameDescriptor {
    id: "schotten-totten",
    name: "Schotten Totten",
    seats: &[SeatRule {
        when: None,
        min: 2,
        max: 2,
    }],
    options: &[
        OptionSpec {
            key: "tactics",
            kind: OptionKind::Bool,
            default: "false",
            meaning: "the Tactics variant: 10 tactic cards, a hand of 7, a choice of deck to draw from",
        },
        OptionSpec {
            key: "expert",
            kind: OptionKind::Bool,
            default: "false",
            meaning: "the Expert variant: stones are claimed only at the start of a turn",
        },
        OptionSpec {
            key: "rounds",
            kind: OptionKind::Int { min: 1, max: 15 },
            default: "1",
            meaning: "rounds in the match; the round winner scores 5, the loser 1 per stone",
        },
    ],
    actions: &[
        ActionForm {
            form: "play CARD STONE",
            meaning: "play a card from hand (clan card `r7`, or with tactics `joker`, `spy`, `shield`, `bluff`, `mud`) onto stone 0 to 8",
            examples: &["play r7 3", "play joker 0", "play mud 8"],
        },
        ActionForm {
            form: "play recruiter",
            meaning: "play the Recruiter (tactics)",
            examples: &["play recruiter"],
        },
        ActionForm {
            form: "strategist CARD FROM TO",
            meaning: "play the Strategist: move your card from one stone to another, or discard it (TO is `discard`)",
            examples: &["strategist r5 3 7", "strategist p1 0 discard"],
        },
        ActionForm {
            form: "banshee CARD STONE",
            meaning: "play the Banshee: discard the opponent's card at a stone",
            examples: &["banshee g5 3"],
        },
        ActionForm {
            form: "traitor CARD FROM TO",
            meaning: "play the Traitor: take the opponent's clan card from one stone onto your side of another",
            examples: &["traitor g5 3 7"],
        },
        ActionForm {
            form: "pass",
            meaning: "no card can be played",
            examples: &["pass"],
        },
        ActionForm {
            form: "claim STONE",
            meaning: "claim a stone you can prove is yours",
            examples: &["claim 4"],
        },
        ActionForm {
            form: "done",
            meaning: "stop claiming",
            examples: &["done"],
        },
        ActionForm {
            form: "draw DECK",
            meaning: "draw after playing (tactics): `clan` or `tactic`",
            examples: &["draw clan", "draw tactic"],
        },
        ActionForm {
            form: "recruit DECK",
            meaning: "the Recruiter: draw one card from `clan` or `tactic`",
            examples: &["recruit clan", "recruit tactic"],
        },
        ActionForm {
            form: "return CARD",
            meaning: "the Recruiter: put a card from hand back under its deck",
            examples: &["return r7", "return spy"],
        },
    ],
    solo_rank_title: None,
    solo_forfeit_score: None,
};

/// The tables the playout bench times this game at.
pub const PLAYOUT_BENCHES: &[PlayoutBench] = &[
    PlayoutBench {
        name: "base/2p",
        options: &[],
        n_seats: 2,
    },
    PlayoutBench {
        name: "expert/2p",
        options: &["expert=true"],
        n_seats: 2,
    },
    PlayoutBench {
        name: "tactics/2p",
        options: &["tactics=true"],
        n_seats: 2,
    },
    PlayoutBench {
        name: "tactics_expert/2p",
        options: &["tactics=true", "expert=true"],
        n_seats: 2,
    },
];
