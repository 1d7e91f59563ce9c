//! Hostile builds against the real sandbox (issue 9, finding 1): a build
//! cannot reach the network, write outside its output folder or read the
//! runner's environment, and a build that spins, sleeps, forks without end,
//! fills its disk or prints megabytes fails on its limit, while an honest
//! build produces its artifact. Like `sandbox_hostile_bots.rs`, these need
//! root and every layer (`every_sandbox_layer_is_active_here` there says
//! which one is missing).

use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_runner::bot_folder::load_bot;
use cairn_runner::build::{build_folder, BuildError, BuildLimits, Builder};

/// A fresh folder with a manifest naming `script` as the build.
fn bot_folder(name: &str, script: &str) -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().expect("scratch folder");
    let folder = scratch.path().join(name);
    std::fs::create_dir(&folder).expect("bot folder");
    let manifest =
        format!("name = \"{name}\"\ncommand = [\"./bot\"]\nbuild = [\"sh\", \"-c\", {script:?}]\n");
    std::fs::write(folder.join("cairn-bot.toml"), manifest).expect("manifest");
    (scratch, folder)
}

/// Small limits, so that every hostile build ends in a second or two.
fn builder() -> Builder {
    let defaults = BuildLimits::default();
    let limits = BuildLimits {
        // Far above the CPU limit: "spin" must break that one first even
        // while the other tests' builds share the cores.
        wall: Duration::from_secs(20),
        output_bytes: 16 << 20,
        sandbox: cairn_runner::sandbox::Limits {
            // Enough for "many files" to reach the 65,536-inode cap before
            // its CPU time runs out on a loaded machine (1 s was not), and
            // short enough for "spin" to break it well inside the wall clock.
            cpu_seconds: 3,
            max_processes: 32,
            memory_bytes: 256 << 20,
            file_size_bytes: 4 << 20,
            ..defaults.sandbox
        },
    };
    Builder::sandboxed(limits)
}

fn build(folder: &Path, script: &str) -> Result<String, BuildError> {
    let command = ["sh".to_string(), "-c".to_string(), script.to_string()];
    build_folder(folder, &command, &builder()).map(|log| log.log_tail)
}

fn failure(result: Result<String, BuildError>) -> (String, String) {
    match result {
        Err(BuildError::Failed { detail, log_tail }) => (detail, log_tail),
        other => panic!("expected the bot's failure, got {other:?}"),
    }
}

/// Every file under `dir` (links not followed), with its bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
                pending.push(entry.path());
            }
        } else if meta.is_file() {
            found.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
        }
    }
    found
}

#[test]
fn an_honest_build_writes_an_executable_that_becomes_the_artifact() {
    let script = "printf '#!/bin/sh\\necho built\\n' > bot && chmod 4755 bot && mkdir -p out/deep && echo x > out/deep/f";
    let (_scratch, folder) = bot_folder("honest", script);
    let log = build(&folder, script).expect("the build works");
    assert_eq!(log, "");
    let bot = folder.join("bot");
    let meta = bot.metadata().expect("the build's output is in the folder");
    // Owned by the runner, executable, and never setuid, whatever the build said.
    assert_eq!((meta.uid(), meta.permissions().mode() & 0o7777), (0, 0o755));
    assert!(folder.join("out/deep/f").is_file());
    assert!(folder.join("cairn-bot.toml").is_file());
    let output = std::process::Command::new(&bot).output().expect("runs");
    assert_eq!(output.stdout, b"built\n");
    let leftovers: Vec<_> = std::fs::read_dir(folder.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("honest")]);
}

#[test]
fn a_build_cannot_reach_a_listener_on_the_loopback() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("non-blocking");
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1); print('connected')\""
    );
    let (_scratch, folder) = bot_folder("network", &script);
    let (detail, log) = failure(build(&folder, &script));
    assert!(detail.starts_with("exited with code"), "{detail}");
    assert!(!log.contains("connected"), "{log}");
    assert!(listener.accept().is_err(), "nothing connected");
}

#[test]
fn a_build_cannot_write_outside_its_output_folder() {
    let outside = tempfile::tempdir().expect("a host folder");
    let (scratch, folder) = bot_folder("writer", "true");
    let sibling = scratch.path().join("sibling.txt");
    let targets = [
        outside.path().join("escape.txt"),
        sibling.clone(),
        PathBuf::from("/etc/cairn-escape"),
        PathBuf::from("/usr/cairn-escape"),
    ];
    for target in &targets {
        let script = format!("echo pwned > {}", target.display());
        let (detail, _) = failure(build(&folder, &script));
        assert!(
            detail.starts_with("exited with code"),
            "{target:?}: {detail}"
        );
        assert!(!target.exists(), "{target:?} was written");
    }
    // The build's /tmp is its own, gone with it.
    let host_tmp = std::env::temp_dir().join(format!("cairn-build-tmp-{}", std::process::id()));
    build(&folder, &format!("echo private > {}", host_tmp.display())).expect("its /tmp works");
    assert!(!host_tmp.exists());
    // A hard link to a host file cannot be made (another mount), and a
    // symbolic link stays a link: the runner never copies what it points at.
    failure(build(&folder, "ln /etc/passwd hard"));
    build(&folder, "ln -s /etc/shadow soft").expect("links are allowed");
    let soft = folder
        .join("soft")
        .symlink_metadata()
        .expect("the link is kept");
    assert!(soft.file_type().is_symlink());
}

