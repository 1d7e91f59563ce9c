//! The two reads anyone may flood (the first page of a tournament's
//! matches and a leaderboard) answered from their encoded bytes.
//!
//! Under 200 back-to-back readers most of the arena's time went into
//! turning the same cached page into messages and encoding them again for
//! every caller. Here the answer is encoded once per version of what it is
//! made from and every later caller gets the same bytes: no SQL, no
//! conversion, no encoding.
//!
//! A cached answer is keyed by the request and kept with what it was made
//! from (the store's snapshot of the page, or the board's rows and fit); it
//! is served only while the store still hands out those very values, so it
//! is dropped exactly when they are, after the write that changes them
//! commits and before that write's caller is answered (see
//! `store::snapshots`). A result is therefore in the next read after its
//! report returns.
//!
//! [`HotReads`] wraps the generated `Arena` server: it serves those two
//! methods itself, with the generated server's framing and a codec whose
//! encoder copies bytes, and passes every other call through. Being in
//! front of every public call, it also counts those the database failed
//! (a status whose source is [`super::DatabaseFailed`]), but the owners'
//! writes, which the store's write path counts.

use std::collections::HashMap;
use std::convert::Infallible;
use std::hash::Hash;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use prost::bytes::{BufMut, Bytes};
use prost::Message;
use tonic::body::Body;
use tonic::codec::{Codec, EncodeBuf, Encoder};
use tonic::codegen::{http, BoxFuture, Service};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstDecoder;

use super::arena_api::{matches_cost, matches_response, ArenaApi, BoardRequest};
use super::pb;
use super::pb::arena_server::ArenaServer;
use crate::error::ArenaError;
use crate::ratings::RatingModel;
use crate::store::{LeaderboardInputs, MatchSummary, PageOf};

const LIST_MATCHES: &str = "/cairn.arena.v1.Arena/ListMatches";
const GET_LEADERBOARD: &str = "/cairn.arena.v1.Arena/GetLeaderboard";

/// The owners' writes, whose database errors the store's write path
/// counts (every other public call is a read).
const OWNER_WRITES: [&str; 5] = [
    "/cairn.arena.v1.Arena/RegisterOwner",
    "/cairn.arena.v1.Arena/SubmitBotVersion",
    "/cairn.arena.v1.Arena/DeleteBot",
    "/cairn.arena.v1.Arena/CancelTournament",
    "/cairn.arena.v1.Arena/CreateTournament",
];

/// The largest request either hot read decodes (both are a few fields).
const MAX_HOT_REQUEST_BYTES: usize = 64 * 1024;

/// Answers kept of each kind; past that all are dropped and made again on
/// demand (a caller asking for every page size, anchor and page token only
/// costs the encodings it causes).
const MAX_ANSWERS: usize = 256;

/// Which first page of matches: tournament, page size and whether it
/// carries the games.
type PageKey = (i64, u32, bool);

/// Which leaderboard page: game, variant, model, anchor, page size and
/// the position it starts after.
type BoardKey = (
    String,
    String,
    Option<RatingModel>,
    Option<String>,
    u32,
    Option<i64>,
);

/// Encoded answers, each kept with what it was made from.
#[derive(Debug)]
struct Answers<K, S> {
    answers: Mutex<HashMap<K, (S, Bytes)>>,
}

impl<K: Eq + Hash, S> Answers<K, S> {
    fn new() -> Answers<K, S> {
        Answers {
            answers: Mutex::new(HashMap::new()),
        }
    }

    /// The answer under `key` if it was made from `source`.
    fn get(&self, key: &K, same: impl Fn(&S) -> bool) -> Option<Bytes> {
        let answers = lock(&self.answers);
        let (source, bytes) = answers.get(key)?;
        same(source).then(|| bytes.clone())
    }

    fn put(&self, key: K, source: S, bytes: Bytes) {
        let mut answers = lock(&self.answers);
        if answers.len() >= MAX_ANSWERS {
            answers.clear();
        }
        answers.insert(key, (source, bytes));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// The encoded answers of the hot reads, shared by every connection.
#[derive(Debug)]
struct HotAnswers {
    first_pages: Answers<PageKey, Arc<PageOf<MatchSummary>>>,
    boards: Answers<BoardKey, LeaderboardInputs>,
}

/// The `Arena` server with its hot reads answered from encoded bytes.
#[derive(Debug, Clone)]
pub(crate) struct HotReads {
    inner: ArenaServer<ArenaApi>,
    api: ArenaApi,
    answers: Arc<HotAnswers>,
    /// Passes every call through (`ServeOptions::plain_reads`).
    plain: bool,
    metrics: Arc<crate::metrics::Metrics>,
}

impl HotReads {
    pub(crate) fn new(api: ArenaApi, inner: ArenaServer<ArenaApi>, plain: bool) -> HotReads {
        HotReads {
            inner,
            metrics: api.store().shared_metrics(),
            api,
            plain,
            answers: Arc::new(HotAnswers {
                first_pages: Answers::new(),
                boards: Answers::new(),
            }),
        }
    }
}

impl NamedService for HotReads {
    const NAME: &'static str = <ArenaServer<ArenaApi> as NamedService>::NAME;
}

impl Service<http::Request<Body>> for HotReads {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _context: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let path = request.uri().path();
        let metrics = (!OWNER_WRITES.contains(&path)).then(|| Arc::clone(&self.metrics));
        let answer = self.answer(request);
        let Some(metrics) = metrics else {
            return answer;
        };
        Box::pin(async move {
            let response = answer.await?;
            let status = response.extensions().get::<Status>();
            let source = status.and_then(|status| std::error::Error::source(status));
            if source.is_some_and(|source| source.is::<super::DatabaseFailed>()) {
                metrics.database_failed();
            }
            Ok(response)
        })
    }
}

impl HotReads {
    fn answer(
        &mut self,
        request: http::Request<Body>,
    ) -> BoxFuture<http::Response<Body>, Infallible> {
        match request.uri().path() {
            _ if self.plain => self.inner.call(request),
            LIST_MATCHES => {
                let method = ListMatches(self.clone());
                Box::pin(async move { Ok(hot_grpc().unary(method, request).await) })
            }
            GET_LEADERBOARD => {
                let method = GetLeaderboard(self.clone());
                Box::pin(async move { Ok(hot_grpc().unary(method, request).await) })
            }
            _ => self.inner.call(request),
        }
    }
}

fn hot_grpc<U: Message + Default + Send + 'static>() -> Grpc<EncodedCodec<U>> {
    Grpc::new(EncodedCodec(PhantomData))
        .apply_max_message_size_config(Some(MAX_HOT_REQUEST_BYTES), None)
}

