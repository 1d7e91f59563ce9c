//! The match loop: the engine referees, the bots only propose. A match is
//! a list of games between the same bots (each with its seed and seating,
//! see [`crate::seating`]), one process per bot for the whole match (restarted
//! for the next game only after it forfeited one).
//!
//! A seat that forfeits is out. With two seats the game stops and the
//! opponent wins; with more, the game goes on and the engine plays the out
//! seat's turns with its first legal action (the engine's fixed order makes
//! that deterministic, so the replay stays a plain action list).

use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

use cairn_engine::{new_game, AnyGame, GameOptions, Seat, SetupError};
use cairn_proto::convert::{self, ConvertError};
use cairn_proto::game::v1::{self as wire, arena_message, bot_message};

use crate::connection::{
    Answer, BotConnection, Budget, Failure, IoLimits, StartError, CPU_CHECK_INTERVAL,
};
use crate::hints::{self, Expecting};
use crate::launch::{BotLauncher, LaunchSpec};
use crate::pipe::wait_any_readable;
use crate::placement::pin_current_thread;
use crate::seating::{check_plan, BadSeating, GamePlan};
use crate::stderr::{KeptStderr, StderrLog};
use crate::stop::MatchStop;
use crate::time_control::{GameClock, TimeControl};
use cairn_engine::forfeit::{final_score, FinalScore, Forfeit, ForfeitReason};
use cairn_proto::record::{hash_text, GameRecord};

/// One bot of a match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotEntry {
    pub name: String,
    pub launch: LaunchSpec,
}

/// The bots with `CAIRN_BOT_SEED` set from the first game's deal and the
/// bot's index, unless a bot sets it itself: bots that draw their
/// randomness from it (the SDK's do) then play a match the same way every
/// time with this build of cairn, locally (`cairn play`) and in the arena.
/// The seed is a one-way hash (SipHash) of the deal, so it tells a bot
/// nothing about the deal that its own hand does not.
pub fn seeded_bots(bots: &[BotEntry], games: &[GamePlan]) -> Vec<BotEntry> {
    use std::hash::{Hash, Hasher};
    let deal = games.first().map_or(0, |game| game.seed);
    bots.iter()
        .enumerate()
        .map(|(index, bot)| {
            let mut bot = bot.clone();
            if !bot
                .launch
                .env
                .iter()
                .any(|(key, _)| key == "CAIRN_BOT_SEED")
            {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                (deal, index).hash(&mut hasher);
                bot.launch
                    .env
                    .push(("CAIRN_BOT_SEED".into(), hasher.finish().to_string()));
            }
            bot
        })
        .collect()
}

/// Everything that defines a match.
#[derive(Debug, Clone)]
pub struct MatchSpec {
    pub game: String,
    pub options: GameOptions,
    /// The games, in order.
    pub games: Vec<GamePlan>,
    /// One per seat; the seat count is their number.
    pub bots: Vec<BotEntry>,
    pub time_control: TimeControl,
    pub limits: IoLimits,
    /// The CPU to keep the whole match on (see [`crate::placement`]); `None`
    /// lets the scheduler place it.
    pub cpu: Option<usize>,
}

/// Why a match could not be refereed (never because of a bot).
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error(transparent)]
    Plan(#[from] BadSeating),
    #[error("the engine refused its own legal action `{0}`")]
    Engine(String),
    /// This host could not start a bot (the sandbox's setup, descriptors,
    /// memory): no bot's fault, so no game of the match is scored here.
    #[error("this host could not start bot `{bot}`: {detail}")]
    Host { bot: String, detail: String },
    /// Stopped through its [`MatchStop`] (the match is not wanted any more).
    #[error("the match was stopped before its end")]
    Stopped,
}

impl MatchError {
    /// Whether the fault is the host's (another host may play the match).
    pub fn is_host_fault(&self) -> bool {
        matches!(self, MatchError::Host { .. })
    }
}

