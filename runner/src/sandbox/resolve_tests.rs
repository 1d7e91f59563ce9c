use std::os::unix::fs::{symlink, PermissionsExt};
use std::sync::Arc;

use super::*;
use crate::sandbox::programs::Interpreters;

fn words(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| item.to_string()).collect()
}

fn confined() -> ProgramPolicy {
    ProgramPolicy::Confined(Arc::new(Interpreters::default()))
}

/// A fresh folder with an operator's "home" (a program and a secret) and a
/// bot folder beside it.
struct Host {
    root: PathBuf,
}

impl Host {
    fn new(tag: &str) -> Host {
        let root = std::env::temp_dir()
            .join(format!("cairn-resolve-{tag}-{}", std::process::id()))
            .canonicalize_or_create();
        std::fs::create_dir_all(root.join("home/op/bin")).expect("home");
        std::fs::create_dir_all(root.join("bot")).expect("bot");
        executable(&root.join("home/op/bin/sh"));
        executable(&root.join("bot/engine"));
        Host { root }
    }

    fn bot(&self) -> PathBuf {
        self.root.join("bot")
    }

    fn operator_program(&self) -> PathBuf {
        self.root.join("home/op/bin/sh")
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

trait CreateCanonical {
    fn canonicalize_or_create(self) -> PathBuf;
}

impl CreateCanonical for PathBuf {
    fn canonicalize_or_create(self) -> PathBuf {
        let _ = std::fs::remove_dir_all(&self);
        std::fs::create_dir_all(&self).expect("temp folder");
        self.canonicalize().expect("canonical temp folder")
    }
}

fn executable(path: &Path) {
    std::fs::write(path, "#!/bin/sh\n").expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn refused(command: &[&str], bot: &Path, policy: &ProgramPolicy) -> String {
    match resolve_command(&words(command), bot, policy) {
        Err(error @ SandboxError::ProgramOutsideFolder(_)) => {
            assert!(!error.is_host_fault(), "the bot's fault, not the host's");
            error.to_string()
        }
        other => panic!("{command:?} was not refused: {other:?}"),
    }
}

#[test]
fn a_system_program_is_followed_through_its_symlinks() {
    let resolved = resolve_command(&words(&["sh", "-c", "true"]), Path::new("/"), &confined())
        .expect("sh resolves");
    assert_eq!(
        resolved.program,
        Path::new("/bin/sh").canonicalize().expect("sh exists")
    );
    assert_eq!(resolved.argv[1..], words(&["-c", "true"])[..]);
    assert!(resolved.extra_read_only.is_empty());
}

#[test]
fn python3_never_stays_a_shim() {
    let resolved = resolve_command(
        &words(&["python3"]),
        Path::new("/"),
        &ProgramPolicy::default(),
    )
    .expect("python3 resolves");
    assert!(
        shim_manager(&resolved.program).is_none(),
        "{:?}",
        resolved.program
    );
    let first_bytes = std::fs::read(&resolved.program).expect("readable program");
    assert_eq!(&first_bytes[..4], b"\x7fELF", "{:?}", resolved.program);
}

#[test]
fn a_trusted_program_outside_the_system_brings_its_prefix() {
    let host = Host::new("trusted");
    let command = vec![host.operator_program().to_string_lossy().into_owned()];
    let resolved = resolve_command(&command, &host.bot(), &ProgramPolicy::Trusted)
        .expect("the local user's absolute path resolves");
    assert_eq!(resolved.extra_read_only, vec![host.root.join("home/op")]);
    assert!(resolved
        .search_path
        .starts_with(&*host.root.join("home/op/bin").to_string_lossy()));
}

#[test]
fn a_confined_bot_cannot_name_an_absolute_program() {
    let host = Host::new("absolute");
    let program = host.operator_program();
    let text = refused(&[&program.to_string_lossy()], &host.bot(), &confined());
    assert!(text.contains("absolute path"), "{text}");
}

#[test]
fn a_confined_bot_cannot_climb_out_with_dot_dot() {
    let host = Host::new("dotdot");
    let text = refused(&["../home/op/bin/sh"], &host.bot(), &confined());
    assert!(text.contains("`..`"), "{text}");
}

#[test]
fn a_link_the_build_left_cannot_lead_out_of_the_bot_folder() {
    let host = Host::new("link");
    symlink(host.operator_program(), host.bot().join("evil")).expect("link");
    let text = refused(
        &["./evil", "-c", "cat /etc/hostname"],
        &host.bot(),
        &confined(),
    );
    assert!(text.contains("link that leaves the bot folder"), "{text}");
    assert!(
        !text.contains("home/op"),
        "the host path stays private: {text}"
    );
    symlink(host.root.join("home/op/bin"), host.bot().join("tools")).expect("folder link");
    refused(&["tools/sh"], &host.bot(), &confined());
}

#[test]
fn a_link_inside_the_bot_folder_is_followed() {
    let host = Host::new("inner-link");
    symlink("engine", host.bot().join("bot")).expect("link");
    let resolved = resolve_command(&words(&["./bot"]), &host.bot(), &confined()).expect("inside");
    assert_eq!(resolved.program, host.bot().join("engine"));
    assert!(resolved.extra_read_only.is_empty());
}

#[test]
fn a_symlinked_interpreter_outside_the_system_folders_must_be_listed() {
    let host = Host::new("interpreter");
    std::fs::create_dir_all(host.root.join("path")).expect("path");
    let interpreter = host.root.join("home/op/bin/sh");
    symlink(&interpreter, host.root.join("path/snake")).expect("link on PATH");
    let search = host.root.join("path");
    // Not listed: a bare name is looked up in the system folders only.
    let error = resolve_command(&words(&["snake"]), &host.bot(), &confined()).unwrap_err();
    assert!(matches!(error, SandboxError::CommandNotFound(_)), "{error}");
    // Listed by the operator: the installation it leads to is shown.
    let listed = Interpreters::listed_on(&words(&["snake"]), Some(search.as_os_str()));
    assert!(listed.missing.is_empty(), "{listed:?}");
    let policy = ProgramPolicy::Confined(Arc::new(listed));
    let resolved = resolve_command(&words(&["snake", "bot.py"]), &host.bot(), &policy)
        .expect("a listed interpreter runs");
    assert_eq!(resolved.program, interpreter);
    assert_eq!(resolved.extra_read_only, vec![host.root.join("home/op")]);
}

#[test]
fn a_missing_program_is_reported_by_name() {
    let error = resolve_command(
        &words(&["no-such-program-cairn"]),
        Path::new("/"),
        &confined(),
    )
    .unwrap_err();
    assert!(
        matches!(error, SandboxError::CommandNotFound(name) if name == "no-such-program-cairn")
    );
}
