//! The models move ratings the right way and keep the record straight.

use super::*;

fn seat(bot_version_id: i64, rank: u32) -> RatedSeat {
    RatedSeat {
        bot_version_id,
        rank,
        forfeited: false,
    }
}

#[test]
fn the_winner_of_a_two_seat_game_gains_what_the_loser_loses_under_elo() {
    let mut standings = Standings::new();
    let changes = apply_game(RatingModel::Elo, &mut standings, &[seat(1, 1), seat(2, 2)]);
    assert!(changes[0].after.value > changes[0].before);
    assert!(changes[1].after.value < changes[1].before);
    let total: f64 = standings.values().map(|s| s.rating.value).sum();
    assert!((total - 2.0 * EloRating::new().rating).abs() < 1e-9);
    assert_eq!((standings[&1].wins, standings[&2].losses), (1, 1));
}

#[test]
fn a_draw_between_equals_changes_no_glicko2_rating_but_narrows_the_deviation() {
    let mut standings = Standings::new();
    apply_game(
        RatingModel::Glicko2,
        &mut standings,
        &[seat(1, 1), seat(2, 1)],
    );
    let fresh = Glicko2Rating::new();
    assert!((standings[&1].rating.value - fresh.rating).abs() < 1e-9);
    assert!(standings[&1].rating.uncertainty < fresh.deviation);
    assert_eq!((standings[&1].draws, standings[&2].draws), (1, 1));
}

#[test]
fn weng_lin_orders_a_table_by_rank() {
    let mut standings = Standings::new();
    for _ in 0..5 {
        apply_game(
            RatingModel::WengLin,
            &mut standings,
            &[seat(10, 3), seat(11, 1), seat(12, 2), seat(13, 4)],
        );
    }
    let rating = |id| standings[&id].rating.value;
    assert!(rating(11) > rating(12) && rating(12) > rating(10) && rating(10) > rating(13));
    assert_eq!(
        (
            standings[&11].wins,
            standings[&12].losses,
            standings[&13].games
        ),
        (5, 5, 5)
    );
}

#[test]
fn a_shared_first_place_is_a_draw_and_forfeits_are_counted() {
    let mut standings = Standings::new();
    let seats = [
        seat(1, 1),
        seat(2, 1),
        RatedSeat {
            bot_version_id: 3,
            rank: 3,
            forfeited: true,
        },
    ];
    apply_game(RatingModel::WengLin, &mut standings, &seats);
    assert_eq!(
        (
            standings[&1].draws,
            standings[&2].draws,
            standings[&3].losses,
            standings[&3].forfeits
        ),
        (1, 1, 1, 1)
    );
}

#[test]
fn a_bot_stays_provisional_until_it_has_played_enough_games() {
    let mut standings = Standings::new();
    for game in 1..=PROVISIONAL_GAMES {
        apply_game(RatingModel::Elo, &mut standings, &[seat(1, 1), seat(2, 2)]);
        assert_eq!(standings[&1].provisional(), game < PROVISIONAL_GAMES);
    }
}

#[test]
fn model_ids_round_trip_and_tables_pick_their_models() {
    for model in RatingModel::ALL {
        assert_eq!(RatingModel::from_id(model.id()), Some(model));
    }
    assert_eq!(RatingModel::from_id("trueskill"), None);
    assert_eq!(
        RatingModel::for_seats(2),
        &[RatingModel::Glicko2, RatingModel::Elo]
    );
    assert_eq!(RatingModel::default_for_seats(4), RatingModel::WengLin);
}