/// One decision's cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecisionTiming {
    pub wall: Duration,
    pub cpu: Duration,
}

/// One seat of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatResult {
    /// Index into the match's bots.
    pub bot: usize,
    pub score: i32,
    pub rank: u32,
    pub forfeit: Option<Forfeit>,
    pub timings: Vec<DecisionTiming>,
    /// The last bytes (at most [`crate::stderr::STDERR_TAIL_CAP`]) its bot
    /// wrote on stderr during this game, as written (not always UTF-8).
    pub stderr_tail: Vec<u8>,
}

/// One game.
#[derive(Debug, Clone)]
pub struct GameResult {
    pub index: u32,
    pub seed: u64,
    pub seats: Vec<SeatResult>,
    pub record: GameRecord,
}

/// A refereed match.
#[derive(Debug, Clone)]
pub struct MatchResult {
    pub games: Vec<GameResult>,
    /// Per bot, its kept stderr.
    pub stderr: Vec<KeptStderr>,
}

/// A bot across the match: its connection while it runs, its stderr logs.
#[derive(Debug)]
struct BotSlot {
    entry: BotEntry,
    connection: Option<BotConnection>,
    stderr: Vec<StderrLog>,
    /// The stderr tail of a process retired during the current game.
    retired_tail: Vec<u8>,
}

/// How long a killed bot's last stderr bytes are awaited (its traceback).
const LAST_WORDS_WAIT: Duration = Duration::from_millis(500);

impl BotSlot {
    fn retire(&mut self, wait: Option<Duration>) {
        if let Some(connection) = self.connection.take() {
            let log = match wait {
                Some(wait) => connection.close(wait),
                None => connection.kill(),
            };
            self.retired_tail = log.take_tail(LAST_WORDS_WAIT);
            self.stderr.push(log);
        }
    }

    /// What the bot wrote on stderr during the game now ending (without
    /// waiting for a live bot: a line still in its pipe goes to the next game).
    fn game_tail(&mut self) -> Vec<u8> {
        let mut tail = std::mem::take(&mut self.retired_tail);
        if let Some(connection) = &self.connection {
            tail.extend(connection.stderr().take_tail(Duration::ZERO));
        }
        let excess = tail.len().saturating_sub(crate::stderr::STDERR_TAIL_CAP);
        tail.drain(..excess);
        tail
    }
}

/// Plays a whole match. Every bot process is gone when this returns.
pub fn play_match(spec: &MatchSpec, launcher: &dyn BotLauncher) -> Result<MatchResult, MatchError> {
    play_match_until(spec, launcher, &MatchStop::new())
}

/// [`play_match`], unless `stop` is requested first: then every bot is
/// killed within a decision-check interval and the answer is
/// [`MatchError::Stopped`] (the games played so far are dropped).
pub fn play_match_until(
    spec: &MatchSpec,
    launcher: &dyn BotLauncher,
    stop: &MatchStop,
) -> Result<MatchResult, MatchError> {
    // The replay names the variant canonically, as the arena and the CLI
    // do: an option equal to its default is no option.
    let canonical = cairn_engine::canonical_options(&spec.game, &spec.options)?;
    let respecified;
    let spec = if canonical == spec.options {
        spec
    } else {
        respecified = MatchSpec {
            options: canonical,
            ..spec.clone()
        };
        &respecified
    };
    let n_seats = spec.bots.len();
    // Refuse a bad setup before any bot starts.
    check_plan(&spec.games, n_seats)?;
    let probe = new_game(
        &spec.game,
        &spec.options,
        n_seats,
        spec.games.first().map_or(0, |g| g.seed),
    )?;
    if let Some(seat) = probe.current_seat() {
        convert::observation(probe.as_ref(), seat)?;
    }
    // Pinning is a speed-up, not a requirement: a CPU we may not use leaves
    // the match where the scheduler puts it.
    let _pinned = spec.cpu.and_then(|cpu| pin_current_thread(cpu).ok());
    let mut slots: Vec<BotSlot> = spec
        .bots
        .iter()
        .map(|entry| BotSlot {
            entry: entry.clone(),
            connection: None,
            stderr: Vec::new(),
            retired_tail: Vec::new(),
        })
        .collect();
    let mut games = Vec::with_capacity(spec.games.len());
    let mut failure = None;
    for index in 0..spec.games.len() as u32 {
        match play_game(spec, launcher, stop, &mut slots, index) {
            Ok(game) => games.push(game),
            Err(error) => {
                failure = Some(error);
                break;
            }
        }
    }
    if matches!(failure, Some(MatchError::Stopped)) {
        for slot in &mut slots {
            slot.retire(None);
        }
    }
    say_goodbye(&mut slots);
    match failure {
        Some(error) => Err(error),
        None => Ok(MatchResult {
            games,
            stderr: slots.iter().map(stderr_text).collect(),
        }),
    }
}

