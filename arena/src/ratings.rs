//! Ratings, pure: the models, one game's update, and the per-bot tallies a
//! leaderboard shows. The store feeds results in the order they were
//! recorded, so replaying the whole history gives exactly the ratings the
//! incremental updates gave.
//!
//! Two-seat games are rated with Elo and Glicko-2 (one game = one rating
//! period); games of three to five seats with Weng-Lin, each seat a team of
//! one ranked by its place.

use std::collections::HashMap;

use skillratings::elo::{elo, EloConfig, EloRating};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::{MultiTeamOutcome, Outcomes};

/// A bot version is provisional on a leaderboard until it has this many games.
/// RULING (ours): ten games, for every model, so the flag means the same everywhere.
pub const PROVISIONAL_GAMES: i64 = 10;

/// A rating model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RatingModel {
    Elo,
    Glicko2,
    WengLin,
}

impl RatingModel {
    pub const ALL: [RatingModel; 3] =
        [RatingModel::Elo, RatingModel::Glicko2, RatingModel::WengLin];

    pub fn id(self) -> &'static str {
        match self {
            RatingModel::Elo => "elo",
            RatingModel::Glicko2 => "glicko2",
            RatingModel::WengLin => "weng-lin",
        }
    }

    pub fn from_id(id: &str) -> Option<RatingModel> {
        RatingModel::ALL.into_iter().find(|model| model.id() == id)
    }

    /// The models that rate games of `n_seats` seats.
    pub fn for_seats(n_seats: usize) -> &'static [RatingModel] {
        match n_seats {
            // A solo game has nobody to be rated against (see `fit::solo`).
            0 | 1 => &[],
            2 => &[RatingModel::Glicko2, RatingModel::Elo],
            _ => &[RatingModel::WengLin],
        }
    }

    /// The model a leaderboard shows unless asked for another.
    pub fn default_for_seats(n_seats: usize) -> RatingModel {
        RatingModel::for_seats(n_seats)
            .first()
            .copied()
            .unwrap_or(RatingModel::WengLin)
    }

    fn initial(self) -> Rating {
        match self {
            RatingModel::Elo => Rating {
                value: EloRating::new().rating,
                uncertainty: 0.0,
                volatility: 0.0,
            },
            RatingModel::Glicko2 => from_glicko2(Glicko2Rating::new()),
            RatingModel::WengLin => from_weng_lin(WengLinRating::new()),
        }
    }
}

/// One model's numbers for one bot version; models without an uncertainty
/// (Elo) keep it at zero, only Glicko-2 has a volatility.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub value: f64,
    pub uncertainty: f64,
    pub volatility: f64,
}

/// A bot version's standing under one model: its rating and its record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    pub rating: Rating,
    pub games: i64,
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
    pub forfeits: i64,
}

impl Standing {
    pub fn initial(model: RatingModel) -> Standing {
        Standing {
            rating: model.initial(),
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            forfeits: 0,
        }
    }

    pub fn provisional(&self) -> bool {
        self.games < PROVISIONAL_GAMES
    }
}

/// One seat of a finished game, as the ratings see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedSeat {
    pub bot_version_id: i64,
    /// 1 is best; tied seats share a rank.
    pub rank: u32,
    pub forfeited: bool,
}

/// A rating change, for the history.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingChange {
    pub bot_version_id: i64,
    pub before: f64,
    pub after: Rating,
}

/// The standings of every bot version under one model, for one game and variant.
pub type Standings = HashMap<i64, Standing>;

