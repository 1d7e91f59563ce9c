//! Writing action texts piece by piece. The runner turns every legal action
//! of every decision into text, and that is its largest cost per decision:
//! `write!` with arguments goes through the formatting machinery, several
//! times the cost of plain `write_str` / `write_char` calls.

use std::fmt::{self, Write};

/// Writes `number` in decimal, exactly as `{}` would.
pub fn write_number(out: &mut impl Write, number: i32) -> fmt::Result {
    if let Ok(digit @ 0..=9) = u8::try_from(number) {
        return out.write_char(char::from(b'0' + digit));
    }
    if number < 0 {
        out.write_char('-')?;
    }
    let mut digits = [0u8; 10];
    let mut rest = number.unsigned_abs();
    let mut n_digits = 0;
    loop {
        digits[n_digits] = b'0' + (rest % 10) as u8;
        n_digits += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    digits[..n_digits]
        .iter()
        .rev()
        .try_for_each(|&digit| out.write_char(char::from(digit)))
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
