//! `cairn demo`: the whole product on one machine in well under a minute. An
//! embedded arena on a SQLite file in a fresh folder, an in-process runner
//! talking to it over loopback gRPC (the same code as `cairn runner`), the
//! bundled bots (the Rust SDK's reference bots, run by this very binary with
//! `cairn bot-run`, so nothing else needs installing), a round robin for
//! every game, progress bars, then the leaderboards.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use cairn_engine::seating::seatings_per_table;
use cairn_proto::arena::v1 as pb;
use cairn_runner::remote::{run_runner, RunnerConfig};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::client::{authorized, connect, status_error, ArenaArgs};

const DEFAULT_GAMES_PER_PAIRING: u32 = 10;

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The folder for the database, the bots and the runner's cache [default: a fresh temporary folder].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Games each pair of bots plays at two seats: half as many deals
    /// (rounded up), each in both seatings. A larger table plays as many
    /// deals, each in all its balanced seatings (6 at three seats: 30
    /// games a table at the default), so that every bot has as many deals
    /// as a rated board wants. Ten keeps the demo well under a minute on
    /// two cores with the searching bot entered.
    #[arg(long, default_value_t = DEFAULT_GAMES_PER_PAIRING)]
    games_per_pairing: u32,
    /// Run bots as plain processes, without the sandbox.
    #[arg(long)]
    no_sandbox: bool,
    /// Also serve the web pages (leaderboards, tournaments, replays) on this
    /// address while the demo plays, and until Ctrl-C after it; the arena's
    /// gRPC address (for `cairn match list --arena ADDR`) is printed too.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    serve: Option<String>,
}

/// A bundled bot: its name in the arena, what `cairn bot-run` calls it, the games it plays.
/// `mcts` is the searching bot on a short budget (`mcts-quick`: a fixed
/// number of iterations per decision for each game, see
/// `cairn_sdk::bots::quick_iterations`), so the demo stays short and its
/// bot is as strong on any machine.
const DEMO_BOTS: &[(&str, &str, Option<&str>)] = &[
    ("mcts", "mcts-quick", None),
    ("greedy", "greedy", None),
    ("random", "random", None),
    ("random-too", "random", None),
    ("first", "first", None),
];

/// One of the demo's tournaments: those listed here, then the plain variant
/// of any other game of the engine's table (see [`demo_tournaments`]).
#[derive(Debug, Clone, Copy)]
struct DemoTournament {
    game: &'static str,
    options: &'static [(&'static str, &'static str)],
    /// Seats at each table: 2, or 3 to show a multi-player table (rated with Weng-Lin).
    seats: u32,
}

const DEMO_TOURNAMENTS: &[DemoTournament] = &[
    DemoTournament {
        game: "schotten-totten",
        options: &[],
        seats: 2,
    },
    DemoTournament {
        game: "schotten-totten",
        options: &[("tactics", "true")],
        seats: 2,
    },
    DemoTournament {
        game: "lords-of-scotland",
        options: &[],
        seats: 2,
    },
    DemoTournament {
        game: "bullfrogs",
        options: &[],
        seats: 3,
    },
];

/// [`DEMO_TOURNAMENTS`], then every game of `cairn_engine::GAMES` they
/// leave out, plain, at its fewest seats from two up: a new game is in the
/// demo without a line here.
fn demo_tournaments() -> Vec<DemoTournament> {
    let mut all = DEMO_TOURNAMENTS.to_vec();
    for game in cairn_engine::GAMES {
        let descriptor = game.descriptor;
        if all.iter().any(|demo| demo.game == descriptor.id) {
            continue;
        }
        let (_, max) = descriptor.seat_bounds();
        let plain = cairn_engine::GameOptions::new();
        if let Some(seats) = (2..=max).find(|&n| descriptor.check_seats(&plain, n).is_ok()) {
            all.push(DemoTournament {
                game: descriptor.id,
                options: &[],
                seats: seats as u32,
            });
        }
    }
    all
}

impl DemoTournament {
    /// The game's name from its descriptor, with the variant and the table
    /// size when they are not the plain two-seat game.
    fn label(&self) -> String {
        let name = cairn_engine::descriptor(self.game).map_or(self.game, |game| game.name);
        let mut details: Vec<String> = self
            .options
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect();
        if self.seats != 2 {
            details.push(format!("{} seats", self.seats));
        }
        if details.is_empty() {
            name.to_string()
        } else {
            format!("{name} ({})", details.join(", "))
        }
    }
}

const RUNNER_TOKEN: &str = "cairn-demo-runner-token";

