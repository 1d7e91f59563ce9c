//! Stepping through a game in a terminal: raw mode (through rustix's
//! termios, already in the build for tempfile, so no terminal crate), one
//! key at a time, the screen redrawn at each step.
//!
//! Keys: right / `l` / space next, left / `h` previous, home / `g` first,
//! end / `G` last, a digit `d` the next decision of seat `d`, `q` quits.

use std::io::{Read, Write};

use rustix::termios::{tcgetattr, tcsetattr, OptionalActions, Termios};

use super::Viewer;

const HELP: &str =
    "keys: <- -> step · home/end first/last · 0-9 next decision of that seat · q quit";

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Next,
    Previous,
    First,
    Last,
    Decision(usize),
    Quit,
    Other,
}

/// Raw mode for as long as it lives; the saved mode comes back on drop,
/// also when stepping fails.
struct RawMode {
    saved: Termios,
}

impl RawMode {
    fn enter() -> std::io::Result<RawMode> {
        let stdin = std::io::stdin();
        let saved = tcgetattr(&stdin)?;
        let mut raw = saved.clone();
        raw.make_raw();
        tcsetattr(&stdin, OptionalActions::Now, &raw)?;
        Ok(RawMode { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = tcsetattr(std::io::stdin(), OptionalActions::Flush, &self.saved);
    }
}

pub fn step_through(viewer: &Viewer<'_>) -> anyhow::Result<()> {
    let _raw = RawMode::enter()?;
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut at = 0;
    loop {
        // Raw mode turns off output processing: lines need their `\r`.
        let frame = viewer.frame(at).replace('\n', "\r\n");
        write!(stdout, "\x1b[H\x1b[2J{frame}\r\n{HELP}\r\n")?;
        stdout.flush()?;
        let last = viewer.n_steps() - 1;
        at = match read_key(&mut stdin)? {
            Key::Next => (at + 1).min(last),
            Key::Previous => at.saturating_sub(1),
            Key::First => 0,
            Key::Last => last,
            Key::Decision(seat) => viewer.next_decision(at, seat).unwrap_or(at),
            Key::Quit => return Ok(()),
            Key::Other => at,
        };
    }
}

fn read_key(input: &mut impl Read) -> std::io::Result<Key> {
    let mut byte = [0_u8; 1];
    if input.read(&mut byte)? == 0 {
        return Ok(Key::Quit);
    }
    Ok(match byte[0] {
        b'q' | 3 | 4 => Key::Quit,
        b'l' | b' ' | b'n' => Key::Next,
        b'h' | b'p' => Key::Previous,
        b'g' => Key::First,
        b'G' => Key::Last,
        digit @ b'0'..=b'9' => Key::Decision(usize::from(digit - b'0')),
        0x1b => escape_sequence(input)?,
        _ => Key::Other,
    })
}

/// The rest of `ESC [ X` (arrows) or `ESC [ N ~` (home, end).
fn escape_sequence(input: &mut impl Read) -> std::io::Result<Key> {
    let mut bytes = [0_u8; 2];
    input.read_exact(&mut bytes)?;
    if bytes[0] != b'[' && bytes[0] != b'O' {
        return Ok(Key::Other);
    }
    Ok(match bytes[1] {
        b'C' => Key::Next,
        b'D' => Key::Previous,
        b'H' => Key::First,
        b'F' => Key::Last,
        b'1' | b'7' | b'4' | b'8' => {
            let mut tilde = [0_u8; 1];
            input.read_exact(&mut tilde)?;
            if matches!(bytes[1], b'1' | b'7') {
                Key::First
            } else {
                Key::Last
            }
        }
        _ => Key::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bytes: &[u8]) -> Key {
        read_key(&mut &bytes[..]).unwrap()
    }

    #[test]
    fn arrows_home_end_digits_and_q_are_read() {
        assert_eq!(key(b"\x1b[C"), Key::Next);
        assert_eq!(key(b"\x1b[D"), Key::Previous);
        assert_eq!(key(b"\x1b[H"), Key::First);
        assert_eq!(key(b"\x1b[4~"), Key::Last);
        assert_eq!(key(b"3"), Key::Decision(3));
        assert_eq!(key(b"q"), Key::Quit);
        assert_eq!(key(b""), Key::Quit);
        assert_eq!(key(b"x"), Key::Other);
    }
}
