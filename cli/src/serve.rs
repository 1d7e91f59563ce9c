//! `cairn serve`: the arena on a SQLite file or a PostgreSQL database,
//! until Ctrl-C.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use cairn_arena::admission::Admission;
use cairn_arena::service::{Listeners, Placement, ServeOptions, MAX_RUNNER_REQUEST_BYTES};
use cairn_arena::store::{
    Location, Registration, SharedRunner, StoreOptions, Validation, DEFAULT_DB_PATH, SHARED_RUNNER,
};
use cairn_arena::Store;
use cairn_runner::placement::{self, CpuSet};
use tokio::net::TcpListener;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// How log lines are written on stderr: `text` for people, `json` (one
    /// object a line, with its time, level and fields) for a log shipper.
    #[arg(long, value_enum, default_value_t = crate::LogFormat::Text)]
    pub log_format: crate::LogFormat,
    /// The database: an SQLite file (created if missing; also `sqlite:PATH`)
    /// or a PostgreSQL URL, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`
    /// (several arena processes may serve one PostgreSQL database).
    #[arg(long, default_value = DEFAULT_DB_PATH, value_parser = parse_db)]
    db: Location,
    /// The address to listen on (port 0: any free port, printed on start).
    #[arg(long, default_value = "127.0.0.1:50051")]
    listen: String,
    /// Also serve the runners' calls (and health, nothing else) on this
    /// address, e.g. 10.0.0.5:50052 (port 0: any free port): runners given
    /// it (`cairn runner --arena http://ADDR`) never wait behind the public
    /// reads, and the port may be closed to all but the runners.
    #[arg(long, value_name = "ADDR")]
    runner_listen: Option<String>,
    /// Threads serving the public API and web pages (default: one per core
    /// but one, left to the arena's writes and the runners' calls).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    api_threads: Option<u16>,
    /// How much lower than the arena's writes those threads run (niceness
    /// added to the arena's, 0-19; 0: the same): when the cores are busy,
    /// they go to the runners' reports and leases first, and reads take
    /// what is left. An idle core still serves reads at full speed.
    #[arg(long, value_name = "N", default_value_t = cairn_arena::service::API_NICE,
          value_parser = clap::value_parser!(u8).range(0..=19))]
    api_nice: u8,
    /// The core kept for the arena's writes: the writer thread (runners'
    /// reports and leases, owners' writes) and SQLite's threads for them run
    /// there, the public calls on the other cores. `auto`: the last core
    /// this process may use, when it may use two or more; `none`: the
    /// kernel places every thread; or a core's number.
    #[arg(long, value_name = "auto|none|N", default_value = "auto", value_parser = parse_write_cpu)]
    write_cpu: WriteCpu,
    /// A bug-hunting aid: serve the public port without its read
    /// optimisations (answers' frames held for one write, the hot reads'
    /// encoded answers cached). The answers are the same, only slower.
    #[arg(long)]
    plain_reads: bool,
    /// A token for a runner named `runner` (at least 16 characters), never
    /// printed; without one (or with an empty one) that runner keeps the
    /// token it had, or is added with a fresh token, printed once. More
    /// runners: `cairn runners add NAME`.
    #[arg(long, env = "CAIRN_RUNNER_TOKEN", hide_env_values = true)]
    runner_token: Option<String>,
    /// Give a match up as failed (never rated) after this many attempts
    /// that runners gave back because of faults on their side.
    #[arg(long, default_value_t = cairn_arena::store::DEFAULT_MAX_ATTEMPTS as u32)]
    max_attempts: u32,
    /// Also serve the read-only web pages (leaderboards, tournaments, replay
    /// viewer) on this address, e.g. 127.0.0.1:8080 (port 0: any free port),
    /// with Prometheus metrics at /metrics (counters are per process and
    /// start from zero at every restart).
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Owners may register only with this token (`cairn owner register
    /// --admin-token`); without it and without --open-registration nobody may.
    #[arg(long, env = "CAIRN_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// Anyone may register an owner (and so submit code that runners run).
    #[arg(long)]
    open_registration: bool,
    /// Trust new bot versions without validation games: each is ready (may
    /// join tournaments) as soon as it is stored. For tests and private
    /// arenas whose bots are known; by default every new version first
    /// plays copies of itself at every game and table size it declares.
    #[arg(long)]
    no_validation: bool,
    /// For tests only: a lower cap on one runner message (one game's
    /// report), so a match whose reports together exceed it needs few games.
    #[arg(long, hide = true, value_name = "BYTES")]
    max_report_bytes: Option<usize>,
    #[command(flatten)]
    quotas: crate::quota_args::QuotaArgs,
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = args
        .api_threads
        .map_or(cairn_arena::service::api_threads(cores), usize::from);
    // The runtime's threads serve the public calls; the writer thread, the
    // runners' port and SQLite's threads for writes start from this one
    // (`block_on` runs here), at the arena's own priority.
    let api_priority = placement::lowered_nice(args.api_nice);
    let (write_cpus, api_cpus) = split_cpus(args.write_cpu)?.unzip();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name("cairn-api")
        .on_thread_start(move || {
            run_at_priority(api_priority);
            if let Some(cpus) = &api_cpus {
                run_on(cpus);
            }
        })
        .enable_all()
        .build()?;
    let options = ServeOptions {
        place_writer: write_cpus.map(|cpus| Arc::new(move || run_on(&cpus)) as Placement),
        max_report_bytes: args.max_report_bytes.unwrap_or(MAX_RUNNER_REQUEST_BYTES),
        admission: Admission::default(),
        plain_reads: args.plain_reads,
    };
    runtime.block_on(async {
        let given = args
            .runner_token
            .as_deref()
            .filter(|token| !token.is_empty());
        // Every address first: an arena that cannot listen leaves no
        // runner (nor its token) behind in the database.
        let listener = listen_on(&args.listen).await?;
        let web_listener = match &args.http {
            Some(http) => Some(listen_on(http).await?),
            None => None,
        };
        let runner_listener = match &args.runner_listen {
            Some(runner_listen) => Some(listen_on(runner_listen).await?),
            None => None,
        };
        let registration = match (args.open_registration, args.admin_token.as_deref()) {
            (true, _) => Registration::Open,
            (false, Some(token)) if !token.is_empty() => Registration::admin_token(token),
            (false, _) => Registration::Closed,
        };
        let closed = registration == Registration::Closed;
        let validation = match args.no_validation {
            true => Validation::Off,
            false => Validation::On,
        };
        let store_options = StoreOptions {
            max_attempts: args.max_attempts,
            quotas: args.quotas.quotas(),
            registration,
            validation,
            ..StoreOptions::default()
        };
        let ServedStore {
            store,
            shared_runner,
            claim: _only_arena,
        } = open_store(&args.db, store_options, given).await?;
        let address = listener.local_addr()?;
        say_runner_token(&shared_runner, given.is_some());
        if closed {
            tracing::warn!("no owner can register: restart with --admin-token TOKEN (or CAIRN_ADMIN_TOKEN) for `cairn owner register`, or --open-registration");
        }
        // Tournaments whose planning a restart cut short are finished in
        // the background, in the same short chunks.
        let planner = store.clone();
        tokio::spawn(async move {
            if let Err(error) = planner.resume_planning().await {
                tracing::warn!("cairn arena: resuming a tournament's planning failed: {error}");
            }
        });
        let shutdown = shutdown_signal();
        let (stop_web, web_stopped) = tokio::sync::watch::channel(());
        let web = match web_listener {
            Some(web_listener) => Some(start_web(
                web_listener,
                store.clone(),
                options.admission.clone(),
                web_stopped,
            )?),
            None => None,
        };
        let runner_port = match &runner_listener {
            Some(runner_listener) => {
                format!("; runners' port http://{}", runner_listener.local_addr()?)
            }
            None => String::new(),
        };
        // Scripts and tests read the address from this line: one line,
        // whose first address is the arena's.
        outln!(
            "cairn arena listening on http://{address} (database {}{runner_port})",
            args.db
        );
        std::io::stdout().flush()?;
        cairn_arena::run(
            Listeners {
                public: listener,
                runners: runner_listener,
            },
            store,
            options,
            async move {
                shutdown.await;
                let _ = stop_web.send(());
            },
        )
        .await?;
        if let Some(web) = web {
            web.await??;
        }
        tracing::info!("cairn arena stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// Runs the calling thread at niceness `nice`; a thread it cannot lower
/// runs as it is (said once).
fn run_at_priority(nice: Option<i32>) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    let Some(nice) = nice else {
        return;
    };
    if let Err(error) = placement::set_thread_nice(nice) {
        WARNED.call_once(|| {
            tracing::warn!("cairn arena: public calls run at the writes' priority: lowering it failed: {error}");
        });
    }
}

/// `--write-cpu`: where the arena's writes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteCpu {
    /// The last core of the process's, given two or more.
    Auto,
    /// Wherever the kernel puts them.
    None,
    /// This core.
    Cpu(usize),
}

fn parse_write_cpu(text: &str) -> Result<WriteCpu, String> {
    match text {
        "auto" => Ok(WriteCpu::Auto),
        "none" => Ok(WriteCpu::None),
        _ => text
            .parse()
            .map(WriteCpu::Cpu)
            .map_err(|_| format!("expected auto, none or a core's number, not {text:?}")),
    }
}

/// The cores for the writes and for everything else, as `choice` says;
/// `None` to leave every thread where the kernel puts it. A core given by
/// number must be one this process may run on.
fn split_cpus(choice: WriteCpu) -> anyhow::Result<Option<(CpuSet, CpuSet)>> {
    let allowed = match (choice, placement::allowed_set()) {
        (WriteCpu::None, _) => return Ok(None),
        (_, Ok(allowed)) => allowed,
        // `auto` is a default: a host that hides its cores serves unpinned.
        (WriteCpu::Auto, Err(_)) => return Ok(None),
        (WriteCpu::Cpu(_), Err(error)) => {
            return Err(error).context("cannot read the cores this process may run on")
        }
    };
    let cores = placement::cpus_in(&allowed);
    let write = match choice {
        WriteCpu::Cpu(core) if cores.contains(&core) => core,
        WriteCpu::Cpu(core) => anyhow::bail!(
            "--write-cpu {core}: this process may run on cores {} only",
            cores
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        WriteCpu::Auto | WriteCpu::None => match cairn_arena::service::write_core(&cores) {
            Some(core) => core,
            None => return Ok(None),
        },
    };
    // With one core, the public calls share it.
    Ok(Some(placement::split_off(&allowed, write)?))
}

/// Keeps the calling thread on `cores` (what it starts inherits them); a
/// thread that cannot be moved stays where it is (said once).
fn run_on(cores: &CpuSet) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if let Err(error) = placement::move_current_thread(cores) {
        WARNED.call_once(|| {
            tracing::warn!(
                "cairn arena: threads left where the kernel puts them: --write-cpu failed: {error}"
            );
        });
    }
}

/// A listener on `address`, or why not.
pub async fn listen_on(address: &str) -> anyhow::Result<TcpListener> {
    TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot listen on {address}"))
}

/// Serves the web pages on `listener` until `stop` changes; prints the
/// address (scripts and tests read it from this line).
pub fn start_web(
    listener: TcpListener,
    store: Store,
    admission: Admission,
    mut stop: tokio::sync::watch::Receiver<()>,
) -> anyhow::Result<tokio::task::JoinHandle<std::io::Result<()>>> {
    outln!("cairn web pages on http://{}/", listener.local_addr()?);
    std::io::stdout().flush()?;
    Ok(tokio::spawn(cairn_arena::web::serve(
        listener,
        store,
        admission,
        async move {
            let _ = stop.changed().await;
        },
    )))
}

/// Claims the SQLite file `path` (created if missing) for this arena
/// process until the returned file is dropped: a second `cairn serve` on it
/// is refused. One process's write lock keeps SQLite's writers in order
/// (see `Store`); two arenas on one file would each hand out the same
/// matches and rate the same boards unaware of the other. An advisory
/// `flock`, which SQLite's own (`fcntl`) locks never meet, so `cairn
/// runners add --db` and other one-off commands still open the file.
fn lock_sqlite_file(path: &std::path::Path) -> anyhow::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("cannot open the database {}", path.display()))?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(file),
        Err(rustix::io::Errno::WOULDBLOCK) => anyhow::bail!(
            "another arena process serves {}: SQLite allows one (stop it first, or \
             run several arena processes on PostgreSQL)",
            path.display()
        ),
        Err(error) => {
            Err(error).with_context(|| format!("cannot lock the database {}", path.display()))
        }
    }
}

