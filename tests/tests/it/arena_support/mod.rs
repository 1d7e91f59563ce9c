//! What the arena end-to-end tests share: the `cairn` binary (built once),
//! a real `cairn serve` on 127.0.0.1:0 with a temporary SQLite file, real
//! `cairn runner` processes, bot folders that run the bundled Rust bots
//! (`cairn bot-run`), and a gRPC client. Every wait is on an event (a line
//! on a pipe, a stream message, a process exit) under an overall deadline.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use cairn_proto::arena::v1 as pb;
use pb::arena_client::ArenaClient;
use pb::runner_service_client::RunnerServiceClient;
use tonic::transport::Channel;
use tonic::Request;

pub const RUNNER_TOKEN: &str = "e2e-runner-token-0123456789";
/// No test may take longer than this waiting for the arena.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// The `cairn` binary of this build, built on first use (the tests package
/// does not depend on the CLI package, so cargo does not build it for us).
pub fn cairn_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("the test binary has a path");
            let deps = exe.parent().expect("in deps/").to_path_buf();
            let dir = deps.parent().map(Path::to_path_buf).unwrap_or(deps);
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut command = Command::new(cargo);
            command
                .args(["build", "--quiet", "-p", "cairn-cli", "--bin", "cairn"])
                .current_dir(cairn_tests::workspace_root());
            if dir.file_name().is_some_and(|name| name == "release") {
                command.arg("--release");
            }
            assert!(
                command.status().expect("cargo runs").success(),
                "building cairn failed"
            );
            dir.join("cairn")
        })
        .clone()
}

/// Runs `cairn ARGS` to completion.
pub fn cairn(args: &[&str]) -> Output {
    Command::new(cairn_binary())
        .args(args)
        .output()
        .expect("cairn runs")
}

/// A child process killed when dropped.
#[derive(Debug)]
pub struct Running(pub Child);

impl Running {
    pub fn sigkill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.sigkill();
    }
}

/// A real arena: its folder, database, address and process.
#[derive(Debug)]
pub struct Arena {
    pub folder: tempfile::TempDir,
    pub address: String,
    pub process: Running,
}

impl Arena {
    pub fn db(&self) -> PathBuf {
        self.folder.path().join("arena.sqlite")
    }

    /// Starts `cairn serve` on a free port, trusting new versions (no
    /// validation games: these tests' bots are our own).
    pub fn start() -> Arena {
        let folder = tempfile::tempdir().unwrap();
        let db = folder.path().join("arena.sqlite");
        let (process, address) = serve(&db, "127.0.0.1:0");
        Arena {
            folder,
            address,
            process,
        }
    }

    /// Starts `cairn serve` on a free port as an operator runs it: every
    /// new version plays its validation games before it is ready.
    pub fn start_validating() -> Arena {
        let folder = tempfile::tempdir().unwrap();
        let db = folder.path().join("arena.sqlite");
        let (process, line) =
            serve_line_validating(&db, "127.0.0.1:0", &["--open-registration"], true);
        let address = address_in(&line);
        Arena {
            folder,
            address,
            process,
        }
    }

    /// Kills the arena with SIGKILL and starts it again on the same database and port.
    pub fn kill_and_restart(&mut self) {
        self.process.sigkill();
        let listen = self.address.trim_start_matches("http://").to_string();
        let (process, address) = serve(&self.db(), &listen);
        assert_eq!(address, self.address);
        self.process = process;
    }

    pub async fn client(&self) -> ArenaClient<Channel> {
        ArenaClient::new(channel(&self.address).await).max_encoding_message_size(64 << 20)
    }

    pub async fn runner_client(&self) -> RunnerServiceClient<Channel> {
        RunnerServiceClient::new(channel(&self.address).await)
    }

    /// Starts `cairn runner` (plain processes: these bots are our own).
    pub fn runner(&self, lease_ms: u64, jobs: usize) -> Running {
        runner_at(
            &self.address,
            &self.folder.path().join("runner-cache"),
            lease_ms,
            jobs,
        )
    }
}

/// Starts `cairn runner` against the arena at `address` (plain processes:
/// these bots are our own), caching bots in `cache`.
pub fn runner_at(address: &str, cache: &Path, lease_ms: u64, jobs: usize) -> Running {
    let child = runner_command(address, cache, lease_ms, jobs)
        .stderr(Stdio::null())
        .spawn()
        .expect("cairn runner starts");
    Running(child)
}

