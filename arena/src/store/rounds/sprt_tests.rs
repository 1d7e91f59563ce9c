//! SPRT deal pairs, variants, solo and given-up ties.

use cairn_engine::GameOptions;

use super::super::tests::{both_backends, duel, owner_with_bots, test_store, Scenario, LEASE_MS};
use super::super::*;
use super::cancel_tests::*;
use super::tests::*;
use crate::stats::Sprt;
use crate::testkit::report_by_strength;

/// A reproducible jumble of numbers (for results that vary game by game).
pub(super) fn jumble(values: [u64; 3]) -> u64 {
    values
        .iter()
        .fold(0x9e37_79b9_7f4a_7c15_u64, |acc, &value| {
            (acc ^ value).wrapping_mul(0x1000_0000_01b3).rotate_left(29)
        })
}

/// Reports game `index` of a lease: each seat's strength (0-2, so draws
/// happen) from the match, the game and the bot.
pub(super) async fn report_one(store: &Store, runner: &Runner, lease: &Lease, index: usize) {
    let report = report_by_strength(lease, |id| {
        (jumble([lease.match_id as u64, index as u64, id as u64]) % 3) as i64
    });
    store
        .report_game(
            runner,
            lease.match_id,
            lease.lease_generation,
            &report.games[index],
        )
        .await
        .unwrap();
}

/// Leases a match and reports that the first of its seats `pick` chooses
/// does not build; returns that bot version and how many matches ended.
async fn fail_a_build_of_the_first_lease(
    store: &Store,
    runner: &Runner,
    pick: impl Fn(&LeasedSeat) -> bool,
) -> (i64, usize) {
    let lease = store.lease_match(runner, LEASE_MS).await.unwrap().unwrap();
    let broken = lease
        .seats
        .iter()
        .find(|&seat| pick(seat))
        .unwrap()
        .bot_version_id;
    let ended = store
        .report_build_failure(
            runner,
            lease.match_id,
            lease.lease_generation,
            broken,
            "error: no",
        )
        .await
        .unwrap();
    (broken, ended)
}

/// The SPRT's stored deal pairs and ratio against the pure function over
/// the whole history.
pub(super) async fn assert_sprt_matches_history(
    store: &Store,
    tournament_id: i64,
    sprt: &Sprt,
) -> [u64; 5] {
    let status = store.tournament(tournament_id).await.unwrap().sprt.unwrap();
    let mut connection = store.pool().acquire().await.unwrap();
    let history = crate::store::rounds::history(&mut connection, tournament_id)
        .await
        .unwrap();
    let pure = crate::format::deal_pairs(5, &history);
    assert_eq!(status.pairs, pure);
    // The tally kept game by game, once the first check has counted.
    let kept = super::stored_format(&mut connection, tournament_id)
        .await
        .unwrap()
        .sprt_pairs;
    assert_eq!(kept, Some(pure));
    let llr = sprt.llr(&crate::stats::Outcomes::pentanomial(pure));
    assert_eq!(status.llr.to_bits(), llr.to_bits(), "{status:?}");
    pure
}

both_backends! {
async fn the_sprt_counts_its_deal_pairs_in_sql_as_the_pure_function_does_over_the_history() {
    // An SPRT that decides slowly: the whole gauntlet runs undecided.
    let sprt = Sprt::new(0.0, 5.0, 0.001, 0.001).unwrap();
    let request = sprt_gauntlet(duel(&SIX, 6), sprt);
    let Scenario { test, tournament: gauntlet, runner, .. } =
        Scenario::of(&SIX, &request, "r1").await;
    let mut checks = 0;
    // Two matches in play at once: one finishes while the other has a
    // game recorded (a deal pair half done).
    while let Some(first) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
        let second = test.store.lease_match(&runner, LEASE_MS).await.unwrap();
        report_one(&test.store, &runner, &first, 0).await;
        if let Some(second) = &second {
            for index in 0..second.games.len() {
                report_one(&test.store, &runner, second, index).await;
            }
            assert_sprt_matches_history(&test.store, gauntlet.id, &sprt).await;
            checks += 1;
        }
        for index in 1..first.games.len() {
            report_one(&test.store, &runner, &first, index).await;
        }
        assert_sprt_matches_history(&test.store, gauntlet.id, &sprt).await;
        checks += 1;
    }
    assert_eq!(checks, 10);
    let pairs = assert_sprt_matches_history(&test.store, gauntlet.id, &sprt).await;
    // Five opponents, three deals each; every kind of pair but one at least.
    assert_eq!(pairs.iter().sum::<u64>(), 15);
    assert!(pairs.iter().filter(|&&n| n > 0).count() >= 4, "{pairs:?}");
}
}

