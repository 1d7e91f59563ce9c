//! Formats when a tournament is cancelled or a bot deleted.

use super::super::tests::{
    both_backends, count, duel, owner_with_bots, test_store, Scenario, LEASE_MS,
};
use super::super::*;
use super::tests::*;
use crate::stats::Sprt;
use crate::testkit::report_by_strength;

/// The matches of a tournament as rows.
pub(super) async fn matches_of(store: &Store, tournament_id: i64) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM matches WHERE tournament_id = $1")
        .bind(tournament_id)
        .fetch_one(store.pool())
        .await
        .unwrap()
}

/// Plays `n` matches of whatever is queued, the stronger bot winning.
pub(super) async fn play_n(
    store: &Store,
    runner: &Runner,
    n: usize,
    strength: impl Fn(i64) -> i64,
) {
    for _ in 0..n {
        let lease = store.lease_match(runner, LEASE_MS).await.unwrap().unwrap();
        let report = report_by_strength(&lease, &strength);
        store.report_result(runner, &report).await.unwrap();
    }
}

/// Cancels tournament `id` with one match in play (one game of it
/// recorded) and checks what a careless owner and a late runner meet:
/// nothing planned or leased afterwards, late reports, heartbeats and
/// give-backs refused with the cancel's own message, totals that add up,
/// standings still readable. Returns the standings.
pub(super) async fn cancel_with_one_in_play(
    store: &Store,
    owner: &Owner,
    runner: &Runner,
    id: i64,
) -> TournamentStandings {
    let lease = store.lease_match(runner, LEASE_MS).await.unwrap().unwrap();
    let report = report_by_strength(&lease, |id| id);
    store
        .report_game(
            runner,
            lease.match_id,
            lease.lease_generation,
            &report.games[0],
        )
        .await
        .unwrap();
    let written = matches_of(store, id).await;
    assert!(store.cancel_tournament(owner, id).await.unwrap() > 0);
    assert_eq!(store.cancel_tournament(owner, id).await.unwrap(), 0);
    let refused = |error: ArenaError| match error {
        ArenaError::FailedPrecondition(message) => {
            assert!(message.contains("cancelled"), "{message}")
        }
        other => panic!("refused with {other:?}"),
    };
    refused(store.report_result(runner, &report).await.unwrap_err());
    refused(
        store
            .heartbeat(runner, lease.match_id, lease.lease_generation, LEASE_MS)
            .await
            .unwrap_err(),
    );
    refused(
        store
            .give_back_match(runner, lease.match_id, lease.lease_generation, "late")
            .await
            .unwrap_err(),
    );
    let seat = lease.seats[0].bot_version_id;
    refused(
        store
            .report_build_failure(runner, lease.match_id, lease.lease_generation, seat, "late")
            .await
            .unwrap_err(),
    );
    let (other, _) = store.register_runner("late").await.unwrap();
    assert!(store.lease_match(&other, LEASE_MS).await.unwrap().is_none());
    // A match finishing the round after the cancel (the step the last
    // result runs) plans nothing more.
    store
        .write(async |tx| super::after_match_done(tx, lease.match_id).await)
        .await
        .unwrap();
    assert_eq!(matches_of(store, id).await, written);
    let progress = store.tournament_progress(id).await.unwrap();
    assert!(progress.cancelled && progress.finished(), "{progress:?}");
    assert_eq!(progress.matches_total, written);
    assert_eq!((progress.matches_queued, progress.matches_leased), (0, 0));
    let games: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM games g JOIN matches m ON m.id = g.match_id WHERE m.tournament_id = $1",
    )
    .bind(id)
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!(progress.games_total, games, "{progress:?}");
    assert!(progress.games_done < progress.games_total, "{progress:?}");
    store.tournament_standings(id).await.unwrap()
}

