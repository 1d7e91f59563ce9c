//! `cairn play`: a local match between bot folders or `cmd:` commands, on
//! several threads, with the statistics a chess engine tester prints (score,
//! Elo ±95%, LOS, pentanomial pairs with `--mirror`, an SPRT that stops the
//! match when it decides). Exits 0 when the match was refereed, whatever the
//! bots did, except 3 when a bot forfeited every game it played; forfeits
//! are results, shown with their reasons.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use cairn_engine::forfeit::ForfeitReason;
use cairn_engine::seating::seatings_per_table;
use cairn_proto::record::ReplayFile;
use cairn_runner::bot_folder::{load_bot, PreparedBot};
use cairn_runner::build::{BuildError, Builder};
use cairn_runner::sandbox::{Limits, ProgramPolicy};
use cairn_runner::{
    mirrored_plan, rotating_plan, BotLauncher, GameResult, MatchResult, MatchSpec, PlainLauncher,
    SandboxLauncher, SeatResult, TimeControl,
};
use serde_json::{json, Value};

use ab::AbSprt;
use batch::Next;
use progress::{Progress, ProgressMode};
use stats::paired::AbPairs;
use stats::{Sprt, Verdict};
use summary::{HeadToHead, SprtState};

mod ab;
mod batch;
mod progress;
mod validate;
use cairn_arena::stats;
mod summary;
pub use summary::{bounds_text, verdict_text};

use crate::escape;
use crate::table::Table;

#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The game id (`cairn games` lists them).
    #[arg(long, value_parser = crate::games::game_id, required_unless_present = "validate")]
    game: Option<String>,
    /// Check a bot folder as the arena validates a new version: copies of
    /// it play every game and table size its manifest declares, --games
    /// seeds each (default 3); the first forfeit is named with its hint
    /// and the exit status is 1. Only default options are played (and
    /// solo=true for a solo table), as the arena validates: not tactics,
    /// expert, rounds or other variants (try those with `--game G --opt`).
    #[arg(long, value_name = "BOTDIR", conflicts_with_all = ["bots", "sprt", "mirror", "replay", "game", "options"])]
    validate: Option<PathBuf>,
    /// A game option, e.g. --opt tactics=true (repeatable; `cairn games`
    /// lists them).
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// How many games to play (default 1); seats rotate between games. With
    /// --sprt, the most games to play (default 100000).
    #[arg(long)]
    games: Option<u32>,
    /// How many games to play at once, each with its own bot processes
    /// (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Stop as soon as a sequential probability ratio test decides whether
    /// the first bot is elo1 rather than elo0 stronger than the second,
    /// e.g. --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 (two seats; over
    /// deal pairs with --mirror).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Vec<String>,
    /// Print the summary only, not one row per seat per game.
    #[arg(long)]
    quiet: bool,
    /// The match seed; deal d is a hash of the seed and d (game g is deal g;
    /// with --mirror, deal g / seatings), so different seeds share no deal.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play each deal once from every balanced seating (2 at two seats,
    /// n(n-1) at n: every seat and every neighbour equally often), so the
    /// luck of the deal and the order round the table cancel out (--games
    /// is rounded up to a multiple of the seatings).
    #[arg(long)]
    mirror: bool,
    /// An A/B test at a table of 2-5 seats: NEW and OLD play each deal in
    /// turn, in the same seat with the same --field bots in the others, and
    /// the paired difference (Elo scale, 95% interval, --sprt on it) says
    /// whether NEW does better; the tested seat moves round the table.
    #[arg(long, num_args = 2, value_names = ["NEW", "OLD"], conflicts_with_all = ["validate", "mirror"])]
    ab: Vec<String>,
    /// The other seats of an --ab test, one bot per seat (repeat a bot to
    /// seat it twice).
    #[arg(long, num_args = 1.., value_name = "BOT", requires = "ab")]
    field: Vec<String>,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
    /// Print a whole progress line on stderr every few seconds, as off a
    /// terminal (the default there; on a terminal one line is rewritten).
    #[arg(long)]
    progress: bool,
    /// Write the replay file here.
    #[arg(long, value_name = "PATH")]
    replay: Option<PathBuf>,
    /// CPU time each decision may use before drawing on the bank.
    #[arg(long, default_value_t = 1000)]
    decision_ms: u64,
    /// CPU time bank per bot per game.
    #[arg(long, default_value_t = 10_000)]
    bank_ms: u64,
    /// Run the bot folders as they are, without their build commands (an
    /// earlier build in the cache is not used).
    #[arg(long)]
    no_build: bool,
    #[command(flatten)]
    build: crate::runner_cmd::BuildTimeArgs,
    /// Run the bots as plain processes, without the sandbox (trusted bots only).
    #[arg(long)]
    no_sandbox: bool,
    /// Bot folders (holding cairn-bot.toml) or commands written
    /// `cmd:COMMAND` (run through `sh -c`; `cmd:/ABSOLUTE/PROGRAM ARGS` runs
    /// that program of yours, trusted: its folder is shown to the sandbox
    /// read-only, which a runner never does for an arena bot), one per seat.
    #[arg(value_name = "BOT")]
    bots: Vec<String>,
}

