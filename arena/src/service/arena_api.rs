//! The `Arena` service: owners submit bots and create tournaments; anyone
//! reads bots, tournaments, matches, replays and leaderboards.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::admitted::TokenClients;
use super::pb::arena_server::Arena;
use super::watches::Watches;
use super::writer::WriterHandle;
use super::{bearer_token, convert, pb};
use crate::admission::{cost, Admission, Client, Ticket};
use crate::error::ArenaError;
use crate::ratings::RatingModel;
use crate::store::{
    FittedRow, LeaderboardInputs, LeaderboardQuery, MatchSummary, Owner, Page, PageOf, Store,
    ValidationState,
};

/// The `Arena` service over a store.
#[derive(Debug, Clone)]
pub struct ArenaApi {
    store: Store,
    /// The public reads' admission, shared with the web pages when served.
    admission: Admission,
    tokens: TokenClients,
    watches: Watches,
    /// Where the owners' writes run: the writer thread when serving (see
    /// [`super::writer`]), else the caller's runtime.
    writer: Option<WriterHandle>,
}

impl ArenaApi {
    pub fn new(store: Store) -> ArenaApi {
        ArenaApi {
            store,
            admission: Admission::default(),
            tokens: TokenClients::default(),
            watches: Watches::default(),
            writer: None,
        }
    }

    /// The API with reads admitted by `admission` (shared with the web).
    pub fn with_admission(mut self, admission: Admission) -> ArenaApi {
        self.admission = admission;
        self
    }

    /// Admits a read of `cost` units for the caller of `request`.
    pub(super) async fn admit<T>(
        &self,
        request: &Request<T>,
        cost: u32,
    ) -> Result<Ticket, ArenaError> {
        let client = self.client(request).await;
        Ok(self.admission.admit(client, cost)?)
    }

    async fn client<T>(&self, request: &Request<T>) -> Client {
        self.tokens
            .client(&self.store, request.metadata(), request.remote_addr())
            .await
    }

    pub(crate) fn with_writer(mut self, writer: WriterHandle) -> ArenaApi {
        self.writer = Some(writer);
        self
    }

    /// Runs an owner's write, `work` with the store, on the writer thread:
    /// it holds the write lock, so it must not wait for a core behind the
    /// public calls, whose threads `cairn serve` runs at a lower priority
    /// (the runners' reports would wait with it).
    async fn write<T, Fut>(&self, work: impl FnOnce(Store) -> Fut) -> Result<T, ArenaError>
    where
        T: Send + 'static,
        Fut: Future<Output = Result<T, ArenaError>> + Send + 'static,
    {
        let job = work(self.store.clone());
        match &self.writer {
            Some(writer) => writer.run(job).await,
            None => job.await,
        }
    }

    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    async fn owner<T>(&self, request: &Request<T>) -> Result<Owner, ArenaError> {
        let token = bearer_token(request.metadata(), "owner")?;
        self.store.owner_by_token(&token).await
    }

    async fn tournament_status(
        &self,
        tournament_id: i64,
    ) -> Result<pb::TournamentStatus, ArenaError> {
        let tournament = self.store.tournament(tournament_id).await?;
        let progress = self.store.tournament_progress(tournament_id).await?;
        Ok(pb::TournamentStatus {
            tournament: Some(convert::tournament(&tournament)),
            progress: Some(convert::progress(&progress)),
            standings: Vec::new(),
            bracket: Vec::new(),
            table: Vec::new(),
            crosstable: Vec::new(),
            solo: Vec::new(),
            suspensions: Vec::new(),
        })
    }

    /// A page of a tournament's matches: the page asked for (its size
    /// bounded) and the store's page, shared while it is current.
    pub(super) async fn matches_page(
        &self,
        request: &pb::ListMatchesRequest,
    ) -> Result<(Page<i64>, Arc<PageOf<MatchSummary>>), ArenaError> {
        let page = Page::from_request(request.page_size, &request.page_token)?;
        let matches = self
            .store
            .matches_page(request.tournament_id, &page)
            .await?;
        Ok((page, matches))
    }