both_backends! {
async fn formats_created_with_an_explicit_default_are_the_plain_variant_on_one_leaderboard() {
    let test = test_store().await;
    let owner = owner_with_bots(&test.store, "ada", &SIX[..4]).await;
    let formats = [
        FormatRequest {
            name: "gauntlet".into(),
            challengers: vec!["d".into()],
            sprt: Some(Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap()),
            ..Default::default()
        },
        FormatRequest {
            name: "swiss".into(),
            rounds: 2,
            ..Default::default()
        },
        FormatRequest {
            name: "ladder".into(),
            width: 900,
            ..Default::default()
        },
        FormatRequest {
            name: "knockout".into(),
            ..Default::default()
        },
    ];
    let mut ids = Vec::new();
    for format in formats {
        let mut explicit = with_format(duel(&SIX[..4], 2), format);
        explicit.options.insert("fast".into(), "false".into());
        let created = test
            .store
            .create_tournament(&owner, &explicit)
            .await
            .unwrap();
        assert_eq!(created.variant, "", "{created:?}");
        assert!(created.options.is_empty(), "{created:?}");
        ids.push(created.id);
    }
    let (runner, _) = test.store.register_runner("r1").await.unwrap();
    assert!(play_with(&test.store, &runner, luck).await > 0);
    let variants: Vec<String> = sqlx::query_scalar("SELECT DISTINCT variant FROM ratings")
        .fetch_all(test.store.pool())
        .await
        .unwrap();
    assert_eq!(variants, [""]);
    // Asked with the explicit default, the leaderboard is the plain one.
    let asked: GameOptions = [("fast".to_string(), "false".to_string())].into();
    let options = test
        .store
        .canonical_options(crate::testkit::TEST_DUEL, &asked)
        .unwrap();
    let query = LeaderboardQuery {
        game: crate::testkit::TEST_DUEL.into(),
        options,
        model: None,
    };
    assert_eq!(test.store.leaderboard(&query).await.unwrap().len(), 4);
    for id in ids {
        let tournament = test.store.tournament(id).await.unwrap();
        assert_eq!(tournament.variant, "");
    }
}
}

#[tokio::test]
async fn a_solo_tournament_takes_no_other_format_and_its_options_are_canonical() {
    use crate::testkit::bot_archive;
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(folder.path().join("arena.db"), StoreOptions::default())
        .await
        .unwrap();
    let (owner, _) = store.register_owner("ada").await.unwrap();
    for bot in ["a", "b", "c"] {
        store
            .submit_bot_version(&owner, &bot_archive(bot, 1))
            .await
            .unwrap();
    }
    let solo = NewTournament {
        game: "bullfrogs".into(),
        options: [("solo".to_string(), "true".to_string())].into(),
        bots: vec!["a".into(), "b".into(), "c".into()],
        seats_per_game: 1,
        games_per_pairing: 2,
        seed: 4,
        format: Default::default(),
    };
    let created = store.create_tournament(&owner, &solo).await.unwrap();
    assert_eq!(created.variant, "solo=true");
    // Alone at a table is a round robin of deals: no other format seats one.
    for format in [
        FormatRequest {
            name: "swiss".into(),
            rounds: 2,
            ..Default::default()
        },
        FormatRequest {
            name: "knockout".into(),
            ..Default::default()
        },
        FormatRequest {
            name: "ladder".into(),
            width: 100,
            ..Default::default()
        },
        FormatRequest {
            name: "gauntlet".into(),
            challengers: vec!["c".into()],
            ..Default::default()
        },
    ] {
        let name = format.name.clone();
        let refused = store
            .create_tournament(&owner, &with_format(solo.clone(), format))
            .await;
        assert!(refused.is_err(), "{name} took a table of one");
    }
    // Two seats with an explicit `solo=false` is plain Bullfrogs.
    let mut plain = with_format(
        solo.clone(),
        FormatRequest {
            name: "swiss".into(),
            rounds: 1,
            ..Default::default()
        },
    );
    plain.options = [("solo".to_string(), "false".to_string())].into();
    plain.seats_per_game = 2;
    let created = store.create_tournament(&owner, &plain).await.unwrap();
    assert_eq!(created.variant, "");
    // The solo leaderboard is found by the canonical variant of what an
    // owner types.
    let options = store.canonical_options("bullfrogs", &solo.options).unwrap();
    assert!(store.plays_solo("bullfrogs", &options));
    assert!(!store.plays_solo("bullfrogs", &plain.options));
    assert_eq!(variant_key(&options), "solo=true");
}

