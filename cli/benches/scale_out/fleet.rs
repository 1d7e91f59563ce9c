//! The arena processes (real `cairn serve` on the shared PostgreSQL
//! database, each in its capped cgroup), the tournament they serve, and the
//! report-only runners that drive them: each leases a match over gRPC and
//! reports its games, played before the clock started ([`PrePlayed`]), so
//! that a runner costs a lookup and a message per result.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use cairn_arena::deal::DealSecret;
use cairn_arena::testkit::{bot_archive, PlayedGame};
use cairn_arena::verify::PlannedGame;
use cairn_engine::GameOptions;
use cairn_proto::arena::v1 as pb;
use cairn_proto::record::seat_label;
use pb::arena_client::ArenaClient;
use pb::runner_service_client::RunnerServiceClient;
use tonic::transport::Channel;
use tonic::Request;

use super::capped::CappedGroup;

pub const RUNNER_TOKEN: &str = "scale-out-bench-runner-token";
pub const GAME: &str = "schotten-totten";
/// Bots of the tournaments, and of each the games per pairing: 780
/// pairings of 20 games, 15,600 games a tournament in matches of 10 (one
/// per seating), each a lease and 10 reports.
const N_BOTS: usize = 40;
const GAMES_PER_PAIRING: u32 = 20;
/// A tournament on each of these variants of [`GAME`], each its own
/// leaderboard ("board"), of which the bench plays the first
/// `CAIRN_BENCH_BOARDS` (1 to 4, else all four). Leases spread the runners
/// over the tournaments waiting; the reports of one board take turns on its
/// lock, so one busy board is ordered whatever the number of arena
/// processes (docs/performance.md, "Scaling out").
const BOARDS: [&[(&str, &str)]; 4] = [
    &[],
    &[("expert", "true")],
    &[("tactics", "true")],
    &[("tactics", "true"), ("expert", "true")],
];

/// The boards this run plays (see [`BOARDS`]).
pub fn boards() -> &'static [&'static [(&'static str, &'static str)]] {
    let wanted = std::env::var("CAIRN_BENCH_BOARDS")
        .ok()
        .and_then(|count| count.parse::<usize>().ok())
        .filter(|count| (1..=BOARDS.len()).contains(count))
        .unwrap_or(BOARDS.len());
    &BOARDS[..wanted]
}

/// A `cairn serve` process, killed (and waited for) when dropped, before
/// its cgroup is removed.
#[derive(Debug)]
pub struct ArenaProcess {
    child: Child,
    /// The public address and the runners' (`http://...`).
    pub public: String,
    pub runners: String,
    pub group: CappedGroup,
}

impl ArenaProcess {
    /// Starts `cairn serve` on `url`, placed in `group` at once.
    pub fn start(url: &str, group: CappedGroup) -> ArenaProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cairn"));
        command
            .args(["serve", "--db", url, "--listen", "127.0.0.1:0"])
            .args([
                "--runner-listen",
                "127.0.0.1:0",
                "--runner-token",
                RUNNER_TOKEN,
            ])
            .args(["--open-registration", "--no-validation"])
            .args(["--quota-bots", "100", "--quota-queued-games", "1000000"])
            // Every process would put its writes on the same last core:
            // two capped processes on one host would share it, which two
            // hosts would not.
            .args(["--write-cpu", "none"])
            .env_remove("CAIRN_ADMIN_TOKEN")
            .env_remove("CAIRN_RUNNER_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // SAFETY: prctl is async-signal-safe and touches no memory of the
        // parent's; a server whose benchmark died (even by SIGKILL) dies too.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().expect("cairn serve starts");
        let placed = group.add(child.id());
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        let read = BufReader::new(stdout).read_line(&mut line);
        let mut arena = ArenaProcess {
            child,
            public: String::new(),
            runners: String::new(),
            group,
        };
        placed.expect("the arena process joins its cgroup");
        assert!(
            read.is_ok_and(|n| n > 0),
            "cairn serve ended before it listened"
        );
        let mut addresses = line
            .split_whitespace()
            .filter(|word| word.starts_with("http://"))
            .map(|word| word.trim_end_matches(')').to_string());
        arena.public = addresses.next().expect("the public address");
        arena.runners = addresses.next().expect("the runners' address");
        arena
    }
}

impl Drop for ArenaProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn connect(address: &str) -> Channel {
    Channel::from_shared(address.to_string())
        .expect("an address")
        .connect()
        .await
        .expect("the arena accepts connections")
}

fn authorized<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii token"),
    );
    request
}

/// A tournament: its id and its variant's options.
pub type Tournament = (i64, GameOptions);

