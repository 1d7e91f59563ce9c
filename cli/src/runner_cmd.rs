//! `cairn runner`: lease matches from an arena and play them until Ctrl-C.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use cairn_runner::build::BuildLimits;
use cairn_runner::remote::{default_cache_dir, run_runner, CacheLimits, RunnerConfig};
use cairn_runner::sandbox::Interpreters;

use crate::client::DEFAULT_ARENA;

#[derive(Debug, clap::Args)]
pub struct RunnerArgs {
    /// How log lines are written on stderr: `text` for people, `json` (one
    /// object a line, with its time, level and fields) for a log shipper.
    #[arg(long, value_enum, default_value_t = crate::LogFormat::Text)]
    pub log_format: crate::LogFormat,
    /// The arena's address.
    #[arg(long, env = "CAIRN_ARENA", default_value = DEFAULT_ARENA)]
    arena: String,
    /// A runner token: the one `cairn serve` was given or printed, or one
    /// from `cairn runners add NAME`.
    #[arg(long, env = "CAIRN_RUNNER_TOKEN", hide_env_values = true)]
    token: String,
    /// Matches played at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// How long a lease lasts without a heartbeat (heartbeats come every third of it).
    #[arg(long, default_value_t = 60_000)]
    lease_ms: u64,
    /// How often to ask again when no match is waiting.
    #[arg(long, default_value_t = 500)]
    poll_ms: u64,
    /// Where fetched bots are unpacked and built [default: ~/.cache/cairn/artifacts].
    #[arg(long)]
    cache: Option<PathBuf>,
    /// The most disk the cached bots may take, in MiB: past it the least
    /// recently used bots no match is using are deleted.
    #[arg(long, value_name = "MIB", default_value_t = CacheLimits::default().cap_bytes >> 20, value_parser = clap::value_parser!(u64).range(1..))]
    cache_max_mib: u64,
    /// The room, in MiB, a new bot needs on the cache's disk: with less,
    /// idle bots are deleted, and if that is not enough the runner stops
    /// leasing (and says so) until there is room again.
    #[arg(long, value_name = "MIB", default_value_t = CacheLimits::default().min_free_bytes >> 20)]
    cache_min_free_mib: u64,
    /// Run bots as plain processes, without the sandbox (trusted bots only).
    #[arg(long)]
    no_sandbox: bool,
    /// Stop once no match is waiting.
    #[arg(long)]
    exit_when_idle: bool,
    /// An interpreter bots may run by bare name (repeat for several); its
    /// installation is shown to their sandboxes read-only. Programs in the
    /// system folders (/usr, /bin, ...) need no listing. [default: python3,
    /// python, pypy3, node, deno, bun, ruby, perl, lua, php, java, as found
    /// on this PATH]
    #[arg(long = "interpreter", value_name = "NAME")]
    interpreters: Vec<String>,
    #[command(flatten)]
    build: BuildTimeArgs,
}

/// How long a bot's build may run (`cairn runner` and `cairn play`).
#[derive(Debug, clap::Args)]
pub struct BuildTimeArgs {
    /// How long a bot's build may run before it is killed (on a runner,
    /// the bot version is then marked broken).
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    build_wall_s: u64,
}

impl BuildTimeArgs {
    /// The default build limits with this wall-clock time.
    pub fn limits(&self) -> BuildLimits {
        BuildLimits {
            wall: Duration::from_secs(self.build_wall_s),
            ..BuildLimits::default()
        }
    }
}

pub fn run(args: RunnerArgs) -> anyhow::Result<ExitCode> {
    let mut config = RunnerConfig::new(args.arena, args.token);
    config.jobs = args.jobs.max(1);
    config.lease = Duration::from_millis(args.lease_ms.max(300));
    config.idle_poll = Duration::from_millis(args.poll_ms.max(10));
    config.cache_dir = args.cache.unwrap_or_else(default_cache_dir);
    config.cache_limits = CacheLimits {
        cap_bytes: args.cache_max_mib.saturating_mul(1 << 20),
        min_free_bytes: args.cache_min_free_mib.saturating_mul(1 << 20),
    };
    config.no_sandbox = args.no_sandbox;
    config.exit_when_idle = args.exit_when_idle;
    config.build_limits = args.build.limits();
    config.verbose = true;
    if !args.interpreters.is_empty() {
        let listed = Interpreters::listed(&args.interpreters);
        if !listed.missing.is_empty() {
            anyhow::bail!(
                "--interpreter {}: not found on this runner's PATH",
                listed.missing.join(", ")
            );
        }
        listed.install();
    }
    crate::client::runtime()?.block_on(async {
        let first = crate::serve::shutdown_signal();
        let shutdown = async {
            first.await;
            // A second signal stops at once, as a kill would: the bots die
            // with their supervisors, and the matches in play go back to
            // the queue when their leases lapse.
            let second = crate::serve::shutdown_signal();
            tokio::spawn(async move {
                second.await;
                tracing::warn!(
                    "runner: stopped at once: the matches in play go back to the queue when their leases lapse"
                );
                std::process::exit(130);
            });
        };
        let summary = run_runner(config, shutdown)
            .await
            .map_err(crate::client::remote_error)?;
        tracing::info!(
            "runner stopped: {} match(es) reported, {} lease(s) lost",
            summary.matches_reported,
            summary.leases_lost
        );
        Ok(ExitCode::SUCCESS)
    })
}
