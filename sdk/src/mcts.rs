//! Single-observer information-set Monte Carlo tree search (SO-ISMCTS,
//! Cowling, Powley and Whitehouse 2012), generic over the engine's [`Game`].
//!
//! One tree per decision, over the searching seat's view of the game: a
//! node is a sequence of actions from the current decision, whoever took
//! them. Each iteration draws a fresh determinization ([`Game::determinize`]:
//! a whole state consistent with the seat's observation), walks down the
//! tree choosing among the actions legal in that determinization only (UCB1
//! with availability counts, so an action seen in few determinizations is
//! not starved), adds one node, plays to the end with the game's playout
//! policy ([`Playout`]: uniformly random unless the game says better), and
//! credits every node with the result for the seat that chose it. A game
//! with a heuristic policy can also widen the tree progressively: a node
//! gets new children as its visits grow, in the order the policy picks
//! them, instead of trying every legal action first (Schotten Totten
//! Tactics has hundreds: a Traitor alone, every card times every stone).
//! Other seats' choices are searched as if they saw the determinization
//! (the known weakness of single-observer ISMCTS: it treats them as
//! clairvoyant), which costs little in these games and keeps one tree.
//!
//! The answer is the most visited action at the root.

use cairn_engine::{Outcome, Rng};

mod bullfrogs;
mod playout;
pub use playout::Playout;

/// How one search is bounded: it stops at whichever comes first of the
/// time and the iteration cap (one iteration at least).
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Thinking time, measured by [`ThinkClock`] (CPU time where it can).
    pub think: std::time::Duration,
    /// An iteration cap; `None` searches until the time is up.
    pub iterations: Option<u32>,
}

/// UCB1's exploration constant for rewards in `[0, 1]`.
const EXPLORATION: f64 = 0.7;
/// Iterations between two looks at the clock.
const CLOCK_EVERY: u32 = 16;
/// A playout longer than this is cut and scored as it stands (no game
/// needs that many decisions; a safety net, not a heuristic).
const MAX_PLAYOUT: usize = 20_000;