pub fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let temporary = tempfile::Builder::new().prefix("cairn-demo-").tempdir()?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| temporary.path().to_path_buf());
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let db = dir.join("arena.sqlite");
    for stale in ["arena.sqlite", "arena.sqlite-wal", "arena.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    outln!("cairn demo: arena database {}", db.display());
    crate::client::runtime()?.block_on(demo(&args, &dir, &db))?;
    outln!(
        "\ndemo finished in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

async fn demo(args: &DemoArgs, dir: &Path, db: &Path) -> anyhow::Result<()> {
    let location = cairn_arena::store::Location::Sqlite(db.to_path_buf());
    // Bundled bots only, and the same games on every run: the demo deals
    // under the fixed, published secret (`cairn serve` never does). The
    // bundled bots are ours: their validation games (a match at every table
    // size of every game, per bot) would add a good third to the demo's
    // time and show nothing (`cairn serve` validates).
    let options = cairn_arena::store::StoreOptions {
        deal_secret: Some(cairn_arena::deal::DealSecret::DEMO),
        validation: cairn_arena::store::Validation::Off,
        ..Default::default()
    };
    // `served` keeps the database file claimed until the demo ends.
    let served = crate::serve::open_store(&location, options, Some(RUNNER_TOKEN)).await?;
    let store = served.store.clone();
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = crate::serve::dial_address(listener.local_addr()?);
    let (stop_web, web_stopped) = tokio::sync::watch::channel(());
    let options = cairn_arena::service::ServeOptions::default();
    let web = match &args.serve {
        Some(http) => Some(crate::serve::start_web(
            crate::serve::listen_on(http).await?,
            store.clone(),
            options.admission.clone(),
            web_stopped,
        )?),
        None => None,
    };
    if web.is_some() {
        outln!("{}", arena_line(&address));
    }
    let (stop_arena, arena_stopped) = oneshot::channel::<()>();
    let arena = tokio::spawn(cairn_arena::run(listener, store, options, async move {
        let _ = arena_stopped.await;
    }));
    let (stop_runner, runner_stopped) = oneshot::channel::<()>();
    let mut config = RunnerConfig::new(address.clone(), RUNNER_TOKEN);
    config.cache_dir = dir.join("runner-cache");
    config.jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    config.idle_poll = Duration::from_millis(100);
    config.no_sandbox = args.no_sandbox;
    let runner = tokio::spawn(run_runner(config, async move {
        let _ = runner_stopped.await;
    }));
    let arena_args = ArenaArgs {
        arena: address.clone(),
    };
    let outcome = play_tournaments(args, dir, &arena_args).await;
    let _ = stop_runner.send(());
    let runner_result = runner.await;
    if let (Some(web), Ok(())) = (web, &outcome) {
        outln!("\nthe web pages and the arena stay up until Ctrl-C");
        outln!("{}", arena_line(&address));
        std::io::stdout().flush()?;
        crate::serve::shutdown_signal().await;
        let _ = stop_web.send(());
        let _ = web.await;
    }
    let _ = stop_arena.send(());
    let _ = arena.await;
    outcome?;
    runner_result
        .context("the runner task failed")?
        .map_err(crate::client::remote_error)?;
    Ok(())
}

/// Where the demo's arena answers gRPC (a free port, not `cairn serve`'s
/// default), as the flag `cairn match list` and the others take.
fn arena_line(address: &str) -> String {
    format!("cairn arena (gRPC) on {address} (e.g. `cairn match list 1 --arena {address}`)")
}

async fn play_tournaments(args: &DemoArgs, dir: &Path, arena: &ArenaArgs) -> anyhow::Result<()> {
    let mut client = connect(arena).await?;
    let token = client
        .register_owner(pb::RegisterOwnerRequest {
            name: "demo".into(),
        })
        .await
        .map_err(status_error)?
        .into_inner()
        .token;
    for (name, bundled, games) in DEMO_BOTS {
        let folder = write_bot_folder(dir, name, bundled, *games)?;
        let archive = cairn_proto::archive::pack_folder(&folder)?;
        client
            .submit_bot_version(authorized(pb::SubmitBotVersionRequest { archive }, &token))
            .await
            .map_err(status_error)?;
    }
    outln!(
        "registered bots: {}\n(each runs `cairn bot-run NAME`; random-too is random again, so the \
         fit should rate the two alike)\n",
        DEMO_BOTS
            .iter()
            .map(|(name, bundled, _)| match name == bundled {
                true => name.to_string(),
                false => format!("{name} (bot-run {bundled})"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut created = Vec::new();
    for (
        seed,
        demo @ DemoTournament {
            game,
            options,
            seats,
        },
    ) in demo_tournaments().iter().enumerate()
    {
        let label = demo.label();
        let bots = DEMO_BOTS
            .iter()
            .filter(|(_, _, games)| games.is_none_or(|only| only == *game))
            .map(|(name, ..)| name.to_string())
            .collect();
        let request = pb::CreateTournamentRequest {
            game: game.to_string(),
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            bots,
            seats_per_game: *seats,
            games_per_pairing: games_per_table(args.games_per_pairing, *seats),
            seed: seed as u64 + 1,
            ..Default::default()
        };
        let tournament = client
            .create_tournament(authorized(request, &token))
            .await
            .map_err(status_error)?
            .into_inner();
        created.push((label, tournament));
    }
    let width = created
        .iter()
        .map(|(label, _)| label.len())
        .max()
        .unwrap_or(0);
    for (label, tournament) in &created {
        crate::tournaments::watch(
            &mut client,
            tournament.id,
            false,
            &format!("{label:<width$}  "),
        )
        .await?;
    }
    for (label, tournament) in &created {
        let request = pb::GetLeaderboardRequest {
            game: tournament.game.clone(),
            options: tournament.options.clone(),
            ..Default::default()
        };
        let board = client
            .get_leaderboard(request)
            .await
            .map_err(status_error)?
            .into_inner();
        outln!("\n{label}");
        out!("{}", crate::ratings::leaderboard_table(&board));
    }
    outln!("\n{}", crate::ratings::columns_legend());
    Ok(())
}

/// A bot folder whose command runs `cairn bot-run BUNDLED` (the runner's
/// own binary, by its bare name).
fn write_bot_folder(
    dir: &Path,
    name: &str,
    bundled: &str,
    games: Option<&str>,
) -> anyhow::Result<PathBuf> {
    let folder = dir.join("bots").join(name);
    std::fs::create_dir_all(&folder)?;
    let games = games.map_or(String::new(), |game| format!("games = [\"{game}\"]\n"));
    let manifest =
        format!("name = \"{name}\"\ncommand = [\"cairn\", \"bot-run\", \"{bundled}\"]\n{games}");
    std::fs::write(folder.join("cairn-bot.toml"), manifest)?;
    Ok(folder)
}

/// The games a table of `seats` plays: as many deals as a two-seat pair
/// of bots (half of `games_per_pairing`, rounded up), each deal in every
/// balanced seating. A bot meets its rivals at fewer tables when a table
/// seats more (at three seats, every bot sits at two tables of the five
/// bots or more), so each table plays more games for the bot to have as
/// many deals: ten at the default, what a board needs to rank it.
fn games_per_table(games_per_pairing: u32, seats: u32) -> u32 {
    let seatings = seatings_per_table(seats as usize) as u32;
    games_per_pairing.div_ceil(2) * seatings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_default_every_bot_of_every_demo_board_has_the_deals_a_board_ranks() {
        for demo in demo_tournaments() {
            let games = games_per_table(DEFAULT_GAMES_PER_PAIRING, demo.seats) as usize;
            let n_bots = DEMO_BOTS.len();
            for seed in 1..=40 {
                let planned =
                    cairn_arena::plan::plan_round_robin(n_bots, demo.seats as usize, games, seed)
                        .unwrap();
                for bot in 0..n_bots {
                    let deals: std::collections::BTreeSet<u64> = planned
                        .iter()
                        .filter(|planned| planned.seats.contains(&bot))
                        .flat_map(|planned| planned.game_seeds.iter().copied())
                        .collect();
                    assert!(
                        deals.len() >= cairn_arena::store::PROVISIONAL_DEALS,
                        "{}: bot {bot} has {} deals (seed {seed})",
                        demo.label(),
                        deals.len()
                    );
                }
            }
        }
    }

    #[test]
    fn a_table_plays_as_many_deals_as_a_pair_each_in_every_seating() {
        assert_eq!(games_per_table(10, 2), 10);
        assert_eq!(games_per_table(9, 2), 10);
        assert_eq!(games_per_table(10, 3), 30);
        assert_eq!(games_per_table(2, 3), 6);
        assert_eq!(games_per_table(1, 3), 6);
    }

    #[test]
    fn every_game_of_the_engine_has_a_demo_tournament_it_accepts() {
        for game in cairn_engine::GAMES {
            assert!(
                DEMO_TOURNAMENTS
                    .iter()
                    .any(|demo| demo.game == game.descriptor.id),
                "no demo tournament of {}",
                game.descriptor.id
            );
        }
        for demo in DEMO_TOURNAMENTS {
            let descriptor = cairn_engine::descriptor(demo.game).unwrap();
            let options = demo
                .options
                .iter()
                .map(|(key, value)| (key.to_string(), value.to_string()))
                .collect();
            let canonical = descriptor.check_setup(&options, demo.seats as usize);
            assert_eq!(canonical, Ok(options), "{}", demo.label());
        }
        assert_eq!(
            DEMO_TOURNAMENTS[1].label(),
            "Schotten Totten (tactics=true)"
        );
        assert_eq!(DEMO_TOURNAMENTS[3].label(), "Bullfrogs (3 seats)");
    }
}