fn say_goodbye(slots: &mut [BotSlot]) {
    let quit = wire::ArenaMessage {
        message: Some(arena_message::Message::Quit(wire::Quit {})),
    };
    for slot in slots.iter_mut() {
        if let Some(connection) = slot.connection.as_mut() {
            let _ = connection.send(&quit, Duration::from_millis(100));
        }
    }
    for slot in slots.iter_mut() {
        slot.retire(Some(Duration::from_millis(500)));
    }
}

fn stderr_text(slot: &BotSlot) -> KeptStderr {
    let logs: Vec<KeptStderr> = slot.stderr.iter().map(StderrLog::kept).collect();
    KeptStderr::joined(&logs, "\n[--- restarted ---]\n", usize::MAX)
}

/// One game in progress.
struct Table<'a> {
    spec: &'a MatchSpec,
    stop: &'a MatchStop,
    state: Box<dyn AnyGame>,
    seed: u64,
    /// The bot at each seat.
    seat_bot: Vec<usize>,
    out: Vec<bool>,
    forfeits: Vec<Forfeit>,
    /// Per seat, what it saw since its last request.
    pending: Vec<Vec<wire::Event>>,
    clocks: Vec<GameClock>,
    timings: Vec<Vec<DecisionTiming>>,
    actions: Vec<String>,
    hashes: Vec<String>,
    /// Per action, the CPU time its decision was charged (none when the
    /// engine played for an out seat).
    cpu_us: Vec<Option<u64>>,
    next_decision_id: u32,
    /// The legal actions' texts, kept from one decision to the next so
    /// their strings are reused.
    legal: Vec<String>,
}

fn play_game(
    spec: &MatchSpec,
    launcher: &dyn BotLauncher,
    stop: &MatchStop,
    slots: &mut [BotSlot],
    index: u32,
) -> Result<GameResult, MatchError> {
    let n_seats = slots.len();
    let plan = &spec.games[index as usize];
    if stop.requested() {
        return Err(MatchError::Stopped);
    }
    let mut table = Table {
        spec,
        stop,
        state: new_game(&spec.game, &spec.options, n_seats, plan.seed)?,
        seed: plan.seed,
        seat_bot: plan.seating.clone(),
        out: vec![false; n_seats],
        forfeits: Vec::new(),
        pending: vec![Vec::new(); n_seats],
        clocks: vec![GameClock::new(&spec.time_control); n_seats],
        timings: vec![Vec::new(); n_seats],
        actions: Vec::new(),
        hashes: Vec::new(),
        cpu_us: Vec::new(),
        next_decision_id: 1,
        legal: Vec::new(),
    };
    table.greet(launcher, slots, index)?;
    table.play(slots)?;
    let score = final_score(
        &spec.game,
        table.state.outcome().as_ref(),
        n_seats,
        &table.forfeits,
    );
    table.announce(slots, &score);
    Ok(table.finish(index, score, slots))
}

