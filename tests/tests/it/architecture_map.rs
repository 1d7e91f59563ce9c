//! ARCHITECTURE.md stays a true map: every folder that holds Rust files is
//! named in it by its full path (a game's folders, of a game in
//! `cairn_engine::for_each_game!`, by the pattern `engine/src/<game>`), every
//! repository path it writes in backquotes exists, and it points at nothing
//! outside the repository.

use std::collections::BTreeSet;
use std::path::Path;

use cairn_tests::workspace_root;

/// Folders never searched for sources: build output, git, installed packages.
const SKIPPED: [&str; 3] = ["target", ".git", "node_modules"];

fn architecture() -> String {
    std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// Every folder under `dir` holding a `.rs` file, relative to the root,
/// with `/` separators.
fn source_folders(root: &Path, dir: &Path, found: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !SKIPPED.contains(&name.as_str()) && !name.starts_with('.') {
                source_folders(root, &path, found);
            }
        } else if name.ends_with(".rs") {
            let relative = dir.strip_prefix(root).expect("under the root");
            if !relative.as_os_str().is_empty() {
                found.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

/// Whether `text` names `folder` as a whole path (not as the start of a
/// longer folder name: `engine/src/bull` is not named by `engine/src/bullfrogs`).
fn names_folder(text: &str, folder: &str) -> bool {
    text.match_indices(folder).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + folder.len()..].chars().next();
        let boundary =
            |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        boundary(before) && (boundary(after) || after == Some('/')) && before != Some('/')
    })
}

/// The pattern the map names every game's engine folder by.
const GAME_FOLDER: &str = "engine/src/<game>";

/// Whether `folder` is a game's engine folder or one inside it, of a game
/// in the table of games.
fn is_game_folder(folder: &str) -> bool {
    macro_rules! modules {
        ([] $(($game:ident, $module:ident))*) => {
            [$(stringify!($module)),*]
        };
    }
    let games = cairn_engine::for_each_game!(modules);
    let Some(inside) = folder.strip_prefix("engine/src/") else {
        return false;
    };
    let game = inside.split('/').next().unwrap_or_default();
    games.contains(&game)
}

/// The backquoted spans of `text`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The top-level entries of the repository (`engine`, `runner`, ...).
fn top_level_names(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .expect("workspace root")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !SKIPPED.contains(&name.as_str()))
        .collect()
}

/// A backquoted span that is a repository path: it starts at a top-level
/// entry, then `/`, and holds only path characters (no `<game>` pattern).
fn as_repository_path<'a>(span: &'a str, top_level: &BTreeSet<String>) -> Option<&'a str> {
    let path_like = span
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c));
    let (first, _) = span.split_once('/')?;
    (path_like && top_level.contains(first)).then_some(span)
}

#[test]
fn every_source_folder_is_named_in_the_architecture_map() {
    let root = workspace_root();
    let text = architecture();
    let mut folders = BTreeSet::new();
    source_folders(&root, &root, &mut folders);
    assert!(folders.contains("runner/src/sandbox"), "{folders:?}");
    let names_games = text.contains(GAME_FOLDER);
    let missing: Vec<&String> = folders
        .iter()
        .filter(|folder| !names_folder(&text, folder))
        .filter(|folder| !(names_games && is_game_folder(folder)))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name these folders with Rust files: {missing:?}"
    );
}

#[test]
fn every_repository_path_in_the_architecture_map_exists() {
    let root = workspace_root();
    let top_level = top_level_names(&root);
    let text = architecture();
    let paths: Vec<&str> = code_spans(&text)
        .into_iter()
        .filter_map(|span| as_repository_path(span, &top_level))
        .collect();
    assert!(paths.len() > 20, "too few paths found: {paths:?}");
    let missing: Vec<&&str> = paths
        .iter()
        .filter(|path| !root.join(path.trim_end_matches('/')).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names missing paths: {missing:?}"
    );
}

#[test]
fn the_architecture_map_points_at_nothing_outside_the_repository() {
    let text = architecture();
    let outside: Vec<&str> = code_spans(&text)
        .into_iter()
        .chain(text.split_whitespace())
        .filter(|word| word.contains("../") || word.contains("/work/") || word.contains("shared/"))
        .collect();
    assert!(
        outside.is_empty(),
        "ARCHITECTURE.md points outside the repository: {outside:?}"
    );
}

#[test]
fn the_folders_of_the_games_in_the_table_and_only_those_are_game_folders() {
    assert!(is_game_folder("engine/src/bullfrogs"));
    assert!(is_game_folder("engine/src/schotten_totten/tests"));
    assert!(!is_game_folder("engine/src/forfeit"));
    assert!(!is_game_folder("engine/src/bullfrogs_extra"));
    assert!(!is_game_folder("proto/src/bullfrogs"));
}

#[test]
fn a_folder_name_is_not_matched_by_a_longer_name() {
    assert!(names_folder(
        "see `engine/src/bullfrogs/` here",
        "engine/src/bullfrogs"
    ));
    assert!(names_folder("in engine/src: game.rs", "engine/src"));
    assert!(!names_folder("`engine/src/bullfrogs`", "engine/src/bull"));
    assert!(!names_folder("`xengine/src`", "engine/src"));
    assert!(!names_folder(
        "`tests/tests/arena_support`",
        "tests/arena_support"
    ));
}
