//! What each game declares about itself: id, name, seat counts, options
//! (type, default, meaning) and the grammar of its action texts, with
//! examples. Setup errors, the arena's checks, `cairn games`, the CLI's
//! option validation and `docs/games/<game>.md` all read it, so a game's
//! facts are written once, in its folder.
//!
//! [`GameDescriptor::canonical_options`] is the one function that turns
//! options into their canonical form: every value checked and spelled one
//! way, and an option equal to its default dropped, so `tactics=false` and
//! no option are the same variant everywhere.

use crate::game::{GameOptions, SetupError};

/// A game's facts, declared once in its folder (`DESCRIPTOR` in its `mod.rs`).
#[derive(Debug)]
pub struct GameDescriptor {
    /// The id used on the wire and the command line.
    pub id: &'static str,
    /// The name people use.
    pub name: &'static str,
    /// Seat counts; the first rule whose condition holds applies.
    pub seats: &'static [SeatRule],
    pub options: &'static [OptionSpec],
    /// Every form an action text takes.
    pub actions: &'static [ActionForm],
    /// The rulebook's rank title for a solo score, if the game has one.
    pub solo_rank_title: Option<fn(i32) -> &'static str>,
    /// The score of a solo game its seat forfeits or cannot start (see
    /// [`crate::forfeit::final_score`]), if the game has a solo mode.
    pub solo_forfeit_score: Option<i32>,
}

/// A table at which `engine/benches/playouts.rs` times a game's random
/// playouts (`PLAYOUT_BENCHES` in the game's module), printed as
/// `bench: <module>/<name>`.
#[derive(Debug)]
pub struct PlayoutBench {
    pub name: &'static str,
    pub options: &'static [&'static str],
    pub n_seats: usize,
}

/// The seats a game takes, under a condition on one option.
#[derive(Debug)]
pub struct SeatRule {
    /// `Some((key, value))`: applies when that option has that (canonical)
    /// value, its default included; `None`: always.
    pub when: Option<(&'static str, &'static str)>,
    pub min: usize,
    pub max: usize,
}

/// One option a game takes.
#[derive(Debug)]
pub struct OptionSpec {
    pub key: &'static str,
    pub kind: OptionKind,
    /// The default, spelled canonically (as [`OptionKind::canonical`] writes it).
    pub default: &'static str,
    pub meaning: &'static str,
}

/// The type of an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// A whole number in `min..=max`, written in decimal.
    Int { min: u32, max: u32 },
}

/// One form of action text: words, with upper-case words standing for a
/// value (`play CARD STONE`).
#[derive(Debug)]
pub struct ActionForm {
    pub form: &'static str,
    pub meaning: &'static str,
    /// Real action texts of this form.
    pub examples: &'static [&'static str],
}

impl OptionKind {
    /// The type's name in listings: `bool`, `int 1..=15`.
    pub fn name(self) -> String {
        match self {
            OptionKind::Bool => "bool".to_string(),
            OptionKind::Int { min, max } => format!("int {min}..={max}"),
        }
    }

    /// What a value must be, for error messages.
    pub fn expected(self) -> String {
        match self {
            OptionKind::Bool => "true or false".to_string(),
            OptionKind::Int { min, max } => format!("a whole number from {min} to {max}"),
        }
    }

    /// The value's one spelling, or `None` if it is not of this type.
    pub fn canonical(self, value: &str) -> Option<String> {
        match self {
            OptionKind::Bool => matches!(value, "true" | "false").then(|| value.to_string()),
            OptionKind::Int { min, max } => {
                // Digits only: no sign, no spaces; leading zeros are the
                // same number and are dropped.
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let n: u32 = value.parse().ok()?;
                (min..=max).contains(&n).then(|| n.to_string())
            }
        }
    }
}

impl SeatRule {
    /// `2`, `2 to 4`.
    fn range_text(&self) -> String {
        if self.min == self.max {
            self.min.to_string()
        } else {
            format!("{} to {}", self.min, self.max)
        }
    }
}

