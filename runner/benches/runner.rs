//! The runner's speed, with real processes: a raw pipe round trip, the
//! per-decision round trip through the match loop with two warm Rust bots,
//! and whole Schotten Totten games per second. Prints `bench: NAME VALUE
//! UNIT` lines. Pass `--quick` for a short run.
//!
//! The bots are this very binary started again in a bot role (chosen by an
//! environment variable), so the benchmark needs nothing built beforehand.
//! The match runs twice: in the sandbox (the named figures) and as plain
//! processes (`_plain`), both with a bot that finds what it needs by a
//! byte scan; `_serde` is the sandboxed run with a bot that parses each
//! request with serde. Everything runs pinned to one CPU, as the runner
//! keeps a match.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cairn_engine::{GameOptions, Rng};
use cairn_proto::game::v1::{arena_message::Message, bot_message, Action, BotMessage, Ready};
use cairn_proto::wire;
use cairn_runner::sandbox::Limits;
use cairn_runner::{
    play_match, BotEntry, BotLauncher, LaunchSpec, MatchSpec, PlainLauncher, SandboxLauncher,
    TimeControl,
};

/// The `cairn` binary's allocator (see `cli/src/main.rs`): the referee and
/// the bots run here as they run in it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ROLE: &str = "CAIRN_RUNNER_BENCH_ROLE";
const ECHO_BACK: &str = "CAIRN_RUNNER_BENCH_ECHO_BACK";

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("echo") => return echo_role(),
        Ok("bot") => return bot_role(),
        Ok("scan-bot") => return scan_bot_role(),
        _ => {}
    }
    let quick = std::env::args().any(|a| a == "--quick");
    // Everything on one CPU, as the runner plays a match (see
    // cairn_runner::placement), so the raw round trip is measured alike.
    let _pinned = cairn_runner::placement::current_cpu()
        .and_then(|cpu| cairn_runner::placement::pin_current_thread(cpu).ok());
    let (round_trips, games) = if quick { (2_000, 100) } else { (20_000, 2_000) };
    let request = codec_costs(if quick { 2_000 } else { 20_000 });
    // The baseline moves the bytes a decision moves: a line of a real
    // request's size out, a line of its answer's size back.
    let answer = check_scan_bot(&request);
    println!("bench: runner/pipe_rtt_out_bytes {} bytes", request.len());
    println!("bench: runner/pipe_rtt_back_bytes {} bytes", answer.len());
    let raw = pipe_round_trips(round_trips, request.len(), answer.len());
    let raw_median = percentile(&raw, 0.5);
    println!(
        "bench: runner/pipe_rtt_median_us {:.1} us",
        micros(raw_median)
    );
    println!(
        "bench: runner/pipe_rtt_p99_us {:.1} us",
        micros(percentile(&raw, 0.99))
    );
    // The named figures are the sandboxed run's, as bots are run for real;
    // the plain run (`_plain`) shows what the sandbox adds.
    let sandbox = SandboxLauncher::new(Limits::default());
    eprintln!("{}", sandbox.describe());
    // The named figures use a bot that answers as a tuned bot would (a byte
    // scan), so they measure the runner; `_serde` is a bot that parses each
    // request with serde, all in.
    report_match("", &sandbox, "scan-bot", games, raw_median);
    report_match("_plain", &PlainLauncher, "scan-bot", games, raw_median);
    report_match("_serde", &sandbox, "bot", games, raw_median);
    report_builds(if quick { 10 } else { 30 });
}

