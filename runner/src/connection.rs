//! One live bot process as the match loop sees it: send a message, receive
//! an answer within a CPU and wall budget, and turn every way it can go
//! wrong into a [`Failure`] carrying the forfeit reason.

use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

use cairn_proto::game::v1::{arena_message, ArenaMessage, BotMessage};
use cairn_proto::wire;

use crate::hints::{self, Expecting};
use crate::launch::{BotLauncher, BotProcess, ExitReport, LaunchError, LaunchSpec};
use crate::pipe::{LineReader, LineWriter, PipeError};
use crate::stderr::StderrLog;
use crate::stop::MatchStop;
use cairn_engine::forfeit::ForfeitReason;

/// Caps on what a bot may send us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoLimits {
    /// The longest line a bot may write on stdout.
    pub max_line: usize,
    /// How much of a bot's stderr is kept.
    pub stderr_cap: usize,
}

impl Default for IoLimits {
    fn default() -> Self {
        IoLimits {
            max_line: 1 << 20,
            stderr_cap: 64 << 10,
        }
    }
}

/// Why talking to a bot failed: the forfeit it earns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub reason: ForfeitReason,
    pub detail: String,
}

impl Failure {
    pub fn new(reason: ForfeitReason, detail: impl Into<String>) -> Failure {
        Failure {
            reason,
            detail: detail.into(),
        }
    }
}

/// Why a bot did not start: its own fault (a forfeit) or the host's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    Bot(Failure),
    Host(String),
}

/// A message from the bot and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub message: BotMessage,
    /// Wall time from the start of our write to the end of its line.
    pub wall: Duration,
    /// CPU the bot used since its previous answer. RULING (ours): thinking
    /// on the opponent's time is charged too, since on a shared machine it
    /// takes CPU from the opponent.
    pub cpu: Duration,
}

/// How long the bot may take: `cpu` (when checked) and `wall`.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub cpu: Option<Duration>,
    pub wall: Duration,
}

/// How often a waiting match loop looks at the bot's CPU clock.
pub const CPU_CHECK_INTERVAL: Duration = Duration::from_millis(20);
/// How long an ended stdout may precede the process's exit status.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(500);
/// How long an exited bot's stderr may take to end, for the hints it holds.
const STDERR_END_WAIT: Duration = Duration::from_millis(200);

/// A running bot and its pipes.
#[derive(Debug)]
pub struct BotConnection {
    process: Box<dyn BotProcess>,
    writer: LineWriter,
    reader: LineReader,
    stderr: StderrLog,
    cpu_mark: Duration,
    sent_at: Instant,
    /// Reused for every line we send.
    line: Vec<u8>,
    /// Whether the bot ever sent a whole line.
    has_spoken: bool,
    /// What our last message asked for (to show the expected shape).
    expecting: Option<Expecting>,
}

impl BotConnection {
    pub fn start(
        launcher: &dyn BotLauncher,
        spec: &LaunchSpec,
        limits: &IoLimits,
    ) -> Result<BotConnection, StartError> {
        let mut process = launcher.launch(spec).map_err(|error| match error {
            LaunchError::NotStartable(detail) => {
                StartError::Bot(Failure::new(ForfeitReason::StartFailed, detail))
            }
            LaunchError::Host(detail) => StartError::Host(detail),
        })?;
        let pipes = process
            .take_pipes()
            .ok_or_else(|| StartError::Host("the launcher gave no pipes".into()))?;
        let io = |e: std::io::Error| StartError::Host(format!("cannot set up the pipes: {e}"));
        let writer = LineWriter::new(pipes.stdin).map_err(io)?;
        let reader = LineReader::new(pipes.stdout, limits.max_line).map_err(io)?;
        let stderr = StderrLog::drain(pipes.stderr, limits.stderr_cap);
        let line = Vec::with_capacity(4096);
        Ok(BotConnection {
            process,
            writer,
            reader,
            stderr,
            cpu_mark: Duration::ZERO,
            sent_at: Instant::now(),
            line,
            has_spoken: false,
            expecting: None,
        })
    }