/// An arena's store, its runner's token, and (on SQLite) the file claimed
/// for this process until it is dropped.
#[derive(Debug)]
pub struct ServedStore {
    pub store: Store,
    /// What became of the runner token `cairn serve` keeps.
    pub shared_runner: SharedRunner,
    pub claim: Option<std::fs::File>,
}

/// Claims a SQLite file for this arena process, opens the store and makes
/// sure the shared runner has `runner_token` (replacing the token it had),
/// or with no token, that it exists (made with a fresh token if not).
pub async fn open_store(
    db: &Location,
    options: StoreOptions,
    runner_token: Option<&str>,
) -> anyhow::Result<ServedStore> {
    // Refused before the database is touched, so a bad token leaves no
    // half-made database behind.
    if let Some(token) = runner_token {
        cairn_arena::store::check_runner_token(token)?;
    }
    let claim = match db {
        Location::Sqlite(path) => Some(lock_sqlite_file(path)?),
        Location::Postgres(_) => None,
    };
    let store = Store::open(db, options)
        .await
        .with_context(|| format!("cannot open the database {db}"))?;
    let shared = store
        .keep_shared_runner(SHARED_RUNNER, runner_token)
        .await
        .context("cannot set the runner token")?;
    Ok(ServedStore {
        store,
        shared_runner: shared,
        claim,
    })
}