both_backends! {
async fn a_cancelled_swiss_plans_no_later_round_and_keeps_its_standings() {
    let request = with_format(
        duel(&SIX, 4),
        FormatRequest {
            name: "swiss".into(),
            rounds: 3,
            ..Default::default()
        },
    );
    let Scenario { test, owner, tournament: swiss, runner } =
        Scenario::of(&SIX, &request, "r1").await;
    // Round one (six matches), then round two is planned.
    play_n(&test.store, &runner, 6, |id| id).await;
    assert_eq!(matches_of(&test.store, swiss.id).await, 12);
    let standings = cancel_with_one_in_play(&test.store, &owner, &runner, swiss.id).await;
    assert_eq!(standings.standings.len(), 6);
    // Round one counted: the winners of its three tables lead with a point.
    assert_eq!(standings.standings[0].score, 1.0);
}
}

both_backends! {
async fn a_cancelled_knockout_shows_its_bracket_with_the_cancelled_ties_undecided() {
    let request = with_format(
        duel(&SIX[..4], 4),
        FormatRequest {
            name: "knockout".into(),
            ..Default::default()
        },
    );
    let Scenario { test, owner, tournament: knockout, runner } =
        Scenario::of(&SIX[..4], &request, "r1").await;
    // Two semi-finals of two rotations: three matches played, one in play.
    play_n(&test.store, &runner, 3, |id| id).await;
    let standings = cancel_with_one_in_play(&test.store, &owner, &runner, knockout.id).await;
    assert_eq!(standings.bracket.len(), 1, "{:?}", standings.bracket);
    let winners: Vec<Option<usize>> = standings.bracket[0].iter().map(|t| t.winner).collect();
    assert_eq!(
        winners.iter().filter(|w| w.is_none()).count(),
        1,
        "{winners:?}"
    );
}
}

both_backends! {
async fn a_cancelled_sprt_gauntlet_keeps_its_ratio_undecided() {
    let request = sprt_gauntlet(duel(&SIX, 20), Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap());
    let Scenario { test, owner, tournament: gauntlet, runner } =
        Scenario::of(&SIX, &request, "r1").await;
    // Both rotations against `a`: ten deal pairs, the challenger wins half.
    play_n(&test.store, &runner, 2, |id| if id == 1 { 10 } else { id }).await;
    let before = test
        .store
        .tournament(gauntlet.id)
        .await
        .unwrap()
        .sprt
        .unwrap();
    cancel_with_one_in_play(&test.store, &owner, &runner, gauntlet.id).await;
    let after = test
        .store
        .tournament(gauntlet.id)
        .await
        .unwrap()
        .sprt
        .unwrap();
    assert_eq!(after.verdict, None, "{after:?}");
    assert_eq!(after.llr, before.llr);
    assert_eq!(after.pairs.iter().sum::<u64>(), 10, "{after:?}");
}
}

both_backends! {
async fn a_cancelled_ladder_takes_no_new_version_and_plans_nothing() {
    let request = with_format(
        duel(&SIX[..3], 4),
        FormatRequest {
            name: "ladder".into(),
            width: 100,
            ..Default::default()
        },
    );
    let Scenario { test, owner, tournament: ladder, runner } =
        Scenario::of(&SIX[..3], &request, "r1").await;
    let standings = cancel_with_one_in_play(&test.store, &owner, &runner, ladder.id).await;
    assert_eq!(standings.standings.len(), 3);
    let added = test
        .store
        .submit_bot_version(&owner, &crate::testkit::bot_archive("newcomer", 1))
        .await
        .unwrap();
    assert_eq!(test.store.enter_ladders(added.version.id).await.unwrap(), 0);
    assert_eq!(count(&test.store, "tournament_entries").await, 3);
}
}

