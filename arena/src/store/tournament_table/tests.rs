//! The results table read through the store, on both backends.

use super::super::tests::{both_backends, Scenario, LEASE_MS};
use crate::testkit::report_by_strength;

both_backends! {
async fn a_round_robin_table_counts_each_entrys_results_and_its_crosstable() {
    let Scenario { test, tournament, runner, .. } =
        Scenario::duel(&["a", "b", "c"], 2, "r1").await;
    // `b` and `c` draw; both beat `a`.
    let strength = |id: i64| if id == tournament.entries[0].bot_version_id { 0 } else { 1 };
    while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
        let report = report_by_strength(&lease, strength);
        test.store.report_result(&runner, &report).await.unwrap();
    }
    let table = test.store.results_table(tournament.id, 3).await.unwrap();
    let rows: Vec<(usize, u64, u64, u64, u64, f64)> = table
        .rows
        .iter()
        .map(|row| (row.entry, row.games, row.wins, row.draws, row.losses, row.points))
        .collect();
    assert_eq!(
        rows,
        vec![(1, 4, 2, 2, 0, 3.0), (2, 4, 2, 2, 0, 3.0), (0, 4, 0, 0, 4, 0.0)]
    );
    let a = table.rows[2].estimate.unwrap();
    assert_eq!(a.score, 0.0);
    assert_eq!(a.elo, f64::NEG_INFINITY);
    let cell = |row: usize, column: usize| {
        table
            .crosstable
            .iter()
            .find(|cell| cell.row == row && cell.column == column)
            .map(|cell| (cell.wins, cell.draws, cell.losses))
    };
    assert_eq!(cell(1, 0), Some((2, 0, 0)));
    assert_eq!(cell(0, 2), Some((0, 0, 2)));
    assert_eq!(cell(1, 2), Some((0, 2, 0)));
    assert_eq!(cell(0, 0), None);
    assert_eq!(table.crosstable.len(), 6);
}
}

both_backends! {
async fn a_tournament_without_games_lists_every_entry_with_nothing_played() {
    let Scenario { test, tournament, .. } = Scenario::duel(&["a", "b"], 2, "r1").await;
    let table = test.store.results_table(tournament.id, 2).await.unwrap();
    assert_eq!(table.rows.len(), 2);
    assert!(table.rows.iter().all(|row| row.games == 0 && row.estimate.is_none()));
    assert!(table.crosstable.is_empty());
}
}