    /// A leaderboard request, checked.
    pub(super) fn board_request(
        &self,
        request: pb::GetLeaderboardRequest,
    ) -> Result<BoardRequest, ArenaError> {
        let model = match request.model.as_str() {
            "" => None,
            id => Some(RatingModel::from_id(id).ok_or_else(|| {
                ArenaError::invalid(format!(
                    "unknown rating model `{id}` (known: elo, glicko2, weng-lin)"
                ))
            })?),
        };
        let options = self
            .store
            .canonical_options(&request.game, &request.options)?;
        let page = Page::<i64>::from_request(request.page_size, &request.page_token)?;
        let anchor = Some(request.anchor).filter(|anchor| !anchor.is_empty());
        let solo = self.store.plays_solo(&request.game, &options);
        Ok(BoardRequest {
            query: LeaderboardQuery {
                game: request.game,
                options,
                model,
            },
            page,
            anchor,
            solo,
        })
    }

    /// The leaderboard `request` asks for, made from `inputs`.
    pub(super) async fn board(
        &self,
        request: &BoardRequest,
        inputs: &LeaderboardInputs,
    ) -> Result<pb::Leaderboard, ArenaError> {
        let query = &request.query;
        let board = inputs.fitted(request.anchor.as_deref())?;
        let variant = crate::store::variant_key(&query.options);
        let solo = if request.solo {
            self.store.solo_leaderboard(&query.game, &variant).await?
        } else {
            Vec::new()
        };
        let model = match board.rows.is_empty() {
            true => query.model.map_or("", RatingModel::id),
            false => inputs.model().id(),
        };
        let rows = leaderboard_page(&board.rows, &request.page)?;
        Ok(pb::Leaderboard {
            game: query.game.clone(),
            variant,
            model: model.to_string(),
            rows: rows
                .items
                .iter()
                .copied()
                .map(convert::leaderboard_row)
                .collect(),
            fit: board.summary.as_ref().map(convert::fit_summary),
            solo: solo.iter().enumerate().map(convert::solo_row).collect(),
            next_page_token: rows.next_page_token.unwrap_or_default(),
            total_rows: u32::try_from(board.rows.len()).unwrap_or(u32::MAX),
            provisional_deals: crate::store::PROVISIONAL_DEALS as u32,
            seat_shares: board
                .summary
                .iter()
                .flat_map(|summary| &summary.seat_shares)
                .map(convert::seat_share)
                .collect(),
        })
    }
}

/// A checked leaderboard request.
#[derive(Debug)]
pub(super) struct BoardRequest {
    pub query: LeaderboardQuery,
    pub page: Page<i64>,
    pub anchor: Option<String>,
    /// Whether the game has a solo board too (read on every request).
    pub solo: bool,
}

/// What a page of matches costs to admit: nothing for a first page (kept,
/// see `hot_reads`), more for a deeper one, most with its games.
pub(super) fn matches_cost(request: &pb::ListMatchesRequest) -> u32 {
    match (request.page_token.is_empty(), request.with_games) {
        (true, _) => 0,
        (false, false) => cost::DEEP_PAGE,
        (false, true) => cost::DEEP_PAGE_WITH_GAMES,
    }
}

/// A page of matches as the API answers it, with each match's games or
/// only their counts.
pub(super) fn matches_response(
    matches: &PageOf<MatchSummary>,
    with_games: bool,
) -> pb::ListMatchesResponse {
    pb::ListMatchesResponse {
        matches: matches
            .items
            .iter()
            .map(|summary| convert::match_summary(summary, with_games))
            .collect(),
        next_page_token: matches.next_page_token.clone().unwrap_or_default(),
    }
}

/// One page of a board's rows, keyed by position (1 for the top line).
// RULING: a board is re-ordered by every result, so no key stays put; the
// token is the last position read, and a page is the positions after it at
// the time it is read (a bot may move across pages between two reads, as it
// would between two reads of the whole board).
fn leaderboard_page<'a>(
    rows: &'a [FittedRow],
    page: &Page<i64>,
) -> Result<PageOf<&'a FittedRow>, ArenaError> {
    let after = match page.after {
        None => 0,
        Some(position) if position >= 1 => usize::try_from(position).unwrap_or(usize::MAX),
        Some(_) => {
            return Err(ArenaError::invalid(
                "the page token is not one this arena made",
            ))
        }
    };
    let rest = rows.get(after..).unwrap_or_default();
    let fetched = rest.iter().take(page.limit() as usize).collect();
    Ok(page.finish(fetched, |row| row.row.position as i64))
}

