//! Errors that teach: each common mistake of a bot author gets a forfeit
//! detail that says what went wrong and, in the same line, the fix. The
//! match loop and [`crate::connection`] build their details here so the
//! wording stays in one place (and `tests/tests/it/teaching_errors.rs` checks
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

/// The wall clock ran out on a message that has no CPU limit (`ready`):
/// the bot is waiting on something, or its answer sits in an unflushed
/// stdout buffer.
pub fn silent(what: &str, wall: Duration) -> String {
    format!(
        "no {what} within {} ms of wall-clock time: {FLUSH_FIX}",
        wall.as_millis()
    )
}

const FLUSH_FIX: &str = "flush stdout after each line (in Python `print(..., flush=True)`), \
     or it is waiting on something";

/// The wall-clock cap on a decision fired before its CPU time control: which
/// clock fired, and the fix that matches how much CPU the bot used (`used`,
/// when known, of `allowed`). A bot that ran for at least a tenth of the
/// wall time was computing on a busy machine; one that barely ran waits.
pub fn wall_cap_fired(wall: Duration, used: Option<Duration>, allowed: Duration) -> String {
    let clocks = format!(
        "no answer within {} ms of wall-clock time: the wall-clock cap fired \
         (four times the CPU allowance plus 1 s), not the CPU time control",
        wall.as_millis()
    );
    let Some(used) = used else {
        return format!("{clocks}: {FLUSH_FIX}");
    };
    let cpu = format!(
        "{} of {} ms of CPU used",
        used.as_millis(),
        allowed.as_millis()
    );
    if used * 10 >= wall {
        format!(
            "{clocks} ({cpu}): the bot was computing but got a small share of a core, \
             so the machine was busy; play fewer matches at once (`cairn play \
             --concurrency`, `cairn runner --jobs`) or think less per decision"
        )
    } else {
        format!("{clocks} ({cpu}): {FLUSH_FIX}")
    }
}

/// No ready came within the start-up's wall-clock cap (`wall`): which
/// clock fired, with the CPU used (when known) of the `allowed` start-up.
pub fn no_ready(wall: Duration, used: Option<Duration>, allowed: Duration) -> String {
    let used = used.map_or_else(String::new, |used| {
        format!(", {} ms of CPU used", used.as_millis())
    });
    format!(
        "no ready within {} ms of wall-clock time (the start-up's wall-clock cap: four times \
         its {} ms of CPU plus 1 s{used}): {FLUSH_FIX}",
        wall.as_millis(),
        allowed.as_millis()
    )
}

/// A bot used more than its start-up's CPU time before its ready.
pub fn setup_out_of_cpu(used: Duration, allowed: Duration) -> String {
    format!(
        "used {} ms of CPU before its ready, more than the {} ms a start-up may: this is \
         CPU time, not wall-clock; do less before answering hello",
        used.as_millis(),
        allowed.as_millis()
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
        "the CPU time control fired: {used} allowed (its time per decision plus what was \
         left of its bank): this is \
         CPU time, not wall-clock; think less, or give more with the time control \
         (`cairn play --decision-ms`, `--bank-ms`)"
    )
}

/// A bot that exited on importing the engine's Python package, which the
/// host lacks: the import error in its stderr, and where to install it.
pub fn missing_python_package(stderr: &str) -> Option<String> {
    let module = crate::python_package::MODULE;
    stderr
        .contains(&format!("No module named '{module}'"))
        .then(|| {
            format!(
                "the bot imports {module}, which this host's Python lacks: install it for the \
                 interpreter that runs the bot (`python3 -m pip install ./python`, see \
                 docs/python.md); `cairn doctor` says which interpreters find it"
            )
        })
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
    fn a_missing_engine_package_is_named_with_where_to_install_it() {
        let said = "Traceback (most recent call last):\n  File \"bot.py\", line 3\n\
                    ModuleNotFoundError: No module named 'cairn_engine'\n";
        let hint = missing_python_package(said).unwrap();
        assert!(hint.contains("pip install ./python") && hint.contains("cairn doctor"));
        assert_eq!(
            missing_python_package("ModuleNotFoundError: No module named 'numpy'"),
            None
        );
    }

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
    fn a_wall_cap_on_a_bot_that_barely_ran_says_flush_or_waiting() {
        let detail = wall_cap_fired(
            Duration::from_millis(5000),
            Some(Duration::from_millis(12)),
            Duration::from_millis(1000),
        );
        assert!(detail.contains("the wall-clock cap fired"), "{detail}");
        assert!(detail.contains("not the CPU time control"), "{detail}");
        assert!(detail.contains("12 of 1000 ms of CPU used"), "{detail}");
        assert!(detail.contains("flush stdout"), "{detail}");
        assert!(!detail.contains("busy"), "{detail}");
    }

    #[test]
    fn a_wall_cap_on_a_bot_that_was_computing_blames_the_busy_machine_not_stdout() {
        let detail = wall_cap_fired(
            Duration::from_millis(5000),
            Some(Duration::from_millis(1551)),
            Duration::from_millis(2000),
        );
        assert!(detail.contains("the wall-clock cap fired"), "{detail}");
        assert!(detail.contains("1551 of 2000 ms of CPU used"), "{detail}");
        assert!(detail.contains("the machine was busy"), "{detail}");
        assert!(detail.contains("--concurrency"), "{detail}");
        assert!(!detail.contains("flush"), "{detail}");
    }

    #[test]
    fn the_cpu_time_control_names_its_own_clock_and_fix() {
        let detail = out_of_cpu(
            Some(Duration::from_millis(1200)),
            Duration::from_millis(1000),
        );
        assert!(detail.starts_with("the CPU time control fired"), "{detail}");
        assert!(detail.contains("CPU time, not wall-clock"), "{detail}");
        assert!(detail.contains("--decision-ms"), "{detail}");
    }

    #[test]
    fn a_quoted_line_stays_on_one_line() {
        assert_eq!(quote(b"a\tb\x1b[2J\n"), "a\\tb\\u{1b}[2J");
    }
}
