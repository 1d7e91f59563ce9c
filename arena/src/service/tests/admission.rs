//! Expensive public reads are shed per client and in total, with a retry
//! hint, while the runners' calls always go through.

use super::*;
use crate::admission::{Admission, AdmissionLimits};

/// Limits a test can reach in a few calls: two deep pages with their
/// games per client, then nothing for a long while; two watch streams.
fn tight() -> ServeOptions {
    ServeOptions {
        admission: Admission::new(AdmissionLimits {
            client_cost: 6,
            client_cost_per_s: 0.001,
            client_burst: 12.0,
            total_cost: 12,
            client_streams: 2,
            total_streams: 100,
        }),
        ..ServeOptions::default()
    }
}

fn deep_page_with_games(tournament_id: i64) -> pb::ListMatchesRequest {
    pb::ListMatchesRequest {
        tournament_id,
        with_games: true,
        page_size: 1,
        page_token: "0".into(),
    }
}

/// An arena with `tight` limits, a tournament of four bots and its id, and
/// the owner's token.
async fn arena_with_tournament() -> (TestApp, i64, String) {
    let app = spawn_app_with(tight()).await;
    let token = register(&app, "ada").await;
    let names = ["a", "b", "c", "d"];
    for name in names {
        submit(&app, &token, bot_archive(name, 1)).await.unwrap();
    }
    let tournament = app
        .arena()
        .create_tournament(authorized(duel(&names, 2), &token))
        .await
        .unwrap()
        .into_inner();
    (app, tournament.id, token)
}

fn assert_shed(status: &Status) {
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("retry in"),
        "{}",
        status.message()
    );
    let pushback = status
        .metadata()
        .get(RETRY_PUSHBACK)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    assert!(pushback.is_some_and(|ms| ms > 0), "{:?}", status.metadata());
}

#[tokio::test]
async fn a_flood_of_deep_pages_is_shed_while_a_runner_reports_and_a_polite_reader_is_served() {
    let (app, tournament_id, token) = arena_with_tournament().await;
    // 40 anonymous readers on one address, each asking again and again.
    let flood: Vec<_> = (0..40)
        .map(|_| {
            let mut arena = app.arena();
            tokio::spawn(async move {
                let mut answers = Vec::new();
                for _ in 0..5 {
                    let asked = deep_page_with_games(tournament_id);
                    answers.push(arena.list_matches(asked).await.map(|_| ()));
                }
                answers
            })
        })
        .collect();
    // Meanwhile a runner leases and reports a whole match.
    let lease = super::lease(&app, RUNNER_TOKEN).await.unwrap();
    report_match(&app, RUNNER_TOKEN, report_first_seat_wins(&lease))
        .await
        .unwrap();
    let (mut served, mut shed) = (0, 0);
    for reader in flood {
        for answer in reader.await.unwrap() {
            match answer {
                Ok(()) => served += 1,
                Err(status) => {
                    assert_shed(&status);
                    shed += 1;
                }
            }
        }
    }
    assert!(
        served <= 2,
        "the address's bucket holds two such pages: {served}"
    );
    assert_eq!(served + shed, 200);
    // An owner reading with its token is its own client: served.
    let polite = app
        .arena()
        .list_matches(authorized(deep_page_with_games(tournament_id), &token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(polite.matches.len(), 1);
    // The first page is kept, so it costs nothing and is never shed.
    let first = app
        .arena()
        .list_matches(pb::ListMatchesRequest {
            tournament_id,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first.matches.len(), 12);
    let reported = &first.matches[lease_index(&first, lease.match_id)];
    assert_eq!(reported.games_done as usize, lease.games.len());
    app.stop().await;
}

fn lease_index(page: &pb::ListMatchesResponse, match_id: i64) -> usize {
    page.matches
        .iter()
        .position(|summary| summary.match_id == match_id)
        .unwrap()
}

#[tokio::test]
async fn a_made_up_token_counts_against_the_callers_address() {
    let (app, tournament_id, _) = arena_with_tournament().await;
    let mut answers = Vec::new();
    for index in 0..4 {
        let token = format!("made-up-token-{index}");
        let asked = authorized(deep_page_with_games(tournament_id), &token);
        answers.push(app.arena().list_matches(asked).await.map(|_| ()));
    }
    assert!(answers[..2].iter().all(Result::is_ok), "{answers:?}");
    for refused in &answers[2..] {
        assert_shed(refused.as_ref().unwrap_err());
    }
    app.stop().await;
}

#[tokio::test]
async fn watch_streams_past_a_clients_limit_are_shed_and_a_closed_one_frees_its_slot() {
    let (app, tournament_id, _) = arena_with_tournament().await;
    let watch = || {
        let mut arena = app.arena();
        async move {
            arena
                .watch_tournament(pb::WatchTournamentRequest { tournament_id })
                .await
        }
    };
    let mut first = watch().await.unwrap().into_inner();
    let second = watch().await.unwrap().into_inner();
    assert_shed(&watch().await.unwrap_err());
    // Both open streams got the progress now, shared by one read.
    let progress = first.next().await.unwrap().unwrap();
    assert_eq!(progress.matches_total, 12);
    drop(first);
    // The slot comes back when the server sees the stream closed; a
    // health check on the same connection orders us after that reset.
    let mut again = None;
    for _ in 0..1_000 {
        tonic_health::pb::health_client::HealthClient::new(app.channel.clone())
            .check(tonic_health::pb::HealthCheckRequest::default())
            .await
            .unwrap();
        if let Ok(stream) = watch().await {
            again = Some(stream);
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(again.is_some(), "a closed stream gives its slot back");
    // Open streams would hold the server's graceful stop.
    drop((second, again));
    app.stop().await;
}
