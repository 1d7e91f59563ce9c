//! `cairn play`'s progress: one line on stderr, rewritten after each unit of
//! games, only when stderr is a terminal (scripts and logs see none).

use std::io::IsTerminal;

use super::summary::{HeadToHead, SprtState};

/// A `\r` progress line on stderr when it is a terminal.
pub struct Progress {
    total: usize,
    terminal: bool,
    shown: bool,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress {
            total,
            terminal: std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    pub fn show(&mut self, done: usize, head: Option<&HeadToHead>, sprt: Option<&SprtState>) {
        if !self.terminal {
            return;
        }
        let mut line = format!("games {done}/{}", self.total);
        if let Some(head) = head {
            line.push_str(&format!(
                "  W {} D {} L {}",
                head.wins, head.draws, head.losses
            ));
        }
        if let Some(state) = sprt {
            line.push_str(&format!(
                "  llr {:.2} ({:.2} .. {:.2})",
                state.llr,
                state.sprt.lower_bound(),
                state.sprt.upper_bound()
            ));
        }
        eprint!("\r{line}\x1b[K");
        self.shown = true;
    }

    pub fn finish(&self) {
        if self.shown {
            eprintln!();
        }
    }
}