/// What the sandbox adds to a build: the median wall time of a build that
/// only writes one small file, sandboxed (output tmpfs, copy in and out)
/// and plain, on a bot folder of 20 files.
fn report_builds(runs: usize) {
    use cairn_runner::build::{build_folder, BuildLimits, Builder};
    let scratch = std::env::temp_dir().join(format!("cairn-build-bench-{}", std::process::id()));
    let folder = scratch.join("bot");
    std::fs::create_dir_all(&folder).expect("bench folder");
    for index in 0..20 {
        std::fs::write(folder.join(format!("src{index}.py")), vec![b'x'; 4096]).expect("file");
    }
    let command = [
        "sh".to_string(),
        "-c".to_string(),
        "echo built > out.txt".to_string(),
    ];
    for (suffix, builder) in [
        ("", Builder::sandboxed(BuildLimits::default())),
        ("_plain", Builder::plain(BuildLimits::default())),
    ] {
        let mut walls: Vec<Duration> = (0..runs)
            .map(|_| {
                let started = Instant::now();
                build_folder(&folder, &command, &builder).expect("the bench build works");
                started.elapsed()
            })
            .collect();
        walls.sort();
        println!(
            "bench: runner/build_wall_median_ms{suffix} {:.1} ms",
            walls[walls.len() / 2].as_secs_f64() * 1e3
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

fn report_match(
    suffix: &str,
    launcher: &dyn BotLauncher,
    role: &str,
    games: u32,
    raw_median: Duration,
) {
    let referee_cpu_before = own_cpu_time();
    let (timings, bot_cpus, seconds, decisions) = match_run(launcher, role, games);
    let referee_cpu = own_cpu_time() - referee_cpu_before;
    let median = percentile(&timings, 0.5);
    println!(
        "bench: runner/referee_cpu_per_decision_us{suffix} {:.1} us",
        micros(referee_cpu) / decisions as f64
    );
    println!(
        "bench: runner/decision_overhead_median_us{suffix} {:.1} us",
        micros(median)
    );
    println!(
        "bench: runner/decision_overhead_p99_us{suffix} {:.1} us",
        micros(percentile(&timings, 0.99))
    );
    println!(
        "bench: runner/decision_overhead_vs_pipe_rtt{suffix} {:.2} x",
        micros(median) / micros(raw_median)
    );
    // What the bot itself spends on a decision (reading, parsing, answering):
    // part of the round trip that no runner change can remove, read from the
    // sandbox's cgroup or a plain process's CPU clock.
    println!(
        "bench: runner/bot_cpu_per_decision_median_us{suffix} {:.1} us",
        micros(percentile(&bot_cpus, 0.5))
    );
    // The round trip less the bot's CPU: the runner's share and the pipes'.
    let less_bot: Vec<Duration> = timings
        .iter()
        .zip(&bot_cpus)
        .map(|(wall, cpu)| wall.saturating_sub(*cpu))
        .collect();
    println!(
        "bench: runner/decision_overhead_less_bot_cpu_vs_pipe_rtt{suffix} {:.2} x",
        micros(percentile(&less_bot, 0.5)) / micros(raw_median)
    );
    println!(
        "bench: runner/decision_all_in_mean_us{suffix} {:.1} us",
        seconds * 1e6 / decisions as f64
    );
    println!(
        "bench: runner/schotten_totten_games_per_s{suffix} {:.0} games/s",
        games as f64 / seconds
    );
}

/// This process's CPU time (all threads).
fn own_cpu_time() -> Duration {
    cairn_runner::launch::process_cpu_time(std::process::id()).unwrap_or_default()
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn percentile(samples: &[Duration], q: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted
        .get(((sorted.len() as f64 - 1.0) * q).round() as usize)
        .copied()
        .unwrap_or_default()
}

/// What one request costs to build, encode and decode, on a mid-game
/// Schotten Totten state (no processes involved).
/// Prints what building, encoding and decoding a mid-game request costs;
/// returns that request's line.
fn codec_costs(n: u32) -> Vec<u8> {
    let mut state =
        cairn_engine::new_game("schotten-totten", &GameOptions::new(), 2, 3).expect("a valid game");
    for _ in 0..20 {
        let first = state.legal_actions()[0].clone();
        state.apply_text(&first).expect("a legal action");
    }
    let seat = state.current_seat().expect("mid-game");
    let build = || {
        let request = cairn_proto::game::v1::Request {
            decision_id: 1,
            events: vec![],
            observation: Some(
                cairn_proto::convert::observation(state.as_ref(), seat).expect("an encoder"),
            ),
            legal_actions: state.legal_actions(),
            bank_left_ms: 0,
        };
        cairn_proto::game::v1::ArenaMessage {
            message: Some(Message::Request(request)),
        }
    };
    let start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(state.legal_actions());
    }
    println!(
        "bench: runner/legal_actions_text_us {:.2} us",
        micros(start.elapsed()) / n as f64
    );
    let start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(
            cairn_proto::convert::observation(state.as_ref(), seat).expect("an encoder"),
        );
    }
    println!(
        "bench: runner/observation_us {:.2} us",
        micros(start.elapsed()) / n as f64
    );
    let start = Instant::now();
    let mut bytes = Vec::new();
    for _ in 0..n {
        bytes = wire::encode_arena_message(&build());
    }
    println!(
        "bench: runner/request_build_and_encode_us {:.2} us",
        micros(start.elapsed()) / n as f64
    );
    let message = build();
    let start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(wire::encode_arena_message(&message));
    }
    println!(
        "bench: runner/request_encode_us {:.2} us",
        micros(start.elapsed()) / n as f64
    );
    let start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(wire::decode_arena_message(&bytes).expect("our own line decodes"));
    }
    println!(
        "bench: runner/request_decode_us {:.2} us",
        micros(start.elapsed()) / n as f64
    );
    println!("bench: runner/request_bytes {} bytes", bytes.len());
    bytes
}

