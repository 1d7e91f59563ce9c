//! Hostile bots against the real sandbox on this machine: every limit of
//! issue 5 is proven with a real process. These tests need root (as CI
//! runs them) and every layer: `every_sandbox_layer_is_active_here` says
//! which one is missing when they fail.

use std::io::{BufReader, Write};
use std::path::Path;
use std::time::Duration;

use cairn_runner::sandbox::{
    Ending, LimitBroken, Limits, Sandbox, SandboxSpec, UidLease, FIRST_BOT_UID,
};
use support::{finish, python, read_line, run, spec};

use crate::support;

#[test]
fn every_sandbox_layer_is_active_here() {
    let missing: Vec<String> = Sandbox::shared()
        .layers()
        .into_iter()
        .filter(|layer| !layer.active)
        .map(|layer| layer.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "unavailable layers:\n{}",
        missing.join("\n")
    );
    assert!(cairn_runner::sandbox::doctor().is_complete());
}

#[test]
fn a_bot_talks_through_its_pipes_and_its_exit_code_is_reported() {
    let echo = spec(
        "echo",
        &["sh", "-c", "read line; echo \"got $line\"; exit 3"],
        Limits::default(),
    );
    let mut process = Sandbox::shared().spawn(&echo).expect("starts");
    process
        .take_stdin()
        .expect("stdin")
        .write_all(b"hello\n")
        .expect("write");
    let finished = finish(&mut process);
    assert_eq!(finished.stdout, "got hello\n");
    assert_eq!(finished.outcome.ending, Ending::Exited(3));
    assert_eq!(finished.outcome.limit_broken, None);
}

#[test]
fn stdout_and_stderr_are_separate_pipes() {
    let finished = run(&spec(
        "stderr",
        &["sh", "-c", "echo out; echo err >&2"],
        Limits::default(),
    ));
    assert_eq!(
        (finished.stdout.as_str(), finished.stderr.as_str()),
        ("out\n", "err\n")
    );
}

#[test]
fn a_bot_that_closes_stdout_is_seen_at_end_of_file_while_it_runs() {
    let closer = spec(
        "closer",
        &["sh", "-c", "exec >&-; read line; exit 4"],
        Limits::default(),
    );
    let mut process = Sandbox::shared().spawn(&closer).expect("starts");
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut process.take_stdout().expect("stdout"), &mut stdout)
        .expect("end of file");
    assert_eq!(process.try_status(), None, "still waiting for its line");
    process
        .take_stdin()
        .expect("stdin")
        .write_all(b"bye\n")
        .expect("write");
    assert_eq!(process.wait().ending, Ending::Exited(4));
}

#[test]
fn the_host_root_cannot_be_a_bot_folder() {
    let root_spec = SandboxSpec::new(vec!["true".to_string()], "/".into());
    let error = Sandbox::shared().spawn(&root_spec).unwrap_err();
    assert!(error.to_string().contains("bot folder"), "{error}");
}

#[test]
fn a_script_in_the_bot_folder_runs_by_relative_path_with_its_shebang() {
    use std::os::unix::fs::PermissionsExt;
    let bot = spec("script", &["./bot.py", "seat-1"], Limits::default());
    let script = "#!/usr/bin/env python3\nimport os, sys\nprint(sys.argv[1], os.getcwd() == sys.argv[0].rsplit('/', 1)[0])\n";
    let path = bot.bot_dir.join("bot.py");
    std::fs::write(&path, script).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let finished = run(&bot);
    assert_eq!(finished.stdout, "seat-1 True\n", "{finished:?}");
}

#[test]
fn a_program_that_cannot_be_executed_is_an_error_naming_the_step() {
    let bot = spec("not-executable", &["./secret.txt"], Limits::default());
    let error = Sandbox::shared().spawn(&bot).unwrap_err();
    assert_eq!(
        error.to_string(),
        "sandbox setup failed while executing the bot: EACCES: Permission denied"
    );
}

