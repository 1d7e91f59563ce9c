use super::*;

fn cell(row: usize, column: usize, wins: u64, draws: u64, losses: u64) -> CrossCell {
    CrossCell {
        row,
        column,
        wins,
        draws,
        losses,
    }
}

/// Two seats: one share count per result (2, 1 or 0 halves of 2).
fn two_seat_shares(entry: usize, wins: u64, draws: u64, losses: u64) -> Vec<ShareCount> {
    [(2, wins), (1, draws), (0, losses)]
        .into_iter()
        .filter(|&(_, games)| games > 0)
        .map(|(halves, games)| ShareCount {
            entry,
            halves,
            opponents: 1,
            games,
        })
        .collect()
}

#[test]
fn two_seat_rows_count_wins_draws_losses_points_and_order_by_points() {
    let cross = [cell(0, 1, 3, 2, 5), cell(1, 0, 5, 2, 3)];
    let mut shares = two_seat_shares(0, 3, 2, 5);
    shares.extend(two_seat_shares(1, 5, 2, 3));
    let rows = results_table(2, &cross, &shares);
    assert_eq!(rows[0].entry, 1);
    assert_eq!((rows[0].wins, rows[0].draws, rows[0].losses), (5, 2, 3));
    assert_eq!(rows[0].games, 10);
    assert_eq!(rows[0].points, 6.0);
    assert_eq!(rows[1].points, 4.0);
}

#[test]
fn the_elo_and_its_interval_are_those_cairn_play_prints_for_the_same_games() {
    let cross = [cell(0, 1, 30, 10, 20), cell(1, 0, 20, 10, 30)];
    let shares = two_seat_shares(0, 30, 10, 20);
    let rows = results_table(2, &cross, &shares);
    let row = rows.iter().find(|row| row.entry == 0).unwrap();
    let expected = EloEstimate::of(&Outcomes::trinomial(30, 10, 20)).unwrap();
    assert_eq!(row.estimate, Some(expected));
    assert!(row.estimate.unwrap().elo > 0.0);
}

#[test]
fn an_entry_without_games_has_no_estimate_and_comes_last() {
    let cross = [cell(0, 1, 1, 0, 0), cell(1, 0, 0, 0, 1)];
    let mut shares = two_seat_shares(0, 1, 0, 0);
    shares.extend(two_seat_shares(1, 0, 0, 1));
    let rows = results_table(3, &cross, &shares);
    assert_eq!(rows.last().unwrap().entry, 2);
    assert_eq!(rows.last().unwrap().estimate, None);
    assert_eq!(rows.last().unwrap().games, 0);
}

#[test]
fn a_three_seat_game_gives_each_seat_its_share_of_the_table() {
    // One game: entry 0 first, entries 1 and 2 tied behind it.
    let cross = [
        cell(0, 1, 1, 0, 0),
        cell(0, 2, 1, 0, 0),
        cell(1, 0, 0, 0, 1),
        cell(1, 2, 0, 1, 0),
        cell(2, 0, 0, 0, 1),
        cell(2, 1, 0, 1, 0),
    ];
    let share = |entry, halves| ShareCount {
        entry,
        halves,
        opponents: 2,
        games: 1,
    };
    let shares = [share(0, 4), share(1, 1), share(2, 1)];
    let rows = results_table(3, &cross, &shares);
    assert_eq!(rows[0].entry, 0);
    assert_eq!(rows[0].points, 1.0);
    assert_eq!((rows[0].wins, rows[0].losses), (2, 0));
    assert_eq!(rows[1].points, 0.25);
    assert_eq!((rows[1].wins, rows[1].draws, rows[1].losses), (0, 1, 1));
    let total: f64 = rows.iter().map(|row| row.points).sum();
    assert_eq!(
        total, 1.5,
        "a table of three hands out (3 choose 2) / 2 points"
    );
}

/// The interval covers the true Elo difference about 95% of the time:
/// simulated tournaments of two bots of known strength.
#[test]
fn the_interval_covers_the_true_elo_in_about_95_percent_of_simulated_tournaments() {
    let true_elo: f64 = 100.0;
    let p_win = crate::stats::score_of_elo(true_elo);
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let runs = 2_000;
    let mut covered = 0;
    for _ in 0..runs {
        let wins = (0..200).filter(|_| uniform() < p_win).count() as u64;
        let losses = 200 - wins;
        let cross = [cell(0, 1, wins, 0, losses)];
        let rows = results_table(1, &cross, &two_seat_shares(0, wins, 0, losses));
        let estimate = rows[0].estimate.unwrap();
        if estimate.elo_low <= true_elo && true_elo <= estimate.elo_high {
            covered += 1;
        }
    }
    let rate = covered as f64 / runs as f64;
    assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
}