    pub fn stderr(&self) -> &StderrLog {
        &self.stderr
    }

    /// Whether the bot ever sent a whole line on stdout.
    pub fn has_spoken(&self) -> bool {
        self.has_spoken
    }

    /// Writes one message, giving up after `wait` if the bot does not read.
    pub fn send(&mut self, message: &ArenaMessage, wait: Duration) -> Result<(), Failure> {
        wire::encode_arena_message_into(message, &mut self.line);
        self.expecting = match &message.message {
            Some(arena_message::Message::Hello(_)) => Some(Expecting::Ready),
            Some(arena_message::Message::Request(request)) => {
                Some(Expecting::Action(request.decision_id))
            }
            _ => None,
        };
        // Stamped before the write: once the bot is woken it may run (and
        // answer) before this thread is scheduled again.
        self.sent_at = Instant::now();
        match self.writer.write_all(&self.line, wait) {
            Ok(()) => Ok(()),
            Err(PipeError::TimedOut) => {
                Err(self.fail(ForfeitReason::Timeout, "it stopped reading its stdin"))
            }
            Err(PipeError::Closed) => Err(self.exit_failure("closed its stdin")),
            Err(other) => Err(self.fail(ForfeitReason::Crash, other.to_string())),
        }
    }

    /// The CPU time used since the last mark (since the start until the
    /// first); `None` when it cannot be read (the process is gone).
    pub fn cpu_used(&self) -> Option<Duration> {
        let now = self.process.cpu_time()?;
        Some(now.saturating_sub(self.cpu_mark))
    }

    /// From now on, CPU is charged from here (after start-up and set-up).
    pub fn reset_cpu_mark(&mut self) {
        self.cpu_mark = self.process.cpu_time().unwrap_or(self.cpu_mark);
    }

    /// The bot's next message, within `budget` counted from the last send;
    /// a requested `stop` ends the wait (the caller then drops the match,
    /// so that failure is never charged).
    pub fn receive(&mut self, budget: Budget, stop: &MatchStop) -> Result<Answer, Failure> {
        loop {
            if stop.requested() {
                return Err(Failure::new(
                    ForfeitReason::Timeout,
                    "the match was stopped",
                ));
            }
            let waited = self.sent_at.elapsed();
            if waited >= budget.wall {
                let cpu = self
                    .process
                    .cpu_time()
                    .map(|now| now.saturating_sub(self.cpu_mark));
                let detail = match budget.cpu {
                    Some(allowed) => hints::wall_cap_fired(budget.wall, cpu, allowed),
                    None => hints::silent("answer", budget.wall),
                };
                return Err(self.fail(ForfeitReason::Timeout, detail));
            }
            let slice = (budget.wall - waited).min(CPU_CHECK_INTERVAL);
            if let Some(answer) = self.read_within(slice, budget)? {
                return Ok(answer);
            }
        }
    }

    /// The bot's next message if a whole line is already there, without
    /// waiting and without a wall deadline (the caller keeps the clock, as
    /// when every seat's `ready` is awaited at once).
    pub fn receive_now(&mut self) -> Result<Option<Answer>, Failure> {
        let budget = Budget {
            cpu: None,
            wall: Duration::MAX,
        };
        self.read_within(Duration::ZERO, budget)
    }

