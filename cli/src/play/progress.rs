//! `cairn play`'s progress on stderr. On a terminal (stdout and stderr
//! both), one line rewritten after each unit of games; off a terminal (a
//! log, a pipe) or with `--progress`, a whole line at most every
//! [`LINE_EVERY`] and one at the end, so a log shows how a long SPRT goes.
//! stdout carries only the report (`--json` stays one JSON object).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use cairn_arena::stats::SprtCheck;

/// The least time between two progress lines off a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(5);

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// A `\r` line on a terminal, rewritten in place.
    Live,
    /// Whole lines, spaced by [`LINE_EVERY`], for logs.
    Lines,
}

impl ProgressMode {
    /// Lines when asked (`--progress`) or when stdout or stderr is no terminal.
    pub fn detect(asked: bool) -> ProgressMode {
        let terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        if asked || !terminal {
            ProgressMode::Lines
        } else {
            ProgressMode::Live
        }
    }
}

pub struct Progress {
    total: usize,
    mode: ProgressMode,
    started: Instant,
    /// When the last whole line was printed (Lines).
    last_line: Option<Instant>,
    /// The state not yet printed (Lines): printed by `finish`.
    pending: Option<String>,
    shown: bool,
}

impl Progress {
    pub fn new(total: usize, mode: ProgressMode) -> Progress {
        Progress {
            total,
            mode,
            started: Instant::now(),
            last_line: None,
            pending: None,
            shown: false,
        }
    }

    /// `tally`: the results so far in a few words (`W 5 D 2 L 5`).
    pub fn show(&mut self, done: usize, tally: Option<String>, sprt: Option<&SprtCheck>) {
        let now = Instant::now();
        let line = progress_line(done, self.total, tally, sprt, now - self.started);
        match self.mode {
            ProgressMode::Live => {
                eprint!("\r{line}\x1b[K");
                self.shown = true;
            }
            ProgressMode::Lines => {
                if let Some(line) = self.line_due(now, line) {
                    eprintln!("{line}");
                }
            }
        }
    }

    /// The line to print now (Lines): the first, then one per [`LINE_EVERY`];
    /// a line held back is kept for [`Progress::finish`].
    fn line_due(&mut self, now: Instant, line: String) -> Option<String> {
        let due = self
            .last_line
            .is_none_or(|last| now.duration_since(last) >= LINE_EVERY);
        if due {
            self.last_line = Some(now);
            self.pending = None;
            Some(line)
        } else {
            self.pending = Some(line);
            None
        }
    }

    pub fn finish(&mut self) {
        match self.mode {
            ProgressMode::Live if self.shown => eprintln!(),
            ProgressMode::Live => {}
            ProgressMode::Lines => {
                if let Some(line) = self.pending.take() {
                    eprintln!("{line}");
                }
            }
        }
    }
}

/// `games 12/100  W 5 D 2 L 5  llr 0.31 (-2.94 .. 2.94)  41 s`.
fn progress_line(
    done: usize,
    total: usize,
    tally: Option<String>,
    sprt: Option<&SprtCheck>,
    elapsed: Duration,
) -> String {
    let mut line = format!("games {done}/{total}");
    if let Some(tally) = tally {
        line.push_str(&format!("  {tally}"));
    }
    if let Some(check) = sprt {
        line.push_str(&format!(
            "  llr {:.2} ({:.2} .. {:.2})",
            check.llr, check.lower, check.upper
        ));
    }
    line.push_str(&format!("  {} s", elapsed.as_secs()));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_a_terminal_the_first_line_prints_then_one_per_interval_and_the_last_at_the_end() {
        let mut progress = Progress::new(10, ProgressMode::Lines);
        let start = Instant::now();
        assert_eq!(progress.line_due(start, "1".into()).as_deref(), Some("1"));
        let soon = start + LINE_EVERY / 2;
        assert_eq!(progress.line_due(soon, "2".into()), None);
        assert_eq!(progress.pending.as_deref(), Some("2"));
        let later = start + LINE_EVERY;
        assert_eq!(progress.line_due(later, "3".into()).as_deref(), Some("3"));
        assert_eq!(progress.pending, None, "nothing left for the end");
        assert_eq!(progress.line_due(later, "4".into()), None);
        assert_eq!(progress.pending.as_deref(), Some("4"), "printed by finish");
    }

    #[test]
    fn a_progress_line_counts_games_and_time() {
        let line = progress_line(3, 8, None, None, Duration::from_millis(7_900));
        assert_eq!(line, "games 3/8  7 s");
    }
}