/// [`runner_at`] with its log (stderr) piped to the caller.
pub fn runner_logged_at(address: &str, cache: &Path, lease_ms: u64, jobs: usize) -> Running {
    let child = runner_command(address, cache, lease_ms, jobs)
        .stderr(Stdio::piped())
        .spawn()
        .expect("cairn runner starts");
    Running(child)
}

fn runner_command(address: &str, cache: &Path, lease_ms: u64, jobs: usize) -> Command {
    let mut command = Command::new(cairn_binary());
    command
        .args([
            "runner",
            "--arena",
            address,
            "--token",
            RUNNER_TOKEN,
            "--no-sandbox",
            "--poll-ms",
            "50",
        ])
        .args([
            "--lease-ms",
            &lease_ms.to_string(),
            "--jobs",
            &jobs.to_string(),
            "--cache",
            cache.to_str().unwrap(),
        ])
        .stdout(Stdio::null());
    command
}

/// Starts `cairn serve` with open registration and reads the address from
/// its first line.
fn serve(db: &Path, listen: &str) -> (Running, String) {
    serve_with(db, listen, &["--open-registration"])
}

/// Starts `cairn serve` on `listen` with the runner token and `flags` (and
/// no admin token from the environment); the process and its address.
pub fn serve_with(db: &Path, listen: &str, flags: &[&str]) -> (Running, String) {
    let (process, line) = serve_line(db, listen, flags);
    (process, address_in(&line))
}

/// `cairn serve --http` on free ports, `--open-registration` and no
/// validation: the arena and its web address (`http://host:port`, where
/// the pages and `/metrics` are).
pub fn start_arena_with_http() -> (Arena, String) {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("arena.sqlite");
    let mut child = Command::new(cairn_binary())
        .args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .args(["--runner-token", RUNNER_TOKEN, "--http", "127.0.0.1:0"])
        .args(["--open-registration", "--no-validation"])
        .env_remove("CAIRN_ADMIN_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cairn serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut address_after = |prefix: &str| {
        let line = lines.next().unwrap().unwrap();
        assert!(line.starts_with(prefix), "{line}");
        address_in(&line).trim_end_matches('/').to_string()
    };
    let web = address_after("cairn web pages on");
    let address = address_after("cairn arena listening on");
    let arena = Arena {
        folder,
        address,
        process: Running(child),
    };
    (arena, web)
}

/// `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// A tool a test needs is `missing`: outside CI say loudly that `skipped`
/// is skipped; in CI (which installs every tool) fail, as `ci_must` says.
pub fn skip_loudly(missing: &str, skipped: &str, ci_must: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{missing}; CI must {ci_must}"
    );
    eprintln!("\n!!!!!!!! SKIPPED {skipped}: {missing} !!!!!!!!\n");
}

/// The address `cairn serve` announces in its first line.
pub fn address_in(line: &str) -> String {
    line.split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string()
}

/// Starts `cairn serve` as [`serve_with`] does (with `--no-validation`);
/// the process and the line it announces itself with.
pub fn serve_line(db: &Path, listen: &str, flags: &[&str]) -> (Running, String) {
    serve_line_validating(db, listen, flags, false)
}

/// [`serve_line`], with validation games for new versions or without.
pub fn serve_line_validating(
    db: &Path,
    listen: &str,
    flags: &[&str],
    validation: bool,
) -> (Running, String) {
    serve_line_to(db, listen, flags, validation, Stdio::null())
}

/// [`serve_line_validating`], its stderr (its log) going to `stderr`.
pub fn serve_line_to(
    db: &Path,
    listen: &str,
    flags: &[&str],
    validation: bool,
    stderr: Stdio,
) -> (Running, String) {
    let mut child = Command::new(cairn_binary())
        .args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--listen",
            listen,
            "--runner-token",
            RUNNER_TOKEN,
        ])
        .args(flags)
        .args((!validation).then_some("--no-validation"))
        .env_remove("CAIRN_ADMIN_TOKEN")
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("cairn serve starts");
    let stdout = child.stdout.take().expect("piped");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("cairn serve prints its address");
    (Running(child), line)
}