impl GameDescriptor {
    pub fn option(&self, key: &str) -> Option<&'static OptionSpec> {
        self.options.iter().find(|spec| spec.key == key)
    }

    /// The option keys, for messages: `tactics, expert, rounds`.
    pub fn option_keys(&self) -> String {
        let keys: Vec<&str> = self.options.iter().map(|spec| spec.key).collect();
        if keys.is_empty() {
            "none".to_string()
        } else {
            keys.join(", ")
        }
    }

    /// Checks every option and returns them canonical: values spelled one
    /// way, options equal to their default left out.
    pub fn canonical_options(&self, options: &GameOptions) -> Result<GameOptions, SetupError> {
        let mut canonical = GameOptions::new();
        for (key, value) in options {
            let spec = self.option(key).ok_or_else(|| SetupError::UnknownOption {
                game: self.id,
                key: shown(key),
                known: self.option_keys(),
            })?;
            let value = spec
                .kind
                .canonical(value)
                .ok_or_else(|| SetupError::BadOption {
                    game: self.id,
                    key: key.clone(),
                    value: shown(value),
                    expected: spec.kind.expected(),
                })?;
            if value != spec.default {
                canonical.insert(key.clone(), value);
            }
        }
        Ok(canonical)
    }

    /// The value of `key` in canonical `options`, its default when absent.
    pub fn value<'a>(&self, options: &'a GameOptions, key: &str) -> Option<&'a str> {
        options
            .get(key)
            .map(String::as_str)
            .or_else(|| self.option(key).map(|spec| spec.default))
    }

    /// A `bool` option of canonical `options`.
    pub fn bool_value(&self, options: &GameOptions, key: &str) -> bool {
        self.value(options, key) == Some("true")
    }

    /// An `int` option of canonical `options` (0 for a key not declared).
    pub fn int_value(&self, options: &GameOptions, key: &str) -> u32 {
        self.value(options, key)
            .and_then(|value| value.parse().ok())
            .unwrap_or(0)
    }

    /// The seat rule that applies under canonical `options`.
    fn seat_rule(&self, options: &GameOptions) -> Option<&'static SeatRule> {
        self.seats.iter().find(|rule| match rule.when {
            None => true,
            Some((key, value)) => self.value(options, key) == Some(value),
        })
    }

    /// Refuses a seat count the game does not take under canonical `options`.
    pub fn check_seats(&self, options: &GameOptions, n_seats: usize) -> Result<(), SetupError> {
        match self.seat_rule(options) {
            Some(rule) if (rule.min..=rule.max).contains(&n_seats) => Ok(()),
            rule => Err(SetupError::SeatCount {
                game: self.id,
                n_seats,
                allowed: self.allowed_seats_text(rule),
            }),
        }
    }

    /// The seats the rule that applies takes, in words: `exactly 1 seat
    /// with solo=true` when an option chose it, else `2 to 4 seats (1 with
    /// solo=true)`, so a count inside the usual range is never the one refused.
    fn allowed_seats_text(&self, rule: Option<&SeatRule>) -> String {
        let seats = |rule: &SeatRule| match (rule.min, rule.max) {
            (1, 1) => "1 seat".to_string(),
            _ => format!("{} seats", rule.range_text()),
        };
        match rule {
            Some(
                rule @ SeatRule {
                    when: Some((key, value)),
                    ..
                },
            ) => {
                let exactly = if rule.min == rule.max { "exactly " } else { "" };
                format!("{exactly}{} with {key}={value}", seats(rule))
            }
            Some(rule) => {
                let others = self.conditional_seats();
                match others.is_empty() {
                    true => seats(rule),
                    false => format!("{} ({})", seats(rule), others.join(", ")),
                }
            }
            None => format!("{} seats", self.seats_text()),
        }
    }

    /// Canonical options, checked against `n_seats` too.
    pub fn check_setup(
        &self,
        options: &GameOptions,
        n_seats: usize,
    ) -> Result<GameOptions, SetupError> {
        let canonical = self.canonical_options(options)?;
        self.check_seats(&canonical, n_seats)?;
        Ok(canonical)
    }

    /// The fewest and most seats under any options.
    pub fn seat_bounds(&self) -> (usize, usize) {
        let min = self.seats.iter().map(|rule| rule.min).min().unwrap_or(0);
        let max = self.seats.iter().map(|rule| rule.max).max().unwrap_or(0);
        (min, max)
    }

    /// Every seat rule in words: `2 to 4 (1 with solo=true)`.
    pub fn seats_text(&self) -> String {
        let always: Vec<String> = self
            .seats
            .iter()
            .filter(|rule| rule.when.is_none())
            .map(SeatRule::range_text)
            .collect();
        let conditional = self.conditional_seats();
        match (always.is_empty(), conditional.is_empty()) {
            (_, true) => always.join(", "),
            (true, false) => conditional.join(", "),
            (false, false) => format!("{} ({})", always.join(", "), conditional.join(", ")),
        }
    }

    /// The seat rules an option chooses, in words: `1 with solo=true`.
    fn conditional_seats(&self) -> Vec<String> {
        self.seats
            .iter()
            .filter_map(|rule| {
                let (key, value) = rule.when?;
                Some(format!("{} with {key}={value}", rule.range_text()))
            })
            .collect()
    }

    /// Whether `text` has one of the declared action forms.
    pub fn action_form_of(&self, text: &str) -> Option<&'static ActionForm> {
        self.actions
            .iter()
            .find(|form| form_matches(form.form, text))
    }
}

/// Text from outside (a key, a value, a game id) as an error message shows
/// it: control characters escaped, at most 64 characters.
pub fn shown(text: &str) -> String {
    const MAX_CHARS: usize = 64;
    let mut escaped: String = text
        .chars()
        .flat_map(char::escape_debug)
        .take(MAX_CHARS)
        .collect();
    if text
        .chars()
        .flat_map(char::escape_debug)
        .nth(MAX_CHARS)
        .is_some()
    {
        escaped.push('…');
    }
    escaped
}