type ProgressStream = Pin<Box<dyn Stream<Item = Result<pb::TournamentProgress, Status>> + Send>>;

#[tonic::async_trait]
impl Arena for ArenaApi {
    async fn register_owner(
        &self,
        request: Request<pb::RegisterOwnerRequest>,
    ) -> Result<Response<pb::RegisterOwnerResponse>, Status> {
        let bearer = bearer_token(request.metadata(), "admin").ok();
        self.store.registration().check(bearer.as_deref())?;
        let name = request.into_inner().name;
        let (owner, token) = self
            .write(async move |store| store.register_owner(&name).await)
            .await?;
        Ok(Response::new(pb::RegisterOwnerResponse {
            owner_id: owner.id,
            token,
        }))
    }

    async fn submit_bot_version(
        &self,
        request: Request<pb::SubmitBotVersionRequest>,
    ) -> Result<Response<pb::SubmitBotVersionResponse>, Status> {
        let owner = self.owner(&request).await?;
        let archive = request.into_inner().archive;
        // Checked here, off the writer thread, at the public calls'
        // priority: an owner's archives never take the writes' cores.
        let checked = crate::store::check_submitted_archive(&archive).await?;
        let submitted = self
            .write(async move |store| {
                let submitted = store
                    .submit_checked_bot_version(&owner, &archive, &checked)
                    .await?;
                if submitted.created && submitted.version.validation == ValidationState::Ready {
                    // A new version joins every ladder of a game it plays
                    // (a validated one once it is ready).
                    store.enter_ladders(submitted.version.id).await?;
                }
                Ok(submitted)
            })
            .await?;
        Ok(Response::new(pb::SubmitBotVersionResponse {
            version: Some(convert::bot_version(&submitted.version)),
            created: submitted.created,
        }))
    }

    async fn list_bots(
        &self,
        request: Request<pb::ListBotsRequest>,
    ) -> Result<Response<pb::ListBotsResponse>, Status> {
        let request = request.into_inner();
        let page = Page::from_request(request.page_size, &request.page_token)?;
        let bots = self.store.list_bots(&page).await?;
        Ok(Response::new(pb::ListBotsResponse {
            bots: bots.items.iter().map(convert::bot_summary).collect(),
            next_page_token: bots.next_page_token.unwrap_or_default(),
        }))
    }

    async fn show_bot(
        &self,
        request: Request<pb::ShowBotRequest>,
    ) -> Result<Response<pb::ShowBotResponse>, Status> {
        let name = request.into_inner().name;
        let versions = self.store.bot_versions(&name).await?;
        let bot = self.store.bot_summary(&name).await?;
        Ok(Response::new(pb::ShowBotResponse {
            bot: Some(convert::bot_summary(&bot)),
            versions: versions.iter().map(convert::bot_version).collect(),
        }))
    }

    async fn delete_bot(
        &self,
        request: Request<pb::DeleteBotRequest>,
    ) -> Result<Response<pb::DeleteBotResponse>, Status> {
        let owner = self.owner(&request).await?;
        let name = request.into_inner().name;
        self.write(async move |store| store.delete_bot(&owner, &name).await)
            .await?;
        Ok(Response::new(pb::DeleteBotResponse {}))
    }