/// Applies one game to `standings` under `model`.
pub fn apply_game(
    model: RatingModel,
    standings: &mut Standings,
    seats: &[RatedSeat],
) -> Vec<RatingChange> {
    let before: Vec<Standing> = seats
        .iter()
        .map(|seat| {
            *standings
                .entry(seat.bot_version_id)
                .or_insert_with(|| Standing::initial(model))
        })
        .collect();
    let ratings: Vec<Rating> = before.iter().map(|standing| standing.rating).collect();
    let after = rate(model, &ratings, seats);
    let mut changes = Vec::with_capacity(seats.len());
    for ((seat, old), new_rating) in seats.iter().zip(&before).zip(after) {
        let standing = standings.entry(seat.bot_version_id).or_insert(*old);
        standing.rating = new_rating;
        tally(standing, seat, seats);
        changes.push(RatingChange {
            bot_version_id: seat.bot_version_id,
            before: old.rating.value,
            after: new_rating,
        });
    }
    changes
}

/// RULING (ours): a win is sole first place, a draw is first place shared,
/// anything else is a loss; with two seats this is the usual win/draw/loss.
fn tally(standing: &mut Standing, seat: &RatedSeat, seats: &[RatedSeat]) {
    standing.games += 1;
    let firsts = seats.iter().filter(|other| other.rank == 1).count();
    match (seat.rank, firsts) {
        (1, 1) => standing.wins += 1,
        (1, _) => standing.draws += 1,
        _ => standing.losses += 1,
    }
    standing.forfeits += i64::from(seat.forfeited);
}

fn rate(model: RatingModel, ratings: &[Rating], seats: &[RatedSeat]) -> Vec<Rating> {
    match (model, ratings, seats) {
        (RatingModel::Elo, [one, two], [seat_one, seat_two]) => {
            let config = EloConfig::new();
            let (one, two) = elo(
                &EloRating { rating: one.value },
                &EloRating { rating: two.value },
                &outcome(seat_one, seat_two),
                &config,
            );
            vec![
                Rating {
                    value: one.rating,
                    uncertainty: 0.0,
                    volatility: 0.0,
                },
                Rating {
                    value: two.rating,
                    uncertainty: 0.0,
                    volatility: 0.0,
                },
            ]
        }
        (RatingModel::Glicko2, [one, two], [seat_one, seat_two]) => {
            let (one, two) = glicko2(
                &to_glicko2(one),
                &to_glicko2(two),
                &outcome(seat_one, seat_two),
                &Glicko2Config::new(),
            );
            vec![from_glicko2(one), from_glicko2(two)]
        }
        (RatingModel::WengLin, _, _) => {
            let teams: Vec<[WengLinRating; 1]> = ratings
                .iter()
                .map(|r| {
                    [WengLinRating {
                        rating: r.value,
                        uncertainty: r.uncertainty,
                    }]
                })
                .collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(seats)
                .map(|(team, seat)| (&team[..], MultiTeamOutcome::new(seat.rank as usize)))
                .collect();
            weng_lin_multi_team(&ranked, &WengLinConfig::new())
                .into_iter()
                .map(|team| from_weng_lin(team[0]))
                .collect()
        }
        // A two-seat model asked to rate another table size leaves ratings
        // alone; the store never asks (see `RatingModel::for_seats`).
        _ => ratings.to_vec(),
    }
}

fn outcome(one: &RatedSeat, two: &RatedSeat) -> Outcomes {
    match one.rank.cmp(&two.rank) {
        std::cmp::Ordering::Less => Outcomes::WIN,
        std::cmp::Ordering::Greater => Outcomes::LOSS,
        std::cmp::Ordering::Equal => Outcomes::DRAW,
    }
}

fn to_glicko2(rating: &Rating) -> Glicko2Rating {
    Glicko2Rating {
        rating: rating.value,
        deviation: rating.uncertainty,
        volatility: rating.volatility,
    }
}

fn from_glicko2(rating: Glicko2Rating) -> Rating {
    Rating {
        value: rating.rating,
        uncertainty: rating.deviation,
        volatility: rating.volatility,
    }
}

fn from_weng_lin(rating: WengLinRating) -> Rating {
    Rating {
        value: rating.rating,
        uncertainty: rating.uncertainty,
        volatility: 0.0,
    }
}

#[cfg(test)]
mod tests;
