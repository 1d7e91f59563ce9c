//! Writing action texts piece by piece. The runner turns every legal action
//! of every decision into text, and that is its largest cost per decision:
//! `write!` with arguments goes through the formatting machinery, several
//! times the cost of plain `write_str` / `write_char` calls.

use std::fmt::{self, Write};

/// Writes `number` in decimal, exactly as `{}` would, without the formatting
/// machinery.
pub fn write_number(out: &mut impl Write, number: i32) -> fmt::Result {
    out.write_str(itoa::Buffer::new().format(number))
}

/// Writes `words` one after another (the spaces are in the words).
pub fn write_all(out: &mut impl Write, words: &[&str]) -> fmt::Result {
    words.iter().try_for_each(|word| out.write_str(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_the_format_macro_writes_them() {
        let extremes = [i32::MIN, i32::MIN + 1, -1_000_000, 1_000_000, i32::MAX];
        for number in (-1000..=1000).chain(extremes) {
            let mut written = String::new();
            write_number(&mut written, number).unwrap();
            assert_eq!(written, number.to_string());
        }
    }

    #[test]
    fn words_are_written_back_to_back() {
        let mut written = String::new();
        write_all(&mut written, &["play ", "r7", " 3"]).unwrap();
        assert_eq!(written, "play r7 3");
    }
}