    async fn cancel_tournament(
        &self,
        request: Request<pb::CancelTournamentRequest>,
    ) -> Result<Response<pb::CancelTournamentResponse>, Status> {
        let owner = self.owner(&request).await?;
        let tournament_id = request.into_inner().tournament_id;
        let matches_dropped = self
            .write(async move |store| store.cancel_tournament(&owner, tournament_id).await)
            .await?;
        Ok(Response::new(pb::CancelTournamentResponse {
            matches_dropped,
        }))
    }

    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::Tournament>, Status> {
        let owner = self.owner(&request).await?;
        let mut request = request.into_inner();
        let key = std::mem::take(&mut request.idempotency_key);
        let asked = convert::new_tournament(request)?;
        let tournament = self
            .write(async move |store| {
                let key = (!key.is_empty()).then_some(key.as_str());
                store.create_tournament_once(&owner, &asked, key).await
            })
            .await?;
        self.store.notify_change();
        Ok(Response::new(convert::tournament(&tournament)))
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let _ticket = self.admit(&request, cost::TOURNAMENT).await?;
        let request = request.into_inner();
        let page = Page::from_request(request.page_size, &request.page_token)?;
        let ids = self.store.list_tournament_ids(&page).await?;
        let mut tournaments = Vec::with_capacity(ids.items.len());
        for &id in &ids.items {
            tournaments.push(self.tournament_status(id).await?);
        }
        Ok(Response::new(pb::ListTournamentsResponse {
            tournaments,
            next_page_token: ids.next_page_token.unwrap_or_default(),
        }))
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::TournamentStatus>, Status> {
        let _ticket = self.admit(&request, cost::TOURNAMENT).await?;
        let tournament_id = request.into_inner().tournament_id;
        let mut status = self.tournament_status(tournament_id).await?;
        let tournament = self.store.tournament(tournament_id).await?;
        let standings = self.store.tournament_standings(tournament_id).await?;
        (status.standings, status.bracket) = convert::standings(&tournament, &standings);
        let table = self
            .store
            .results_table(tournament_id, tournament.entries.len())
            .await?;
        (status.table, status.crosstable) = convert::results_table(&tournament, &table);
        let solo = self.store.tournament_solo(&tournament).await?;
        status.solo = solo.iter().enumerate().map(convert::solo_row).collect();
        // Suspensions (issue 32), apart from the standings.
        let suspensions = self.store.tournament_suspensions(tournament_id).await?;
        status.suspensions = suspensions.iter().map(convert::suspension).collect();
        Ok(Response::new(status))
    }

    type WatchTournamentStream = ProgressStream;

    async fn watch_tournament(
        &self,
        request: Request<pb::WatchTournamentRequest>,
    ) -> Result<Response<ProgressStream>, Status> {
        let client = self.client(&request).await;
        let ticket = self
            .admission
            .admit_stream(client)
            .map_err(ArenaError::from)?;
        let tournament_id = request.into_inner().tournament_id;
        let receiver = self
            .watches
            .watch(&self.store, tournament_id, ticket)
            .await?;
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }

    async fn list_matches(
        &self,
        request: Request<pb::ListMatchesRequest>,
    ) -> Result<Response<pb::ListMatchesResponse>, Status> {
        let cost = matches_cost(request.get_ref());
        let _ticket = match cost {
            0 => None,
            cost => Some(self.admit(&request, cost).await?),
        };
        let request = request.into_inner();
        let (_, matches) = self.matches_page(&request).await?;
        Ok(Response::new(matches_response(
            &matches,
            request.with_games,
        )))
    }

    async fn get_replay(
        &self,
        request: Request<pb::GetReplayRequest>,
    ) -> Result<Response<pb::Replay>, Status> {
        let _ticket = self.admit(&request, cost::SINGLE).await?;
        let game_id = request.into_inner().game_id;
        let replay = self.store.replay(game_id).await?.unwrap_or_default();
        let result = self.store.game_result(game_id).await?;
        let (game_index, tails, seat_bots) = self.store.game_details(game_id).await?;
        let result = result
            .iter()
            .zip(tails.into_iter().chain(std::iter::repeat(String::new())))
            .map(|(seat, tail)| pb::SeatResult {
                stderr_tail: tail.into_bytes(),
                ..convert::seat_result(seat)
            })
            .collect();
        Ok(Response::new(pb::Replay {
            game_id,
            replay,
            result,
            game_index,
            seat_bots,
        }))
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::Leaderboard>, Status> {
        let request = self.board_request(request.into_inner())?;
        let inputs = self.store.leaderboard_inputs(&request.query).await?;
        Ok(Response::new(self.board(&request, &inputs).await?))
    }
}
