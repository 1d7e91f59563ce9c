//! How a playout picks its actions. The default is uniform among the legal
//! actions, which is all a game needs when every action is about as
//! plausible as any other. A game where most legal actions are ones no
//! player would take (a tactic card spent at random, a claim left unmade)
//! gives its playouts a light policy instead, so that their results say
//! more about the position and less about the random player's blunders.

use cairn_engine::bullfrogs::{Action as BullfrogsAction, Bullfrogs};
use cairn_engine::lords_of_scotland::LordsOfScotland;
use cairn_engine::schotten_totten::cards::{self, color, is_clan, strength};
use cairn_engine::schotten_totten::{Action, DeckKind, SchottenTotten};
use cairn_engine::{Game, Rng};

/// A game the search can play out: which legal action a playout takes,
/// and in which order the tree tries actions.
pub trait Playout: Game {
    /// Progressive widening: a tree node visited `n` times gets at most
    /// `WIDENING * sqrt(n + 1)` children, each new one the action a playout
    /// would pick among those not yet tried, so that a heuristic policy
    /// also orders the search. `None` (the default, right for a uniform
    /// policy, which has no order worth following) tries every legal
    /// action once before choosing among them.
    const WIDENING: Option<f64> = None;

    /// The index in `legal` (never empty) of the action a playout takes.
    fn playout_pick(&self, legal: &[Self::Action], rng: &mut Rng) -> usize {
        let _ = self;
        rng.below(legal.len())
    }

    /// The index in `untried` (never empty) of the action a widening node
    /// tries next: by default the one a playout would take.
    fn expansion_pick(&self, untried: &[Self::Action], rng: &mut Rng) -> usize {
        self.playout_pick(untried, rng)
    }

    /// Takes one playout decision (the state is not terminal): the action
    /// [`Playout::playout_pick`] picks among the legal ones, listed into
    /// `legal` (scratch). A game may take the same action, with the same
    /// draws, without listing every legal action.
    fn playout_step(&mut self, legal: &mut Vec<Self::Action>, rng: &mut Rng) {
        step_from_listed(self, legal, rng);
    }
}

/// [`Playout::playout_step`] by listing every legal action into `legal`
/// and taking [`Playout::playout_pick`]'s.
pub(super) fn step_from_listed<G: Playout>(
    state: &mut G,
    legal: &mut Vec<G::Action>,
    rng: &mut Rng,
) {
    legal.clear();
    state.legal_actions(legal);
    let pick = legal[state.playout_pick(legal, rng)].clone();
    state.apply_legal(&pick);
}

impl Playout for LordsOfScotland {}

/// Bullfrogs: playouts mostly take the greedy bot's choice, and the tree
/// widens in the greedy order (see [`super::bullfrogs`]).
impl Playout for Bullfrogs {
    const WIDENING: Option<f64> = Some(1.0);

    fn playout_pick(&self, legal: &[BullfrogsAction], rng: &mut Rng) -> usize {
        super::bullfrogs::playout_pick(self, legal, rng)
    }

    fn expansion_pick(&self, untried: &[BullfrogsAction], rng: &mut Rng) -> usize {
        super::bullfrogs::greedy_pick(self, untried, rng)
    }

    fn playout_step(&mut self, legal: &mut Vec<BullfrogsAction>, rng: &mut Rng) {
        super::bullfrogs::playout_step(self, legal, rng);
    }
}

/// Out of 100: how often a Schotten Totten playout spends a tactic card
/// when it also holds a clan card it could play.
const TACTIC_PERCENT: usize = 10;
/// Out of 100: how often a Schotten Totten playout that plays a clan card
/// plays the one that best extends a formation (otherwise: any, uniformly).
const GREEDY_PERCENT: usize = 70;
/// Out of 100: how often a Tactics playout draws from the tactic deck when
/// both decks can be drawn from.
const TACTIC_DRAW_PERCENT: usize = 20;