#[test]
fn python_and_node_bots_answer_json_lines() {
    let python_bot = "import json, sys\nfor line in sys.stdin: print(json.dumps({'echo': json.loads(line)['n'] + 1}), flush=True)\n";
    let node_bot =
        "require('readline').createInterface({input: process.stdin}).on('line', line => \
                    console.log(JSON.stringify({echo: JSON.parse(line).n + 1})));";
    let bots = [
        python("json-python", python_bot, Limits::default()),
        spec("json-node", &["node", "-e", node_bot], Limits::default()),
    ];
    for bot in &bots {
        let mut process = Sandbox::shared().spawn(bot).expect("runtime starts");
        let mut stdin = process.take_stdin().expect("stdin");
        let mut stdout = BufReader::new(process.take_stdout().expect("stdout"));
        for n in [1, 41] {
            writeln!(stdin, "{{\"n\": {n}}}").expect("write");
            // Python's json puts a space after the colon, JavaScript's does not.
            let answer = read_line(&mut stdout).replace(' ', "");
            assert_eq!(answer, format!("{{\"echo\":{}}}", n + 1));
        }
        drop(stdin);
        assert_eq!(
            process.wait().ending,
            Ending::Exited(0),
            "{:?}",
            bot.command[0]
        );
    }
}

#[test]
fn a_missing_program_is_an_error_not_a_bot() {
    let error = Sandbox::shared()
        .spawn(&spec("missing", &["./no-such-bot"], Limits::default()))
        .unwrap_err();
    assert!(error.to_string().contains("not found"), "{error}");
}

#[test]
fn tcp_and_udp_to_loopback_fail() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("host listener");
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").expect("host udp socket");
    let script = format!(
        "import socket\n\
         for kind, address in ((socket.SOCK_STREAM, {tcp}), (socket.SOCK_DGRAM, {udp})):\n\
         \x20   s = socket.socket(socket.AF_INET, kind)\n\
         \x20   try:\n\
         \x20       s.connect(('127.0.0.1', address)); s.send(b'x'); print('reached')\n\
         \x20   except OSError as error: print('refused', error.errno)\n",
        tcp = listener.local_addr().expect("addr").port(),
        udp = udp.local_addr().expect("addr").port(),
    );
    let finished = run(&python("network", &script, Limits::default()));
    assert_eq!(finished.stdout.lines().count(), 2, "{finished:?}");
    assert!(
        finished
            .stdout
            .lines()
            .all(|line| line.starts_with("refused")),
        "{finished:?}"
    );
}

#[test]
fn a_fork_bomb_is_contained() {
    let script = "import os, signal\n\
                  count = 0\n\
                  while True:\n\
                  \x20   try: pid = os.fork()\n\
                  \x20   except OSError: break\n\
                  \x20   if pid == 0: signal.pause()\n\
                  \x20   count += 1\n\
                  print(count)\n";
    let limits = Limits {
        max_processes: 16,
        ..Limits::default()
    };
    let finished = run(&python("fork-bomb", script, limits));
    let forks: u64 = finished.stdout.trim().parse().expect("fork count printed");
    assert!(forks < 16, "{forks} forks under a cap of 16");
    assert_eq!(finished.outcome.ending, Ending::Exited(0));
    assert_eq!(finished.outcome.limit_broken, Some(LimitBroken::Processes));
}

#[test]
fn the_host_and_later_bots_survive_a_fork_bomb_that_is_killed() {
    let script = "import os, signal, sys\n\
                  while True:\n\
                  \x20   try: pid = os.fork()\n\
                  \x20   except OSError: break\n\
                  \x20   if pid == 0: signal.pause()\n\
                  print('full', flush=True)\n\
                  sys.stdin.read()\n";
    let bomb = python("held-bomb", script, Limits::default());
    let mut process = Sandbox::shared().spawn(&bomb).expect("starts");
    let mut stdout = BufReader::new(process.take_stdout().expect("stdout"));
    assert_eq!(read_line(&mut stdout), "full");
    assert!(process.process_ids().len() > 60, "the bomb filled its cap");
    assert_eq!(
        process.kill_all().limit_broken,
        Some(LimitBroken::Processes)
    );
    let status = std::process::Command::new("true")
        .status()
        .expect("the runner can still fork");
    assert!(status.success());
    let later = run(&spec("after-bomb", &["echo", "fine"], Limits::default()));
    assert_eq!(later.stdout, "fine\n");
}

