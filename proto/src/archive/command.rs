//! Where an uploaded bot's programs may come from: its own folder (a
//! relative path without `..`) or the runner's interpreters (a bare name
//! such as `python3`). An absolute path or a `..` would name a program of
//! the runner's host, which the runner would have to show to the bot.

use std::path::{Component, Path};

use super::{shown, ArchiveError, Manifest};

/// Refuses a manifest whose `command` or `build` names a program outside
/// the bot folder.
pub fn check_programs_stay_inside(manifest: &Manifest) -> Result<(), ArchiveError> {
    let programs = [
        ("command", manifest.command.first()),
        (
            "build",
            manifest.build.as_ref().and_then(|build| build.first()),
        ),
    ];
    for (key, program) in programs {
        if let Some(program) = program {
            if let Some(why) = program_leaves_folder(program) {
                return Err(ArchiveError::BadManifest(format!(
                    "`{key}` runs `{}`, {why}: name a program in the bot folder \
                     (`./bot`, `bin/bot`) or an interpreter by its bare name (`python3`)",
                    shown(program)
                )));
            }
        }
    }
    Ok(())
}

/// Why `program` is not a program of the bot folder, `None` when it is.
pub fn program_leaves_folder(program: &str) -> Option<&'static str> {
    if !program.contains('/') {
        return None;
    }
    let path = Path::new(program);
    if path.is_absolute() {
        return Some("an absolute path on the runner's host");
    }
    path.components()
        .any(|part| part == Component::ParentDir)
        .then_some("a path through `..`, which may leave the bot folder")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(command: &[&str], build: Option<&[&str]>) -> Manifest {
        let words = |items: &[&str]| items.iter().map(|item| item.to_string()).collect();
        Manifest {
            name: "bot".into(),
            command: words(command),
            build: build.map(words),
            games: None,
        }
    }

    #[test]
    fn an_absolute_program_is_refused_by_its_path() {
        let error = check_programs_stay_inside(&manifest(&["/home/op/bin/sh", "x"], None))
            .expect_err("absolute path refused");
        let text = error.to_string();
        assert!(text.contains("`command` runs `/home/op/bin/sh`"), "{text}");
        assert!(text.contains("absolute path"), "{text}");
    }

    #[test]
    fn a_dot_dot_program_is_refused_even_when_it_comes_back() {
        for program in ["../bin/sh", "bin/../../sh", "./a/../b"] {
            let error =
                check_programs_stay_inside(&manifest(&[program], None)).expect_err("`..` refused");
            assert!(error.to_string().contains("`..`"), "{error}");
        }
    }

    #[test]
    fn a_build_program_outside_the_folder_is_refused_too() {
        let error = check_programs_stay_inside(&manifest(&["./bot"], Some(&["/usr/../bin/sh"])))
            .expect_err("absolute build refused");
        assert!(error.to_string().contains("`build` runs"), "{error}");
    }

    #[test]
    fn folder_programs_and_bare_interpreters_pass() {
        for command in [
            &["./bot"][..],
            &["bin/bot"],
            &["python3", "/etc/passwd"],
            &["a..b/c"],
        ] {
            check_programs_stay_inside(&manifest(command, Some(&["make"]))).expect("allowed");
        }
    }

    #[test]
    fn a_long_program_is_quoted_by_a_bounded_prefix() {
        let long = format!("/{}", "a".repeat(100_000));
        let error = check_programs_stay_inside(&manifest(&[&long], None)).expect_err("refused");
        assert!(
            error.to_string().len() < 1_000,
            "{}",
            error.to_string().len()
        );
    }
}
