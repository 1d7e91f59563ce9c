//! A request line's head (its decision id, legal actions and bank) read by
//! hand, every other member skipped by its brackets: what
//! [`super::decode_arena_message_without_observation`] tries first: about
//! three quarters of serde's time for a Schotten Totten request (figures in
//! docs/performance.md, "`cairn play`'s CPU a game, session 47").
//!
//! Only the plain spelling the arena writes is read: `{"request":{...}}`
//! with the head's members as unsigned integers and a list of strings
//! without escapes, in camelCase or snake_case, each at most once. Anything
//! else gives `None`, and the caller decodes the line whole. A skipped
//! member is checked for balanced brackets and closed strings only: its
//! contents are never read, so a malformed observation the whole reading
//! would refuse can pass here, unread.

use crate::game::v1::{arena_message, ArenaMessage, Request};

/// The members of a request this reading returns.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RequestHead {
    pub decision_id: u32,
    pub legal_actions: Vec<String>,
    pub bank_left_ms: u32,
}

impl RequestHead {
    /// The request, its events and observation left empty.
    pub fn into_message(self) -> ArenaMessage {
        ArenaMessage {
            message: Some(arena_message::Message::Request(Request {
                decision_id: self.decision_id,
                events: Vec::new(),
                observation: None,
                legal_actions: self.legal_actions,
                bank_left_ms: self.bank_left_ms,
            })),
        }
    }
}

/// Reads `line` (without its newline) as a request, or `None`.
pub(super) fn read(line: &[u8]) -> Option<RequestHead> {
    // Checked whole once, so the actions are slices of it, not each checked.
    let text = std::str::from_utf8(line).ok()?;
    let mut cursor = Cursor { text, at: 0 };
    cursor.expect(b'{')?;
    if cursor.plain_string()? != "request" {
        return None;
    }
    cursor.expect(b':')?;
    cursor.expect(b'{')?;
    let (mut decision_id, mut legal_actions, mut bank_left_ms) = (None, None, None);
    loop {
        let key = cursor.plain_string()?;
        cursor.expect(b':')?;
        match key {
            "decisionId" | "decision_id" => once(&mut decision_id, cursor.unsigned()?)?,
            "legalActions" | "legal_actions" => once(&mut legal_actions, cursor.strings()?)?,
            "bankLeftMs" | "bank_left_ms" => once(&mut bank_left_ms, cursor.unsigned()?)?,
            _ => cursor.skip_value()?,
        }
        cursor.space();
        match cursor.next()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    cursor.expect(b'}')?;
    cursor.space();
    if cursor.at != line.len() {
        return None;
    }
    Some(RequestHead {
        decision_id: decision_id?,
        legal_actions: legal_actions?,
        bank_left_ms: bank_left_ms.unwrap_or(0),
    })
}

/// Fills `slot`; a member given twice is left to the whole reading.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    match slot {
        Some(_) => None,
        None => {
            *slot = Some(value);
            Some(())
        }
    }
}

/// How deep a skipped member may nest: one bit per open bracket.
const MAX_DEPTH: u32 = u64::BITS;

struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// Skips spaces, then takes `byte`.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.space();
        (self.next()? == byte).then_some(())
    }

    /// A string's bytes between its quotes, when it has no escape and no
    /// control character.
    fn plain_string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.at;
        loop {
            match self.next()? {
                // Both ends are next to an ASCII quote: on a char boundary.
                b'"' => return self.text.get(start..self.at - 1),
                b'\\' | 0..=0x1f => return None,
                _ => {}
            }
        }
    }

    /// An integer in `0..=u32::MAX` written plainly: no sign, fraction,
    /// exponent or leading zero.
    fn unsigned(&mut self) -> Option<u32> {
        self.space();
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        let digits = self.text.get(start..self.at)?;
        if digits.len() > 1 && digits.starts_with('0') {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            return None;
        }
        digits.parse().ok()
    }

    fn strings(&mut self) -> Option<Vec<String>> {
        self.expect(b'[')?;
        let mut strings = Vec::new();
        self.space();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(strings);
        }
        loop {
            strings.push(self.plain_string()?.to_owned());
            self.space();
            match self.next()? {
                b',' => {}
                b']' => return Some(strings),
                _ => return None,
            }
        }
    }

    /// Skips a member's value up to the `,` or `}` after it: brackets must
    /// pair up and strings close; nothing else is looked at.
    fn skip_value(&mut self) -> Option<()> {
        // Bit `depth - 1` says whether that open bracket is a brace.
        let (mut open, mut depth) = (0u64, 0u32);
        let bytes = self.text.as_bytes();
        let mut at = self.at;
        loop {
            let byte = *bytes.get(at)?;
            match SKIP_CLASS[usize::from(byte)] {
                OTHER => at += 1,
                QUOTE => {
                    at += 1;
                    loop {
                        match *bytes.get(at)? {
                            b'"' => break,
                            b'\\' => at += 2,
                            _ => at += 1,
                        }
                    }
                    at += 1;
                }
                OPEN => {
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    open |= u64::from(byte == b'{') << depth;
                    depth += 1;
                    at += 1;
                }
                CLOSE if depth > 0 => {
                    depth -= 1;
                    if (open >> depth & 1 == 1) != (byte == b'}') {
                        return None;
                    }
                    open &= !(1 << depth);
                    at += 1;
                }
                COMMA if depth > 0 => at += 1,
                // A `,` or a closing bracket of the request itself.
                _ => {
                    self.at = at;
                    return Some(());
                }
            }
        }
    }
}