/// Answers each line with a line of the size given in the role's
/// environment: the other end of the raw round trip.
fn echo_role() {
    let back: usize = std::env::var(ECHO_BACK)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let answer = format!("{}\n", "y".repeat(back.saturating_sub(1)));
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        if line.is_err() {
            return;
        }
        if stdout
            .write_all(answer.as_bytes())
            .and_then(|_| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Checks that the byte scan reads a real request as serde does and that
/// its answer decodes as the action meant; returns that answer.
fn check_scan_bot(request: &[u8]) -> String {
    let line = request.strip_suffix(b"\n").unwrap_or(request);
    let scan = Scan::new();
    let (id, list, count) = scan.request(line).expect("the scan reads a request");
    let Ok(cairn_proto::game::v1::ArenaMessage {
        message: Some(Message::Request(decoded)),
    }) = wire::decode_arena_message(request)
    else {
        panic!("a request decodes");
    };
    assert_eq!(id, u64::from(decoded.decision_id));
    let actions: Vec<&[u8]> = (0..count).map(|k| nth_action(list, k)).collect();
    let expected: Vec<&[u8]> = decoded.legal_actions.iter().map(|a| a.as_bytes()).collect();
    assert_eq!(actions, expected);
    let mut answer = Vec::new();
    scan_answer(id, actions[0], &mut answer);
    let expected = BotMessage {
        message: Some(bot_message::Message::Action(Action {
            decision_id: decoded.decision_id,
            action: decoded.legal_actions[0].clone(),
        })),
    };
    assert_eq!(
        wire::decode_bot_message(&answer).expect("the answer decodes"),
        expected
    );
    String::from_utf8(answer).expect("the answer is text")
}

/// The answer line a tuned bot writes, without a serialiser.
fn scan_answer(decision_id: u64, action: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"action\":{\"decisionId\":");
    out.extend_from_slice(itoa::Buffer::new().format(decision_id).as_bytes());
    out.extend_from_slice(b",\"action\":\"");
    out.extend_from_slice(action);
    out.extend_from_slice(b"\"}}\n");
}

/// Finds what a bot needs in a request line as a tuned bot would: by
/// searching the bytes, never parsing the observation.
struct Scan {
    decision_id: memchr::memmem::Finder<'static>,
    legal_actions: memchr::memmem::Finder<'static>,
}

impl Scan {
    fn new() -> Scan {
        Scan {
            decision_id: memchr::memmem::Finder::new(b"\"decisionId\":"),
            legal_actions: memchr::memmem::Finder::new(b"\"legalActions\":["),
        }
    }

    /// The decision id, the legal actions' list (between its brackets) and
    /// how many actions it holds, of a request line; `None` for any other
    /// line or an action text with an escape (left to serde).
    fn request<'a>(&self, line: &'a [u8]) -> Option<(u64, &'a [u8], usize)> {
        let body = line.strip_prefix(b"{\"request\":")?;
        let id = match self.decision_id.find(body) {
            Some(at) => {
                let digits = &body[at + self.decision_id.needle().len()..];
                let end = digits
                    .iter()
                    .position(|b| !b.is_ascii_digit())
                    .unwrap_or(digits.len());
                std::str::from_utf8(&digits[..end]).ok()?.parse().ok()?
            }
            None => 0,
        };
        let list = &body[self.legal_actions.find(body)? + self.legal_actions.needle().len()..];
        let list = &list[..memchr::memchr(b']', list)?];
        let count = action_count(list);
        (memchr::memchr(b'\\', list).is_none() && count > 0).then_some((id, list, count))
    }
}

/// How many strings a list of JSON strings without escapes holds.
fn action_count(list: &[u8]) -> usize {
    memchr::memchr_iter(b'"', list).count() / 2
}

/// The `k`th string of such a list, without its quotes.
fn nth_action(list: &[u8], k: usize) -> &[u8] {
    list.split(|&b| b == b'"')
        .nth(2 * k + 1)
        .unwrap_or_default()
}