impl Table<'_> {
    fn n_seats(&self) -> usize {
        self.out.len()
    }

    fn seats_in(&self) -> usize {
        self.out.iter().filter(|out| !**out).count()
    }

    fn seats_still_in(&self) -> Vec<Seat> {
        (0..self.n_seats())
            .filter(|&seat| !self.out[seat])
            .collect()
    }

    /// Forfeits leave nobody to play against (or nobody at all).
    fn stopped_by_forfeits(&self) -> bool {
        let left = self.seats_in();
        left == 0 || (self.n_seats() > 1 && left == 1)
    }

    fn forfeit(&mut self, slots: &mut [BotSlot], seat: Seat, failure: Failure) {
        slots[self.seat_bot[seat]].retire(None);
        self.out[seat] = true;
        self.pending[seat].clear();
        let forfeit = Forfeit::new(seat, failure.reason, failure.detail, self.actions.len());
        self.forfeits.push(forfeit);
    }

    /// Starts whoever is not running, sends every seat its hello, then
    /// awaits every seat's ready at once: one deadline for all, each pipe
    /// read as soon as it has something, so a seat that never answers costs
    /// only itself (and the others' wait, never their game).
    fn greet(
        &mut self,
        launcher: &dyn BotLauncher,
        slots: &mut [BotSlot],
        index: u32,
    ) -> Result<(), MatchError> {
        let wall_cap = self.spec.time_control.setup_wall_cap();
        for seat in 0..self.n_seats() {
            let slot = &mut slots[self.seat_bot[seat]];
            if slot.connection.is_none() {
                match BotConnection::start(launcher, &slot.entry.launch, &self.spec.limits) {
                    Ok(connection) => slot.connection = Some(connection),
                    Err(StartError::Bot(failure)) => {
                        self.forfeit(slots, seat, failure);
                        continue;
                    }
                    Err(StartError::Host(detail)) => {
                        let bot = slot.entry.name.clone();
                        return Err(MatchError::Host { bot, detail });
                    }
                }
            }
            let sent = connection_of(slots, self.seat_bot[seat])
                .and_then(|connection| connection.send(&self.hello(seat, index), wall_cap));
            if let Err(failure) = sent {
                self.forfeit(slots, seat, failure);
            }
        }
        self.await_readies(slots);
        Ok(())
    }

    /// A seat has [`TimeControl::setup`] of CPU time (as for decisions,
    /// so a loaded host costs no bot its game) within the wall-clock cap.
    fn await_readies(&mut self, slots: &mut [BotSlot]) {
        let setup = self.spec.time_control.setup;
        let wall_cap = self.spec.time_control.setup_wall_cap();
        let deadline = Instant::now() + wall_cap;
        let mut waiting = self.seats_still_in();
        loop {
            let mut still_waiting = Vec::with_capacity(waiting.len());
            for seat in waiting {
                match self.check_ready(slots, seat, setup) {
                    Ok(true) => {}
                    Ok(false) => still_waiting.push(seat),
                    Err(failure) => self.forfeit(slots, seat, failure),
                }
            }
            waiting = still_waiting;
            // A stopped match ends at the play loop's first check.
            if waiting.is_empty() || self.stop.requested() {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                for seat in waiting {
                    let used = connection_of(slots, self.seat_bot[seat])
                        .ok()
                        .and_then(|connection| connection.cpu_used());
                    let detail = hints::no_ready(wall_cap, used, setup);
                    self.forfeit(slots, seat, Failure::new(ForfeitReason::Timeout, detail));
                }
                return;
            }
            let fds: Vec<BorrowedFd<'_>> = waiting
                .iter()
                .filter_map(|&seat| slots[self.seat_bot[seat]].connection.as_ref())
                .map(BotConnection::stdout_fd)
                .collect();
            // A failed poll only shortens this wait: the next round reads
            // every pipe anyway, and the deadline still holds.
            let _ = wait_any_readable(&fds, left.min(CPU_CHECK_INTERVAL));
        }
    }

    /// Whether the seat's ready has come (without waiting), or its forfeit
    /// (its start-up used more than `setup` of CPU time).
    fn check_ready(
        &mut self,
        slots: &mut [BotSlot],
        seat: Seat,
        setup: Duration,
    ) -> Result<bool, Failure> {
        let connection = connection_of(slots, self.seat_bot[seat])?;
        let Some(answer) = connection.receive_now()? else {
            return match connection.cpu_used() {
                Some(used) if used > setup => {
                    Err(connection
                        .fail(ForfeitReason::Timeout, hints::setup_out_of_cpu(used, setup)))
                }
                _ => Ok(false),
            };
        };
        match answer.message.message {
            Some(bot_message::Message::Ready(_)) => {
                connection.reset_cpu_mark();
                Ok(true)
            }
            _ => Err(Failure::new(
                ForfeitReason::ProtocolError,
                hints::wrong_shape(
                    "answered hello with something other than ready",
                    Some(Expecting::Ready),
                ),
            )),
        }
    }

    fn hello(&self, seat: Seat, index: u32) -> wire::ArenaMessage {
        let control = &self.spec.time_control;
        let hello = wire::Hello {
            protocol_version: cairn_proto::PROTOCOL_VERSION as i32,
            game: self.spec.game.clone(),
            options: self.spec.options.clone(),
            seat: seat as u32,
            n_seats: self.n_seats() as u32,
            time_control: Some(wire::TimeControl {
                per_decision_ms: control.per_decision.as_millis() as u32,
                bank_ms: control.bank.as_millis() as u32,
            }),
            game_index: index,
            n_games: self.spec.games.len() as u32,
        };
        wire::ArenaMessage {
            message: Some(arena_message::Message::Hello(hello)),
        }
    }

    fn play(&mut self, slots: &mut [BotSlot]) -> Result<(), MatchError> {
        while let Some(seat) = self.state.current_seat() {
            if self.stop.requested() {
                return Err(MatchError::Stopped);
            }
            if self.stopped_by_forfeits() {
                break;
            }
            let mut legal = std::mem::take(&mut self.legal);
            self.state.legal_actions_into(&mut legal);
            // RULING (ours): an out seat of a 3-5 seat game plays its first
            // legal action: deterministic, so the replay stays a plain list.
            let (action, cpu) = if self.out[seat] {
                let first = legal.first().cloned();
                self.legal = legal;
                let first = first
                    .ok_or_else(|| MatchError::Engine("no legal action in a live game".into()))?;
                (first, None)
            } else {
                match self.ask(slots, seat, legal)? {
                    // An accepted answer's timing is the seat's last one.
                    Ok(action) => (action, self.timings[seat].last().map(|t| t.cpu)),
                    // A stopped match charges nobody: the loop's check ends it.
                    Err(_) if self.stop.requested() => continue,
                    Err(failure) => {
                        self.forfeit(slots, seat, failure);
                        continue;
                    }
                }
            };
            self.apply(seat, action)?;
            self.cpu_us.push(cpu.map(|cpu| cpu.as_micros() as u64));
        }
        Ok(())
    }

    /// Shows the other seats what they may see of `action`, then applies it.
    fn apply(&mut self, seat: Seat, action: String) -> Result<(), MatchError> {
        for viewer in self
            .seats_still_in()
            .into_iter()
            .filter(|&viewer| viewer != seat)
        {
            let seen = self
                .state
                .action_seen_by(&action, viewer)
                .unwrap_or_else(|| action.clone());
            self.pending[viewer].push(wire::Event {
                seat: seat as u32,
                action: seen,
            });
        }
        // Only actions from the engine's own legal list get here.
        if self.state.apply_text(&action).is_err() {
            return Err(MatchError::Engine(action));
        }
        if let Some(announced) = self.state.announcement() {
            for viewer in self.seats_still_in() {
                self.pending[viewer].push(wire::Event {
                    seat: seat as u32,
                    action: announced.clone(),
                });
            }
        }
        self.actions.push(action);
        self.hashes.push(hash_text(self.state.state_hash()));
        Ok(())
    }

    /// The seat's decision: Ok(Ok(action)), Ok(Err(forfeit)), or our own
    /// error when the state cannot be put on the wire.
    fn ask(
        &mut self,
        slots: &mut [BotSlot],
        seat: Seat,
        legal: Vec<String>,
    ) -> Result<Result<String, Failure>, MatchError> {
        let decision_id = self.next_decision_id;
        self.next_decision_id += 1;
        let request = wire::Request {
            decision_id,
            events: std::mem::take(&mut self.pending[seat]),
            observation: Some(convert::observation(self.state.as_ref(), seat)?),
            legal_actions: legal,
            bank_left_ms: self.clocks[seat].bank_left().as_millis() as u32,
        };
        let message = wire::ArenaMessage {
            message: Some(arena_message::Message::Request(request)),
        };
        let answer = self.exchange(slots, seat, &message);
        // The legal actions travel inside the request; take them back out
        // rather than keeping a second copy.
        let legal = match message.message {
            Some(arena_message::Message::Request(request)) => request.legal_actions,
            _ => Vec::new(),
        };
        let checked =
            answer.and_then(|answer| self.check_answer(seat, decision_id, answer, &legal));
        self.legal = legal;
        Ok(checked)
    }

    fn exchange(
        &mut self,
        slots: &mut [BotSlot],
        seat: Seat,
        message: &wire::ArenaMessage,
    ) -> Result<Answer, Failure> {
        let clock = &self.clocks[seat];
        let budget = Budget {
            cpu: Some(clock.allowance()),
            wall: clock.wall_backstop(),
        };
        let connection = connection_of(slots, self.seat_bot[seat])?;
        connection.send(message, budget.wall)?;
        connection.receive(budget, self.stop)
    }

    fn check_answer(
        &mut self,
        seat: Seat,
        decision_id: u32,
        answer: Answer,
        legal: &[String],
    ) -> Result<String, Failure> {
        if let Err(overdrawn) = self.clocks[seat].charge(answer.cpu) {
            let detail = hints::out_of_cpu(Some(overdrawn.used), overdrawn.allowed);
            return Err(Failure::new(ForfeitReason::Timeout, detail));
        }
        self.timings[seat].push(DecisionTiming {
            wall: answer.wall,
            cpu: answer.cpu,
        });
        let action = match answer.message.message {
            Some(bot_message::Message::Action(action)) => action,
            _ => {
                return Err(Failure::new(
                    ForfeitReason::ProtocolError,
                    hints::wrong_shape(
                        "answered a request with something other than an action",
                        Some(Expecting::Action(decision_id)),
                    ),
                ))
            }
        };
        if action.decision_id != decision_id {
            let detail = format!(
                "answered decision {} while {} was asked",
                action.decision_id, decision_id
            );
            return Err(Failure::new(ForfeitReason::ProtocolError, detail));
        }
        if !legal.contains(&action.action) {
            let shown: String = action.action.chars().take(80).collect();
            return Err(Failure::new(
                ForfeitReason::IllegalAction,
                format!("`{shown}` is not a legal action"),
            ));
        }
        Ok(action.action)
    }

    /// Tells every seat still in how the game ended.
    fn announce(&mut self, slots: &mut [BotSlot], score: &FinalScore) {
        let forfeits: Vec<wire::Forfeit> = self
            .forfeits
            .iter()
            .map(|f| wire::Forfeit {
                seat: f.seat as u32,
                reason: wire::ForfeitReason::from(f.reason) as i32,
                detail: f.detail.clone(),
            })
            .collect();
        for seat in self.seats_still_in() {
            let game_over = wire::GameOver {
                events: std::mem::take(&mut self.pending[seat]),
                scores: score.scores.clone(),
                ranks: score.ranks.clone(),
                ended_by: wire::EndReason::from(score.ended_by) as i32,
                forfeits: forfeits.clone(),
                // Every state on the wire was encoded before, so this cannot fail.
                observation: convert::observation(self.state.as_ref(), seat).ok(),
            };
            let message = wire::ArenaMessage {
                message: Some(arena_message::Message::GameOver(game_over)),
            };
            let slot = &mut slots[self.seat_bot[seat]];
            let sent = slot
                .connection
                .as_mut()
                .map(|connection| connection.send(&message, Duration::from_secs(1)));
            // The game is scored; a bot that cannot take the news is simply
            // restarted for the next game.
            if let Some(Err(_)) = sent {
                slot.retire(None);
            }
        }
    }

    fn finish(self, index: u32, score: FinalScore, slots: &mut [BotSlot]) -> GameResult {
        let seats = (0..self.n_seats())
            .map(|seat| SeatResult {
                bot: self.seat_bot[seat],
                score: score.scores[seat],
                rank: score.ranks[seat],
                forfeit: self.forfeits.iter().find(|f| f.seat == seat).cloned(),
                timings: self.timings[seat].clone(),
                stderr_tail: slots[self.seat_bot[seat]].game_tail(),
            })
            .collect();
        let record = GameRecord {
            game: self.spec.game.clone(),
            options: self.spec.options.clone(),
            seed: self.seed,
            seats: self
                .seat_bot
                .iter()
                .map(|&bot| slots[bot].entry.name.clone())
                .collect(),
            actions: self.actions,
            hashes: self.hashes,
            forfeits: self.forfeits,
            score,
            cpu_us: self.cpu_us,
        };
        GameResult {
            index,
            seed: self.seed,
            seats,
            record,
        }
    }
}

