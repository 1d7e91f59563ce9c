//! Which deal each game of a match is played on and who sits where. A match
//! is a list of [`GamePlan`]s; the two usual lists are built here.

/// One game: its seed and, per seat, the index of the bot sitting there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamePlan {
    pub seed: u64,
    pub seating: Vec<usize>,
}

/// A seating that is not a permutation of the match's bots.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game}: the seating {seating:?} is not an order of the {n_bots} bots")]
pub struct BadSeating {
    pub game: usize,
    pub seating: Vec<usize>,
    pub n_bots: usize,
}

/// Seats rotate by one each game; game `g` is dealt from `seed + g`.
pub fn rotating_plan(n_games: u32, seed: u64, n_bots: usize) -> Vec<GamePlan> {
    (0..n_games as usize)
        .map(|g| GamePlan {
            seed: seed.wrapping_add(g as u64),
            seating: rotation(g, n_bots),
        })
        .collect()
}

/// Every deal is played once from each rotation of the seats, so the luck
/// of the deal cancels out: game `g` is dealt from `seed + g / n_bots`.
pub fn mirrored_plan(n_games: u32, seed: u64, n_bots: usize) -> Vec<GamePlan> {
    let n = n_bots.max(1);
    (0..n_games as usize)
        .map(|g| GamePlan {
            seed: seed.wrapping_add((g / n) as u64),
            seating: rotation(g, n_bots),
        })
        .collect()
}

fn rotation(shift: usize, n_bots: usize) -> Vec<usize> {
    (0..n_bots).map(|seat| (seat + shift) % n_bots).collect()
}

/// Checks that every game seats each bot exactly once.
pub fn check_plan(plan: &[GamePlan], n_bots: usize) -> Result<(), BadSeating> {
    for (game, entry) in plan.iter().enumerate() {
        let mut seen = vec![false; n_bots];
        let is_order = entry.seating.len() == n_bots
            && entry
                .seating
                .iter()
                .all(|&bot| bot < n_bots && !std::mem::replace(&mut seen[bot], true));
        if !is_order {
            return Err(BadSeating {
                game,
                seating: entry.seating.clone(),
                n_bots,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotating_plan_moves_every_bot_one_seat_per_game_on_fresh_deals() {
        let plan = rotating_plan(3, 10, 3);
        assert_eq!(
            plan[0],
            GamePlan {
                seed: 10,
                seating: vec![0, 1, 2]
            }
        );
        assert_eq!(
            plan[1],
            GamePlan {
                seed: 11,
                seating: vec![1, 2, 0]
            }
        );
        assert_eq!(
            plan[2],
            GamePlan {
                seed: 12,
                seating: vec![2, 0, 1]
            }
        );
    }

    #[test]
    fn a_mirrored_plan_plays_each_deal_from_every_rotation() {
        let plan = mirrored_plan(4, 7, 2);
        let seeds: Vec<u64> = plan.iter().map(|g| g.seed).collect();
        assert_eq!(seeds, vec![7, 7, 8, 8]);
        assert_eq!(plan[0].seating, vec![0, 1]);
        assert_eq!(plan[1].seating, vec![1, 0]);
    }

    #[test]
    fn a_seating_must_be_an_order_of_the_bots() {
        assert!(check_plan(&rotating_plan(5, 1, 4), 4).is_ok());
        let twice = [GamePlan {
            seed: 1,
            seating: vec![0, 0],
        }];
        assert!(check_plan(&twice, 2).is_err());
        let short = [GamePlan {
            seed: 1,
            seating: vec![1],
        }];
        assert!(check_plan(&short, 2).is_err());
        let unknown = [GamePlan {
            seed: 1,
            seating: vec![0, 2],
        }];
        assert!(check_plan(&unknown, 2).is_err());
    }
}
