//! `cairn demo`, the README's first command, end to end at its smallest
//! size: a real arena, runner and bundled bots in a temporary folder. It
//! must print a rated leaderboard for every game of the engine and, with
//! `--serve`, an arena address that `cairn match list --arena` reaches.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

#[test]
fn the_demo_prints_a_rated_leaderboard_for_every_game_of_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let mut demo = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["demo", "--serve", "127.0.0.1:0", "--games-per-pairing", "2"])
        .arg("--dir")
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = demo.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    // Served, the demo waits for Ctrl-C once it is over: read up to the
    // line saying so and the arena's address after it.
    let mut stdout = String::new();
    let mut lines = BufReader::new(demo.stdout.take().unwrap()).lines();
    let arena = loop {
        let Some(Ok(line)) = lines.next() else {
            let _ = demo.wait();
            panic!("the demo failed:\n{stdout}\n{}", stderr.join().unwrap());
        };
        stdout.push_str(&line);
        stdout.push('\n');
        if stdout.contains("stay up until Ctrl-C") {
            if let Some(rest) = line.strip_prefix("cairn arena (gRPC) on ") {
                break rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string();
            }
        }
    };
    let listed = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["match", "list", "1", "--arena", &arena])
        .output()
        .unwrap();
    demo.kill().unwrap();
    demo.wait().unwrap();
    let listing = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.status.success() && listing.contains("1/1/1"),
        "`cairn match list 1 --arena {arena}` does not reach the demo:\n{listing}{}\n{stdout}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    for game in cairn_engine::GAMES {
        let descriptor = game.descriptor;
        let (heading, table) = leaderboard_of(&lines, descriptor.id)
            .unwrap_or_else(|| panic!("no leaderboard of {}:\n{stdout}", descriptor.id));
        assert!(
            heading.starts_with(descriptor.name),
            "the leaderboard of {} is headed `{heading}`",
            descriptor.id
        );
        assert!(
            table.len() >= 2,
            "the leaderboard of {} rates no bot:\n{stdout}",
            descriptor.id
        );
        assert!(
            table.iter().skip(1).all(|row| row.contains("@1")),
            "a row of the leaderboard of {} names no bot version:\n{stdout}",
            descriptor.id
        );
    }
    assert!(
        stdout.contains("columns: rating is fitted"),
        "the columns are not explained:\n{stdout}"
    );
}

/// The heading line, then the table (its header and one row per bot, each
/// starting with its position) of the first leaderboard of `game`: the
/// heading, the line naming the game id, two lines on the fits, the table,
/// then footnotes.
fn leaderboard_of<'a>(lines: &[&'a str], game: &str) -> Option<(&'a str, Vec<&'a str>)> {
    let at = lines
        .iter()
        .position(|line| line.split_whitespace().next() == Some(game))?;
    let heading = *lines.get(at.checked_sub(1)?)?;
    let mut table = lines[at + 1..]
        .iter()
        .skip_while(|line| !line.starts_with("#  bot"))
        .copied();
    let header = table.next()?;
    let rows = table.take_while(|line| {
        line.split_whitespace()
            .next()
            .is_some_and(|position| position.parse::<u32>().is_ok())
    });
    let table: Vec<&str> = std::iter::once(header).chain(rows).collect();
    Some((heading, table))
}
