//! Text that came from a bot or an owner, made safe to print on a terminal.
//!
//! A bot's name, a manifest `command`, a forfeit detail or a stderr tail may
//! hold escape sequences that would move the cursor, recolour or retitle the
//! terminal of whoever reads them. Every place the CLI prints such text goes
//! through [`line`] (one line) or [`block`] (keeps line breaks).

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character written as a visible escape (`\n`,
/// `\t`, `\u{1b}`...), so it stays on one line.
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` with its line breaks kept and every other control character
/// written as a visible escape.
pub fn block(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| needs_escape(c) && !(keep_newlines && c == '\n');
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// C0 and C1 controls, DEL, and the bidirectional overrides that reorder
/// what a reader sees (the "Trojan Source" characters).
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        assert!(matches!(
            line("greedy v2 — ok"),
            Cow::Borrowed("greedy v2 — ok")
        ));
    }

    #[test]
    fn terminal_escapes_and_line_breaks_become_visible() {
        assert_eq!(line("a\x1b[2Jb\nc\td\r"), "a\\u{1b}[2Jb\\nc\\td\\r");
        assert_eq!(line("\u{7f}\u{9b}"), "\\u{7f}\\u{9b}");
    }

    #[test]
    fn a_block_keeps_its_line_breaks_but_not_its_escapes() {
        assert_eq!(
            block("Traceback\n  \x1b]0;pwned\x07\n"),
            "Traceback\n  \\u{1b}]0;pwned\\u{7}\n"
        );
    }

    #[test]
    fn bidirectional_overrides_are_escaped() {
        assert_eq!(line("bot\u{202e}exe"), "bot\\u{202e}exe");
    }
}
