//! The likelihood as weighted choices, and its maximum.
//!
//! A game's Plackett-Luce ranking is a list of choices: the winner out of
//! every seat, the next out of the rest. Identical choices (the same bot out
//! of the same set of bots) are merged across games, so a history of tables
//! that meet again and again (every rotation of every deal) costs what its
//! distinct choices cost, not what its games cost. Each deal keeps its own
//! weights per choice, so a bootstrap sample is a sum over drawn deals.

use std::collections::HashMap;

use super::{Table, MAX_FIT_SEATS};

/// Bots of a choice set, sorted, padded with `u32::MAX`.
type Members = [u32; MAX_FIT_SEATS];

/// One distinct choice: `chosen` out of `members[..len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Choice {
    pub members: Members,
    pub len: u8,
    pub chosen: u32,
}

impl Choice {
    pub fn members(&self) -> &[u32] {
        &self.members[..usize::from(self.len)]
    }
}

/// The distinct choices of a history and each deal's weight on them.
#[derive(Debug, Clone)]
pub(super) struct Stages {
    pub choices: Vec<Choice>,
    /// `entries[offsets[d]..offsets[d + 1]]` are deal `d`'s (choice, weight).
    offsets: Vec<usize>,
    entries: Vec<(u32, f64)>,
}

impl Stages {
    /// The choices of every game, counting only the bots `included` (a game
    /// left with fewer than two of them says nothing).
    pub fn new(deals: &[Vec<Table>], included: &[bool]) -> Stages {
        let mut ids: HashMap<Choice, u32> = HashMap::new();
        let mut choices = Vec::new();
        let mut offsets = Vec::with_capacity(deals.len() + 1);
        let mut entries = Vec::new();
        let mut deal_weights: Vec<(u32, f64)> = Vec::new();
        offsets.push(0);
        for games in deals {
            deal_weights.clear();
            for table in games {
                let seats: Vec<(u32, u32)> = table
                    .iter()
                    .copied()
                    .filter(|&(bot, _)| included[bot as usize])
                    .collect();
                game_choices(&seats, |choice, weight| {
                    let next = choices.len() as u32;
                    let id = *ids.entry(choice).or_insert_with(|| {
                        choices.push(choice);
                        next
                    });
                    deal_weights.push((id, weight));
                });
            }
            deal_weights.sort_unstable_by_key(|&(id, _)| id);
            let deal_start = entries.len();
            for &(id, weight) in &deal_weights {
                match entries[deal_start..].last_mut() {
                    Some((last, total)) if *last == id => *total += weight,
                    _ => entries.push((id, weight)),
                }
            }
            offsets.push(entries.len());
        }
        Stages {
            choices,
            offsets,
            entries,
        }
    }

    /// Each choice's weight when deal `d` is counted `counts[d]` times.
    pub fn weights(&self, counts: &[u32]) -> Vec<f64> {
        let mut weights = vec![0.0; self.choices.len()];
        for (deal, &count) in counts.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let times = f64::from(count);
            for &(id, weight) in &self.entries[self.offsets[deal]..self.offsets[deal + 1]] {
                weights[id as usize] += times * weight;
            }
        }
        weights
    }
}