#[derive(Debug)]
struct Node<A> {
    /// The action that led here (none at the root).
    action: Option<A>,
    /// The seat that took it, credited with the results below.
    seat: usize,
    children: Vec<usize>,
    visits: u32,
    /// How many times this node's action was legal when its parent was visited.
    available: u32,
    reward: f64,
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct SearchResult<A> {
    pub action: A,
    pub iterations: u32,
    /// Playout decisions played (for the throughput figure).
    pub playout_steps: u64,
}

/// Each seat's reward in `[0, 1]`: by rank at a table of two or more (1 for
/// sole first place, 0 for last, shared places share), by score alone.
pub fn rewards(outcome: &Outcome) -> Vec<f64> {
    let n_seats = outcome.ranks.len();
    if n_seats == 1 {
        // Solo scores (Bullfrogs: the player's points minus Isaac's) are
        // mapped linearly so that the search maximises the mean score.
        let score = outcome.scores[0] as f64;
        return vec![((score + 60.0) / 120.0).clamp(0.0, 1.0)];
    }
    outcome
        .ranks
        .iter()
        .map(|&rank| {
            // Seats that rank below this one, as a share of the others.
            let below = outcome.ranks.iter().filter(|&&other| other > rank).count();
            let tied = outcome.ranks.iter().filter(|&&other| other == rank).count() - 1;
            (below as f64 + tied as f64 / 2.0) / (n_seats - 1) as f64
        })
        .collect()
}

/// Searches from `seen` (the observation of `seat`, which is to move) and
/// returns the action to take; `None` if the observation cannot be
/// completed into a state or the state has no legal action.
pub fn search<G: Playout>(
    seen: &G::Observation,
    seat: usize,
    budget: Budget,
    rng: &mut Rng,
) -> Option<SearchResult<G::Action>> {
    let clock = ThinkClock::start();
    let mut tree: Vec<Node<G::Action>> = vec![Node {
        action: None,
        seat,
        children: Vec::new(),
        visits: 0,
        available: 0,
        reward: 0.0,
    }];
    let mut iterations = 0u32;
    let mut playout_steps = 0u64;
    let mut legal = Vec::new();
    let mut untried = Vec::new();
    let mut path = Vec::new();
    loop {
        if budget.iterations.is_some_and(|cap| iterations >= cap) {
            break;
        }
        if iterations % CLOCK_EVERY == 0 && iterations >= 1 && clock.elapsed() >= budget.think {
            break;
        }
        let mut state = G::determinize(seen, rng).ok()?;
        iterations += 1;
        path.clear();
        path.push(0usize);
        let mut node = 0;
        // Selection and expansion.
        while let Some(to_move) = state.current_seat() {
            legal.clear();
            state.legal_actions(&mut legal);
            let chosen =
                select_or_expand(&mut tree, node, to_move, &state, &legal, &mut untried, rng)?;
            let (child, expanded) = chosen;
            let action = tree[child].action.clone()?;
            state.apply_legal(&action);
            path.push(child);
            node = child;
            if expanded {
                break;
            }
        }
        // Playout.
        let mut steps = 0;
        while steps < MAX_PLAYOUT && !state.is_terminal() {
            state.playout_step(&mut legal, rng);
            steps += 1;
        }
        playout_steps += steps as u64;
        let scores = match state.outcome() {
            Some(outcome) => rewards(&outcome),
            None => vec![0.5; state.n_seats()],
        };
        for &index in &path {
            let node = &mut tree[index];
            node.visits += 1;
            node.reward += scores.get(node.seat).copied().unwrap_or(0.0);
        }
    }
    let root = &tree[0];
    let best = root
        .children
        .iter()
        .max_by_key(|&&child| tree[child].visits)
        .and_then(|&child| tree[child].action.clone())
        .or_else(|| {
            let state = G::determinize(seen, rng).ok()?;
            let mut legal = Vec::new();
            state.legal_actions(&mut legal);
            legal.into_iter().next()
        })?;
    Some(SearchResult {
        action: best,
        iterations,
        playout_steps,
    })
}

/// At `node`, with `legal` the actions of this determinization: adds a
/// child for an untried legal action (the game's [`Playout::expansion_pick`]
/// among them) if the node has room for one, and returns it with
/// `true`, or picks the best existing child by UCB1 over availability.
/// `untried` is scratch space, reused across calls.
fn select_or_expand<G: Playout>(
    tree: &mut Vec<Node<G::Action>>,
    node: usize,
    to_move: usize,
    state: &G,
    legal: &[G::Action],
    untried: &mut Vec<G::Action>,
    rng: &mut Rng,
) -> Option<(usize, bool)> {
    untried.clear();
    let mut n_tried = 0;
    for action in legal {
        match tree[node]
            .children
            .iter()
            .find(|&&child| tree[child].action.as_ref() == Some(action))
        {
            Some(&child) => {
                tree[child].available += 1;
                n_tried += 1;
            }
            None => untried.push(action.clone()),
        }
    }
    // Progressive widening: room for one more child while there are fewer
    // than WIDENING x sqrt(visits + 1), or while no child is legal here.
    let room = G::WIDENING.is_none_or(|widening| {
        n_tried == 0
            || (tree[node].children.len() as f64)
                < widening * (f64::from(tree[node].visits) + 1.0).sqrt()
    });
    if !untried.is_empty() && room {
        let action = untried.swap_remove(state.expansion_pick(untried, rng));
        let child = tree.len();
        tree.push(Node {
            action: Some(action),
            seat: to_move,
            children: Vec::new(),
            visits: 0,
            available: 1,
            reward: 0.0,
        });
        tree[node].children.push(child);
        return Some((child, true));
    }
    let mut best: Option<(f64, usize)> = None;
    for &child in &tree[node].children {
        let candidate = &tree[child];
        let Some(action) = candidate.action.as_ref() else {
            continue;
        };
        if !legal.contains(action) {
            continue;
        }
        let visits = candidate.visits.max(1) as f64;
        let value = candidate.reward / visits
            + EXPLORATION * ((candidate.available.max(1) as f64).ln() / visits).sqrt();
        if best.is_none_or(|(best_value, _)| value > best_value) {
            best = Some((value, child));
        }
    }
    best.map(|(_, child)| (child, false))
}

/// Thinking time: this thread's CPU time from its CPU clock (what the
/// runner charges: the scheduler's count of the time it ran), or wall time
/// where there is none (single-threaded, CPU time never runs ahead of wall
/// time, so the wall clock only ever thinks less).
#[derive(Debug, Clone, Copy)]
pub struct ThinkClock {
    wall: std::time::Instant,
    cpu_ns: Option<u64>,
}

impl ThinkClock {
    pub fn start() -> ThinkClock {
        ThinkClock {
            wall: std::time::Instant::now(),
            cpu_ns: thread_cpu_ns(),
        }
    }