struct ListMatches(HotReads);

impl UnaryService<pb::ListMatchesRequest> for ListMatches {
    type Response = Bytes;
    type Future = BoxFuture<Response<Bytes>, Status>;

    fn call(&mut self, request: Request<pb::ListMatchesRequest>) -> Self::Future {
        let hot = self.0.clone();
        Box::pin(async move {
            // A deep page is read from the database each time: admitted by cost.
            let _ticket = match matches_cost(request.get_ref()) {
                0 => None,
                cost => Some(hot.api.admit(&request, cost).await?),
            };
            Ok(Response::new(hot.list_matches(request.into_inner()).await?))
        })
    }
}

struct GetLeaderboard(HotReads);

impl UnaryService<pb::GetLeaderboardRequest> for GetLeaderboard {
    type Response = Bytes;
    type Future = BoxFuture<Response<Bytes>, Status>;

    fn call(&mut self, request: Request<pb::GetLeaderboardRequest>) -> Self::Future {
        let hot = self.0.clone();
        Box::pin(async move { Ok(Response::new(hot.leaderboard(request.into_inner()).await?)) })
    }
}

impl HotReads {
    /// `ListMatches`, encoded; a first page is encoded once per snapshot.
    async fn list_matches(&self, request: pb::ListMatchesRequest) -> Result<Bytes, ArenaError> {
        let (page, matches) = self.api.matches_page(&request).await?;
        let with_games = request.with_games;
        if page.after.is_some() {
            return Ok(encode(&matches_response(&matches, with_games)));
        }
        let key = (request.tournament_id, page.size, with_games);
        let first_pages = &self.answers.first_pages;
        if let Some(bytes) = first_pages.get(&key, |source| Arc::ptr_eq(source, &matches)) {
            return Ok(bytes);
        }
        let bytes = encode(&matches_response(&matches, with_games));
        first_pages.put(key, matches, bytes.clone());
        Ok(bytes)
    }

    /// `GetLeaderboard`, encoded once per version of the board's rows and
    /// fit (a game with a solo board reads that board every time).
    async fn leaderboard(&self, request: pb::GetLeaderboardRequest) -> Result<Bytes, ArenaError> {
        let request = self.api.board_request(request)?;
        let inputs = self.api.store().leaderboard_inputs(&request.query).await?;
        if request.solo {
            return Ok(encode(&self.api.board(&request, &inputs).await?));
        }
        let key = board_key(&request);
        let boards = &self.answers.boards;
        if let Some(bytes) = boards.get(&key, |source| source.same_as(&inputs)) {
            return Ok(bytes);
        }
        let bytes = encode(&self.api.board(&request, &inputs).await?);
        boards.put(key, inputs, bytes.clone());
        Ok(bytes)
    }
}

fn board_key(request: &BoardRequest) -> BoardKey {
    (
        request.query.game.clone(),
        crate::store::variant_key(&request.query.options),
        request.query.model,
        request.anchor.clone(),
        request.page.size,
        request.page.after,
    )
}

fn encode(message: &impl Message) -> Bytes {
    Bytes::from(message.encode_to_vec())
}

/// Decodes requests as the generated server does; sends answers that are
/// already encoded.
struct EncodedCodec<U>(PhantomData<U>);

impl<U: Message + Default + Send + 'static> Codec for EncodedCodec<U> {
    type Encode = Bytes;
    type Decode = U;
    type Encoder = BytesEncoder;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> BytesEncoder {
        BytesEncoder
    }

    fn decoder(&mut self) -> ProstDecoder<U> {
        ProstDecoder::default()
    }
}

/// Copies an encoded message into the response.
struct BytesEncoder;

impl Encoder for BytesEncoder {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, destination: &mut EncodeBuf<'_>) -> Result<(), Status> {
        destination.put_slice(&item);
        Ok(())
    }
}