/// The choices of one ranking, seats sorted best first. A tie of `d` seats
/// is averaged over its `d!` orders: the remaining subset `S` of the tie is
/// left with probability `1 / C(d, |S|)` and each of its bots is chosen
/// from it with probability `1 / |S|`.
fn game_choices(seats: &[(u32, u32)], mut emit: impl FnMut(Choice, f64)) {
    let mut start = 0;
    while start < seats.len() {
        let rank = seats[start].1;
        let end = start + seats[start..].iter().take_while(|s| s.1 == rank).count();
        let tied = &seats[start..end];
        let below = &seats[end..];
        let d = tied.len();
        for mask in 1_u32..(1 << d) {
            let size = mask.count_ones() as usize;
            if size + below.len() < 2 {
                continue;
            }
            let weight = 1.0 / (binomial(d, size) * size as f64);
            let mut members = [u32::MAX; MAX_FIT_SEATS];
            let subset = (0..d).filter(|i| mask & (1 << i) != 0).map(|i| tied[i].0);
            for (slot, bot) in members
                .iter_mut()
                .zip(subset.clone().chain(below.iter().map(|s| s.0)))
            {
                *slot = bot;
            }
            let len = size + below.len();
            members[..len].sort_unstable();
            for chosen in subset {
                let choice = Choice {
                    members,
                    len: len as u8,
                    chosen,
                };
                emit(choice, weight);
            }
        }
        start = end;
    }
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Above this many rated bots the Newton step is solved by conjugate
/// gradients (products with the Hessian cost one pass over the choices)
/// instead of a dense factorization (cubic in the bots).
pub(super) const NEWTON_MAX_BOTS: usize = 150;
const MAX_CG_STEPS: usize = 500;
const MAX_NEWTON_STEPS: usize = 100;
const MAX_MM_STEPS: usize = 5_000;
const TOLERANCE: f64 = 1e-10;
/// Newton steps no longer than this (in log strength) skip the line search.
const SHORT_STEP: f64 = 0.1;

/// The maximum-likelihood `theta` of the `rated` bots (mean zero over them,
/// NaN for the others), from `start` when given. The caller guarantees that
/// the rated bots are strongly connected, so the maximum exists and is
/// unique.
pub(super) fn maximize(
    stages: &Stages,
    weights: &[f64],
    rated: &[bool],
    start: Option<&[f64]>,
) -> Vec<f64> {
    let local: Vec<usize> = (0..rated.len()).filter(|&bot| rated[bot]).collect();
    let mut index = vec![usize::MAX; rated.len()];
    for (position, &bot) in local.iter().enumerate() {
        index[bot] = position;
    }
    let problem = Problem::new(stages, weights, &index);
    let mut theta: Vec<f64> = match start {
        Some(start) => local.iter().map(|&bot| start[bot]).collect(),
        None => vec![0.0; local.len()],
    };
    if theta.iter().any(|t| !t.is_finite()) {
        theta.iter_mut().for_each(|t| *t = 0.0);
    }
    if local.len() <= NEWTON_MAX_BOTS {
        problem.newton(&mut theta);
    } else {
        problem.newton_cg(&mut theta);
    }
    let mean = theta.iter().sum::<f64>() / theta.len().max(1) as f64;
    let mut full = vec![f64::NAN; rated.len()];
    for (position, &bot) in local.iter().enumerate() {
        full[bot] = theta[position] - mean;
    }
    full
}

/// The weighted choices in local bot indices, zero weights dropped.
pub(super) struct Problem {
    n: usize,
    choices: Vec<LocalChoice>,
}

/// `members[chosen]` chosen out of `members`, with its weight.
struct LocalChoice {
    members: LocalMembers,
    chosen: usize,
    weight: f64,
}

/// Up to [`MAX_FIT_SEATS`] local bot indices, without allocating.
#[derive(Clone, Copy)]
struct LocalMembers {
    slots: [usize; MAX_FIT_SEATS],
    len: usize,
}

impl std::ops::Deref for LocalMembers {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        &self.slots[..self.len]
    }
}

impl Problem {
    pub(super) fn new(stages: &Stages, weights: &[f64], index: &[usize]) -> Problem {
        let n = index.iter().filter(|&&i| i != usize::MAX).count();
        let choices = stages
            .choices
            .iter()
            .zip(weights)
            .filter(|(_, &weight)| weight > 0.0)
            .filter_map(|(choice, &weight)| {
                let mut members = LocalMembers {
                    slots: [usize::MAX; MAX_FIT_SEATS],
                    len: choice.members().len(),
                };
                for (slot, &bot) in members.slots.iter_mut().zip(choice.members()) {
                    *slot = index[bot as usize];
                }
                let chosen = choice
                    .members()
                    .iter()
                    .position(|&bot| bot == choice.chosen)?;
                members
                    .iter()
                    .all(|&m| m != usize::MAX)
                    .then_some(LocalChoice {
                        members,
                        chosen,
                        weight,
                    })
            })
            .collect();
        Problem { n, choices }
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        self.choices
            .iter()
            .map(|choice| {
                let members = &choice.members;
                let top = members.iter().map(|&m| theta[m]).fold(f64::MIN, f64::max);
                let sum: f64 = members.iter().map(|&m| (theta[m] - top).exp()).sum();
                choice.weight * (theta[members[choice.chosen]] - top - sum.ln())
            })
            .sum()
    }