/// Schotten Totten: claim whatever can be claimed (a claim only ever locks
/// in a won stone), play mostly clan cards (a random player that throws
/// its tactic cards about, ten targets at a time, decides playouts by its
/// blunders), draw mostly from the clan deck; otherwise uniform. Tactic
/// cards are chosen card first, then target, so that a ruse with fifty
/// targets is not fifty times likelier than a Joker.
impl Playout for SchottenTotten {
    const WIDENING: Option<f64> = Some(1.0);

    fn playout_pick(&self, legal: &[Action], rng: &mut Rng) -> usize {
        if let Some(claim) = legal.iter().position(|a| matches!(a, Action::Claim(_))) {
            return claim;
        }
        let is_clan_play =
            |action: &Action| matches!(action, Action::Play { card, .. } if is_clan(*card));
        let n_clan = legal.iter().filter(|a| is_clan_play(a)).count();
        let n_tactic = legal.iter().filter(|a| tactic_card(a).is_some()).count();
        if n_clan > 0 && (n_tactic == 0 || rng.below(100) >= TACTIC_PERCENT) {
            if rng.below(100) < GREEDY_PERCENT {
                return best_clan_play(self, legal);
            }
            return nth_index(legal, rng.below(n_clan), is_clan_play);
        }
        if n_tactic > 0 {
            // A card, uniform among the tactic cards that have a legal use;
            // then one of its uses.
            let mut cards = [0u8; 10];
            let mut n_cards = 0;
            for card in legal.iter().filter_map(tactic_card) {
                if !cards[..n_cards].contains(&card) && n_cards < cards.len() {
                    cards[n_cards] = card;
                    n_cards += 1;
                }
            }
            let card = cards[rng.below(n_cards)];
            let uses = legal
                .iter()
                .filter(|a| tactic_card(a) == Some(card))
                .count();
            return nth_index(legal, rng.below(uses), |a| tactic_card(a) == Some(card));
        }
        let tactic_draw = legal
            .iter()
            .position(|a| *a == Action::Draw(DeckKind::Tactic));
        let clan_draw = legal
            .iter()
            .position(|a| *a == Action::Draw(DeckKind::Clan));
        if let (Some(tactic), Some(clan)) = (tactic_draw, clan_draw) {
            return if rng.below(100) < TACTIC_DRAW_PERCENT {
                tactic
            } else {
                clan
            };
        }
        rng.below(legal.len())
    }
}

/// The index of the clan card play that best extends what `state`'s
/// player to move already has at that stone (the greedy bot's measure:
/// strength, plus for every own clan card there 6 for its color, 4 for its
/// strength, 5 for a neighbouring strength).
fn best_clan_play(state: &SchottenTotten, legal: &[Action]) -> usize {
    let seat = state.current_seat().unwrap_or(0);
    let mut best = (i32::MIN, 0);
    for (index, action) in legal.iter().enumerate() {
        let Action::Play { card, stone } = *action else {
            continue;
        };
        if !is_clan(card) {
            continue;
        }
        let strength = i32::from(strength(card));
        let mut score = strength;
        for &other in state.side_cards(usize::from(stone), seat) {
            if !is_clan(other) {
                continue;
            }
            if color(other) == color(card) {
                score += 6;
            }
            match (i32::from(cards::strength(other)) - strength).abs() {
                0 => score += 4,
                1 => score += 5,
                _ => {}
            }
        }
        if score > best.0 {
            best = (score, index);
        }
    }
    best.1
}

/// The tactic card an action spends, if it spends one.
fn tactic_card(action: &Action) -> Option<u8> {
    use cairn_engine::schotten_totten::cards::{BANSHEE, RECRUITER, STRATEGIST, TRAITOR};
    match *action {
        Action::Play { card, .. } if !is_clan(card) => Some(card),
        Action::Recruiter => Some(RECRUITER),
        Action::Strategist { .. } => Some(STRATEGIST),
        Action::Banshee { .. } => Some(BANSHEE),
        Action::Traitor { .. } => Some(TRAITOR),
        _ => None,
    }
}

