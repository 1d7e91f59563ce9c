//! Every `cairn ...` command the user docs show parses with this binary's
//! clap definition, so a renamed command or flag cannot leave the README,
//! PROTOCOL.md or a game page behind.
//!
//! Whole command lines (in fenced blocks, and `cargo run -p cairn-cli --
//! ...`) must parse. A `cairn ...` code span in the text may be a fragment
//! (`cairn play`, `cairn play --decision-ms`): it may leave out a required
//! argument or a flag's value, but every command and flag in it must exist.

use std::path::Path;

use clap::error::ErrorKind;
use clap::Parser;

/// The pages a bot author or an arena operator reads.
fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = vec![root.join("README.md"), root.join("sdk/PROTOCOL.md")];
    let mut games: Vec<_> = std::fs::read_dir(root.join("docs/games"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    games.sort();
    paths.extend(games);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path.display().to_string(), text)
        })
        .collect()
}

/// The shell lines of the fenced code blocks, `\`-continued lines joined.
fn fenced_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(continued) => pending.push_str(continued),
            None => {
                pending.push_str(line);
                lines.push(std::mem::take(&mut pending));
            }
        }
    }
    lines
}

/// Shell words, quotes removed, up to a comment; `&&`, `|`, `;`, `$(` and
/// `)` end one command and start the next.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(open) = quote {
            match c == open {
                true => quote = None,
                false => word.get_or_insert_with(String::new).push(c),
            }
            continue;
        }
        let separator = match c {
            '&' | '|' | ';' | ')' => true,
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                true
            }
            _ => false,
        };
        if separator || c.is_whitespace() {
            if let Some(done) = word.take() {
                commands.last_mut().unwrap().push(done);
            }
            if separator && !commands.last().unwrap().is_empty() {
                commands.push(Vec::new());
            }
            continue;
        }
        match c {
            '#' if word.is_none() => break,
            '\'' | '"' => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            _ => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(done) = word {
        commands.last_mut().unwrap().push(done);
    }
    commands.retain(|command| !command.is_empty());
    commands
}

/// The `cairn` argv of a shell command, if it runs cairn (directly or as
/// `cargo run ... -p cairn-cli -- ARGS`).
fn cairn_argv(command: &[String]) -> Option<Vec<String>> {
    if command.first().map(String::as_str) == Some("cairn") {
        return Some(command.to_vec());
    }
    let runs_the_cli = command.starts_with(&["cargo".into(), "run".into()])
        && command.iter().any(|word| word == "cairn-cli");
    let dashes = command.iter().position(|word| word == "--")?;
    runs_the_cli.then(|| {
        std::iter::once("cairn".to_string())
            .chain(command[dashes + 1..].iter().cloned())
            .collect()
    })
}

/// The `cairn ...` code spans of the text outside fenced blocks (a span
/// may run over a line break).
fn code_spans(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            prose.push_str(line);
            prose.push(' ');
        }
    }
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.starts_with("cairn "))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_command_line_in_the_docs_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (path, text) in documents() {
        for line in fenced_lines(&text) {
            for argv in commands(&line).iter().filter_map(|c| cairn_argv(c)) {
                checked += 1;
                if let Err(error) = crate::Cli::try_parse_from(&argv) {
                    failures.push(format!("{path}: `{}`: {}", argv.join(" "), error.kind()));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "doc commands that do not parse:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 20, "only {checked} command lines found");
}

#[test]
fn every_cairn_code_span_in_the_docs_names_real_commands_and_flags() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (path, text) in documents() {
        for span in code_spans(&text) {
            checked += 1;
            let argv = commands(&span).into_iter().next().unwrap_or_default();
            let ends_with_flag = argv.last().is_some_and(|word| word.starts_with("--"));
            let accepted = match crate::Cli::try_parse_from(&argv) {
                Ok(_) => true,
                Err(error) => match error.kind() {
                    ErrorKind::MissingRequiredArgument
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => true,
                    ErrorKind::InvalidValue => ends_with_flag,
                    _ => false,
                },
            };
            if !accepted {
                failures.push(format!("{path}: `{span}`"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "doc code spans naming no command or flag of cairn:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 20, "only {checked} code spans found");
}

#[test]
fn the_shell_splitter_finds_cairn_inside_substitutions_and_chains() {
    let line = "export T=$(cairn owner register ada --json | jq -r .token)   # note";
    let argvs: Vec<Vec<String>> = commands(line)
        .iter()
        .filter_map(|c| cairn_argv(c))
        .collect();
    assert_eq!(
        argvs,
        vec![vec!["cairn", "owner", "register", "ada", "--json"]]
    );
    let chained = commands("cairn match list 1 && cairn play 'cmd:python3 a.py' \"$X\"");
    assert_eq!(chained[1], vec!["cairn", "play", "cmd:python3 a.py", "$X"]);
    let cargo = commands("cargo run --release -p cairn-cli -- demo");
    assert_eq!(
        cairn_argv(&cargo[0]),
        Some(vec!["cairn".into(), "demo".into()])
    );
    assert!(commands("cairn bot list  # cairn bot delete x")[0].len() == 3);
}