    /// Newton steps on the concave log-likelihood; a long step is halved
    /// until the likelihood rises, a short one (near the top, where Newton
    /// converges quadratically) is taken whole.
    pub(super) fn newton(&self, theta: &mut [f64]) {
        let n = self.n;
        let mut gradient = vec![0.0; n];
        let mut matrix = vec![0.0; n * n];
        let mut gamma = vec![0.0; n];
        for _ in 0..MAX_NEWTON_STEPS {
            let top = theta.iter().copied().fold(f64::MIN, f64::max);
            for (g, t) in gamma.iter_mut().zip(theta.iter()) {
                *g = (t - top).exp();
            }
            gradient.iter_mut().for_each(|g| *g = 0.0);
            matrix.iter_mut().for_each(|m| *m = 0.0);
            let mut p = [0.0; MAX_FIT_SEATS];
            for LocalChoice {
                members,
                chosen,
                weight,
            } in &self.choices
            {
                let sum: f64 = members.iter().map(|&m| gamma[m]).sum();
                for (k, &m) in members.iter().enumerate() {
                    p[k] = gamma[m] / sum;
                }
                gradient[members[*chosen]] += weight;
                for (j, &mj) in members.iter().enumerate() {
                    let wpj = weight * p[j];
                    gradient[mj] -= wpj;
                    matrix[mj * n + mj] += wpj;
                    for (k, &mk) in members.iter().enumerate() {
                        matrix[mj * n + mk] -= wpj * p[k];
                    }
                }
            }
            // The negated Hessian plus a constant on every entry, which
            // removes its null space (shifting every theta alike) without
            // changing a step whose gradient sums to zero.
            let shift = (0..n).map(|i| matrix[i * n + i]).sum::<f64>() / n as f64;
            matrix
                .iter_mut()
                .for_each(|entry| *entry += shift.max(1e-12));
            let Some(step) = cholesky_solve(&mut matrix, n, gradient.clone()) else {
                return self.minorize(theta);
            };
            if self.take_step(theta, &step) {
                return;
            }
        }
    }

    /// Newton steps solved by preconditioned conjugate gradients, for many
    /// bots; the same line search as [`Problem::newton`].
    pub(super) fn newton_cg(&self, theta: &mut [f64]) {
        let n = self.n;
        let mut gamma = vec![0.0; n];
        let mut p = vec![0.0; self.choices.len() * MAX_FIT_SEATS];
        for _ in 0..MAX_NEWTON_STEPS {
            let top = theta.iter().copied().fold(f64::MIN, f64::max);
            for (g, t) in gamma.iter_mut().zip(theta.iter()) {
                *g = (t - top).exp();
            }
            let mut gradient = vec![0.0; n];
            let mut diagonal = vec![0.0; n];
            for (c, choice) in self.choices.iter().enumerate() {
                let sum: f64 = choice.members.iter().map(|&m| gamma[m]).sum();
                gradient[choice.members[choice.chosen]] += choice.weight;
                for (k, &m) in choice.members.iter().enumerate() {
                    let pk = gamma[m] / sum;
                    p[c * MAX_FIT_SEATS + k] = pk;
                    gradient[m] -= choice.weight * pk;
                    diagonal[m] += choice.weight * pk * (1.0 - pk);
                }
            }
            let shift = diagonal.iter().sum::<f64>() / n as f64;
            let shift = shift.max(1e-12);
            let product = |v: &[f64], out: &mut [f64]| {
                let total: f64 = v.iter().sum();
                out.iter_mut().for_each(|o| *o = shift * total);
                for (c, choice) in self.choices.iter().enumerate() {
                    let probabilities =
                        &p[c * MAX_FIT_SEATS..c * MAX_FIT_SEATS + choice.members.len()];
                    let mean: f64 = choice
                        .members
                        .iter()
                        .zip(probabilities)
                        .map(|(&m, pk)| pk * v[m])
                        .sum();
                    for (&m, pk) in choice.members.iter().zip(probabilities) {
                        out[m] += choice.weight * pk * (v[m] - mean);
                    }
                }
            };
            let preconditioner: Vec<f64> = diagonal.iter().map(|d| 1.0 / (d + shift)).collect();
            let step = conjugate_gradients(product, &preconditioner, &gradient);
            if step.iter().any(|s| !s.is_finite()) {
                return self.minorize(theta);
            }
            if self.take_step(theta, &step) {
                return;
            }
        }
    }

    /// Moves `theta` along a Newton `step` (halved while the likelihood
    /// falls if the step is long); true once the move is negligible.
    fn take_step(&self, theta: &mut [f64], step: &[f64]) -> bool {
        let longest = step.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
        let scale = if longest > SHORT_STEP {
            self.step_scale(theta, step)
        } else {
            1.0
        };
        for (t, s) in theta.iter_mut().zip(step) {
            *t += scale * s;
        }
        longest * scale < TOLERANCE
    }