/// What the operator needs to know of the runner token at start.
fn say_runner_token(shared: &SharedRunner, given: bool) {
    match shared {
        // A token the operator gave is theirs already: never in the log.
        SharedRunner::Made(_) if given => tracing::info!(
            "runner token: the one given, for the runner `{SHARED_RUNNER}` made now"
        ),
        SharedRunner::Made(token) => {
            tracing::info!("runner token (give it to `cairn runner --token`): {token}")
        }
        SharedRunner::Replaced => tracing::info!(
            "runner token replaced: the runner `{SHARED_RUNNER}` takes the one given now and refuses the previous one"
        ),
        SharedRunner::Kept if !given => tracing::info!(
            "runner token: the one made or given before (stored hashed, so not shown again); \
             to replace it, restart with --runner-token NEW (or CAIRN_RUNNER_TOKEN); \
             `cairn runners add NAME` gives a runner a token of its own"
        ),
        SharedRunner::Kept => {}
    }
}

/// Completes on Ctrl-C or SIGTERM. The handlers are installed now, not on
/// first poll, so a signal that arrives once the caller says it is ready is
/// never lost to the default action.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send {
    use tokio::signal::unix::{signal, SignalKind};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        match (interrupt, terminate) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            _ => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}

/// An address a client can dial for a listener bound to `address`.
pub fn dial_address(address: SocketAddr) -> String {
    format!("http://{address}")
}

