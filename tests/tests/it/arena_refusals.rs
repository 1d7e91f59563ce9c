//! The arena refuses what it must, with the right code and a clear
//! message, and a refused call changes nothing; reflection lists every
//! service; the CLI turns failures into one line.

use arena_support::*;
use cairn_arena::testkit::tar_gz;
use cairn_proto::arena::v1 as pb;
use tonic::Code;

use crate::arena_support;

/// Everything the public API shows, to compare before and after refusals.
async fn snapshot(arena: &Arena) -> String {
    let mut client = arena.client().await;
    let bots = client
        .list_bots(pb::ListBotsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let versions = client
        .show_bot(pb::ShowBotRequest {
            name: "mine".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let tournaments = client
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let matches = client
        .list_matches(pb::ListMatchesRequest {
            tournament_id: 1,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    format!("{bots:?}\n{versions:?}\n{tournaments:?}\n{matches:?}")
}

/// An arena with owner `ada`'s bot `mine` and a tournament; returns ada's token.
async fn arena_with_a_bot() -> (Arena, String) {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "mine", "random");
    add_bot(&arena, &token, "other", "first");
    create_round_robin(&arena, &token, &["mine", "other"], 2).await;
    (arena, token)
}

#[tokio::test]
async fn a_strangers_token_cannot_change_or_delete_a_bot_and_nothing_changes() {
    let (arena, _token) = arena_with_a_bot().await;
    let stranger = register_owner(&arena, "mallory").await;
    let before = snapshot(&arena).await;
    let mut client = arena.client().await;
    let delete = client
        .delete_bot(authorized(
            pb::DeleteBotRequest {
                name: "mine".into(),
            },
            &stranger,
        ))
        .await
        .unwrap_err();
    assert_eq!(delete.code(), Code::PermissionDenied, "{delete:?}");
    assert!(
        delete.message().contains("another owner"),
        "{}",
        delete.message()
    );
    let manifest = "name = \"mine\"\ncommand = [\"./evil\"]\n";
    let archive = tar_gz(&[
        ("cairn-bot.toml", manifest.as_bytes()),
        ("evil", b"#!/bin/sh\n"),
    ]);
    let replace = client
        .submit_bot_version(authorized(
            pb::SubmitBotVersionRequest { archive },
            &stranger,
        ))
        .await
        .unwrap_err();
    assert_eq!(replace.code(), Code::PermissionDenied, "{replace:?}");
    let wrong_token = client
        .delete_bot(authorized(
            pb::DeleteBotRequest {
                name: "mine".into(),
            },
            "not-a-token",
        ))
        .await
        .unwrap_err();
    assert_eq!(wrong_token.code(), Code::Unauthenticated);
    assert_eq!(snapshot(&arena).await, before);
}

#[tokio::test]
async fn bad_input_is_refused_with_the_right_code_and_leaves_the_database_unchanged() {
    let (arena, token) = arena_with_a_bot().await;
    let before = snapshot(&arena).await;
    let mut client = arena.client().await;
    let submit = |archive: Vec<u8>| authorized(pb::SubmitBotVersionRequest { archive }, &token);
    let oversized = client
        .submit_bot_version(submit(vec![7; cairn_proto::archive::MAX_ARCHIVE_BYTES + 1]))
        .await
        .unwrap_err();
    assert_eq!(oversized.code(), Code::ResourceExhausted, "{oversized:?}");
    let corrupt = client
        .submit_bot_version(submit(b"this is not a tar.gz".to_vec()))
        .await
        .unwrap_err();
    assert_eq!(corrupt.code(), Code::InvalidArgument, "{corrupt:?}");
    let no_manifest = client
        .submit_bot_version(submit(tar_gz(&[("bot.py", b"print(1)\n")])))
        .await
        .unwrap_err();
    assert_eq!(no_manifest.code(), Code::InvalidArgument);
    assert!(
        no_manifest.message().contains("cairn-bot.toml"),
        "{}",
        no_manifest.message()
    );
    let chess = pb::CreateTournamentRequest {
        game: "chess".into(),
        bots: vec!["mine".into(), "other".into()],
        games_per_pairing: 2,
        ..Default::default()
    };
    let unknown_game = client
        .create_tournament(authorized(chess, &token))
        .await
        .unwrap_err();
    assert_eq!(unknown_game.code(), Code::InvalidArgument);
    assert!(
        unknown_game.message().contains("chess"),
        "{}",
        unknown_game.message()
    );
    let ghost = pb::CreateTournamentRequest {
        game: "schotten-totten".into(),
        bots: vec!["mine".into(), "ghost".into()],
        games_per_pairing: 2,
        ..Default::default()
    };
    assert_eq!(
        client
            .create_tournament(authorized(ghost, &token))
            .await
            .unwrap_err()
            .code(),
        Code::NotFound
    );
    assert_eq!(
        client
            .get_tournament(pb::GetTournamentRequest { tournament_id: 999 })
            .await
            .unwrap_err()
            .code(),
        Code::NotFound
    );
    assert_eq!(
        client
            .get_replay(pb::GetReplayRequest { game_id: -3 })
            .await
            .unwrap_err()
            .code(),
        Code::NotFound
    );
    assert_eq!(
        client
            .show_bot(pb::ShowBotRequest {
                name: "../etc".into()
            })
            .await
            .unwrap_err()
            .code(),
        Code::NotFound
    );
    assert_eq!(snapshot(&arena).await, before);
}

#[tokio::test]
async fn reflection_lists_every_service() {
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::ServerReflectionRequest;

    let arena = Arena::start();
    let channel = tonic::transport::Channel::from_shared(arena.address.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = ServerReflectionClient::new(channel)
        .server_reflection_info(tokio_stream_once(request))
        .await
        .unwrap()
        .into_inner();
    let answer = answers.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
        panic!("{answer:?}")
    };
    let mut names: Vec<String> = list
        .service
        .into_iter()
        .map(|service| service.name)
        .collect();
    names.sort();
    let expected = [
        "cairn.arena.v1.Arena",
        "cairn.arena.v1.RunnerService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    ];
    assert_eq!(names, expected);
}

/// A request stream of one message.
fn tokio_stream_once<T: Send + 'static>(
    message: T,
) -> impl tonic::codegen::tokio_stream::Stream<Item = T> + Send + 'static {
    tonic::codegen::tokio_stream::iter([message])
}

#[test]
fn the_cli_says_in_one_line_when_the_token_is_wrong_the_game_unknown_or_the_server_unreachable() {
    let arena = Arena::start();
    let folder = bot_folder(arena.folder.path(), "mine", "random");
    let wrong_token = cairn(&[
        "bot",
        "add",
        folder.to_str().unwrap(),
        "--arena",
        &arena.address,
        "--token",
        "wrong",
    ]);
    assert_one_line_error(&wrong_token, "refused the token");
    let unknown_game = cairn(&["ratings", "--game", "chess", "--arena", &arena.address]);
    assert_one_line_error(&unknown_game, "chess");
    let unreachable = cairn(&["bot", "list", "--arena", "http://127.0.0.1:1"]);
    assert_one_line_error(&unreachable, "cannot reach the arena");
    let runner = cairn(&[
        "runner",
        "--arena",
        &arena.address,
        "--token",
        "wrong-runner-token",
        "--exit-when-idle",
    ]);
    assert_one_line_error(&runner, "refused the runner token");
}

fn assert_one_line_error(output: &std::process::Output, expected: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("error:"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains(expected) && !lines[0].contains('\n'),
        "{stderr}"
    );
}
