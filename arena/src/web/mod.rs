//! The arena's web pages (`cairn serve --http ADDR`): leaderboards, tournaments
//! with live progress, a tournament's games, a bot's page, and a replay
//! viewer. Read-only: every route is a GET, and none reaches a store write.
//!
//! # Layout
//! - this file: the router, the JSON endpoints under `/api/`, the one
//!   mapping from [`ArenaError`] to a status.
//! - `replays`: replay answers built a few at a time, the latest kept.
//! - `standings`: a tournament page's results table, crosstable, format
//!   standings, bracket and SPRT state.
//! - `scrape`: `/metrics`, the arena's metrics for Prometheus.
//! - `assets/`: the page shell, its script, the board drawings and the
//!   style sheet, embedded with `include_str!` (plain HTML, CSS and JS; no
//!   build step).
//!
//! The pages read only the JSON endpoints. A replay is re-simulated here
//! ([`cairn_proto::steps`]) and sent as per-step states; the script never
//! runs game rules. Everything from bots and owners (names, forfeit
//! details) reaches the page as JSON and is put into the page with
//! `textContent` only, and the content security policy allows no inline
//! script, so a hostile name stays text.

mod replays;
mod scrape;
mod standings;

use std::future::Future;
use std::sync::Arc;

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRef, Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use cairn_engine::{GameOptions, Replay};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::net::TcpListener;

use crate::admission::{cost, Admission, Client, Refusal};
use crate::store::LeaderboardQuery;
use crate::{ArenaError, Store};