/// `--db` as the store reads it: a file path, `sqlite:PATH`, or a
/// PostgreSQL URL.
pub fn parse_db(db: &str) -> Result<Location, String> {
    Location::parse(db).map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_cpu_reads_auto_none_or_a_core() {
        assert_eq!(parse_write_cpu("auto"), Ok(WriteCpu::Auto));
        assert_eq!(parse_write_cpu("none"), Ok(WriteCpu::None));
        assert_eq!(parse_write_cpu("3"), Ok(WriteCpu::Cpu(3)));
        let refused = parse_write_cpu("last").unwrap_err();
        assert!(
            refused.contains("auto, none or a core's number"),
            "{refused}"
        );
    }

    #[test]
    fn the_writes_get_one_allowed_core_and_the_rest_the_others() {
        assert!(split_cpus(WriteCpu::None).unwrap().is_none());
        let cores = placement::allowed_cpus();
        match split_cpus(WriteCpu::Auto).unwrap() {
            None => assert_eq!(cores.len(), 1, "auto splits two cores or more"),
            Some((writes, rest)) => {
                let last = cores[cores.len() - 1];
                assert_eq!(writes.count(), 1);
                assert!(writes.is_set(last));
                assert_eq!(rest.count() as usize, cores.len() - 1);
                assert!(!rest.is_set(last));
                assert!(cores.iter().all(|&core| core == last || rest.is_set(core)));
            }
        }
        let (writes, _) = split_cpus(WriteCpu::Cpu(cores[0])).unwrap().unwrap();
        assert!(writes.is_set(cores[0]));
        let refused = split_cpus(WriteCpu::Cpu(CpuSet::MAX_CPU)).unwrap_err();
        assert!(
            refused.to_string().contains("may run on cores"),
            "{refused}"
        );
    }
}
