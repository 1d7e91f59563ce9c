//! A remote runner: leases matches from an arena over gRPC, keeps each
//! lease alive with heartbeats while it plays, fetches and builds the bots
//! (cached by content hash), plays the match with the same sandboxed match
//! loop as `cairn play` ([`crate::play_match`]), and reports the result.
//!
//! # Layout
//! - [`client`]: the connection, the runner token, [`RemoteError`].
//! - [`artifacts`]: the artifact cache (fetch, unpack safely, build once),
//!   kept under a size cap by [`cache_index`] (least recently used bots
//!   go first) and [`cache_folders`] (the folders on disk).
//! - [`disk`]: room on the cache's disk; a full disk pauses leasing.
//! - [`report`]: lease to match spec, match result to report.
//!
//! Several runners (or several workers of one runner, `jobs`) share one
//! arena: the arena hands each match to one lease at a time, and a lease
//! that is not kept alive expires and goes back to the queue.

pub mod artifacts;
pub mod cache_folders;
pub mod cache_index;
pub mod client;
pub mod disk;
pub mod report;

use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cairn_proto::arena::v1 as pb;
use tokio::sync::watch;

pub use self::artifacts::{ArtifactCache, CacheLimits, CachedBot};
pub use self::client::{connect_channel, ArenaConnection, RemoteError};
pub use self::disk::{Disk, HostDisk};
use crate::build::{BuildLimits, Builder};
use crate::launch::{BotLauncher, PlainLauncher};
use crate::referee::MatchError;
use crate::sandbox::SandboxLauncher;
use crate::sandbox::{Interpreters, Limits};
use crate::stop::MatchStop;
use crate::time_control::TimeControl;

/// How a remote runner works.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// The arena's address (`http://host:port`).
    pub arena: String,
    pub token: String,
    /// Where fetched bots are unpacked and built.
    pub cache_dir: PathBuf,
    /// The cache's size cap and the room it needs.
    pub cache_limits: CacheLimits,
    /// The disk under the cache (a fake one in tests).
    pub disk: Arc<dyn Disk>,
    /// Matches played at once.
    pub jobs: usize,
    /// How long each lease lasts unless renewed; heartbeats come at a third of it.
    pub lease: Duration,
    /// How long to wait before asking again when the queue is empty.
    pub idle_poll: Duration,
    /// Run bots as plain processes (trusted bots only).
    pub no_sandbox: bool,
    pub time_control: TimeControl,
    /// The limits of every bot's build.
    pub build_limits: BuildLimits,
    /// Stop (after finishing the current matches) once the queue is empty.
    pub exit_when_idle: bool,
    /// Print one line per match to stderr.
    pub verbose: bool,
}

impl RunnerConfig {
    /// Defaults for everything but the arena and the token.
    pub fn new(arena: impl Into<String>, token: impl Into<String>) -> RunnerConfig {
        RunnerConfig {
            arena: arena.into(),
            token: token.into(),
            cache_dir: default_cache_dir(),
            cache_limits: CacheLimits::default(),
            disk: Arc::new(HostDisk),
            jobs: 1,
            lease: Duration::from_secs(60),
            idle_poll: Duration::from_millis(500),
            no_sandbox: false,
            time_control: TimeControl::default(),
            build_limits: BuildLimits::default(),
            exit_when_idle: false,
            verbose: false,
        }
    }
}

/// `$XDG_CACHE_HOME/cairn/artifacts`, else `~/.cache/cairn/artifacts`, else
/// a folder under the system's temporary folder.
pub fn default_cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("cairn").join("artifacts")
}

/// What a runner did before it stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunnerSummary {
    pub matches_reported: u64,
    /// Reports the arena refused because the lease had been lost.
    pub leases_lost: u64,
}

