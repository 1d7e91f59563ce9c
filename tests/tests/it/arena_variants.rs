//! Canonical options end to end: an option equal to its default is the
//! same variant as no option, whether it reaches the arena from the CLI or
//! over gRPC, in tournaments, leaderboards and replays; and every bad
//! option (unknown key, another game's key, a wrong type, an empty value, a
//! key given twice, a seat count out of range) is refused on every path with
//! a message that says what is accepted.

use std::collections::BTreeMap;

use arena_support::*;
use cairn_proto::arena::v1 as pb;
use serde_json::Value;

use crate::arena_support;

/// Option pairs as written in a test.
type Pairs<'a> = &'a [(&'a str, &'a str)];

fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect()
}

fn tournament_request(pairs: &[(&str, &str)], seats: u32) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        game: "schotten-totten".into(),
        options: options(pairs),
        bots: vec!["random".into(), "first".into()],
        seats_per_game: seats,
        games_per_pairing: 2,
        seed: 5,
        ..Default::default()
    }
}

fn cli_json(args: &[&str]) -> Value {
    let output = cairn(args);
    assert!(
        output.status.success(),
        "cairn {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The error line of a refused command (exit 2).
fn cli_error(args: &[&str]) -> String {
    let output = cairn(args);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(2), "cairn {args:?}: {stderr}");
    stderr
}

async fn board(arena: &Arena, pairs: &[(&str, &str)]) -> pb::Leaderboard {
    let request = pb::GetLeaderboardRequest {
        game: "schotten-totten".into(),
        options: options(pairs),
        ..Default::default()
    };
    arena
        .client()
        .await
        .get_leaderboard(request)
        .await
        .unwrap()
        .into_inner()
}

/// An arena, its address and an owner's token, with the bots `random` and `first`.
async fn arena_with_two_bots() -> (Arena, String, String) {
    let arena = Arena::start();
    let address = arena.address.clone();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "random", "random");
    add_bot(&arena, &token, "first", "first");
    (arena, address, token)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_explicit_default_is_the_same_variant_as_no_option_on_every_path() {
    let (arena, address, token) = arena_with_two_bots().await;

    // Over gRPC with explicit defaults: stored as the plain game.
    let plain = arena
        .client()
        .await
        .create_tournament(authorized(
            tournament_request(&[("tactics", "false"), ("rounds", "01")], 2),
            &token,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(plain.variant, "");
    assert!(plain.options.is_empty(), "{:?}", plain.options);
    // From the CLI, tactics with an explicit default beside it.
    let tactics = cli_json(&[
        "tournament",
        "create",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--opt",
        "expert=false",
        "--games-per-pairing",
        "2",
        "--arena",
        &address,
        "--token",
        &token,
        "--json",
        "random",
        "first",
    ]);
    assert_eq!(tactics["variant"], "tactics=true", "{tactics}");

    let _runner = arena.runner(10_000, 2);
    for id in [plain.id, tactics["id"].as_i64().unwrap()] {
        wait_for_progress(&arena, id, |progress| progress.finished).await;
    }

    // Each variant is found with or without its explicit defaults, by gRPC
    // and by the CLI, and the two variants stay apart.
    for pairs in [
        &[][..],
        &[("tactics", "false")],
        &[("expert", "false"), ("rounds", "1")],
    ] {
        let found = board(&arena, pairs).await;
        assert_eq!(
            (found.variant.as_str(), found.rows.len()),
            ("", 2),
            "{pairs:?}"
        );
    }
    let found = board(&arena, &[("tactics", "true"), ("expert", "false")]).await;
    assert_eq!(
        (found.variant.as_str(), found.rows.len()),
        ("tactics=true", 2)
    );
    for flags in [
        &[][..],
        &["--opt", "tactics=false"],
        &["--opt", "rounds=1", "--opt", "expert=false"],
    ] {
        let mut args = vec![
            "ratings",
            "--game",
            "schotten-totten",
            "--arena",
            &address,
            "--json",
        ];
        args.extend_from_slice(flags);
        let found = cli_json(&args);
        assert_eq!(found["variant"], "", "{flags:?}");
        assert_eq!(
            found["rows"].as_array().unwrap().len(),
            2,
            "{flags:?}: {found}"
        );
    }
    let found = cli_json(&[
        "ratings",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--opt",
        "expert=false",
        "--arena",
        &address,
        "--json",
    ]);
    assert_eq!(found["rows"].as_array().unwrap().len(), 2, "{found}");
    // Seat bias of the Tactics board: both seats of its two-seat tables.
    let output = cairn(&[
        "ratings",
        "--game",
        "schotten-totten",
        "--opt",
        "tactics=true",
        "--arena",
        &address,
        "--seats",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("seat bias"), "{text}");
    let seats: Vec<&str> = text
        .lines()
        .filter(|line| line.trim_start().starts_with("2 "))
        .collect();
    assert_eq!(seats.len(), 2, "{text}");
    assert_eq!(found["seat_shares"].as_array().unwrap().len(), 2, "{found}");

    // The replay of a game of the plain tournament names no option.
    let matches = cli_json(&[
        "match",
        "list",
        &plain.id.to_string(),
        "--arena",
        &address,
        "--json",
    ]);
    let game_id = matches[0]["games"][0]["game_id"]
        .as_i64()
        .unwrap()
        .to_string();
    let replay = arena.folder.path().join("plain.json");
    cli_json(&[
        "match",
        "show",
        &game_id,
        "--replay",
        replay.to_str().unwrap(),
        "--arena",
        &address,
        "--json",
    ]);
    let file: Value = serde_json::from_slice(&std::fs::read(&replay).unwrap()).unwrap();
    assert_eq!(file["games"][0]["options"], serde_json::json!({}), "{file}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_options_and_seat_counts_are_refused_with_what_is_accepted() {
    let (arena, address, token) = arena_with_two_bots().await;
    let refusals: [(Pairs, u32, &str); 6] = [
        (&[("tactic", "true")], 2, "known: tactics, expert, rounds"),
        (
            &[("solo", "true")],
            2,
            "unknown option `solo` for schotten-totten",
        ),
        (&[("tactics", "maybe")], 2, "true or false"),
        (&[("tactics", "")], 2, "true or false"),
        (&[("rounds", "16")], 2, "from 1 to 15"),
        (&[], 3, "played by 2 seats, not 3"),
    ];
    for (pairs, seats, expected) in refusals {
        let refused = arena
            .client()
            .await
            .create_tournament(authorized(tournament_request(pairs, seats), &token))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{pairs:?}");
        assert!(
            refused.message().contains(expected),
            "{pairs:?}: {}",
            refused.message()
        );
        let request = pb::GetLeaderboardRequest {
            game: "schotten-totten".into(),
            options: options(pairs),
            ..Default::default()
        };
        if seats == 2 {
            let refused = arena
                .client()
                .await
                .get_leaderboard(request)
                .await
                .unwrap_err();
            assert!(
                refused.message().contains(expected),
                "{pairs:?}: {}",
                refused.message()
            );
        }
    }
    let listed = arena
        .client()
        .await
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(
        listed.tournaments.is_empty(),
        "a refused tournament was stored"
    );

    for (flags, expected) in [
        (
            &["--opt", "tactic=true"][..],
            "known: tactics, expert, rounds",
        ),
        (&["--opt", "tactics=maybe"], "true or false"),
        (&["--opt", "tactics="], "true or false"),
        (
            &["--opt", "tactics=true", "--opt", "tactics=false"],
            "given twice",
        ),
        (&["--opt", "solo=true"], "unknown option `solo`"),
        (&["--opt", "tactics"], "key=value"),
    ] {
        for command in [&["ratings"][..], &["tournament", "create"]] {
            let mut args = command.to_vec();
            args.extend_from_slice(&[
                "--game",
                "schotten-totten",
                "--arena",
                &address,
                "--token",
                &token,
            ]);
            if command.len() == 1 {
                args.truncate(args.len() - 2);
            }
            args.extend_from_slice(flags);
            args.extend_from_slice(if command.len() == 2 {
                &["random", "first"][..]
            } else {
                &[]
            });
            let stderr = cli_error(&args);
            assert!(stderr.contains(expected), "{args:?}: {stderr}");
        }
    }
}
