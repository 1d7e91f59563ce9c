//! A `CreateTournament` repeated with its idempotency key (a retry after a
//! lost answer, issue 30 finding 8) returns the first tournament over the
//! real gRPC path; without a key, or with another, each creates one.

use arena_support::{add_bot, authorized, register_owner, Arena};
use cairn_proto::arena::v1 as pb;

use crate::arena_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_retried_with_its_key_returns_the_first_tournament() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    add_bot(&arena, &token, "one", "first");
    add_bot(&arena, &token, "two", "random");
    let request = |key: &str| pb::CreateTournamentRequest {
        game: "schotten-totten".into(),
        bots: vec!["one".into(), "two".into()],
        seats_per_game: 2,
        games_per_pairing: 2,
        seed: 7,
        idempotency_key: key.into(),
        ..Default::default()
    };
    let mut client = arena.client().await;
    let mut create = async |key: &str| {
        client
            .create_tournament(authorized(request(key), &token))
            .await
            .unwrap()
            .into_inner()
            .id
    };
    let first = create("retry-key-1").await;
    assert_eq!(create("retry-key-1").await, first);
    assert_ne!(create("retry-key-2").await, first);
    let unkeyed = create("").await;
    assert_ne!(create("").await, unkeyed);
    let refused = arena
        .client()
        .await
        .create_tournament(authorized(request(&"k".repeat(10_000)), &token))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().len() < 200, "{}", refused.message());
}