#[test]
fn allocating_four_gib_is_stopped_by_the_memory_cap() {
    let limits = Limits {
        memory_bytes: 256 << 20,
        ..Limits::default()
    };
    let finished = run(&python(
        "memory",
        "data = b'x' * (4 << 30)\nprint('allocated')",
        limits,
    ));
    assert_eq!(finished.stdout, "");
    assert_eq!(
        finished.outcome.ending,
        Ending::Signaled(libc::SIGKILL),
        "{finished:?}"
    );
    assert_eq!(finished.outcome.limit_broken, Some(LimitBroken::Memory));
}

#[test]
fn writing_to_etc_or_to_its_own_folder_fails_but_tmp_works() {
    let script = "for path in /etc/cairn-test secret.txt new.txt /tmp/scratch.txt; do \
                  if echo x > $path 2>/dev/null; then echo \"wrote $path\"; else echo \"denied $path\"; fi; done";
    let finished = run(&spec("writes", &["sh", "-c", script], Limits::default()));
    assert_eq!(
        finished.stdout,
        "denied /etc/cairn-test\ndenied secret.txt\ndenied new.txt\nwrote /tmp/scratch.txt\n"
    );
    assert!(!Path::new("/etc/cairn-test").exists());
}

#[test]
fn the_scratch_tmp_is_a_capped_tmpfs_of_its_own() {
    let script = "head -c 3000000 /dev/zero > /tmp/big 2>/dev/null || echo full; \
                  grep ' /tmp ' /proc/self/mounts";
    let limits = Limits {
        scratch_bytes: 1 << 20,
        ..Limits::default()
    };
    let finished = run(&spec("scratch", &["sh", "-c", script], limits));
    let (full, mount) = finished.stdout.split_once('\n').expect("two lines");
    assert_eq!(full, "full", "{finished:?}");
    assert!(
        mount.starts_with("tmpfs /tmp tmpfs rw,nosuid,nodev"),
        "{mount}"
    );
    assert!(mount.contains("size=1024k"), "{mount}");
}

#[test]
fn a_bot_cannot_read_another_bots_folder() {
    let first = spec("first", &["cat"], Limits::default());
    let mut first_process = Sandbox::shared().spawn(&first).expect("first starts");
    let secret = first.bot_dir.join("secret.txt");
    let script = format!("cat secret.txt; cat {} || echo blocked", secret.display());
    let finished = run(&spec("second", &["sh", "-c", &script], Limits::default()));
    assert_eq!(finished.stdout, "secret of second\nblocked\n");
    drop(first_process.take_stdin());
    assert_eq!(finish(&mut first_process).outcome.ending, Ending::Exited(0));
}

#[test]
fn a_200_mib_file_write_is_stopped_by_the_file_size_limit() {
    let command = ["dd", "if=/dev/zero", "of=/tmp/big", "bs=1M", "count=200"];
    let finished = run(&spec("big-file", &command, Limits::default()));
    assert_eq!(
        finished.outcome.ending,
        Ending::Signaled(libc::SIGXFSZ),
        "{finished:?}"
    );
    assert_eq!(finished.outcome.limit_broken, Some(LimitBroken::FileSize));
}