/// Lower-case words of `form` must appear as they are; an upper-case word
/// stands for any one word.
fn form_matches(form: &str, text: &str) -> bool {
    let mut words = text.split(' ');
    let matched = form.split(' ').all(|pattern| match words.next() {
        None => false,
        Some(word) if is_placeholder(pattern) => !word.is_empty(),
        Some(word) => word == pattern,
    });
    matched && words.next().is_none()
}

fn is_placeholder(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_uppercase())
        && word
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_' || b == b',')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::parse_options;

    const TOY: GameDescriptor = GameDescriptor {
        id: "toy",
        name: "Toy",
        seats: &[
            SeatRule {
                when: Some(("solo", "true")),
                min: 1,
                max: 1,
            },
            SeatRule {
                when: None,
                min: 2,
                max: 4,
            },
        ],
        options: &[
            OptionSpec {
                key: "solo",
                kind: OptionKind::Bool,
                default: "false",
                meaning: "one seat",
            },
            OptionSpec {
                key: "rounds",
                kind: OptionKind::Int { min: 1, max: 15 },
                default: "1",
                meaning: "rounds",
            },
        ],
        actions: &[ActionForm {
            form: "play CARD at X,Y",
            meaning: "play",
            examples: &["play pad3 at 0,1"],
        }],
        solo_rank_title: None,
        solo_forfeit_score: None,
    };

    fn canonical(words: &[&str]) -> Result<GameOptions, SetupError> {
        TOY.canonical_options(&parse_options(words.iter().copied()).unwrap())
    }

    #[test]
    fn an_option_equal_to_its_default_is_no_option() {
        assert_eq!(
            canonical(&["solo=false", "rounds=1"]),
            Ok(GameOptions::new())
        );
        assert_eq!(canonical(&["rounds=01"]), Ok(GameOptions::new()));
        assert_eq!(
            canonical(&["rounds=007"]),
            Ok(parse_options(["rounds=7"]).unwrap())
        );
        assert_eq!(
            canonical(&["solo=true"]),
            Ok(parse_options(["solo=true"]).unwrap())
        );
    }

    #[test]
    fn an_unknown_key_lists_the_known_ones() {
        let error = canonical(&["sol=true"]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown option `sol` for toy; known: solo, rounds"
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_says_what_is_expected() {
        for bad in ["solo=maybe", "solo=", "solo=TRUE", "solo=1"] {
            let error = canonical(&[bad]).unwrap_err();
            assert!(
                error.to_string().contains("true or false"),
                "{bad}: {error}"
            );
        }
        for bad in [
            "rounds=0",
            "rounds=16",
            "rounds=-1",
            "rounds=+3",
            "rounds= 3",
            "rounds=",
        ] {
            let error = canonical(&[bad]).unwrap_err();
            assert!(error.to_string().contains("from 1 to 15"), "{bad}: {error}");
        }
        assert!(canonical(&["rounds=99999999999999999999"]).is_err());
    }

    #[test]
    fn text_from_outside_is_shown_escaped_and_capped() {
        let error = canonical(&["solo=\u{1b}[31mred\n"])
            .unwrap_err()
            .to_string();
        assert!(!error.chars().any(char::is_control), "{error}");
        assert!(error.contains("\\u{1b}[31mred\\n"), "{error}");
        let long = format!("{}=true", "k".repeat(10_000));
        let error = canonical(&[long.as_str()]).unwrap_err().to_string();
        assert!(error.len() < 200 && error.contains('…'), "{error}");
    }

    #[test]
    fn seats_follow_the_first_rule_that_applies() {
        let solo = canonical(&["solo=true"]).unwrap();
        assert!(TOY.check_seats(&solo, 1).is_ok());
        assert!(TOY.check_seats(&solo, 2).is_err());
        let plain = GameOptions::new();
        assert!(TOY.check_seats(&plain, 1).is_err());
        assert!(TOY.check_seats(&plain, 4).is_ok());
        assert!(TOY.check_seats(&plain, 5).is_err());
        assert_eq!(TOY.seat_bounds(), (1, 4));
        assert_eq!(
            TOY.check_seats(&plain, 0).unwrap_err().to_string(),
            "toy is played by 2 to 4 seats (1 with solo=true), not 0"
        );
    }

    #[test]
    fn a_seat_count_refused_under_an_option_names_the_count_that_option_takes() {
        let solo = canonical(&["solo=true"]).unwrap();
        assert_eq!(
            TOY.check_seats(&solo, 2).unwrap_err().to_string(),
            "toy is played by exactly 1 seat with solo=true, not 2"
        );
    }

    #[test]
    fn action_forms_match_word_by_word() {
        assert!(TOY.action_form_of("play pad3 at 0,1").is_some());
        assert!(TOY.action_form_of("play pad3 at").is_none());
        assert!(TOY.action_form_of("play pad3 at 0,1 now").is_none());
        assert!(TOY.action_form_of("play  at 0,1").is_none());
        assert!(TOY.action_form_of("plays pad3 at 0,1").is_none());
    }
}