impl PlayArgs {
    /// The game (clap requires it unless --validate is given).
    fn game(&self) -> &str {
        self.game.as_deref().unwrap_or_default()
    }

    /// The user's own folders and commands: trusted to name any program.
    fn launcher(&self) -> Box<dyn BotLauncher> {
        match self.no_sandbox {
            true => Box::new(PlainLauncher),
            false => Box::new(
                SandboxLauncher::new(Limits::default()).with_programs(ProgramPolicy::Trusted),
            ),
        }
    }
}

pub fn run(mut args: PlayArgs) -> anyhow::Result<ExitCode> {
    if args.validate.is_some() {
        return validate::run(&args, args.launcher().as_ref());
    }
    let seed = args.seed;
    let options = crate::games::options(args.game(), &args.options)?;
    let sprt = sprt_of(&mut args)?;
    let ab = !args.ab.is_empty();
    if ab {
        if !args.bots.is_empty() {
            bail!("with --ab, name the other seats with --field, not as bots");
        }
        if args.field.is_empty() {
            bail!("--ab needs --field: the bots in the other seats, one per seat");
        }
        args.bots = args.ab.iter().chain(&args.field).cloned().collect();
    }
    let n_games = match (args.games, sprt) {
        (Some(0), _) => bail!("--games must be at least 1"),
        (Some(games), _) => games,
        (None, Some(_)) => 100_000,
        (None, None) => 1,
    };
    if args.bots.is_empty() {
        bail!("name the bots, one per seat: bot folders or `cmd:COMMAND`");
    }
    if args.concurrency == Some(0) {
        bail!("--concurrency must be at least 1");
    }
    if args.decision_ms == 0 && args.bank_ms == 0 {
        bail!("--decision-ms 0 with --bank-ms 0 leaves no time for any decision");
    }
    // NEW and OLD share one seat.
    let n_seats = args.bots.len() - usize::from(ab);
    // --mirror plays every deal from each balanced seating, --ab twice: a
    // deal left without its seatings would count in no pair.
    let seatings = seatings_per_table(n_seats);
    let deal_len = match (ab, args.mirror) {
        (true, _) => 2,
        (false, true) => seatings,
        (false, false) => 1,
    };
    let n_games = match deal_len > 1 && sprt.is_none() {
        true => {
            let rounded = (n_games as usize).div_ceil(deal_len) * deal_len;
            if args.games.is_some() && rounded != n_games as usize {
                let (flag, why) = match ab {
                    true => ("--ab", "every deal played by NEW and by OLD".to_string()),
                    false => (
                        "--mirror",
                        format!("every deal from each of the {seatings} balanced seatings"),
                    ),
                };
                eprintln!("{flag}: {n_games} game(s) become {rounded}, {why}");
            }
            rounded as u32
        }
        false => n_games,
    };
    // Before any bot is built: a seat count the game does not take.
    if let Some(descriptor) = cairn_engine::descriptor(args.game()) {
        descriptor
            .check_seats(&options, n_seats)
            .map_err(|error| anyhow::anyhow!("{error}"))?;
    }
    if sprt.is_some() && n_seats != 2 && !ab {
        bail!(
            "--sprt compares two bots; {} were given (at 3-5 seats, test NEW against OLD with --ab NEW OLD --field ...)",
            n_seats
        );
    }
    let bots = prepare_bots(&args)?;
    let from_folders: Vec<bool> = bots.iter().map(|bot| bot.manifest.is_some()).collect();
    let plan = if args.mirror {
        mirrored_plan
    } else {
        rotating_plan
    };
    let mut spec = MatchSpec {
        game: args.game().to_string(),
        options,
        games: match ab {
            true => Vec::new(),
            false => plan(n_games, args.seed, n_seats),
        },
        bots: bots.into_iter().map(|bot| bot.entry).collect(),
        time_control: TimeControl {
            per_decision: Duration::from_millis(args.decision_ms),
            bank: Duration::from_millis(args.bank_ms),
            ..TimeControl::default()
        },
        limits: Default::default(),
        // One thread: the whole match on the CPU we start on, so a
        // decision's round trip never wakes another CPU.
        cpu: cairn_runner::placement::current_cpu(),
    };
    let ab_units = ab.then(|| {
        let (units, games) = ab::plan(&spec, n_games.div_ceil(2), seed);
        spec.games = games;
        units
    });
    let launcher = args.launcher();
    let interrupted = Arc::new(AtomicBool::new(false));
    watch_interrupts(Arc::clone(&interrupted));
    eprintln!("{}", launcher.describe());
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut progress = Progress::new(spec.games.len(), ProgressMode::detect(args.progress));
    let mut decided = None;
    let mut ab_decided: Option<AbSprt> = None;
    let on_unit = |games: &[GameResult]| {
        if interrupted.load(Ordering::SeqCst) {
            return Next::Stop;
        }
        if ab {
            let pairs = ab::pairs(games, n_seats);
            let state = sprt.map(|sprt| AbSprt::of(sprt, &pairs));
            let tally = pairs.estimate().map(|e| {
                format!(
                    "pairs {}: NEW better {} alike {} worse {}",
                    e.pairs, e.better, e.same, e.worse
                )
            });
            if let Some(state) = state
                .clone()
                .filter(|s| s.check.verdict != Verdict::Continue)
            {
                ab_decided.get_or_insert(state);
            }
            // Once decided, the test's figures stay those of the decision.
            let shown = ab_decided.as_ref().or(state.as_ref());
            progress.show(games.len(), tally, shown.map(|state| &state.check));
            return match ab_decided {
                Some(_) => Next::Stop,
                None => Next::Go,
            };
        }
        let head = (n_seats == 2).then(|| HeadToHead::of(games, args.mirror));
        let state = sprt
            .zip(head.as_ref())
            .map(|(sprt, head)| SprtState::of(sprt, head));
        let tally = head.map(|h| format!("W {} D {} L {}", h.wins, h.draws, h.losses));
        if let Some(state) = state.filter(|s| s.verdict != Verdict::Continue) {
            decided.get_or_insert(state);
        }
        // Once decided, the test's figures stay those of the decision.
        let shown = decided.as_ref().or(state.as_ref());
        progress.show(games.len(), tally, shown.map(SprtState::check).as_ref());
        match decided {
            Some(_) => Next::Stop,
            None => Next::Go,
        }
    };
    let played = match ab_units {
        Some(units) => batch::play(
            units,
            spec.bots.len(),
            concurrency,
            launcher.as_ref(),
            on_unit,
        ),
        None => {
            let unit = unit_len(spec.games.len(), deal_len, sprt.is_some());
            batch::play_units(&spec, unit, concurrency, launcher.as_ref(), on_unit)
        }
    };
    progress.finish();
    let result = match played {
        Ok(result) => result,
        Err(error) if error.is_host_fault() => bail!(
            "{}: check `cairn doctor` (--no-sandbox runs trusted bots without it)",
            escape::line(&error.to_string())
        ),
        Err(error) => return Err(error).context("the match could not be played"),
    };
    let interrupted = interrupted.load(Ordering::SeqCst);
    if interrupted {
        eprintln!(
            "interrupted: {} of {} games played",
            result.games.len(),
            spec.games.len()
        );
    }
    for line in start_failures(&spec, &result, &from_folders, args.no_sandbox) {
        eprintln!("{line}");
    }
    if let Some(path) = &args.replay {
        let replay = ReplayFile::new(result.games.iter().map(|g| g.record.clone()).collect());
        replay.write(path)?;
    }
    let summary = match (ab, n_seats) {
        (true, _) => {
            let pairs = ab::pairs(&result.games, n_seats);
            // The verdict that stopped the match, or where the test stands at its end.
            let state = ab_decided.or_else(|| sprt.map(|sprt| AbSprt::of(sprt, &pairs)));
            Summary::Ab(pairs, state)
        }
        (false, 2) => {
            let head = HeadToHead::of(&result.games, args.mirror);
            let state = decided.or_else(|| sprt.map(|sprt| SprtState::of(sprt, &head)));
            Summary::Duel(head, state)
        }
        (false, 1) => Summary::Solo,
        (false, _) => Summary::Table,
    };
    let names = bot_names(&spec, ab);
    report(&args, &spec, &names, &result, &summary, n_seats)?;
    let beaten: Vec<usize> = (0..spec.bots.len())
        .filter(|&bot| {
            let totals = Totals::of(&result, bot);
            totals.games > 0 && totals.forfeits == totals.games
        })
        .collect();
    // The reason is named here: --quiet and --json print no rows to read it in.
    for &bot in &beaten {
        eprintln!(
            "error: `{}` forfeited every game (exit status 3); its first forfeit: {}",
            names[bot],
            first_forfeit(&result, bot)
        );
    }
    if !beaten.is_empty() {
        return Ok(ExitCode::from(3));
    }
    // As a shell reports a command ended by Ctrl-C.
    if interrupted {
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// The statistics of a played match, by its kind.
enum Summary {
    /// Two seats, from the first bot's side.
    Duel(HeadToHead, Option<SprtState>),
    /// 3-5 seats: each bot's standing.
    Table,
    /// One seat against the game's automaton: each bot's mean score.
    Solo,
    /// `--ab`: NEW against OLD in a field.
    Ab(AbPairs, Option<AbSprt>),
}

/// Each bot's name as the summaries print it: escaped, `(NEW)` and
/// `(OLD)` marked under --ab, and a name still given twice told apart by
/// its place among the bots (`first #1`, `first #3`).
fn bot_names(spec: &MatchSpec, ab: bool) -> Vec<String> {
    let named: Vec<String> = spec
        .bots
        .iter()
        .enumerate()
        .map(|(index, bot)| {
            let name = escape::line(&bot.name);
            match (ab, index) {
                (true, ab::NEW) => format!("{name} (NEW)"),
                (true, ab::OLD) => format!("{name} (OLD)"),
                _ => name.into_owned(),
            }
        })
        .collect();
    named
        .iter()
        .enumerate()
        .map(
            |(index, name)| match named.iter().filter(|n| *n == name).count() {
                1 => name.clone(),
                _ => format!("{name} #{}", index + 1),
            },
        )
        .collect()
}

/// Prints the match's tables (or JSON) and its statistics on stdout.
fn report(
    args: &PlayArgs,
    spec: &MatchSpec,
    names: &[String],
    result: &MatchResult,
    summary: &Summary,
    n_seats: usize,
) -> anyhow::Result<()> {
    let seat_shares = summary::seat_shares(&result.games, n_seats);
    if args.json {
        let mut report = match_json(spec, args.seed, result);
        report["stats"] = match summary {
            Summary::Duel(head, state) => summary::head_to_head_json(head, state.as_ref()),
            Summary::Table => summary::standings_json(&summary::standings(
                &result.games,
                spec.bots.len(),
                n_seats,
            )),
            Summary::Solo => summary::solo_json(
                &spec.game,
                &summary::standings(&result.games, spec.bots.len(), 1),
            ),
            Summary::Ab(pairs, state) => ab::json(pairs, state.as_ref()),
        };
        report["stats"]["seats"] = summary::seat_shares_json(&seat_shares);
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    out!(
        "{}",
        match_tables(spec, names, args.seed, result, args.quiet)
    );
    outln!();
    let text = match summary {
        Summary::Duel(head, state) => summary::head_to_head_text(names, head, state.as_ref()),
        Summary::Table => summary::standings_text(
            names,
            &summary::standings(&result.games, spec.bots.len(), n_seats),
        ),
        Summary::Solo => summary::solo_text(
            &spec.game,
            names,
            &summary::standings(&result.games, spec.bots.len(), 1),
        ),
        Summary::Ab(pairs, state) => ab::text(names, pairs, state.as_ref()),
    };
    out!("{text}");
    out!("{}", summary::seat_shares_text(&seat_shares));
    Ok(())
}

/// Sets `interrupted` at the first Ctrl-C: no game starts after it, the
/// games under way finish (bots run in process groups of their own, so the
/// terminal's signal does not reach them), and the results so far are
/// printed and written as fastchess prints them. A second Ctrl-C quits at
/// once.
fn watch_interrupts(interrupted: Arc<AtomicBool>) {
    use tokio::signal::unix::{signal, SignalKind};
    // Taken here, before any game starts: from now on Ctrl-C is ours.
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let Ok(mut ctrl_c) = runtime.block_on(async { signal(SignalKind::interrupt()) }) else {
        return;
    };
    let watch = move || {
        runtime.block_on(async {
            if ctrl_c.recv().await.is_none() {
                return;
            }
            interrupted.store(true, Ordering::SeqCst);
            eprintln!(
                "\ninterrupted: the games under way finish, then the results so far (Ctrl-C again quits at once)"
            );
            if ctrl_c.recv().await.is_some() {
                std::process::exit(130);
            }
        });
    };
    // Without the thread, Ctrl-C ends the run as it always would.
    let _ = std::thread::Builder::new()
        .name("cairn-play-ctrl-c".into())
        .spawn(watch);
}

/// `exit (exited with code 1)`: bot `bot`'s first forfeit.
fn first_forfeit(result: &MatchResult, bot: usize) -> String {
    result
        .games
        .iter()
        .flat_map(|game| game.seats.iter())
        .filter(|seat| seat.bot == bot)
        .find_map(|seat| seat.forfeit.as_ref())
        .map_or_else(String::new, |forfeit| {
            format!(
                "{} ({})",
                forfeit.reason.as_str(),
                escape::line(&forfeit.detail)
            )
        })
}

/// How many games one set of bot processes plays: one deal under an SPRT,
/// which looks after each; otherwise up to 8 deals, so bots start less
/// often. Never a function of the concurrency: bots seed their randomness
/// per unit, and the games must not change with the thread count.
fn unit_len(n_games: usize, deal_len: usize, sprt: bool) -> usize {
    let deal_len = deal_len.max(1);
    match sprt {
        true => deal_len,
        false => deal_len * (n_games / deal_len / 16).clamp(1, 8),
    }
}

/// Takes `--sprt`'s `key=value` items; the arguments after them that are
/// not sprt keys are bots (`--sprt` takes several values, so it swallows
/// the bots that follow it).
fn sprt_of(args: &mut PlayArgs) -> anyhow::Result<Option<Sprt>> {
    if args.sprt.is_empty() {
        return Ok(None);
    }
    let is_key = |item: &String| {
        ["elo0=", "elo1=", "alpha=", "beta=", "model="]
            .iter()
            .any(|key| item.starts_with(key))
    };
    let n_keys = args.sprt.iter().take_while(|item| is_key(item)).count();
    let bots = args.sprt.split_off(n_keys);
    args.bots.extend(bots);
    let items = args.sprt.iter().flat_map(|item| item.split(','));
    Sprt::parse(items).map(Some).map_err(anyhow::Error::msg)
}

fn prepare_bots(args: &PlayArgs) -> anyhow::Result<Vec<PreparedBot>> {
    args.bots
        .iter()
        .map(|argument| prepare_bot(args, argument, Some(args.game())))
        .collect()
}

/// Loads and builds one bot argument, checking it plays `game` if given.
fn prepare_bot(args: &PlayArgs, argument: &str, game: Option<&str>) -> anyhow::Result<PreparedBot> {
    let limits = args.build.limits();
    let builder = match args.no_sandbox {
        true => Builder::plain(limits),
        false => Builder::sandboxed(limits),
    };
    let bot = load_bot(&bot_argument(argument)?)?;
    if let Some(game) = game {
        bot.check_game(game)?;
    }
    if let Some(why) = bot.outside_its_folder().filter(|_| !args.no_sandbox) {
        bail!("{why}");
    }
    Ok(match args.no_build {
        true => bot,
        false => bot
            .built(&build_cache(), &builder)
            .map_err(|error| build_failure(&bot.entry.name, error, args.no_sandbox))?,
    })
}

/// What `load_bot` reads: a folder holding a manifest, or a command (the
/// text after `cmd:`). A bare word that is no folder is a mistake, not a
/// command: a misspelled folder would otherwise run as a shell command.
fn bot_argument(argument: &str) -> anyhow::Result<String> {
    if let Some(command) = argument.strip_prefix("cmd:") {
        if command.trim().is_empty() {
            bail!("`cmd:` needs a command after it, e.g. `cmd:python3 bot.py`");
        }
        return Ok(command.to_string());
    }
    let folder = std::path::Path::new(argument);
    let shown = escape::line(argument);
    if folder
        .join(cairn_runner::bot_folder::MANIFEST_NAME)
        .is_file()
    {
        return Ok(argument.to_string());
    }
    if folder.is_dir() {
        bail!(
            "bot folder `{shown}` has no {}; to run a command write `cmd:...`",
            cairn_runner::bot_folder::MANIFEST_NAME
        );
    }
    bail!("no such bot folder `{shown}`; to run a command write `cmd:...`")
}

/// One line per bot whose command could not start, naming the fix.
fn start_failures(
    spec: &MatchSpec,
    result: &MatchResult,
    from_folders: &[bool],
    no_sandbox: bool,
) -> Vec<String> {
    let mut lines = Vec::new();
    for (index, bot) in spec.bots.iter().enumerate() {
        let failed = result
            .games
            .iter()
            .flat_map(|game| game.seats.iter())
            .filter(|seat| seat.bot == index)
            .filter_map(|seat| seat.forfeit.as_ref())
            .find(|forfeit| forfeit.reason == ForfeitReason::StartFailed);
        let Some(forfeit) = failed else { continue };
        let folder = match from_folders.get(index).copied().unwrap_or(false) {
            true => "the bot folder",
            false => "this folder",
        };
        let where_it_runs = match no_sandbox {
            true => format!("it runs in {folder}"),
            false => format!("it runs in {folder}, in the sandbox, which shows the system's programs and that folder only"),
        };
        let hidden = match (
            no_sandbox,
            from_folders.get(index).copied().unwrap_or(false),
        ) {
            (false, false) => hidden_program(&bot.launch.command),
            _ => None,
        };
        if let Some(program) = hidden {
            let name = program
                .file_name()
                .map_or(String::new(), |name| name.to_string_lossy().into_owned());
            lines.push(format!(
                "bot `{}` could not start: `{}` is not in /usr/local/bin, /usr/bin or /bin, the only folders where the sandbox's `sh -c` looks for a `cmd:` command's program: put the command in a bot folder's cairn-bot.toml (`command = [\"{}\", ...]`; the sandbox shows the program it names) or pass --no-sandbox",
                escape::line(&bot.name),
                escape::line(&program.display().to_string()),
                escape::line(&name)
            ));
            continue;
        }
        let fix = match from_folders.get(index).copied().unwrap_or(false) {
            true => "fix `command` in its cairn-bot.toml",
            false => "check the command (a `cmd:` command runs through `sh -c`)",
        };
        lines.push(format!(
            "bot `{}` could not start ({}): {fix} ({where_it_runs})",
            escape::line(&bot.name),
            escape::line(&forfeit.detail)
        ));
    }
    lines
}

/// Where `sh -c` in the sandbox looks for a `cmd:` command's program (the
/// runner's sandbox `PATH`).
const SANDBOX_SEARCH_PATH: [&str; 3] = ["/usr/local/bin", "/usr/bin", "/bin"];

/// The program a `cmd:` command (`sh -c 'exec COMMAND'`) starts, when the
/// caller's `PATH` finds it where the sandbox's shell does not look
/// (`cairn` from `~/.cargo/bin` or `target/debug`, a virtualenv's `python3`).
fn hidden_program(command: &[String]) -> Option<PathBuf> {
    let line = match command {
        [shell, flag, line] if shell == "sh" && flag == "-c" => line,
        _ => return None,
    };
    let first = line.split_whitespace().find(|word| *word != "exec")?;
    if first.contains('/') {
        return None;
    }
    let found = std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(first))
        .find(|path| path.is_file())?;
    let searched = SANDBOX_SEARCH_PATH
        .iter()
        .any(|dir| found.parent() == Some(Path::new(dir)));
    (!searched).then_some(found)
}

/// Where sandboxed builds are kept, by content hash.
fn build_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("cairn").join("builds")
}

/// A failed build as one line that names the fix, then the log's tail.
fn build_failure(name: &str, error: BuildError, no_sandbox: bool) -> anyhow::Error {
    let name = escape::line(name);
    match error {
        BuildError::Failed { detail, log_tail } => {
            let fix = match no_sandbox {
                true => "fix the build command in its cairn-bot.toml",
                false => "fix the build command in its cairn-bot.toml (builds run sandboxed: no network, only the bot folder writable; --no-sandbox builds a trusted bot in place)",
            };
            let tail = match log_tail.trim().is_empty() {
                true => String::new(),
                false => format!("\n{}", escape::block(log_tail.trim_end())),
            };
            anyhow::anyhow!("bot `{name}`: its build failed ({}): {fix}{tail}", escape::line(&detail))
        }
        BuildError::Host(detail) => anyhow::anyhow!(
            "bot `{name}` could not be built on this machine: {}: check `cairn doctor`, or pass --no-build",
            escape::line(&detail)
        ),
    }
}

fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}