#[test]
fn opening_5000_files_fails() {
    let script = "files = []\n\
                  try:\n\
                  \x20   for _ in range(5000): files.append(open('/dev/null'))\n\
                  except OSError as error: print('stopped', len(files), error.errno)\n";
    let finished = run(&python("files", script, Limits::default()));
    let words: Vec<&str> = finished.stdout.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"stopped"), "{finished:?}");
    let opened: usize = words[1].parse().expect("count");
    assert!(opened < 256, "{opened} files opened under a limit of 256");
    assert_eq!(words[2], libc::EMFILE.to_string());
}

#[test]
fn a_cpu_spinner_is_stopped_at_its_cpu_limit() {
    let limits = Limits {
        cpu_seconds: 1,
        ..Limits::default()
    };
    let finished = run(&python("spinner", "while True: pass", limits));
    assert_eq!(
        finished.outcome.ending,
        Ending::Signaled(libc::SIGXCPU),
        "{finished:?}"
    );
    assert_eq!(finished.outcome.limit_broken, Some(LimitBroken::CpuTime));
    // The kernel samples CPU time for RLIMIT_CPU differently from cgroup
    // accounting (ticks, steal time under virtualisation): only roughly equal.
    assert!(
        finished.outcome.cpu_time >= std::time::Duration::from_millis(500),
        "{finished:?}"
    );
}

#[test]
fn cpu_spent_across_many_processes_is_stopped_by_the_cgroup_total() {
    // Each child stays under its own RLIMIT_CPU of one second until it is
    // killed by it; together they spend about three.
    let script = "import os, sys\n\
                  children = [pid for pid in (os.fork() for _ in range(3)) if pid != 0 or exec('while True: pass')]\n\
                  for _ in children: os.wait()\n\
                  print('children spent', flush=True)\n\
                  sys.stdin.read()\n";
    let limits = Limits {
        cpu_seconds: 1,
        ..Limits::default()
    };
    let spinners = python("many-spinners", script, limits);
    let mut process = Sandbox::shared().spawn(&spinners).expect("starts");
    let mut stdout = BufReader::new(process.take_stdout().expect("stdout"));
    assert_eq!(read_line(&mut stdout), "children spent");
    assert!(
        process.cpu_time() > std::time::Duration::from_secs(2),
        "{:?}",
        process.cpu_time()
    );
    let outcome = process.try_status().expect("over budget: killed");
    assert_eq!(outcome.ending, Ending::Killed);
    assert_eq!(outcome.limit_broken, Some(LimitBroken::CpuTime));
}

#[test]
fn seccomp_refuses_what_no_bot_needs() {
    let script = "import ctypes\n\
                  libc = ctypes.CDLL(None, use_errno=True)\n\
                  def attempt(name, result): print(name, result, ctypes.get_errno())\n\
                  attempt('traceme', libc.ptrace(0, 0, 0, 0))\n\
                  attempt('user-namespace', libc.unshare(0x10000000))\n\
                  attempt('clone3', libc.syscall(435, None, 0))\n";
    let finished = run(&python("seccomp", script, Limits::default()));
    let expected = format!(
        "traceme -1 {eperm}\nuser-namespace -1 {eperm}\nclone3 -1 {enosys}\n",
        eperm = libc::EPERM,
        enosys = libc::ENOSYS
    );
    assert_eq!(finished.stdout, expected, "{finished:?}");
}

#[test]
fn a_daemon_left_behind_is_gone_after_kill_all() {
    let script = "import os, sys\n\
                  if os.fork() == 0:\n\
                  \x20   os.setsid()\n\
                  \x20   if os.fork() == 0:\n\
                  \x20       print('daemon', flush=True); os.close(1); os.close(2); os.close(0)\n\
                  \x20       while True: os.pause()\n\
                  \x20   os._exit(0)\n\
                  os.wait()\n\
                  print('bot', flush=True)\n\
                  sys.stdin.read()\n";
    let daemon = python("daemon", script, Limits::default());
    let mut process = Sandbox::shared().spawn(&daemon).expect("starts");
    let mut stdout = BufReader::new(process.take_stdout().expect("stdout"));
    let mut lines = [read_line(&mut stdout), read_line(&mut stdout)];
    lines.sort();
    assert_eq!(lines, ["bot", "daemon"]);
    let tree = process.process_ids();
    assert!(tree.len() >= 3, "supervisor, bot and daemon: {tree:?}");
    let outcome = process.kill_all();
    assert_eq!(outcome.ending, Ending::Killed);
    let survivors: Vec<u32> = tree
        .into_iter()
        .filter(|pid| Path::new(&format!("/proc/{pid}")).exists())
        .collect();
    assert!(survivors.is_empty(), "still alive: {survivors:?}");
}