both_backends! {
async fn a_knockout_whose_tie_is_given_up_still_finishes() {
    let test = test_store().await;
    let store = test.store.with_max_attempts(1);
    let owner = owner_with_bots(&store, "ada", &SIX[..4]).await;
    let request = with_format(
        duel(&SIX[..4], 4),
        FormatRequest {
            name: "knockout".into(),
            ..Default::default()
        },
    );
    let knockout = store.create_tournament(&owner, &request).await.unwrap();
    let (runner, _) = store.register_runner("r1").await.unwrap();
    // Both matches of the first tie are given up (no game recorded).
    for _ in 0..2 {
        let lease = store.lease_match(&runner, LEASE_MS).await.unwrap().unwrap();
        let given = store
            .give_back_match(
                &runner,
                lease.match_id,
                lease.lease_generation,
                "box on fire",
            )
            .await
            .unwrap();
        assert!(given.failed);
    }
    assert!(play_with(&store, &runner, |_, id| id).await > 0);
    let progress = store.tournament_progress(knockout.id).await.unwrap();
    assert!(progress.finished(), "{progress:?}");
    assert_eq!(progress.matches_failed, 2);
    let bracket = store
        .tournament_standings(knockout.id)
        .await
        .unwrap()
        .bracket;
    assert_eq!(bracket.len(), 2, "{bracket:?}");
    assert!(bracket[1][0].winner.is_some(), "{bracket:?}");
}
}

both_backends! {
async fn a_ladder_schedules_a_version_whose_build_failed_no_more() {
    let request = with_format(
        duel(&SIX[..4], 8),
        FormatRequest {
            name: "ladder".into(),
            width: 400,
            ..Default::default()
        },
    );
    let Scenario { test, tournament: ladder, runner, .. } =
        Scenario::built(&SIX[..4], &request, "r1").await;
    // Four entries, two tables a round: every wide entry plays. The first
    // match's first seat does not build: it forfeits its games.
    let (broken, _) = fail_a_build_of_the_first_lease(&test.store, &runner, |_| true).await;
    let broken_at = last_match_id(&test.store).await;
    let played = play_with(&test.store, &runner, luck).await;
    assert!(played > 0);
    let seated = seated_after(&test.store, ladder.id, broken_at).await;
    assert!(
        !seated.contains(&broken),
        "{seated:?} after {played} matches"
    );
    let progress = test.store.tournament_progress(ladder.id).await.unwrap();
    assert!(progress.finished(), "{progress:?}");
}
}

