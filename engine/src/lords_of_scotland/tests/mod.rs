//! Rule tests. Each cites the rulebook sentence (Portuguese seed) or the
//! rules-page line it checks. States are built by hand on an empty table
//! with the helpers below.

mod conformance;
mod observation;
mod powers;
mod setup_and_turns;
mod skirmish;

use super::cards::card_by_name;
use super::*;

pub(super) fn id(name: &str) -> CardId {
    card_by_name(name).unwrap_or_else(|| panic!("no card {name}"))
}

pub(super) fn set(names: &[&str]) -> CardSet {
    names.iter().map(|name| id(name)).collect()
}

/// An empty table: nothing dealt, seat 0 holds the initiative and is to move
/// in the first turn of the first skirmish.
pub(super) fn table(n_seats: usize) -> LordsOfScotland {
    LordsOfScotland::empty_table(n_seats, true, 7)
}

pub(super) fn give(state: &mut LordsOfScotland, seat: usize, names: &[&str]) {
    state.hands[seat] = state.hands[seat].union(set(names));
}

pub(super) fn field(state: &mut LordsOfScotland, seat: usize, names: &[&str]) {
    state.armies[seat].face_up = state.armies[seat].face_up.union(set(names));
}

pub(super) fn field_down(state: &mut LordsOfScotland, seat: usize, names: &[&str]) {
    for name in names {
        state.armies[seat].face_down.push(id(name));
        state.face_down_known_by[id(name) as usize] = 1 << seat;
    }
}

/// Stacks the draw pile; the first name is drawn first.
pub(super) fn stack(state: &mut LordsOfScotland, names: &[&str]) {
    state.draw_pile = names.iter().rev().map(|name| id(name)).collect();
}

/// Stacks the draw pile with `clans` in turn, each from strength 1 to
/// `up_to`: no two cards in a row share a strength, so no supporter redraw.
pub(super) fn stack_clans(state: &mut LordsOfScotland, clans: &[&str], up_to: u8) {
    let names: Vec<String> = clans
        .iter()
        .flat_map(|clan| (1..=up_to).map(move |s| format!("{clan}{s}")))
        .collect();
    stack(state, &names.iter().map(String::as_str).collect::<Vec<_>>());
}

pub(super) fn play(state: &mut LordsOfScotland, text: &str) {
    let action: Action = text.parse().unwrap();
    state
        .apply(&action)
        .unwrap_or_else(|e| panic!("{e} in phase {:?}", state.phase));
}

pub(super) fn legal(state: &LordsOfScotland) -> Vec<String> {
    let mut out = Vec::new();
    state.legal_actions(&mut out);
    out.iter().map(ToString::to_string).collect()
}

pub(super) fn offers(state: &LordsOfScotland, text: &str) -> bool {
    legal(state).iter().any(|action| action == text)
}

/// Plays out the five turns as passes and ends the skirmish.
pub(super) fn end_skirmish_now(state: &mut LordsOfScotland) {
    state.turn_round = TURNS_PER_SKIRMISH - 1;
    state.turn_offset = 0;
    state.phase = Phase::Turn;
    state.end_skirmish();
}

/// Ends the skirmish and lets every seat take the first supporter offered.
pub(super) fn end_skirmish_taking_first_supporters(state: &mut LordsOfScotland) {
    end_skirmish_now(state);
    while let Phase::Supporters { .. } = state.phase {
        let first = legal(state)[0].clone();
        play(state, &first);
    }
}

pub(super) fn power_phase(state: &LordsOfScotland) -> Option<Clan> {
    match state.phase {
        Phase::Power { clan, .. } => Some(clan),
        _ => None,
    }
}

/// Every card somewhere, each exactly once.
pub(super) fn every_card_in_play(state: &LordsOfScotland) -> CardSet {
    let mut all = CardSet::EMPTY;
    let mut count = 0;
    let mut add = |card: CardId| {
        assert!(
            !all.contains(card),
            "{} is in two places",
            cards::card_name(card)
        );
        all.insert(card);
        count += 1;
    };
    state.draw_pile.iter().for_each(|&card| add(card));
    state
        .recruits
        .iter()
        .filter_map(|slot| slot.card())
        .for_each(&mut add);
    for seat in state.seats() {
        state.hands[seat]
            .union(state.won[seat])
            .union(state.armies[seat].cards())
            .iter()
            .for_each(&mut add);
    }
    state
        .discard
        .union(state.supporters)
        .iter()
        .for_each(&mut add);
    all
}
