//! What a bot author is told about bot folders (issue 10): a build says
//! when it starts and how long it took, and a workspace-only bot (the
//! bundled `sdk/bots/rust-*`) is refused by `play` in the sandbox and by
//! `bot add` with a line that says so and names the way out.

use std::path::Path;
use std::process::Command;

use crate::{cairn, workspace};

#[test]
fn a_workspace_only_bot_is_refused_with_a_line_that_says_so() {
    for args in [
        vec![
            "play",
            "--game",
            "schotten-totten",
            "sdk/bots/rust-random",
            "sdk/python",
        ],
        vec![
            "bot",
            "add",
            "sdk/bots/rust-random",
            "--arena",
            "http://127.0.0.1:1",
            "--token",
            "t",
        ],
    ] {
        let output = cairn(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("outside its folder: it is workspace-only")
                && stderr.contains("--no-sandbox"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_build_says_when_it_starts_and_how_long_it_took() {
    let scratch = std::env::temp_dir().join(format!("cairn-build-lines-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for file in ["cairn_bot.py", "random_bot.py"] {
        std::fs::copy(
            workspace().join("sdk/python").join(file),
            scratch.join(file),
        )
        .unwrap();
    }
    let manifest =
        "name = \"built\"\nbuild = [\"true\"]\ncommand = [\"python3\", \"random_bot.py\"]\n";
    std::fs::write(scratch.join("cairn-bot.toml"), manifest).unwrap();
    let output = cairn(&[
        "play",
        "--no-sandbox",
        "--quiet",
        "--game",
        "schotten-totten",
        "--games",
        "1",
        scratch.to_str().unwrap(),
        "sdk/python",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let starts = stderr.find("building bot `built`...").expect(&stderr);
    let ends = stderr.find("built bot `built` in ").expect(&stderr);
    assert!(starts < ends, "{stderr}");
    let _ = std::fs::remove_dir_all(scratch);
}

#[test]
fn a_cmd_program_the_sandbox_cannot_see_is_named_with_the_way_out() {
    // `cairn` itself, from a folder on PATH that is not a system folder
    // (as `~/.cargo/bin` is): `sh -c` in the sandbox cannot find it.
    let exe = Path::new(env!("CARGO_BIN_EXE_cairn"));
    let path = format!("{}:/usr/bin:/bin", exe.parent().unwrap().display());
    let output = Command::new(exe)
        .args([
            "play",
            "--game",
            "schotten-totten",
            "--games",
            "2",
            "--quiet",
            "sdk/python",
            "cmd:cairn bot-run random",
        ])
        .current_dir(workspace())
        .env("PATH", path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("`{}` is not in /usr/local/bin", exe.display()))
            && stderr.contains("cairn-bot.toml")
            && stderr.contains("--no-sandbox"),
        "{stderr}"
    );
    // --quiet prints no rows: the reason is on the exit line itself.
    assert!(
        stderr.contains(
            "`cairn bot-run random` forfeited every game (exit status 3); its first forfeit: start_failed"
        ),
        "{stderr}"
    );
}

#[test]
fn a_cmd_program_named_by_its_absolute_path_plays_sandboxed_from_anywhere() {
    // `cairn` lies outside the current folder and the system's, as a
    // fastchess user's `cmd:/home/me/engines/mybot` does: the sandbox shows
    // its folder, so it starts.
    let exe = env!("CARGO_BIN_EXE_cairn");
    let elsewhere = tempfile::tempdir().unwrap();
    let output = Command::new(exe)
        .args([
            "play",
            "--game",
            "schotten-totten",
            "--games",
            "2",
            "--quiet",
        ])
        .arg(format!("cmd:{exe} bot-run random"))
        .arg(format!("cmd:{exe} bot-run first"))
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("forfeit"), "{stderr}");
}

#[test]
fn bot_add_of_a_missing_folder_or_one_without_a_manifest_says_what_a_bot_is() {
    let add = |folder: &str| {
        let output = cairn(&[
            "bot",
            "add",
            folder,
            "--arena",
            "http://127.0.0.1:1",
            "--token",
            "t",
        ]);
        assert_eq!(output.status.code(), Some(2), "{folder}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let missing = add("sdk/pyton");
    assert_eq!(
        missing.trim_end(),
        "error: no such bot folder `sdk/pyton`: a bot is a folder holding cairn-bot.toml (see sdk/PROTOCOL.md)"
    );
    let a_file = add("sdk/python/random_bot.py");
    assert!(a_file.contains("no such bot folder"), "{a_file}");
    let no_manifest = add("sdk");
    assert_eq!(
        no_manifest.trim_end(),
        "error: bot folder `sdk` has no cairn-bot.toml (see sdk/PROTOCOL.md)"
    );
}