/// Shared by the workers of one runner.
#[derive(Debug)]
struct Shared {
    config: RunnerConfig,
    connection: ArenaConnection,
    cache: ArtifactCache,
    launcher: Arc<dyn BotLauncher>,
    stopping: watch::Receiver<bool>,
    reported: AtomicU64,
    lost: AtomicU64,
    failed: AtomicBool,
    /// Why leasing is paused (a full disk), while it is.
    paused: std::sync::Mutex<Option<String>>,
}

/// Runs until `shutdown` completes (matches in play are finished and
/// reported first) or, with `exit_when_idle`, until the queue is empty.
pub async fn run_runner(
    config: RunnerConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<RunnerSummary, RemoteError> {
    let connection = ArenaConnection::connect(&config.arena, &config.token).await?;
    // One cheap call up front, so a wrong token is reported at once.
    connection
        .client()
        .heartbeat(connection.authorized(pb::HeartbeatRequest {
            match_id: 0,
            lease_generation: 0,
            lease_ms: 0,
        }))
        .await
        .or_else(|status| {
            if status.code() == tonic::Code::Unauthenticated {
                Err(RemoteError::from(status))
            } else {
                Ok(tonic::Response::new(pb::HeartbeatResponse::default()))
            }
        })?;
    let launcher: Arc<dyn BotLauncher> = if config.no_sandbox {
        Arc::new(PlainLauncher)
    } else {
        Arc::new(SandboxLauncher::new(Limits::default()))
    };
    if config.verbose {
        tracing::info!(
            "runner: connected to {} with {} worker(s); {}",
            config.arena,
            config.jobs.max(1),
            launcher.describe()
        );
        if !config.no_sandbox {
            tracing::info!("runner: {}", Interpreters::default_shared().describe());
        }
    }
    let (stop, stopping) = watch::channel(false);
    let build_limits = config.build_limits;
    let builder = if config.no_sandbox {
        Builder::plain(build_limits)
    } else {
        Builder::sandboxed(build_limits)
    };
    let swept = crate::build::sweep_leftovers(&config.cache_dir);
    if swept > 0 {
        tracing::info!("runner: removed {swept} folder(s) that dead runners left in the cache");
    }
    let cache = ArtifactCache::new(
        config.cache_dir.clone(),
        builder,
        config.cache_limits,
        Arc::clone(&config.disk),
    );
    let jobs = config.jobs.max(1);
    let shared = Arc::new(Shared {
        config,
        connection,
        cache,
        launcher,
        stopping,
        reported: AtomicU64::new(0),
        lost: AtomicU64::new(0),
        failed: AtomicBool::new(false),
        paused: std::sync::Mutex::new(None),
    });
    let workers: Vec<_> = (0..jobs)
        .map(|_| tokio::spawn(worker(Arc::clone(&shared))))
        .collect();
    let all_done = async {
        let mut first_error = None;
        for worker in workers {
            let outcome = worker
                .await
                .map_err(|error| RemoteError::Task(error.to_string()))
                .and_then(|result| result);
            if let Err(error) = outcome {
                first_error.get_or_insert(error);
            }
        }
        first_error
    };
    tokio::pin!(all_done);
    let first_error = tokio::select! {
        error = &mut all_done => error,
        () = shutdown => {
            if shared.config.verbose {
                tracing::info!(
                    "runner: stopping: no new lease is taken; the matches in play finish and \
                     are reported first (as long as a match takes; a second Ctrl-C or SIGTERM \
                     stops at once, and their leases go back to the queue when they lapse)"
                );
            }
            let _ = stop.send(true);
            all_done.await
        }
    };
    match first_error {
        Some(error) => Err(error),
        None => Ok(RunnerSummary {
            matches_reported: shared.reported.load(Ordering::Relaxed),
            leases_lost: shared.lost.load(Ordering::Relaxed),
        }),
    }
}

/// One worker: lease, play, report, until told to stop.
async fn worker(shared: Arc<Shared>) -> Result<(), RemoteError> {
    let mut stopping = shared.stopping.clone();
    loop {
        if *stopping.borrow() || shared.failed.load(Ordering::Relaxed) {
            return Ok(());
        }
        if !may_lease(&shared) {
            idle(&shared, &mut stopping).await;
            continue;
        }
        let lease = match lease_next(&shared, &mut stopping).await? {
            Some(lease) => lease,
            None => return Ok(()),
        };
        match lease {
            Some(lease) => play_lease(&shared, lease).await?,
            None if shared.config.exit_when_idle => return Ok(()),
            None => idle(&shared, &mut stopping).await,
        }
    }
}

/// Asks for a match. An unreachable arena (restarting, say) is waited for;
/// `None` when told to stop while waiting.
async fn lease_next(
    shared: &Shared,
    stopping: &mut watch::Receiver<bool>,
) -> Result<Option<Option<pb::MatchLease>>, RemoteError> {
    loop {
        let request = shared.connection.authorized(pb::LeaseMatchRequest {
            lease_ms: millis(shared.config.lease),
        });
        match shared.connection.client().lease_match(request).await {
            Ok(answer) => return Ok(Some(answer.into_inner().lease)),
            Err(status) if status.code() == tonic::Code::Unavailable => {
                if shared.config.verbose {
                    tracing::warn!(
                        "runner: the arena is unavailable ({}); retrying",
                        status.message()
                    );
                }
                idle(shared, stopping).await;
                if *stopping.borrow() {
                    return Ok(None);
                }
            }
            Err(status) => {
                let error = RemoteError::from(status);
                if error.is_fatal() {
                    shared.failed.store(true, Ordering::Relaxed);
                    return Err(error);
                }
                if shared.config.verbose {
                    tracing::warn!("runner: leasing failed ({error}); retrying");
                }
                idle(shared, stopping).await;
                if *stopping.borrow() {
                    return Ok(None);
                }
            }
        }
    }
}

/// Waits one poll interval, or less if told to stop.
async fn idle(shared: &Shared, stopping: &mut watch::Receiver<bool>) {
    tokio::select! {
        () = tokio::time::sleep(shared.config.idle_poll) => {}
        _ = stopping.changed() => {}
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Plays one leased match and reports it; never fails because of the
/// match. A bot whose build fails is reported (its fault); any other fault
/// (fetch, unpack, disk, sandbox, the match loop, a refused report) is the
/// host's: the match is given back. Only a refused token is an error.
async fn play_lease(shared: &Shared, lease: pb::MatchLease) -> Result<(), RemoteError> {
    let error = match run_lease(shared, &lease).await {
        Ok(()) => return Ok(()),
        Err(error) if error.is_fatal() => return Err(error),
        Err(RemoteError::LeaseEnded(why)) => {
            shared.lost.fetch_add(1, Ordering::Relaxed);
            // Always said: an owner's cancel shows here, or nowhere.
            tracing::warn!("runner: match {} dropped: {why}", lease.match_id);
            return Ok(());
        }
        Err(error) => artifacts::disk_full_or(error),
    };
    if let RemoteError::DiskFull(why) = &error {
        pause(shared, why);
        return release(shared, &lease).await;
    }
    let answer = match &error {
        RemoteError::BuildFailed { hash, log } => {
            let seat = lease.seats.iter().find(|seat| &seat.content_hash == hash);
            let request = pb::ReportBuildFailureRequest {
                match_id: lease.match_id,
                lease_generation: lease.lease_generation,
                bot_version_id: seat.map_or(0, |seat| seat.bot_version_id),
                log: log.clone(),
            };
            shared
                .connection
                .client()
                .report_build_failure(shared.connection.authorized(request))
                .await
                .map(|_| ())
        }
        other => {
            let request = pb::GiveBackMatchRequest {
                match_id: lease.match_id,
                lease_generation: lease.lease_generation,
                reason: other.to_string(),
            };
            shared
                .connection
                .client()
                .give_back_match(shared.connection.authorized(request))
                .await
                .map(|_| ())
        }
    };
    if shared.config.verbose {
        tracing::warn!("runner: match {}: {error}", lease.match_id);
    }
    match answer.map_err(RemoteError::from) {
        Err(error) if error.is_fatal() => Err(error),
        // A lost lease or an unreachable arena: the lease will expire and
        // the match go back to the queue anyway.
        _ => Ok(()),
    }
}

/// Whether workers may lease: not while the disk is full. A paused runner
/// makes room (idle bots are deleted) and resumes when there is enough.
fn may_lease(shared: &Shared) -> bool {
    let mut paused = shared
        .paused
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    if paused.is_none() {
        return true;
    }
    match shared.cache.make_room() {
        Ok(()) => {
            tracing::info!("runner: there is room on the disk again: leasing resumes");
            *paused = None;
            true
        }
        Err(error) => {
            *paused = Some(error.to_string());
            false
        }
    }
}

/// Stops leasing until [`may_lease`] finds room; said once per pause.
fn pause(shared: &Shared, why: &str) {
    let mut paused = shared
        .paused
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    if paused.is_none() {
        tracing::warn!(
            "runner: the disk is full ({why}): no more matches are leased until there is room; \
             matches already leased are handed back uncounted"
        );
    }
    *paused = Some(why.to_string());
}

/// Hands a lease back without a give-back, which would count an attempt
/// against the match: the shortest heartbeat lets it expire at once, and
/// the next lease (another runner's, or this one's with room again) plays
/// it. Nobody is charged.
async fn release(shared: &Shared, lease: &pb::MatchLease) -> Result<(), RemoteError> {
    let request = pb::HeartbeatRequest {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        lease_ms: 1,
    };
    match shared
        .connection
        .client()
        .heartbeat(shared.connection.authorized(request))
        .await
        .map_err(RemoteError::from)
    {
        Err(error) if error.is_fatal() => Err(error),
        // Lost already, or the arena is away: the lease lapses anyway.
        _ => Ok(()),
    }
}

/// Fetches, builds, plays and reports one leased match.
async fn run_lease(shared: &Shared, lease: &pb::MatchLease) -> Result<(), RemoteError> {
    // A zero period would panic; a lease shorter than 300 ms is not useful anyway.
    let mut heartbeats =
        tokio::time::interval((shared.config.lease / 3).max(Duration::from_millis(100)));
    heartbeats.tick().await;
    // The lease is kept alive from the start: a build may take minutes, and
    // a build that fails (or hangs until its time limit) is reported under
    // this lease, which breaks the bot version for good.
    let preparing = async {
        let mut folders = Vec::with_capacity(lease.seats.len());
        for seat in &lease.seats {
            folders.push(shared.cache.bot_folder(&shared.connection, seat).await?);
        }
        Ok::<_, RemoteError>(folders)
    };
    // The bots stay taken (never evicted) until the match is reported.
    let bots = beating(shared, lease, &mut heartbeats, preparing, None).await??;
    let folders: Vec<PathBuf> = bots.iter().map(|bot| bot.folder.clone()).collect();
    let spec = report::match_spec(lease, &folders, shared.config.time_control);
    let launcher = Arc::clone(&shared.launcher);
    let stop = StopWithReason::default();
    let stopper = stop.stop.clone();
    let playing = tokio::task::spawn_blocking(move || {
        crate::play_match_until(&spec, launcher.as_ref(), &stopper)
    });
    let played = beating(shared, lease, &mut heartbeats, playing, Some(&stop))
        .await?
        .map_err(|error| RemoteError::Task(error.to_string()))?;
    let result = match played {
        Ok(result) => result,
        Err(MatchError::Stopped) => return Err(RemoteError::LeaseEnded(stop.reason())),
        Err(error) => return Err(RemoteError::Play(error.to_string())),
    };
    // The games are reported one at a time, which takes a while for a long
    // match on a busy arena: the lease is kept alive until the last one is
    // in, or its expiry would refuse the rest and another runner would
    // play the whole match again.
    let reporting = async {
        for report in report::game_reports(lease, &result) {
            match send_report(shared, report).await {
                Ok(()) => {}
                Err(status)
                    if matches!(
                        status.code(),
                        tonic::Code::FailedPrecondition | tonic::Code::Unavailable
                    ) =>
                {
                    return Ok(true);
                }
                // A refused report is a fault of this runner (a bot cannot
                // cause one): the match is given back.
                Err(status) => return Err(RemoteError::from(status)),
            }
        }
        Ok(false)
    };
    let lost = beating(shared, lease, &mut heartbeats, reporting, None).await??;
    if lost {
        shared.lost.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    }
    shared.reported.fetch_add(1, Ordering::Relaxed);
    if shared.config.verbose {
        tracing::info!(
            "runner: reported match {} ({} game(s))",
            lease.match_id,
            result.games.len()
        );
    }
    Ok(())
}

/// A match's stop and why it was asked for.
#[derive(Debug, Default)]
struct StopWithReason {
    stop: MatchStop,
    why: std::sync::OnceLock<String>,
}

impl StopWithReason {
    fn request(&self, why: String) {
        let _ = self.why.set(why);
        self.stop.request();
    }

    fn reason(&self) -> String {
        self.why.get().cloned().unwrap_or_default()
    }
}

/// Runs `work` while sending `lease`'s heartbeats on `heartbeats`' ticks.
/// When the arena ends the lease, `work` is dropped with
/// [`RemoteError::LeaseEnded`], or, when it is a match in play (`stop`
/// given), stopped through `stop` and awaited (its bots are killed).
async fn beating<T>(
    shared: &Shared,
    lease: &pb::MatchLease,
    heartbeats: &mut tokio::time::Interval,
    work: impl Future<Output = T>,
    stop: Option<&StopWithReason>,
) -> Result<T, RemoteError> {
    tokio::pin!(work);
    loop {
        tokio::select! {
            done = &mut work => return Ok(done),
            _ = heartbeats.tick() => {
                let Some(why) = heartbeat(shared, lease).await? else { continue };
                let Some(stop) = stop else { return Err(RemoteError::LeaseEnded(why)) };
                if shared.config.verbose {
                    tracing::info!("runner: match {}: stopping its games: {why}", lease.match_id);
                }
                stop.request(why);
                return Ok(work.await);
            }
        }
    }
}

/// Sends one game's report; an arena restarting is waited for (the report
/// stays good while the lease lives), up to 20 polls.
async fn send_report(shared: &Shared, report: pb::ReportGameRequest) -> Result<(), tonic::Status> {
    let mut retries = 0;
    loop {
        let answer = shared
            .connection
            .client()
            .report_game(shared.connection.authorized(report.clone()))
            .await;
        match answer {
            Err(status) if status.code() == tonic::Code::Unavailable && retries < 20 => {
                tokio::time::sleep(shared.config.idle_poll).await;
                retries += 1;
            }
            Err(status) => return Err(status),
            Ok(_) => return Ok(()),
        }
    }
}

/// Renews the lease: `Some(why)` when the arena has ended it (cancelled
/// with its tournament, or lost to expiry): its report would be refused.
async fn heartbeat(shared: &Shared, lease: &pb::MatchLease) -> Result<Option<String>, RemoteError> {
    let request = pb::HeartbeatRequest {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        lease_ms: millis(shared.config.lease),
    };
    match shared
        .connection
        .client()
        .heartbeat(shared.connection.authorized(request))
        .await
    {
        Ok(_) => Ok(None),
        Err(status) if status.code() == tonic::Code::FailedPrecondition => {
            Ok(Some(status.message().to_string()))
        }
        // The arena is restarting: play on; the next heartbeat or the
        // report decides.
        Err(status) if status.code() == tonic::Code::Unavailable => Ok(None),
        // Only a refused token stops the runner; anything else is this
        // heartbeat's trouble, and the next one may pass.
        Err(status) => match RemoteError::from(status) {
            error if error.is_fatal() => Err(error),
            _ => Ok(None),
        },
    }
}