pub async fn channel(address: &str) -> Channel {
    Channel::from_shared(address.to_string())
        .unwrap()
        .connect()
        .await
        .expect("the arena accepts connections")
}

/// `message` with a bearer token.
pub fn authorized<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    request
}

/// Registers an owner and returns its token.
pub async fn register_owner(arena: &Arena, name: &str) -> String {
    arena
        .client()
        .await
        .register_owner(pb::RegisterOwnerRequest { name: name.into() })
        .await
        .unwrap()
        .into_inner()
        .token
}

/// Writes a bot folder running the bundled bot `bundled`, named `name`.
pub fn bot_folder(root: &Path, name: &str, bundled: &str) -> PathBuf {
    let folder = root.join("bots").join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let manifest =
        format!("name = \"{name}\"\ncommand = [\"cairn\", \"bot-run\", \"{bundled}\"]\n");
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    folder
}

/// Adds a bot with `cairn bot add` (the CLI path owners use).
pub fn add_bot(arena: &Arena, token: &str, name: &str, bundled: &str) {
    add_bot_folder(
        arena,
        token,
        &bot_folder(arena.folder.path(), name, bundled),
    );
}

/// Submits the bot folder `folder` with `cairn bot add`, which must succeed.
pub fn add_bot_folder(arena: &Arena, token: &str, folder: &Path) {
    let output = cairn(&[
        "bot",
        "add",
        folder.to_str().unwrap(),
        "--arena",
        &arena.address,
        "--token",
        token,
    ]);
    assert!(
        output.status.success(),
        "bot add: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Creates a two-seat round robin of schotten-totten.
pub async fn create_round_robin(
    arena: &Arena,
    token: &str,
    bots: &[&str],
    games_per_pairing: u32,
) -> pb::Tournament {
    let request = pb::CreateTournamentRequest {
        game: "schotten-totten".into(),
        options: Default::default(),
        bots: bots.iter().map(|b| b.to_string()).collect(),
        seats_per_game: 2,
        games_per_pairing,
        seed: 7,
        ..Default::default()
    };
    arena
        .client()
        .await
        .create_tournament(authorized(request, token))
        .await
        .unwrap()
        .into_inner()
}

/// Follows the tournament's progress stream until `until` holds, under [`DEADLINE`].
pub async fn wait_for_progress(
    arena: &Arena,
    tournament_id: i64,
    until: impl Fn(&pb::TournamentProgress) -> bool,
) -> pb::TournamentProgress {
    wait_for_progress_within(arena, tournament_id, DEADLINE, until).await
}

/// [`wait_for_progress`] under the deadline `deadline`.
pub async fn wait_for_progress_within(
    arena: &Arena,
    tournament_id: i64,
    deadline: Duration,
    until: impl Fn(&pb::TournamentProgress) -> bool,
) -> pb::TournamentProgress {
    let started = Instant::now();
    let last_seen = std::sync::Mutex::new(None);
    let follow = async {
        let mut stream = arena
            .client()
            .await
            .watch_tournament(pb::WatchTournamentRequest { tournament_id })
            .await
            .unwrap()
            .into_inner();
        while let Some(progress) = stream.message().await.unwrap() {
            if until(&progress) {
                return progress;
            }
            *last_seen.lock().unwrap() = Some(progress);
        }
        panic!("the progress stream ended before the condition held");
    };
    match tokio::time::timeout(deadline, follow).await {
        Ok(progress) => progress,
        Err(_) => panic!(
            "no progress within {:?}; last seen {:?}",
            started.elapsed(),
            last_seen.lock().unwrap()
        ),
    }
}

/// Checks a finished tournament: every planned game has exactly one result
/// with one row per seat, and the ratings count every game once per seat.
pub async fn assert_complete_and_exact(
    arena: &Arena,
    tournament: &pb::Tournament,
    planned_games: i64,
) {
    let progress = arena
        .client()
        .await
        .get_tournament(pb::GetTournamentRequest {
            tournament_id: tournament.id,
        })
        .await
        .unwrap()
        .into_inner()
        .progress
        .unwrap();
    assert!(progress.finished, "{progress:?}");
    assert_eq!(
        (progress.games_total, progress.games_done),
        (planned_games, planned_games)
    );
    let matches = matches_with_games(arena, tournament.id).await;
    let mut game_ids: Vec<i64> = matches
        .iter()
        .flat_map(|m| m.games.iter().map(|g| g.game_id))
        .collect();
    assert_eq!(game_ids.len() as i64, planned_games);
    game_ids.sort_unstable();
    game_ids.dedup();
    assert_eq!(game_ids.len() as i64, planned_games, "a game appears twice");
    for summary in &matches {
        assert_eq!(summary.status, "done");
        for game in &summary.games {
            assert_eq!(
                game.result.len(),
                2,
                "game {} has {} seat results",
                game.game_id,
                game.result.len()
            );
        }
    }
    // A game a bot's failed build ended is recorded but rates nobody.
    let build_failed = pb::ForfeitReason::BuildFailed as i32;
    let rated_games = matches
        .iter()
        .flat_map(|m| &m.games)
        .filter(|game| {
            !game.result.iter().any(|seat| {
                seat.forfeit
                    .as_ref()
                    .is_some_and(|f| f.reason == build_failed)
            })
        })
        .count() as i64;
    let board = leaderboard(arena, &tournament.game).await;
    let rated_seats: i64 = board.rows.iter().map(|row| row.games).sum();
    assert_eq!(
        rated_seats,
        2 * rated_games,
        "ratings count a game twice or miss one: {board:?}"
    );
}

/// A tournament's first 1,000 matches, each with its games.
pub async fn matches_with_games(arena: &Arena, tournament_id: i64) -> Vec<pb::MatchSummary> {
    arena
        .client()
        .await
        .list_matches(pb::ListMatchesRequest {
            tournament_id,
            page_size: 1000,
            with_games: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .matches
}

pub async fn leaderboard(arena: &Arena, game: &str) -> pb::Leaderboard {
    let request = pb::GetLeaderboardRequest {
        game: game.into(),
        options: Default::default(),
        ..Default::default()
    };
    arena
        .client()
        .await
        .get_leaderboard(request)
        .await
        .unwrap()
        .into_inner()
}

/// Game `game` of a lease as the arena planned it (for honest reports).
pub fn planned_game(lease: &pb::MatchLease, game: usize) -> cairn_arena::verify::PlannedGame {
    cairn_arena::verify::PlannedGame {
        game: lease.game.clone(),
        options: lease.options.clone(),
        game_index: lease.games[game].game_index,
        seed: lease.games[game].seed,
        seats: lease.seats.iter().map(|seat| seat.bot_version_id).collect(),
        seat_names: lease
            .seats
            .iter()
            .map(|seat| cairn_proto::record::seat_label(&seat.bot_name, seat.version))
            .collect(),
    }
}

/// `report` as a runner sends it for `lease` (no forfeits, no stderr).
pub fn report_to_wire(
    lease: &pb::MatchLease,
    report: &cairn_arena::store::GameReport,
) -> pb::ReportGameRequest {
    pb::ReportGameRequest {
        match_id: lease.match_id,
        lease_generation: lease.lease_generation,
        game: Some(pb::GameResult {
            game_index: report.game_index,
            seats: report
                .seats
                .iter()
                .map(|seat| pb::SeatResult {
                    bot_version_id: seat.bot_version_id,
                    score: seat.score,
                    rank: seat.rank,
                    forfeit: None,
                    stderr_tail: Vec::new(),
                })
                .collect(),
            replay: report.replay.clone(),
            end_reason: pb::EndReason::from(report.ended_by) as i32,
        }),
    }
}

/// The match `runners` leases for `lease_ms` with `token` (there must be one).
pub async fn lease_one(
    runners: &mut RunnerServiceClient<Channel>,
    lease_ms: i64,
    token: &str,
) -> pb::MatchLease {
    runners
        .lease_match(authorized(pb::LeaseMatchRequest { lease_ms }, token))
        .await
        .unwrap()
        .into_inner()
        .lease
        .expect("a match to lease")
}

/// A tournament's progress now.
pub async fn progress(arena: &Arena, tournament_id: i64) -> pb::TournamentProgress {
    arena
        .client()
        .await
        .get_tournament(pb::GetTournamentRequest { tournament_id })
        .await
        .unwrap()
        .into_inner()
        .progress
        .unwrap()
}