both_backends! {
async fn an_sprt_keeps_its_deal_pairs_for_the_match_in_play_at_its_verdict() {
    let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
    let request = sprt_gauntlet(duel(&SIX, 20), sprt);
    let Scenario { test, tournament: gauntlet, runner, .. } =
        Scenario::of(&SIX, &request, "r1").await;
    // The challenger (version 6) wins everything but one draw a game.
    let strength = |lease: &Lease, index: usize| {
        report_by_strength(lease, |id| match id {
            6 => 2,
            _ if index == 0 => 2,
            _ => 0,
        })
        .games[index]
            .clone()
    };
    let mut leases = Vec::new();
    while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
        leases.push(lease);
    }
    // Every table's first rotation, then the second ones match by match:
    // the verdict comes while some second rotations are still in play.
    leases.sort_by_key(|lease| lease.seats[0].bot_version_id != 6);
    let mut in_play_at_verdict = None;
    for lease in &leases {
        for index in 0..lease.games.len() {
            let game = strength(lease, index);
            test.store
                .report_game(&runner, lease.match_id, lease.lease_generation, &game)
                .await
                .unwrap();
        }
        let status = test
            .store
            .tournament(gauntlet.id)
            .await
            .unwrap()
            .sprt
            .unwrap();
        if status.verdict.is_some() && in_play_at_verdict.is_none() {
            in_play_at_verdict = Some(status.pairs);
        }
    }
    let at_verdict = in_play_at_verdict.expect("decided with a match in play");
    let status = test
        .store
        .tournament(gauntlet.id)
        .await
        .unwrap()
        .sprt
        .unwrap();
    let mut connection = test.store.pool().acquire().await.unwrap();
    let history = crate::store::rounds::history(&mut connection, gauntlet.id).await.unwrap();
    assert_eq!(status.pairs, crate::format::deal_pairs(5, &history));
    assert!(
        status.pairs.iter().sum::<u64>() > at_verdict.iter().sum::<u64>(),
        "{at_verdict:?} {status:?}"
    );
    assert_eq!(status.verdict, Some("h1"));
}
}

both_backends! {
async fn an_sprt_against_one_opponent_decides_in_the_middle_of_its_matches() {
    // Issue 29: the test was checked only when a match (a whole seating)
    // ended, so a gauntlet against one bot played every game it planned.
    let sprt = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
    let request = sprt_gauntlet(duel(&["e", "f"], 200), sprt);
    let Scenario { test, tournament: gauntlet, runner, .. } =
        Scenario::of(&["e", "f"], &request, "r1").await;
    let mut leases = Vec::new();
    while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
        leases.push(lease);
    }
    assert_eq!(leases.len(), 2, "one match per seating");
    // The challenger (`f`, version 2) loses every game; the deals' two
    // games are reported side by side.
    let mut decided_after = None;
    for index in 0..100 {
        for lease in &leases {
            let game = report_by_strength(lease, |id| -id).games[index].clone();
            test.store
                .report_game(&runner, lease.match_id, lease.lease_generation, &game)
                .await
                .unwrap();
        }
        let status = test.store.tournament(gauntlet.id).await.unwrap().sprt.unwrap();
        if status.verdict.is_some() {
            assert_eq!(status.verdict, Some("h0"));
            decided_after = Some(index + 1);
            break;
        }
    }
    let pairs = decided_after.expect("decided before its matches ended");
    assert!(pairs < 30, "decided after {pairs} deal pairs, not at the end of 100");
}
}

both_backends! {
async fn an_sprt_counts_the_games_a_failed_build_ends_once() {
    // The build-failure path once tallied each game it ended twice.
    let sprt = Sprt::new(0.0, 5.0, 0.001, 0.001).unwrap();
    let request = sprt_gauntlet(duel(&SIX, 6), sprt);
    let Scenario { test, tournament: gauntlet, runner, .. } =
        Scenario::built(&SIX, &request, "r1").await;
    // An opponent of the challenger `f` does not build.
    let (_, ended) =
        fail_a_build_of_the_first_lease(&test.store, &runner, |seat| seat.bot_name != "f").await;
    assert!(ended >= 1, "{ended}");
    while let Some(lease) = test.store.lease_match(&runner, LEASE_MS).await.unwrap() {
        for index in 0..lease.games.len() {
            report_one(&test.store, &runner, &lease, index).await;
        }
    }
    let pairs = assert_sprt_matches_history(&test.store, gauntlet.id, &sprt).await;
    // Five opponents, three deals each, the broken one's by forfeit.
    assert_eq!(pairs.iter().sum::<u64>(), 15, "{pairs:?}");
}
}
