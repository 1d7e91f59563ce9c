//! Who can be rated: the "ranked above" graph and its strongly connected
//! parts. A finite maximum-likelihood fit exists exactly for a strongly
//! connected set of bots (Hunter 2004, assumption 1).

use super::mle::Stages;
use super::Unidentified;

/// Edge `a -> b` when `a` was chosen over `b` with positive weight (tied
/// seats give both edges).
#[derive(Debug, Clone)]
pub(super) struct Comparisons {
    forward: Vec<Vec<u32>>,
    backward: Vec<Vec<u32>>,
}

impl Comparisons {
    pub fn new(n_bots: usize, stages: &Stages, weights: &[f64]) -> Comparisons {
        let mut forward = vec![Vec::new(); n_bots];
        let mut backward = vec![Vec::new(); n_bots];
        for (choice, &weight) in stages.choices.iter().zip(weights) {
            if weight <= 0.0 {
                continue;
            }
            for &other in choice.members() {
                if other != choice.chosen {
                    forward[choice.chosen as usize].push(other);
                    backward[other as usize].push(choice.chosen);
                }
            }
        }
        for list in forward.iter_mut().chain(backward.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        Comparisons { forward, backward }
    }

    /// Among the `candidates`, the rated set (the largest strongly connected
    /// part, if it has two bots or more; ties go to the part holding the
    /// lowest bot) and, for every other candidate, why it is not rated.
    pub fn classify(&self, candidates: &[bool]) -> (Vec<bool>, Vec<Option<Unidentified>>) {
        let n = candidates.len();
        let part = self.strong_parts(candidates);
        let mut sizes = vec![0_usize; n];
        for bot in 0..n {
            if candidates[bot] {
                sizes[part[bot]] += 1;
            }
        }
        // Parts are numbered by their lowest bot, so the first maximum wins ties.
        let main = (0..n)
            .filter(|&p| sizes[p] >= 2)
            .max_by_key(|&p| (sizes[p], std::cmp::Reverse(p)));
        let rated: Vec<bool> = (0..n)
            .map(|bot| candidates[bot] && Some(part[bot]) == main)
            .collect();
        let status = match main {
            Some(_) => {
                let beaten_by_rated = self.reach(&rated, &self.forward, candidates);
                let beat_rated = self.reach(&rated, &self.backward, candidates);
                (0..n)
                    .map(|bot| {
                        if rated[bot] || !candidates[bot] {
                            None
                        } else if beat_rated[bot] && !beaten_by_rated[bot] {
                            Some(Unidentified::Unbeaten)
                        } else if beaten_by_rated[bot] && !beat_rated[bot] {
                            Some(Unidentified::Winless)
                        } else {
                            Some(Unidentified::Unconnected)
                        }
                    })
                    .collect()
            }
            None => (0..n)
                .map(|bot| {
                    let wins = self.forward[bot].iter().any(|&b| candidates[b as usize]);
                    let losses = self.backward[bot].iter().any(|&b| candidates[b as usize]);
                    match (candidates[bot], wins, losses) {
                        (false, _, _) => None,
                        (true, true, false) => Some(Unidentified::Unbeaten),
                        (true, false, true) => Some(Unidentified::Winless),
                        _ => Some(Unidentified::Unconnected),
                    }
                })
                .collect(),
        };
        (rated, status)
    }

    /// Every candidate reachable from the `start` set along `edges`.
    fn reach(&self, start: &[bool], edges: &[Vec<u32>], candidates: &[bool]) -> Vec<bool> {
        let mut seen = start.to_vec();
        let mut stack: Vec<usize> = (0..start.len()).filter(|&bot| start[bot]).collect();
        while let Some(bot) = stack.pop() {
            for &next in &edges[bot] {
                let next = next as usize;
                if candidates[next] && !seen[next] {
                    seen[next] = true;
                    stack.push(next);
                }
            }
        }
        seen
    }

    /// Each candidate's strongly connected part, named by its lowest bot
    /// (Kosaraju: finishing order on forward edges, then parts on backward).
    fn strong_parts(&self, candidates: &[bool]) -> Vec<usize> {
        let n = candidates.len();
        let mut visited = vec![false; n];
        let mut order = Vec::with_capacity(n);
        for root in 0..n {
            if !candidates[root] || visited[root] {
                continue;
            }
            visited[root] = true;
            let mut stack = vec![(root, 0_usize)];
            while let Some((bot, next_edge)) = stack.pop() {
                match self.forward[bot].get(next_edge) {
                    Some(&next) => {
                        stack.push((bot, next_edge + 1));
                        let next = next as usize;
                        if candidates[next] && !visited[next] {
                            visited[next] = true;
                            stack.push((next, 0));
                        }
                    }
                    None => order.push(bot),
                }
            }
        }
        let mut part = vec![usize::MAX; n];
        for &root in order.iter().rev() {
            if part[root] != usize::MAX {
                continue;
            }
            let mut members = vec![root];
            part[root] = root;
            let mut stack = vec![root];
            while let Some(bot) = stack.pop() {
                for &next in &self.backward[bot] {
                    let next = next as usize;
                    if candidates[next] && part[next] == usize::MAX {
                        part[next] = root;
                        members.push(next);
                        stack.push(next);
                    }
                }
            }
            let lowest = members.iter().copied().min().unwrap_or(root);
            for member in members {
                part[member] = lowest;
            }
        }
        part
    }
}