/// What [`Cursor::skip_value`] does at each byte.
const OTHER: u8 = 0;
const QUOTE: u8 = 1;
const OPEN: u8 = 2;
const CLOSE: u8 = 3;
const COMMA: u8 = 4;

static SKIP_CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    class[b'"' as usize] = QUOTE;
    class[b'{' as usize] = OPEN;
    class[b'[' as usize] = OPEN;
    class[b'}' as usize] = CLOSE;
    class[b']' as usize] = CLOSE;
    class[b',' as usize] = COMMA;
    class
};

#[cfg(test)]
mod tests {
    use super::*;

    fn head(decision_id: u32, legal: &[&str], bank_left_ms: u32) -> Option<RequestHead> {
        Some(RequestHead {
            decision_id,
            legal_actions: legal.iter().map(|text| text.to_string()).collect(),
            bank_left_ms,
        })
    }

    #[test]
    fn the_head_is_read_past_members_whose_strings_hold_brackets_and_quotes() {
        let line = br#"{"request":{"decisionId":7,"observation":{"note":"}]\"{[","legalActions":["no"],"deep":[[{}],[]]},"events":[],"legalActions":["play r4 1","pass"],"bankLeftMs":900}}"#;
        assert_eq!(read(line), head(7, &["play r4 1", "pass"], 900));
        let spaced = b" { \"request\" : { \"decision_id\" : 0 , \"legal_actions\" : [ ] } } ";
        assert_eq!(read(spaced), head(0, &[], 0));
    }

    #[test]
    fn anything_but_the_plain_spelling_is_left_to_the_whole_reading() {
        for line in [
            &br#"{"request":{"decisionId":"7","legalActions":[]}}"#[..],
            br#"{"request":{"decisionId":07,"legalActions":[]}}"#,
            br#"{"request":{"decisionId":7.0,"legalActions":[]}}"#,
            br#"{"request":{"decisionId":-1,"legalActions":[]}}"#,
            br#"{"request":{"decisionId":4294967296,"legalActions":[]}}"#,
            br#"{"request":{"decisionId":7,"legalActions":["a\"b"]}}"#,
            br#"{"request":{"decisionId":7,"decisionId":8,"legalActions":[]}}"#,
            br#"{"request":{"legalActions":[]}}"#,
            br#"{"request":{"decisionId":7}}"#,
            br#"{"request":{"decisionId":7,"legalActions":[],"x":{]}}"#,
            br#"{"request":{"decisionId":7,"legalActions":[],"x":"open}}"#,
            br#"{"request":{"decisionId":7,"legalActions":[]},"more":1}"#,
            br#"{"request":{"decisionId":7,"legalActions":[]}} trailing"#,
            br#"{"hello":{"seat":0}}"#,
            b"",
        ] {
            assert_eq!(read(line), None, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn a_skipped_member_nested_past_the_bit_stack_is_left_to_the_whole_reading() {
        let nested = |depth: usize| {
            let mut line = br#"{"request":{"decisionId":1,"legalActions":[],"x":"#.to_vec();
            line.extend(std::iter::repeat_n(b'[', depth));
            line.extend(std::iter::repeat_n(b']', depth));
            line.extend(b"}}");
            line
        };
        assert_eq!(read(&nested(64)), head(1, &[], 0));
        assert_eq!(read(&nested(65)), None);
    }
}