/// The bot version ids seated in matches after `after_match_id`.
pub(super) async fn seated_after(
    store: &Store,
    tournament_id: i64,
    after_match_id: i64,
) -> Vec<i64> {
    sqlx::query_scalar(
        "SELECT DISTINCT s.bot_version_id FROM seats s JOIN matches m ON m.id = s.match_id \
         WHERE m.tournament_id = $1 AND m.id > $2 ORDER BY 1",
    )
    .bind(tournament_id)
    .bind(after_match_id)
    .fetch_all(store.pool())
    .await
    .unwrap()
}

pub(super) async fn last_match_id(store: &Store) -> i64 {
    sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM matches")
        .fetch_one(store.pool())
        .await
        .unwrap()
}

both_backends! {
async fn a_ladder_schedules_a_deleted_bot_no_more_and_still_settles() {
    let request = with_format(
        duel(&SIX[..3], 8),
        FormatRequest {
            name: "ladder".into(),
            width: 400,
            ..Default::default()
        },
    );
    let Scenario { test, owner, tournament: ladder, runner } =
        Scenario::of(&SIX[..3], &request, "r1").await;
    // The first round leaves one bot out (no game, the widest interval:
    // the next round's first pick); that bot is deleted.
    let first = seated_after(&test.store, ladder.id, 0).await;
    let out = (1..=3).find(|id| !first.contains(id)).unwrap();
    for _ in 0..matches_of(&test.store, ladder.id).await {
        let lease = test
            .store
            .lease_match(&runner, LEASE_MS)
            .await
            .unwrap()
            .unwrap();
        let report = report_by_strength(&lease, |id| luck(lease.match_id, id));
        test.store.report_result(&runner, &report).await.unwrap();
    }
    let deleted_at = last_match_id(&test.store).await;
    let name = SIX[out as usize - 1];
    test.store.delete_bot(&owner, name).await.unwrap();
    let played = play_with(&test.store, &runner, luck).await;
    assert!(played > 0);
    let seated = seated_after(&test.store, ladder.id, deleted_at).await;
    assert_eq!(seated, first, "after {played} matches");
    let progress = test.store.tournament_progress(ladder.id).await.unwrap();
    assert!(progress.finished(), "{progress:?}");
    // Its games stay in the standings.
    let standings = test.store.tournament_standings(ladder.id).await.unwrap();
    assert!(standings
        .standings
        .iter()
        .any(|row| row.entry == 0 && row.games > 0));
}
}

both_backends! {
async fn a_knockout_and_a_swiss_play_their_field_out_when_a_bot_is_deleted() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &SIX[..4]).await;
    let knockout = with_format(
        duel(&SIX[..4], 4),
        FormatRequest {
            name: "knockout".into(),
            ..Default::default()
        },
    );
    let swiss = with_format(
        duel(&SIX[..4], 4),
        FormatRequest {
            name: "swiss".into(),
            rounds: 2,
            ..Default::default()
        },
    );
    let knockout = test
        .store
        .create_tournament(&owner, &knockout)
        .await
        .unwrap();
    let swiss = test.store.create_tournament(&owner, &swiss).await.unwrap();
    let (runner, _) = test.store.register_runner("r1").await.unwrap();
    play_n(&test.store, &runner, 1, |id| id).await;
    // The strongest, `d`, is deleted mid-way: it still plays and wins.
    test.store.delete_bot(&owner, "d").await.unwrap();
    assert!(play_with(&test.store, &runner, |_, id| id).await > 0);
    for id in [knockout.id, swiss.id] {
        let progress = test.store.tournament_progress(id).await.unwrap();
        assert!(
            progress.finished() && progress.matches_failed == 0,
            "{progress:?}"
        );
    }
    let bracket = test
        .store
        .tournament_standings(knockout.id)
        .await
        .unwrap()
        .bracket;
    assert_eq!(bracket.len(), 2);
    assert_eq!(bracket[1][0].winner, Some(3));
    let swiss = test.store.tournament_standings(swiss.id).await.unwrap();
    assert_eq!(
        (swiss.standings[0].entry, swiss.standings[0].score),
        (3, 2.0)
    );
}
}
