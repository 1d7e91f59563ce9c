//! The fork server alone in its process: killing it must not fail another
//! test's start that was under way, so this test is the runner's one
//! binary besides `tests/it`.

use std::path::Path;

use cairn_runner::sandbox::{idle_server_pids, Ending, Sandbox, SandboxSpec};
use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitid, waitpid, Id, WaitPidFlag};
use nix::unistd::Pid;

fn run_true(folder: &Path) -> Ending {
    let spec = SandboxSpec::new(vec!["true".into()], folder.to_path_buf());
    let mut bot = Sandbox::shared().spawn(&spec).expect("the bot starts");
    bot.wait().ending
}

#[test]
fn a_killed_fork_server_is_never_reused_and_the_next_bots_start() {
    let folder = tempfile::tempdir().expect("a bot folder");
    assert_eq!(run_true(folder.path()), Ending::Exited(0));
    let killed = idle_server_pids();
    assert_eq!(killed.len(), 1, "one start at a time needs one server");
    for pid in &killed {
        let pid = Pid::from_raw(*pid as i32);
        kill(pid, Signal::SIGKILL).expect("killed");
        // Until it is gone its socket takes requests it will never answer
        // (that start fails, as the host's fault); once it is gone, none.
        // WNOWAIT: dead, but left for the sandbox to reap.
        waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT).expect("it dies");
    }
    for _ in 0..3 {
        assert_eq!(run_true(folder.path()), Ending::Exited(0));
    }
    let now = idle_server_pids();
    assert_eq!(now.len(), 1, "{now:?}");
    for pid in killed {
        assert!(!now.contains(&pid), "{pid} is not reused");
        // Reaped, not left a zombie child of ours.
        assert_eq!(waitpid(Pid::from_raw(pid as i32), None), Err(Errno::ECHILD));
    }
}