#[test]
fn signalling_or_ptracing_the_parent_or_the_runner_fails() {
    let script = format!(
        "import ctypes, os, signal\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         for target in (os.getppid(), {runner}):\n\
         \x20   try: os.kill(target, signal.SIGKILL); print('signalled', target)\n\
         \x20   except OSError as error: print('kill refused', error.errno)\n\
         \x20   print('ptrace', libc.ptrace(16, target, 0, 0), ctypes.get_errno())\n",
        runner = std::process::id()
    );
    let finished = run(&python("signals", &script, Limits::default()));
    let lines: Vec<&str> = finished.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{finished:?}");
    assert!(
        lines.iter().all(|line| !line.starts_with("signalled")),
        "{finished:?}"
    );
    assert!(
        lines
            .iter()
            .filter(|line| line.starts_with("ptrace"))
            .all(|line| line.starts_with("ptrace -1")),
        "{finished:?}"
    );
}

#[test]
fn a_bot_sees_its_own_world_only() {
    let script =
        "id -u; id -un; hostname; cat /proc/1/comm 2>/dev/null || echo supervisor hidden; \
                  ls /proc | grep -c '^[0-9]'; ls /";
    let finished = run(&spec("world", &["sh", "-c", script], Limits::default()));
    let lines: Vec<&str> = finished.stdout.lines().collect();
    let uid: u32 = lines[0].parse().expect("uid");
    assert!(uid >= 1_200_000, "runs as {uid}");
    assert_eq!(lines[1..4], ["bot", "cairn-bot", "supervisor hidden"]);
    let visible: u32 = lines[4].parse().expect("process count");
    assert!(
        visible <= 3,
        "sees {visible} processes: sh, ls and grep at most"
    );
    let allowed = [
        "bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp", "usr",
    ];
    let unexpected: Vec<&str> = lines[5..]
        .iter()
        .copied()
        .filter(|entry| !allowed.contains(entry))
        .collect();
    assert!(
        unexpected.is_empty(),
        "unexpected top-level entries {unexpected:?}"
    );
}

#[test]
fn two_bots_at_once_get_distinct_uids() {
    let first = spec("uid-first", &["sh", "-c", "id -u; cat"], Limits::default());
    let mut first_process = Sandbox::shared().spawn(&first).expect("first starts");
    let mut first_stdout = BufReader::new(first_process.take_stdout().expect("stdout"));
    let first_uid = read_line(&mut first_stdout);
    let second = run(&spec("uid-second", &["id", "-u"], Limits::default()));
    assert_ne!(first_uid, second.stdout.trim());
    first_process.kill_all();
}