/// The random bot of `bot_role`, answering requests from a byte scan into
/// buffers it keeps.
fn scan_bot_role() {
    let mut rng = Rng::seeded(7);
    let scan = Scan::new();
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::with_capacity(8 * 1024);
    let mut reply = Vec::with_capacity(256);
    loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        reply.clear();
        match scan.request(text) {
            Some((id, list, count)) => {
                scan_answer(id, nth_action(list, rng.below(count)), &mut reply);
            }
            None => match serde_reply(&String::from_utf8_lossy(text), &mut rng) {
                Reply::Line(bytes) => reply.extend_from_slice(&bytes),
                Reply::Skip => continue,
                Reply::Stop => return,
            },
        }
        if stdout
            .write_all(&reply)
            .and_then(|_| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The two fields a bot must read from a request; the rest is skipped
/// unparsed, as a bot that wants no observation would.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct MinimalRequest {
    decision_id: u32,
    legal_actions: Vec<String>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct MinimalMessage {
    hello: Option<serde::de::IgnoredAny>,
    request: Option<MinimalRequest>,
    quit: Option<serde::de::IgnoredAny>,
}

/// A random bot (seeded, so runs are alike) on the line protocol. It reads
/// only what it needs, so the figures are the runner's costs, not those of
/// a full decode (see `request_decode_us` for that).
fn bot_role() {
    let mut rng = Rng::seeded(7);
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let bytes = match serde_reply(&line, &mut rng) {
            Reply::Line(bytes) => bytes,
            Reply::Skip => continue,
            Reply::Stop => return,
        };
        if stdout
            .write_all(&bytes)
            .and_then(|_| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

enum Reply {
    Line(Vec<u8>),
    Skip,
    Stop,
}

/// The serde bot's answer to one line.
fn serde_reply(line: &str, rng: &mut Rng) -> Reply {
    {
        let Ok(message) = serde_json::from_str::<MinimalMessage>(line) else {
            return Reply::Stop;
        };
        let reply = match message {
            MinimalMessage { hello: Some(_), .. } => bot_message::Message::Ready(Ready {
                name: "bench".into(),
            }),
            MinimalMessage {
                request: Some(request),
                ..
            } => {
                let action = request.legal_actions[rng.below(request.legal_actions.len())].clone();
                bot_message::Message::Action(Action {
                    decision_id: request.decision_id,
                    action,
                })
            }
            MinimalMessage { quit: Some(_), .. } => return Reply::Stop,
            _ => return Reply::Skip,
        };
        Reply::Line(wire::encode_bot_message(&BotMessage {
            message: Some(reply),
        }))
    }
}

/// Round trips through a child that answers each line of `out` bytes with
/// one of `back` bytes.
fn pipe_round_trips(n: usize, out: usize, back: usize) -> Vec<Duration> {
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    let mut child = Command::new(exe)
        .env(ROLE, "echo")
        .env(ECHO_BACK, back.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("echo child starts");
    let mut to_child = child.stdin.take().expect("piped stdin");
    let mut from_child = BufReader::new(child.stdout.take().expect("piped stdout"));
    let line = format!("{}\n", "x".repeat(out.saturating_sub(1)));
    let mut answer = String::new();
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        to_child
            .write_all(line.as_bytes())
            .expect("echo child reads");
        answer.clear();
        from_child
            .read_line(&mut answer)
            .expect("echo child answers");
        samples.push(start.elapsed());
    }
    drop(to_child);
    let _ = child.wait();
    samples
}

/// A match between two warm bots: per-decision round trips and bot CPU
/// times, total seconds, decisions.
fn match_run(
    launcher: &dyn BotLauncher,
    role: &str,
    games: u32,
) -> (Vec<Duration>, Vec<Duration>, f64, usize) {
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    // The binary's own folder is the bot folder, so the sandbox shows it.
    let folder = exe
        .parent()
        .expect("the benchmark binary lives in a folder")
        .to_path_buf();
    let name = exe
        .file_name()
        .expect("the benchmark binary has a name")
        .to_string_lossy();
    let bot = |bot_name: &str| BotEntry {
        name: bot_name.into(),
        launch: LaunchSpec {
            command: vec![format!("./{name}")],
            bot_dir: folder.clone(),
            env: vec![(ROLE.into(), role.into())],
        },
    };
    let spec = MatchSpec {
        game: "schotten-totten".into(),
        options: GameOptions::new(),
        games: cairn_runner::rotating_plan(games, 1, 2),
        bots: vec![bot("a"), bot("b")],
        time_control: TimeControl::default(),
        limits: Default::default(),
        cpu: cairn_runner::placement::current_cpu(),
    };
    let start = Instant::now();
    let result = play_match(&spec, launcher).expect("the benchmark match is valid");
    let seconds = start.elapsed().as_secs_f64();
    let all_timings = || {
        result
            .games
            .iter()
            .flat_map(|g| g.seats.iter())
            .flat_map(|s| s.timings.iter())
    };
    let timings: Vec<Duration> = all_timings().map(|t| t.wall).collect();
    let bot_cpus: Vec<Duration> = all_timings().map(|t| t.cpu).collect();
    let forfeits = result
        .games
        .iter()
        .flat_map(|g| g.seats.iter())
        .filter(|s| s.forfeit.is_some())
        .count();
    assert_eq!(forfeits, 0, "benchmark bots never forfeit");
    let decisions = timings.len();
    (timings, bot_cpus, seconds, decisions)
}
