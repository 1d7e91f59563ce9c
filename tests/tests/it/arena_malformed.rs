//! Every RPC of a real arena, sent bytes that are no protobuf message and
//! a message past its size limit (issue 30, finding 7): the first is
//! INVALID_ARGUMENT, the second RESOURCE_EXHAUSTED, never INTERNAL, and no
//! answer quotes more than a bounded prefix.

use arena_support::Arena;
use bytes::{Buf, BufMut};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::{Code, Request, Status};

use crate::arena_support;

/// Sends and receives raw bytes, as a hostile client would.
#[derive(Debug, Clone, Copy, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let n = src.remaining();
        Ok(Some(src.copy_to_bytes(n).to_vec()))
    }
}

/// `/cairn.arena.v1.SERVICE/METHOD` for every rpc of arena.proto.
fn every_rpc() -> Vec<String> {
    let text = include_str!("../../../proto/arena.proto");
    let mut service = "";
    let mut paths = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("service ") {
            service = rest.split_whitespace().next().unwrap_or("");
        } else if let Some(rest) = line.strip_prefix("rpc ") {
            let method = rest.split('(').next().unwrap_or("").trim();
            paths.push(format!("/cairn.arena.v1.{service}/{method}"));
        }
    }
    paths
}

async fn call(arena: &Arena, path: &str, body: Vec<u8>) -> Status {
    let channel = arena_support::channel(&arena.address).await;
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    let path = PathAndQuery::try_from(path.to_string()).unwrap();
    let mut request = Request::new(body);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {}", arena_support::RUNNER_TOKEN)
            .parse()
            .unwrap(),
    );
    match grpc.unary(request, path.clone(), Raw).await {
        Ok(_) => panic!("{path} took bytes that are no message"),
        Err(status) => status,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_answers_a_malformed_request_invalid_argument_and_an_oversized_one_resource_exhausted(
) {
    let arena = Arena::start();
    let rpcs = every_rpc();
    assert!(rpcs.len() >= 19, "{rpcs:?}");
    // A field 1 of wire type 7, which does not exist.
    let malformed = vec![0x0f, 0xff, 0xff, 0xff];
    let oversized = vec![0u8; 18 * 1024 * 1024];
    for path in &rpcs {
        let status = call(&arena, path, malformed.clone()).await;
        assert_eq!(status.code(), Code::InvalidArgument, "{path}: {status:?}");
        let status = call(&arena, path, oversized.clone()).await;
        assert_eq!(status.code(), Code::ResourceExhausted, "{path}: {status:?}");
        assert!(
            status.message().len() <= 1024,
            "{path}: {}",
            status.message().len()
        );
    }
}