    pub fn elapsed(&self) -> std::time::Duration {
        match (self.cpu_ns, thread_cpu_ns()) {
            (Some(start), Some(now)) => std::time::Duration::from_nanos(now.saturating_sub(start)),
            _ => self.wall.elapsed(),
        }
    }
}

/// Nanoseconds this thread has run: one `clock_gettime` system call (the
/// search looks every [`CLOCK_EVERY`] iterations; reading
/// `/proc/thread-self/schedstat`, the same count, took five).
#[cfg(target_os = "linux")]
fn thread_cpu_ns() -> Option<u64> {
    use rustix::time::{clock_gettime, ClockId};
    let time = clock_gettime(ClockId::ThreadCPUTime);
    Some(u64::try_from(time.tv_sec).ok()? * 1_000_000_000 + u64::try_from(time.tv_nsec).ok()?)
}

/// No thread CPU clock here: the search thinks by the wall clock.
#[cfg(not(target_os = "linux"))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_engine::EndReason;

    #[test]
    fn rewards_follow_places_and_share_ties() {
        let outcome = Outcome::from_scores(vec![5, 9, 5, 1], EndReason::Finished);
        assert_eq!(rewards(&outcome), vec![0.5, 1.0, 0.5, 0.0]);
        let draw = Outcome::draw(2, EndReason::MoveLimit);
        assert_eq!(rewards(&draw), vec![0.5, 0.5]);
        let solo = Outcome::from_scores(vec![0], EndReason::Finished);
        assert_eq!(rewards(&solo), vec![0.5]);
    }

    #[test]
    fn the_clock_moves_forward() {
        // Busy work until the thread's CPU clock moves; a clock that never
        // does fails after 5 s.
        let (clock, wall) = (ThinkClock::start(), std::time::Instant::now());
        let mut sum = 0u64;
        while clock.elapsed() == std::time::Duration::ZERO
            && wall.elapsed() < std::time::Duration::from_secs(5)
        {
            for i in 0..100_000u64 {
                sum = std::hint::black_box(sum.wrapping_add(i * i));
            }
        }
        assert!(clock.elapsed() > std::time::Duration::ZERO);
    }

    /// The first field of `/proc/thread-self/schedstat`: the scheduler's
    /// count of the nanoseconds this thread has run.
    #[cfg(target_os = "linux")]
    fn schedstat_ns() -> u64 {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").expect("schedstat");
        text.split_whitespace()
            .next()
            .expect("a field")
            .parse()
            .expect("a count")
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_clock_reads_the_count_the_scheduler_keeps_for_this_thread() {
        // Busy work between the readings so that the counts move.
        let mut sum = 0u64;
        for _ in 0..3 {
            let before = schedstat_ns();
            for i in 0..200_000u64 {
                sum = std::hint::black_box(sum.wrapping_add(i * i));
            }
            let clock = thread_cpu_ns().expect("a thread CPU clock on linux");
            let after = schedstat_ns();
            // The clock brings the count up to date as it reads it, the
            // file need not (it can lag the run since the last scheduler
            // tick: 10 ms at the slowest tick rate); never behind `before`.
            let tick = 10_000_000;
            assert!(
                before <= clock && clock <= after + 2 * tick,
                "{before} {clock} {after}"
            );
        }
    }
}