#[test]
fn a_build_sees_none_of_the_runners_environment() {
    let secret = format!("runner-secret-{}", std::process::id());
    // Set for this test process (the runner); the other tests do not read it.
    std::env::set_var("CAIRN_RUNNER_TOKEN", &secret);
    let script =
        "env > env.txt; cat /proc/1/environ /proc/1/cmdline >> env.txt 2>&1; env; ls /proc";
    let (_scratch, folder) = bot_folder("environment", script);
    let log = build(&folder, script).expect("the build runs");
    let seen = std::fs::read_to_string(folder.join("env.txt")).expect("its output");
    assert!(seen.contains("PATH="), "{seen}");
    for text in [&log, &seen] {
        assert!(
            !text.contains(&secret) && !text.contains("CAIRN_"),
            "{text}"
        );
    }
    for (path, bytes) in files_under(folder.parent().unwrap()) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(&secret), "{path:?} holds the token");
    }
}

#[test]
fn builds_that_spin_sleep_fork_fill_the_disk_or_fail_are_stopped_as_the_bots_fault() {
    let cases = [
        ("spin", "while :; do :; done", "cpu_time"),
        ("sleep", "exec sleep 1000", "wall-clock"),
        ("fork bomb", "b() { b | b & }; b; sleep 3", "processes"),
        (
            "fill the disk",
            "i=0; while :; do head -c 3000000 /dev/zero > f$i || exit 9; i=$((i+1)); done",
            "code 9",
        ),
        (
            "big file",
            "exec head -c 100000000 /dev/zero > big",
            "file_size",
        ),
        ("fifo", "mkfifo pipe", "neither a file"),
        ("false", "echo 'cannot compile' >&2; false", "code 1"),
        ("hard links", "head -c 1000000 /dev/zero > a && for i in $(seq 40); do ln a l$i; done", "more than 16777216 bytes"),
        ("deep tree", "for i in $(seq 80); do mkdir d && cd d || exit 9; done", "deeper than 64"),
        ("many files", "python3 -c \"[open(f'f{i}', 'w').close() for i in range(70000)]\" 2>/dev/null || exit 9", "code 9"),
    ];
    for (name, script, expected) in cases {
        let (_scratch, folder) = bot_folder("hostile", script);
        let result = build(&folder, script);
        assert!(
            matches!(result, Err(BuildError::Failed { .. })),
            "{name}: {result:?}"
        );
        let (detail, log) = failure(result);
        assert!(detail.contains(expected), "{name}: {detail}\n{log}");
        assert!(
            !folder.join("f0").exists() && !folder.join("big").exists(),
            "{name}"
        );
        if name == "false" {
            assert_eq!(log, "cannot compile\n");
        }
    }
}

#[test]
fn a_build_that_prints_megabytes_keeps_only_the_tail_of_its_log() {
    let script = "yes 'line of build output' | head -c 20000000; echo the end";
    let (_scratch, folder) = bot_folder("chatty", script);
    let log = build(&folder, script).expect("printing is allowed");
    assert!(
        log.len() <= cairn_runner::build::LOG_TAIL_BYTES,
        "{}",
        log.len()
    );
    assert!(log.ends_with("the end\n"));
}

#[test]
fn a_missing_build_program_is_the_bots_fault_not_the_hosts() {
    let (_scratch, folder) = bot_folder("missing", "true");
    let command = ["no-such-compiler".to_string()];
    let result = build_folder(&folder, &command, &builder());
    assert!(
        matches!(result, Err(BuildError::Failed { .. })),
        "{result:?}"
    );
}

#[test]
fn cairn_play_builds_a_copy_in_the_cache_and_never_writes_the_authors_folder() {
    let script =
        "printf '#!/bin/sh\\n' > bot && chmod +x bot && echo x > $PWD/../../touched || true";
    let (scratch, folder) = bot_folder("author", script);
    let bot = load_bot(folder.to_str().unwrap()).expect("loads");
    let cache = scratch.path().join("cache");
    let built = bot.built(&cache, &builder()).expect("builds");
    let artifact = &built.entry.launch.bot_dir;
    assert!(artifact.starts_with(&cache) && artifact.join("bot").is_file());
    assert!(
        !folder.join("bot").exists(),
        "the author's folder is untouched"
    );
    let again = bot.built(&cache, &builder()).expect("cached");
    assert_eq!(&again.entry.launch.bot_dir, artifact);
    let cached: Vec<_> = std::fs::read_dir(&cache).unwrap().flatten().collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
}