/// An owner, its bots and a round robin of [`GAME`] on each of `boards`.
pub async fn set_up(arena: &ArenaProcess, boards: &[&[(&str, &str)]]) -> Vec<Tournament> {
    let mut client = ArenaClient::new(connect(&arena.public).await);
    let token = client
        .register_owner(pb::RegisterOwnerRequest {
            name: "bench".into(),
        })
        .await
        .expect("an owner")
        .into_inner()
        .token;
    let names: Vec<String> = (0..N_BOTS).map(|index| format!("bot-{index}")).collect();
    for name in &names {
        let archive = bot_archive(name, 1);
        client
            .submit_bot_version(authorized(pb::SubmitBotVersionRequest { archive }, &token))
            .await
            .expect("a bot");
    }
    let mut tournaments = Vec::new();
    for (seed, board) in boards.iter().enumerate() {
        let options: GameOptions = board
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect();
        let request = pb::CreateTournamentRequest {
            game: GAME.into(),
            options: options.clone().into_iter().collect(),
            bots: names.clone(),
            seats_per_game: 2,
            games_per_pairing: GAMES_PER_PAIRING,
            seed: seed as u64 + 1,
            ..Default::default()
        };
        let created = client.create_tournament(authorized(request, &token)).await;
        tournaments.push((created.expect("a tournament").into_inner().id, options));
    }
    tournaments
}

/// Every planned game of the tournaments, played through, by the seed it
/// is dealt from (the database's secret applied to its planned seed, read
/// from the database as its operator may).
#[derive(Debug)]
pub struct PrePlayed(HashMap<u64, PlayedGame>);

impl PrePlayed {
    pub async fn play(url: &str, tournaments: &[Tournament]) -> PrePlayed {
        let pool = sqlx::PgPool::connect(url).await.expect("the database");
        let secret: String = sqlx::query_scalar("SELECT secret FROM deal_secret WHERE id = 1")
            .fetch_one(&pool)
            .await
            .expect("the deal secret");
        let secret = DealSecret::from_hex(&secret).expect("a deal secret");
        let mut games = HashMap::new();
        for (tournament_id, options) in tournaments {
            let tournament_id = *tournament_id;
            let seeds: Vec<i64> = sqlx::query_scalar(
                "SELECT g.seed FROM games g JOIN matches m ON m.id = g.match_id \
                 WHERE m.tournament_id = $1",
            )
            .bind(tournament_id)
            .fetch_all(&pool)
            .await
            .expect("the planned games");
            for seed in seeds {
                let dealt = secret.deal_seed(tournament_id, seed as u64);
                let planned = PlannedGame {
                    game: GAME.into(),
                    options: options.clone(),
                    game_index: 0,
                    seed: dealt,
                    seats: vec![0, 0],
                    seat_names: Vec::new(),
                };
                games.insert(dealt, PlayedGame::play(&planned));
            }
        }
        pool.close().await;
        PrePlayed(games)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The report of game `game` of `lease`.
    fn report(&self, lease: &pb::MatchLease, game: &pb::LeasedGame) -> pb::ReportGameRequest {
        let planned = PlannedGame {
            game: lease.game.clone(),
            options: lease.options.clone().into_iter().collect(),
            game_index: game.game_index,
            seed: game.seed,
            seats: lease.seats.iter().map(|seat| seat.bot_version_id).collect(),
            seat_names: lease
                .seats
                .iter()
                .map(|seat| seat_label(&seat.bot_name, seat.version))
                .collect(),
        };
        let played = self
            .0
            .get(&game.seed)
            .expect("every leased game was played");
        let report = played.report(&planned);
        let seats = report.seats.iter().map(|seat| pb::SeatResult {
            bot_version_id: seat.bot_version_id,
            score: seat.score,
            rank: seat.rank,
            forfeit: None,
            stderr_tail: Vec::new(),
        });
        pb::ReportGameRequest {
            match_id: lease.match_id,
            lease_generation: lease.lease_generation,
            game: Some(pb::GameResult {
                game_index: report.game_index,
                seats: seats.collect(),
                replay: report.replay,
                end_reason: pb::EndReason::from(report.ended_by) as i32,
            }),
        }
    }
}

/// One report-only runner on its own connection: leases matches and
/// reports their games until `until`; the games it reported. A match it
/// was in the middle of stays leased (its lease runs out long after the
/// benchmark).
pub async fn runner(channel: Channel, played: Arc<PrePlayed>, until: Instant) -> u64 {
    let mut client = RunnerServiceClient::new(channel);
    let mut reported = 0;
    while Instant::now() < until {
        let leased = client
            .lease_match(authorized(
                pb::LeaseMatchRequest { lease_ms: 0 },
                RUNNER_TOKEN,
            ))
            .await
            .expect("a lease")
            .into_inner();
        let lease = leased
            .lease
            .expect("the tournaments ran out before the benchmark: plan more games");
        for game in &lease.games {
            if Instant::now() >= until {
                break;
            }
            let report = played.report(&lease, game);
            client
                .report_game(authorized(report, RUNNER_TOKEN))
                .await
                .expect("a report");
            reported += 1;
        }
    }
    reported
}
