//! Errors that teach: each common mistake of a bot author gets a forfeit
//! detail that says what went wrong and, in the same line, the fix. The
//! match loop and [`crate::connection`] build their details here so the
//! wording stays in one place (and `tests/tests/teaching_errors.rs` checks
//! every one through real bots).

use std::time::Duration;

/// What a bot owes us after our last message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expecting {
    /// The answer to a hello.
    Ready,
    /// The answer to the request with this decision id.
    Action(u32),
}

impl Expecting {
    /// One line shaped as the bot's answer should be.
    pub fn shape(self) -> String {
        match self {
            Expecting::Ready => r#"{"ready": {"name": "my-bot"}}"#.to_string(),
            Expecting::Action(id) => {
                format!(
                    r#"{{"action": {{"decisionId": {id}, "action": "<one of legalActions>"}}}}"#
                )
            }
        }
    }
}

/// A line of stdout that is no JSON object at all: most often a debug print.
pub fn not_a_message(shown: &str) -> String {
    format!(
        "`{shown}` is not a protocol message: stdout carries protocol lines only, \
         write logs and debug output to stderr"
    )
}

/// A JSON line that is not the message we wait for.
pub fn wrong_shape(problem: &str, expecting: Option<Expecting>) -> String {
    match expecting {
        Some(expecting) => format!(
            "{problem}; the answer must be one line shaped like {}",
            expecting.shape()
        ),
        None => problem.to_string(),
    }
}

/// The wall clock ran out while the bot barely used its CPU: it is either
/// waiting on something or its answer sits in an unflushed stdout buffer.
pub fn silent(what: &str, wall: Duration, cpu: Option<Duration>) -> String {
    let used = match cpu {
        Some(cpu) => format!(", after {} ms of CPU", cpu.as_millis()),
        None => String::new(),
    };
    format!(
        "no {what} within {} ms of wall-clock time{used}: flush stdout after each line \
         (in Python `print(..., flush=True)`), or it is waiting on something",
        wall.as_millis()
    )
}

/// The bot used more CPU than the time control allows (`used` when known).
pub fn out_of_cpu(used: Option<Duration>, allowed: Duration) -> String {
    let allowed = allowed.as_millis();
    let used = match used {
        Some(used) => format!(
            "used {} ms of CPU on one decision, {allowed} ms",
            used.as_millis()
        ),
        None => format!("used more than {allowed} ms of CPU on one decision, the most"),
    };
    format!(
        "{used} allowed (its time per decision plus what was left of its bank): this is \
         CPU time, not wall-clock; think less, or give more with the time control \
         (`cairn play --decision-ms`, `--bank-ms`)"
    )
}

/// A bot's line, cut short and escaped enough to quote on one line.
pub fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(120)]);
    text.trim_end().escape_debug().to_string()
}

/// Whether a line looks like a JSON object (after leading blanks).
pub fn looks_like_json(line: &[u8]) -> bool {
    line.iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|&byte| byte == b'{')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_of_an_action_names_the_decision_id_asked() {
        assert_eq!(
            Expecting::Action(7).shape(),
            r#"{"action": {"decisionId": 7, "action": "<one of legalActions>"}}"#
        );
    }

    #[test]
    fn a_debug_print_is_told_apart_from_a_malformed_message() {
        assert!(!looks_like_json(b"thinking about 1"));
        assert!(looks_like_json(b"  {\"action\": 1}"));
        assert!(not_a_message("thinking").contains("stderr"));
    }

    #[test]
    fn a_quoted_line_stays_on_one_line() {
        assert_eq!(quote(b"a\tb\x1b[2J\n"), "a\\tb\\u{1b}[2J");
    }
}