/// The index in `legal` of the `n`th action that `keep` accepts.
fn nth_index<A>(legal: &[A], n: usize, keep: impl Fn(&A) -> bool) -> usize {
    legal
        .iter()
        .enumerate()
        .filter(|(_, action)| keep(action))
        .nth(n)
        .map_or(0, |(index, _)| index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_engine::game::parse_options;

    /// Plays `games` seeded Tactics games with the playout policy in both
    /// seats; counts, over the plays where both a clan card and a tactic
    /// card could go down, how many spent the tactic card.
    fn play_out(games: u64) -> (usize, usize) {
        let options = parse_options(["tactics=true"]).expect("valid options");
        let mut rng = Rng::seeded(5);
        let (mut both_possible, mut tactic_spent) = (0, 0);
        let mut legal = Vec::new();
        for seed in 0..games {
            let mut state = SchottenTotten::new(&options, 2, seed).expect("valid setup");
            let mut steps = 0;
            while !state.is_terminal() {
                legal.clear();
                state.legal_actions(&mut legal);
                let pick = state.playout_pick(&legal, &mut rng);
                assert!(pick < legal.len());
                let action = legal[pick];
                if legal.iter().any(|a| matches!(a, Action::Claim(_))) {
                    assert!(
                        matches!(action, Action::Claim(_)),
                        "{action} with a claim legal"
                    );
                }
                let clan_possible = legal
                    .iter()
                    .any(|a| matches!(a, Action::Play { card, .. } if is_clan(*card)));
                if clan_possible && legal.iter().any(|a| tactic_card(a).is_some()) {
                    both_possible += 1;
                    tactic_spent += usize::from(tactic_card(&action).is_some());
                }
                state
                    .apply(&action)
                    .expect("the playout picks a legal action");
                steps += 1;
                assert!(steps < 2_000, "seed {seed} runs away");
            }
        }
        (both_possible, tactic_spent)
    }

    #[test]
    fn tactics_playouts_claim_what_they_can_and_mostly_play_clan_cards() {
        let (both_possible, tactic_spent) = play_out(40);
        assert!(both_possible > 100, "{both_possible} plays with a choice");
        // Uniform play would spend a tactic card on most of these plays
        // (a ruse alone has dozens of targets).
        assert!(
            tactic_spent * 100 < both_possible * 2 * TACTIC_PERCENT,
            "{tactic_spent} of {both_possible}"
        );
        assert!(tactic_spent > 0);
    }

    #[test]
    fn the_greedy_placement_extends_a_colour_over_a_stronger_loose_card() {
        let options = parse_options(["tactics=false"]).expect("valid options");
        let mut state = SchottenTotten::new(&options, 2, 3).expect("valid setup");
        let mut legal = Vec::new();
        state.legal_actions(&mut legal);
        let first = legal
            .iter()
            .copied()
            .find(|a| matches!(a, Action::Play { stone: 0, .. }))
            .expect("seat 0 can play on stone 0");
        let Action::Play { card: ours, .. } = first else {
            unreachable!("found a play")
        };
        state.apply(&first).expect("legal");
        // Seat 1's turn, then seat 0's again.
        while state.current_seat() != Some(0) {
            legal.clear();
            state.legal_actions(&mut legal);
            let action = legal[0];
            state.apply(&action).expect("legal");
        }
        assert_eq!(state.side_cards(0, 0), &[ours]);
        let neighbour = if strength(ours) < 9 {
            ours + 1
        } else {
            ours - 1
        };
        let loose_nine = cards::clan_card((color(ours) + 1) % 6, 9);
        let legal = [
            Action::Play {
                card: loose_nine,
                stone: 4,
            },
            Action::Play {
                card: neighbour,
                stone: 0,
            },
        ];
        assert_eq!(best_clan_play(&state, &legal), 1);
        // On an empty stone strength alone decides (a tie keeps the first).
        let elsewhere = [
            legal[0],
            Action::Play {
                card: neighbour,
                stone: 5,
            },
        ];
        assert_eq!(best_clan_play(&state, &elsewhere), 0);
    }
}