    /// The largest of 1, 1/2, 1/4, ... that raises the likelihood.
    fn step_scale(&self, theta: &[f64], step: &[f64]) -> f64 {
        let current = self.log_likelihood(theta);
        let mut scale = 1.0;
        while scale > 1e-6 {
            let trial: Vec<f64> = theta.iter().zip(step).map(|(t, s)| t + scale * s).collect();
            if self.log_likelihood(&trial) >= current {
                break;
            }
            scale /= 2.0;
        }
        scale
    }

    /// Hunter's (2004) minorization-maximization: each bot's strength is its
    /// weighted choices over its expected ones.
    pub(super) fn minorize(&self, theta: &mut [f64]) {
        let n = self.n;
        let mut wins = vec![0.0; n];
        for choice in &self.choices {
            wins[choice.members[choice.chosen]] += choice.weight;
        }
        let mut gamma: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
        for _ in 0..MAX_MM_STEPS {
            let mut expected = vec![0.0; n];
            for choice in &self.choices {
                let total: f64 = choice.members.iter().map(|&m| gamma[m]).sum();
                for &m in choice.members.iter() {
                    expected[m] += choice.weight / total;
                }
            }
            let mut moved = 0.0_f64;
            for bot in 0..n {
                let next = wins[bot] / expected[bot];
                moved = moved.max((next.ln() - gamma[bot].ln()).abs());
                gamma[bot] = next;
            }
            let log_mean = gamma.iter().map(|g| g.ln()).sum::<f64>() / n as f64;
            gamma.iter_mut().for_each(|g| *g /= log_mean.exp());
            if moved < TOLERANCE {
                break;
            }
        }
        for (t, g) in theta.iter_mut().zip(gamma) {
            *t = g.ln();
        }
    }
}

/// Solves `A x = rhs` for a symmetric positive definite `A` given as a
/// product, with a diagonal preconditioner.
fn conjugate_gradients(
    product: impl Fn(&[f64], &mut [f64]),
    preconditioner: &[f64],
    rhs: &[f64],
) -> Vec<f64> {
    let n = rhs.len();
    let mut x = vec![0.0; n];
    let mut residual = rhs.to_vec();
    let mut z: Vec<f64> = residual
        .iter()
        .zip(preconditioner)
        .map(|(r, m)| r * m)
        .collect();
    let mut direction = z.clone();
    let mut rz: f64 = residual.iter().zip(&z).map(|(r, z)| r * z).sum();
    let target = 1e-24 * rhs.iter().map(|r| r * r).sum::<f64>();
    let mut a_direction = vec![0.0; n];
    for _ in 0..MAX_CG_STEPS {
        if residual.iter().map(|r| r * r).sum::<f64>() <= target || rz == 0.0 {
            break;
        }
        product(&direction, &mut a_direction);
        let curvature: f64 = direction.iter().zip(&a_direction).map(|(d, a)| d * a).sum();
        if curvature <= 0.0 || !curvature.is_finite() {
            break;
        }
        let alpha = rz / curvature;
        for i in 0..n {
            x[i] += alpha * direction[i];
            residual[i] -= alpha * a_direction[i];
            z[i] = residual[i] * preconditioner[i];
        }
        let next_rz: f64 = residual.iter().zip(&z).map(|(r, z)| r * z).sum();
        let beta = next_rz / rz;
        rz = next_rz;
        for i in 0..n {
            direction[i] = z[i] + beta * direction[i];
        }
    }
    x
}

/// Solves `matrix · x = rhs` for a symmetric positive definite `matrix`
/// (overwritten by its Cholesky factor); `None` if it is not.
fn cholesky_solve(matrix: &mut [f64], n: usize, mut rhs: Vec<f64>) -> Option<Vec<f64>> {
    for j in 0..n {
        let mut diagonal = matrix[j * n + j];
        for k in 0..j {
            diagonal -= matrix[j * n + k] * matrix[j * n + k];
        }
        if diagonal <= 0.0 || !diagonal.is_finite() {
            return None;
        }
        let root = diagonal.sqrt();
        matrix[j * n + j] = root;
        for i in j + 1..n {
            let mut value = matrix[i * n + j];
            for k in 0..j {
                value -= matrix[i * n + k] * matrix[j * n + k];
            }
            matrix[i * n + j] = value / root;
        }
    }
    for i in 0..n {
        let mut value = rhs[i];
        for k in 0..i {
            value -= matrix[i * n + k] * rhs[k];
        }
        rhs[i] = value / matrix[i * n + i];
    }
    for i in (0..n).rev() {
        let mut value = rhs[i];
        for k in i + 1..n {
            value -= matrix[k * n + i] * rhs[k];
        }
        rhs[i] = value / matrix[i * n + i];
    }
    Some(rhs)
}