#[test]
fn the_next_bot_of_a_uid_finds_nothing_its_predecessor_left_or_used() {
    // The predecessor burns CPU, has forks refused, writes its scratch /tmp
    // and tries the root; the uid's cgroups and skeleton stay for the next
    // bot of that uid, which must start from nothing.
    let limits = Limits {
        max_processes: 4,
        ..Limits::default()
    };
    let script = "id -u; echo left > /tmp/left; touch /left 2>/dev/null && echo wrote-root; \
                  i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; \
                  for n in 1 2 3 4 5 6 7 8; do sleep 0.2 2>/dev/null & done; wait; exit 0";
    let first = spec("uid-predecessor", &["sh", "-c", script], limits);
    let before = run(&first);
    let uid = before.stdout.lines().next().expect("its uid").to_string();
    assert!(!before.stdout.contains("wrote-root"), "{before:?}");
    assert_eq!(before.outcome.limit_broken, Some(LimitBroken::Processes));
    assert!(before.outcome.cpu_time > Duration::from_millis(50));
    let mut next = first.clone();
    next.command = ["sh", "-c", "id -u; ls -A /tmp; ls -A /"]
        .map(String::from)
        .to_vec();
    // A bot gets the lowest free uid, and parallel tests (or other bots on
    // this host) hold and free uids as they go. Every uid below this one is
    // held here, so it is the lowest the next bot can get; if another bot
    // takes it first, wait until that one is done and try again.
    let uid_number: u32 = uid.parse().expect("a numeric uid");
    let _below: Vec<UidLease> = (FIRST_BOT_UID..uid_number)
        .map(|lower| UidLease::wait_for(lower).expect("a lower uid held"))
        .collect();
    for _attempt in 0..200 {
        drop(UidLease::wait_for(uid_number).expect("the uid free"));
        let after = run(&next);
        if after.stdout.lines().next() != Some(uid.as_str()) {
            continue;
        }
        assert!(!after.stdout.contains("left"), "{after:?}");
        assert_eq!(after.outcome.ending, Ending::Exited(0));
        assert_eq!(after.outcome.limit_broken, None, "{after:?}");
        assert!(
            after.outcome.cpu_time < before.outcome.cpu_time / 2,
            "{:?} after {:?}",
            after.outcome.cpu_time,
            before.outcome.cpu_time
        );
        return;
    }
    panic!("uid {uid} never came back");
}

#[test]
fn a_bot_runs_without_transparent_huge_pages() {
    let finished = run(&spec(
        "no-huge-pages",
        &["grep", "THP_enabled", "/proc/self/status"],
        Limits::default(),
    ));
    assert_eq!(finished.outcome.ending, Ending::Exited(0), "{finished:?}");
    let line = finished.stdout.trim();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["THP_enabled:", "0"],
        "{line}"
    );
}

/// The test binary ignores SIGPIPE (Rust's `main` does), which survives
/// `execve` into the fork server, as would glibc's own signals 32 and 33
/// ignored by a runner: the bot still starts with no signal ignored or
/// blocked. (Caught ones never survive `execve`; `grep` catches its own.)
#[test]
fn a_bot_starts_with_no_signal_ignored_or_blocked() {
    let finished = run(&spec(
        "default-signals",
        &["grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"],
        Limits::default(),
    ));
    assert_eq!(finished.outcome.ending, Ending::Exited(0), "{finished:?}");
    let masks: Vec<_> = finished.stdout.lines().collect();
    assert_eq!(masks.len(), 2, "{masks:?}");
    for line in masks {
        let mask = line.split_whitespace().nth(1).unwrap_or("?");
        assert!(mask.bytes().all(|digit| digit == b'0'), "{line}");
    }
}

#[test]
fn a_bot_folder_removed_and_made_again_is_shown_as_it_is_now() {
    let first = spec("remade", &["cat", "secret.txt"], Limits::default());
    assert_eq!(run(&first).stdout, "secret of remade\n");
    std::fs::remove_dir_all(&first.bot_dir).expect("folder removed");
    let error = Sandbox::shared()
        .spawn(&first)
        .expect_err("no folder, no bot");
    assert!(error.to_string().contains("bot folder"), "{error}");
    std::fs::create_dir_all(&first.bot_dir).expect("folder made again");
    std::fs::write(first.bot_dir.join("secret.txt"), "a new secret\n").expect("new file");
    let finished = run(&first);
    assert_eq!(finished.stdout, "a new secret\n", "{finished:?}");
    assert_eq!(finished.outcome.ending, Ending::Exited(0));
}