    /// The descriptor that turns readable when the bot writes (or ends).
    pub fn stdout_fd(&self) -> BorrowedFd<'_> {
        self.reader.as_fd()
    }

    fn read_within(&mut self, wait: Duration, budget: Budget) -> Result<Option<Answer>, Failure> {
        match self.reader.read_line(wait) {
            Ok(Some(line)) => self.answer(&line).map(Some),
            Ok(None) => self.check_while_waiting(budget).map(|()| None),
            Err(PipeError::Closed) => Err(self.exit_failure("closed its stdout")),
            Err(PipeError::LineTooLong(cap)) => Err(self.fail(
                ForfeitReason::ProtocolError,
                format!("wrote a line longer than {cap} bytes"),
            )),
            Err(other) => Err(self.fail(ForfeitReason::Crash, other.to_string())),
        }
    }

    fn answer(&mut self, line: &[u8]) -> Result<Answer, Failure> {
        let wall = self.sent_at.elapsed();
        let now = self.process.cpu_time().unwrap_or(self.cpu_mark);
        let cpu = now.saturating_sub(self.cpu_mark);
        self.cpu_mark = now;
        self.has_spoken = true;
        match wire::decode_bot_message(line) {
            Ok(message) => Ok(Answer { message, wall, cpu }),
            Err(error) => {
                let shown = hints::quote(line);
                let detail = if hints::looks_like_json(line) {
                    hints::wrong_shape(&format!("{error}: `{shown}`"), self.expecting)
                } else {
                    hints::not_a_message(&shown)
                };
                Err(self.fail(ForfeitReason::ProtocolError, detail))
            }
        }
    }

    fn check_while_waiting(&mut self, budget: Budget) -> Result<(), Failure> {
        if let Some(limit) = budget.cpu {
            let used = self
                .process
                .cpu_time()
                .unwrap_or(self.cpu_mark)
                .saturating_sub(self.cpu_mark);
            if used > limit {
                let detail = hints::out_of_cpu(None, limit);
                return Err(self.fail(ForfeitReason::Timeout, detail));
            }
        }
        match self.process.try_status() {
            Some(exit) => Err(self.failure_from_exit(&exit)),
            None => Ok(()),
        }
    }

    /// The pipe ended: find out how the process did.
    fn exit_failure(&mut self, what: &str) -> Failure {
        let deadline = Instant::now() + EXIT_STATUS_WAIT;
        while Instant::now() < deadline {
            if let Some(exit) = self.process.try_status() {
                return self.failure_from_exit(&exit);
            }
            // A bounded wait for the kernel to report an exit that is
            // already under way; nothing to wait on but the clock.
            std::thread::sleep(Duration::from_millis(1));
        }
        self.fail(ForfeitReason::Exit, format!("{what} while still running"))
    }

    fn failure_from_exit(&mut self, exit: &ExitReport) -> Failure {
        let failure = match (&exit.broken_limit, exit.status.code()) {
            (Some(limit), _) => {
                Failure::new(ForfeitReason::ResourceLimit, format!("broke the {limit}"))
            }
            // RULING (ours): the shells' "cannot execute" (126) and "not
            // found" (127), before the bot's first word, mean its command
            // never started (a bare command runs through `sh -c`).
            (None, Some(126 | 127)) if !self.has_spoken => Failure::new(
                ForfeitReason::StartFailed,
                format!(
                    "{} before its first message: its command could not be run",
                    exit.describe()
                ),
            ),
            (None, Some(_)) => {
                let said = self.stderr.text_after_end(STDERR_END_WAIT);
                let detail = match hints::missing_python_package(&said) {
                    Some(hint) => format!("{}: {hint}", exit.describe()),
                    None => exit.describe(),
                };
                Failure::new(ForfeitReason::Exit, detail)
            }
            (None, None) => Failure::new(ForfeitReason::Crash, exit.describe()),
        };
        self.process.kill_all();
        failure
    }

    /// Kills the bot and words its forfeit.
    pub(crate) fn fail(&mut self, reason: ForfeitReason, detail: impl Into<String>) -> Failure {
        self.process.kill_all();
        Failure::new(reason, detail)
    }

    /// Ends the bot: waits up to `wait` for it to leave by itself (after a
    /// quit), then kills whatever of it is left.
    pub fn close(mut self, wait: Duration) -> StderrLog {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.reader.read_line(left) {
                Ok(Some(_)) if !left.is_zero() => continue,
                _ => break,
            }
        }
        self.process.kill_all();
        self.stderr
    }

    /// Kills the bot at once.
    pub fn kill(mut self) -> StderrLog {
        self.process.kill_all();
        self.stderr
    }
}