const PAGE: &str = include_str!("assets/page.html");
const APP_JS: &str = include_str!("assets/app.js");
const BOARDS_JS: &str = include_str!("assets/boards.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Serves the pages on `listener` until `shutdown` completes, their
/// `/api/` reads admitted by `admission` (shared with the gRPC service).
pub async fn serve(
    listener: TcpListener,
    store: Store,
    admission: Admission,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = admitted_router(store, admission);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}

/// What every request may use: the store, and the replay answers kept.
#[derive(Debug, Clone)]
struct Web {
    store: Store,
    admission: Admission,
    replays: Arc<replays::ReplayCache>,
    gauges: Arc<scrape::GaugeCache>,
}

impl FromRef<Web> for Store {
    fn from_ref(web: &Web) -> Store {
        web.store.clone()
    }
}

/// Every route; GET only; reads admitted by the default limits.
pub fn router(store: Store) -> Router {
    admitted_router(store, Admission::default())
}

/// Every route; GET only; the `/api/` reads admitted by `admission`.
pub fn admitted_router(store: Store, admission: Admission) -> Router {
    let web = Web {
        store,
        admission,
        replays: Arc::new(replays::ReplayCache::new()),
        gauges: Arc::default(),
    };
    Router::new()
        .route("/", get(page))
        .route("/tournaments/{id}", get(page))
        .route("/bots/{name}", get(page))
        .route("/games/{id}", get(page))
        .route("/games/{tournament}/{match}/{game}", get(page))
        .route("/assets/app.js", get(|| asset(APP_JS, "text/javascript")))
        .route(
            "/assets/boards.js",
            get(|| asset(BOARDS_JS, "text/javascript")),
        )
        .route("/assets/style.css", get(|| asset(STYLE_CSS, "text/css")))
        .route("/api/leaderboards", get(leaderboards))
        .route("/api/tournaments", get(tournaments))
        .route("/api/tournaments/{id}", get(tournament))
        .route("/api/bots/{name}", get(bot))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{tournament}/{match}/{game}", get(game_by_name))
        .route("/metrics", get(scrape::metrics))
        .fallback(|| async { WebError::NotFound("no such page".into()) })
        .layer(axum::middleware::from_fn_with_state(web.clone(), admitted))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(web)
}

/// What an `/api/` read or a scrape costs to admit; `None` for the page
/// and its assets, which are served from memory.
fn api_cost(path: &str) -> Option<u32> {
    if path == "/metrics" {
        return Some(cost::SINGLE);
    }
    let rest = path.strip_prefix("/api/")?;
    Some(match rest.split('/').next().unwrap_or("") {
        "leaderboards" => cost::ALL_BOARDS,
        "tournaments" => cost::TOURNAMENT,
        _ => cost::SINGLE,
    })
}

/// Admits an `/api/` read by its cost for the caller's address, or sheds
/// it with a retry hint; counts the database's failure of one it admitted.
async fn admitted(
    State(web): State<Web>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let Some(cost) = api_cost(request.uri().path()) else {
        return next.run(request).await;
    };
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(Client::Unknown, |info| Client::Peer(info.0.ip()));
    match web.admission.admit(client, cost) {
        Ok(ticket) => {
            let response = next.run(request).await;
            drop(ticket);
            if response.extensions().get::<DatabaseFailed>().is_some() {
                web.store.metrics().database_failed();
            }
            response
        }
        Err(refusal) => WebError::Shed(refusal).into_response(),
    }
}

async fn page() -> Response {
    asset(PAGE, "text/html; charset=utf-8").await
}

async fn asset(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// No inline script, no outside source, no framing: a name that looks like
/// markup can do nothing even if some code put it into the page as HTML.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Why a request has no answer: the one place an error becomes a status.
#[derive(Debug)]
enum WebError {
    NotFound(String),
    Internal(String),
    /// The database failed a read: 500, counted as a database error once
    /// answered ([`admitted`]), its text logged and never shown.
    Database(String),
    /// Shed: 429 when this caller asks too much, 503 when everyone does;
    /// either with `Retry-After`.
    Shed(Refusal),
}

impl From<ArenaError> for WebError {
    fn from(error: ArenaError) -> WebError {
        match error {
            ArenaError::NotFound { .. } => WebError::NotFound(error.to_string()),
            ArenaError::Shed(refusal) => WebError::Shed(refusal),
            ArenaError::Database(_) | ArenaError::Migration(_) => {
                WebError::Database(error.client_message())
            }
            other => WebError::Internal(other.to_string()),
        }
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            WebError::NotFound(message) => (StatusCode::NOT_FOUND, message),
            WebError::Internal(message) => (StatusCode::INTERNAL_SERVER_ERROR, message),
            WebError::Database(message) => {
                let mut response = (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    json_body(&json!({ "error": message })),
                )
                    .into_response();
                response.extensions_mut().insert(DatabaseFailed);
                return response;
            }
            WebError::Shed(refusal) => return shed_response(&refusal),
        };
        (status, json_body(&json!({ "error": message }))).into_response()
    }
}

/// Marks an answer whose read the database failed, for [`admitted`] to
/// count (the page's own reads count where the store has no say).
#[derive(Debug, Clone, Copy)]
struct DatabaseFailed;

fn shed_response(refusal: &Refusal) -> Response {
    let status = match refusal.is_overall() {
        true => StatusCode::SERVICE_UNAVAILABLE,
        false => StatusCode::TOO_MANY_REQUESTS,
    };
    // Retry-After counts whole seconds: rounded up, at least one.
    let seconds = refusal.retry_after().as_millis().div_ceil(1000).max(1);
    let body = json_body(&json!({ "error": refusal.to_string(),
                                  "retry_after_ms": refusal.retry_after().as_millis() as u64 }));
    (status, [(header::RETRY_AFTER, seconds.to_string())], body).into_response()
}

type Answer = Result<Response, WebError>;

fn json_body(value: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

fn answer(value: impl serde::Serialize) -> Answer {
    let value =
        serde_json::to_value(value).map_err(|error| WebError::Internal(error.to_string()))?;
    Ok(json_body(&value))
}

/// An id from a path: anything but a positive integer that fits names nothing.
fn id(text: &str, what: &str) -> Result<i64, WebError> {
    text.parse::<i64>()
        .ok()
        .filter(|&id| id > 0)
        .ok_or_else(|| WebError::NotFound(format!("no {what} with that id")))
}

async fn leaderboards(State(store): State<Store>) -> Answer {
    let mut boards = Vec::new();
    for played in store.played_variants().await? {
        let query = LeaderboardQuery {
            game: played.game.clone(),
            options: played.options.clone(),
            model: None,
        };
        // The one ranking the CLI and the API show: the fitted one.
        let inputs = store.leaderboard_inputs(&query).await?;
        let board = inputs.fitted(None)?;
        let rows: Vec<Value> = board
            .rows
            .iter()
            .map(|line| board_row(line, inputs.model()))
            .collect();
        let fit = board.summary.as_ref().map(|fit| {
            json!({ "method": fit.method.id(), "games": fit.games, "deals": fit.deals,
                    "table_sizes": fit.table_sizes })
        });
        // A solo variant has no rated rows: its board ranks mean scores.
        let solo: Vec<Value> =
            match rows.is_empty() && store.plays_solo(&played.game, &played.options) {
                true => store
                    .solo_leaderboard(&played.game, &played.variant)
                    .await?
                    .iter()
                    .enumerate()
                    .map(solo_row_json)
                    .collect(),
                false => Vec::new(),
            };
        boards.push(json!({
            "game": played.game, "variant": played.variant, "rows": rows, "solo": solo,
            "fit": fit, "provisional_deals": crate::store::PROVISIONAL_DEALS,
        }));
    }
    answer(boards)
}

/// One line of a solo board, numbered from 1.
fn solo_row_json((index, row): (usize, &crate::store::SoloRow)) -> Value {
    json!({
        "position": index + 1,
        "bot": row.bot_name,
        "version": row.version,
        "deals": row.standing.deals,
        // null when unbounded (fewer than two deals)
        "mean": row.standing.score.rating,
        "low": finite(row.standing.score.low),
        "high": finite(row.standing.score.high),
        "title": row.title,
    })
}

/// One leaderboard line: the fitted rating that orders it (or, for an
/// unbeaten or winless bot, its one-sided bound), the live rating
/// beside it (null with no game under the live model) and the record.
fn board_row(line: &crate::store::FittedRow, model: crate::ratings::RatingModel) -> Value {
    let row = &line.row;
    let fitted = match line.fitted {
        Some(Ok(estimate)) => json!({ "rating": estimate.rating,
            "low": finite(estimate.low), "high": finite(estimate.high) }),
        Some(Err(reason)) => json!({ "unrated": reason.id(), "reason": reason.to_string(),
            "bound": line.bound }),
        None => Value::Null,
    };
    let live = |value: f64| line.live.then_some(value);
    json!({
        "position": row.position,
        "bot": row.bot_name,
        "version": row.version,
        "owner": row.owner,
        "fitted": fitted,
        "model": model.id(),
        "rating": live(row.standing.rating.value),
        "uncertainty": live(row.standing.rating.uncertainty),
        "games": row.standing.games,
        "wins": row.standing.wins,
        "draws": row.standing.draws,
        "losses": row.standing.losses,
        "forfeits": row.standing.forfeits,
        "deals": line.fitted_deals,
        "provisional": row.provisional,
    })
}

/// A bound of an interval, `None` (JSON null) when unbounded.
fn finite(bound: f64) -> Option<f64> {
    bound.is_finite().then_some(bound)
}

async fn tournaments(State(store): State<Store>) -> Answer {
    answer(store.tournament_lines().await?)
}

/// `?page=N` (from 0): which page of a tournament's games; 0 when absent
/// or unreadable.
fn games_page(uri: &axum::http::Uri) -> i64 {
    uri.query()
        .into_iter()
        .flat_map(|query| query.split('&'))
        .find_map(|pair| pair.strip_prefix("page="))
        .and_then(|page| page.parse::<i64>().ok())
        .unwrap_or(0)
        .clamp(0, i64::MAX / crate::store::web_reads::GAMES_PER_PAGE)
}

async fn tournament(
    State(store): State<Store>,
    Path(text): Path<String>,
    uri: axum::http::Uri,
) -> Answer {
    let tournament_id = id(&text, "tournament")?;
    let line = store.tournament_line(tournament_id).await?;
    let page = games_page(&uri);
    let games = store.tournament_games(tournament_id, page).await?;
    let standings = standings::standings_json(&store, tournament_id).await?;
    let suspensions = store.tournament_suspensions(tournament_id).await?;
    answer(json!({ "tournament": line, "games": games, "page": page,
                   "games_per_page": crate::store::web_reads::GAMES_PER_PAGE, "standings": standings,
                   "suspensions": suspensions }))
}

async fn bot(State(store): State<Store>, Path(name): Path<String>) -> Answer {
    answer(store.bot_page(&name).await?)
}

/// The part of a stored replay file the viewer needs (the runner writes
/// `{"format": .., "games": [one game]}` for each game it reports).
#[derive(Debug, Deserialize)]
struct StoredReplay {
    games: Vec<StoredGame>,
}

#[derive(Debug, Deserialize)]
struct StoredGame {
    game: String,
    options: GameOptions,
    seed: u64,
    seats: Vec<String>,
    actions: Vec<String>,
    /// Absent in replays stored before decision times were kept.
    #[serde(default)]
    cpu_us: Vec<Option<u64>>,
}

/// A game by its name, `TOURNAMENT/MATCH/GAME`.
async fn game_by_name(
    State(web): State<Web>,
    Path((tournament, number, game)): Path<(String, String, String)>,
) -> Answer {
    let name = format!("{tournament}/{number}/{game}");
    let game_id = match name.parse() {
        Ok(crate::game_name::GameRef::Name(name)) => web.store.game_id_by_name(name).await?,
        _ => return Err(WebError::NotFound(format!("no game {name}"))),
    };
    game_answer(web, game_id).await
}

async fn game(State(web): State<Web>, Path(text): Path<String>) -> Answer {
    let game_id = id(&text, "game")?;
    game_answer(web, game_id).await
}

async fn game_answer(web: Web, game_id: i64) -> Answer {
    let seats = web.store.game_header(game_id).await?;
    let steps = match web.store.replay(game_id).await? {
        // Re-simulation is CPU work: off the request threads, a few at a time.
        Some(bytes) => web
            .replays
            .get_or_build(game_id, move || replay_json(&bytes))
            .await
            .map_err(WebError::Internal)?,
        None => json!({ "error": NOT_PLAYED }).to_string().into(),
    };
    let seats =
        serde_json::to_string(&seats).map_err(|error| WebError::Internal(error.to_string()))?;
    // Both parts are JSON text already: joined, not parsed again.
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        format!("{{\"game\":{seats},\"replay\":{steps}}}"),
    )
        .into_response())
}

/// What a game without a replay shows: its result only.
const NOT_PLAYED: &str = "no replay: the game was never played (a seat forfeited before it began)";

/// Every step of a stored replay as JSON text; a replay that cannot be
/// read becomes `{"error": ..}` for the page to show, not a failed request.
pub fn replay_json(bytes: &[u8]) -> String {
    let refused = |error: String| json!({ "error": error }).to_string();
    let stored: StoredReplay = match serde_json::from_slice(bytes) {
        Ok(stored) => stored,
        Err(error) => return refused(format!("the stored replay is unreadable: {error}")),
    };
    let Some(first) = stored.games.into_iter().next() else {
        return refused("the stored replay holds no game".into());
    };
    let replay = Replay {
        game: first.game,
        options: first.options,
        seed: first.seed,
        n_seats: first.seats.len(),
        actions: first.actions,
    };
    match cairn_proto::steps::replay_steps(&replay) {
        Ok(steps) => steps.with_times(&first.cpu_us).to_json_string(),
        Err(error) => refused(format!("the stored replay does not re-simulate: {error}")),
    }
}

#[cfg(test)]
mod scrape_tests;
#[cfg(test)]
mod tests;