fn connection_of(slots: &mut [BotSlot], bot: usize) -> Result<&mut BotConnection, Failure> {
    slots[bot]
        .connection
        .as_mut()
        .ok_or_else(|| Failure::new(ForfeitReason::Exit, "the bot is not running"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(env: &[(&str, &str)]) -> BotEntry {
        BotEntry {
            name: "bot".into(),
            launch: LaunchSpec {
                command: vec!["./bot".into()],
                bot_dir: ".".into(),
                env: env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            },
        }
    }

    fn seed_of(bot: &BotEntry) -> Option<&str> {
        let mut seeds = bot
            .launch
            .env
            .iter()
            .filter(|(key, _)| key == "CAIRN_BOT_SEED");
        let seed = seeds.next().map(|(_, value)| value.as_str());
        assert!(seeds.next().is_none(), "one CAIRN_BOT_SEED at most");
        seed
    }

    #[test]
    fn each_seat_gets_a_seed_of_its_own_that_the_same_deal_repeats() {
        let games = |seed| {
            vec![GamePlan {
                seed,
                seating: vec![0, 1],
            }]
        };
        let bots = [bot(&[]), bot(&[])];
        let first = seeded_bots(&bots, &games(42));
        let again = seeded_bots(&bots, &games(42));
        let other_deal = seeded_bots(&bots, &games(43));
        assert_eq!(first, again);
        assert_ne!(seed_of(&first[0]), seed_of(&first[1]));
        assert_ne!(seed_of(&first[0]), seed_of(&other_deal[0]));
        // Not the deal itself, nor the deal plus the seat.
        for (index, bot) in first.iter().enumerate() {
            let seed: u64 = seed_of(bot).expect("seeded").parse().expect("a number");
            assert_ne!(seed, 42 + index as u64);
        }
    }

    #[test]
    fn a_bot_that_sets_its_own_seed_keeps_it() {
        let games = [GamePlan {
            seed: 7,
            seating: vec![0, 1],
        }];
        let seeded = seeded_bots(&[bot(&[("CAIRN_BOT_SEED", "5")]), bot(&[])], &games);
        assert_eq!(seed_of(&seeded[0]), Some("5"));
        assert!(seed_of(&seeded[1]).is_some());
    }
}