fn seat_json(spec: &MatchSpec, seat: usize, result: &SeatResult) -> Value {
    let cpu: Duration = result.timings.iter().map(|t| t.cpu).sum();
    let max_wall = result
        .timings
        .iter()
        .map(|t| t.wall)
        .max()
        .unwrap_or_default();
    json!({
        "seat": seat,
        "bot": spec.bots[result.bot].name,
        "score": result.score,
        "rank": result.rank,
        "forfeit": result.forfeit.as_ref().map(|f| json!({"reason": f.reason.as_str(), "detail": f.detail})),
        "decisions": result.timings.len(),
        "cpu_ms": millis(cpu),
        "max_decision_wall_ms": millis(max_wall),
    })
}

fn match_json(spec: &MatchSpec, seed: u64, result: &MatchResult) -> Value {
    let games: Vec<Value> = result
        .games
        .iter()
        .map(|game| {
            json!({
                "index": game.index,
                "seed": game.seed,
                "ended_by": game.record.score.ended_by.as_str(),
                "seats": game.seats.iter().enumerate().map(|(seat, r)| seat_json(spec, seat, r)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let bots: Vec<Value> = spec
        .bots
        .iter()
        .enumerate()
        .map(|(index, bot)| {
            let totals = Totals::of(result, index);
            json!({"name": bot.name, "games": totals.games, "wins": totals.wins,
                   "shared_firsts": totals.shared_firsts, "points": totals.points,
                   "forfeits": totals.forfeits, "stderr": result.stderr[index].to_string(),
                   "stderr_bytes_not_kept": result.stderr[index].dropped})
        })
        .collect();
    json!({"game": spec.game, "options": spec.options, "seed": seed, "games": games, "bots": bots})
}

/// One bot's results over the match.
struct Totals {
    games: usize,
    /// Games it ranked first in alone (never at one seat: solo has no winner).
    wins: usize,
    /// Games it shared first place in: a draw at two seats.
    shared_firsts: usize,
    points: i64,
    forfeits: usize,
    decisions: usize,
    cpu: Duration,
}

impl Totals {
    fn of(result: &MatchResult, bot: usize) -> Totals {
        // Each of the bot's seats, with how many of its game's seats ranked
        // first (none in a solo game, which has no winner).
        let seats: Vec<(&SeatResult, usize)> = result
            .games
            .iter()
            .flat_map(|g| {
                let solo = g.seats.len() < 2;
                let firsts = g.seats.iter().filter(|s| s.rank == 1 && !solo).count();
                g.seats.iter().map(move |s| (s, firsts))
            })
            .filter(|(s, _)| s.bot == bot)
            .collect();
        let firsts = |alone: bool| {
            seats
                .iter()
                .filter(|&&(s, firsts)| s.rank == 1 && firsts > 0 && (firsts == 1) == alone)
                .count()
        };
        let (wins, shared_firsts) = (firsts(true), firsts(false));
        let seats: Vec<&SeatResult> = seats.into_iter().map(|(s, _)| s).collect();
        Totals {
            games: seats.len(),
            wins,
            shared_firsts,
            points: seats.iter().map(|s| s.score as i64).sum(),
            forfeits: seats.iter().filter(|s| s.forfeit.is_some()).count(),
            decisions: seats.iter().map(|s| s.timings.len()).sum(),
            cpu: seats
                .iter()
                .flat_map(|s| s.timings.iter())
                .map(|t| t.cpu)
                .sum(),
        }
    }
}

fn match_tables(
    spec: &MatchSpec,
    names: &[String],
    seed: u64,
    result: &MatchResult,
    quiet: bool,
) -> String {
    let mut games = Table::new(&[
        ">game", ">seed", ">seat", "bot", ">score", ">rank", "result",
    ]);
    for game in &result.games {
        for (seat, r) in game.seats.iter().enumerate() {
            let outcome = match &r.forfeit {
                Some(f) => format!("forfeit: {} ({})", f.reason.as_str(), f.detail),
                // The seats that did not forfeit a game others' forfeits ended.
                None if game.record.score.ended_by == cairn_engine::forfeit::EndedBy::Forfeit => {
                    "ended by another seat's forfeit".to_string()
                }
                None => game.record.score.ended_by.as_str().to_string(),
            };
            let cells = [
                game.index.to_string(),
                game.seed.to_string(),
                seat.to_string(),
                names[r.bot].clone(),
            ];
            let mut row: Vec<String> = cells.into();
            row.extend([r.score.to_string(), r.rank.to_string(), outcome]);
            games.row(row);
        }
    }
    let mut totals = Table::new(&[
        "bot",
        ">games",
        ">wins",
        ">shared 1st",
        ">points",
        ">forfeits",
        ">decisions",
        ">cpu ms/decision",
    ]);
    for (index, name) in names.iter().enumerate() {
        let t = Totals::of(result, index);
        let per_decision = if t.decisions == 0 {
            0.0
        } else {
            millis(t.cpu) / t.decisions as f64
        };
        totals.row(vec![
            name.clone(),
            t.games.to_string(),
            t.wins.to_string(),
            t.shared_firsts.to_string(),
            t.points.to_string(),
            t.forfeits.to_string(),
            t.decisions.to_string(),
            format!("{per_decision:.3}"),
        ]);
    }
    let variant = cairn_arena::store::variant_key(&spec.options);
    let mut out = format!(
        "{}, {} game(s) from seed {}\n\n",
        escape::line(&crate::ratings::game_variant(&spec.game, &variant)),
        result.games.len(),
        seed
    );
    if !quiet {
        out.push_str(&games.render());
        out.push('\n');
    }
    out.push_str(&totals.render());
    for (index, kept) in result.stderr.iter().enumerate() {
        let text = kept.to_string();
        if !text.is_empty() && Totals::of(result, index).forfeits > 0 {
            out.push_str(&format!(
                "\nstderr of {}:\n{}\n",
                crate::escape::line(&spec.bots[index].name),
                crate::escape::block(text.trim_end())
            ));
        }
    }
    out
}
