//! Helpers shared by the sandbox tests: bot folders and a run-to-end helper.

use std::io::{BufRead, BufReader, Read};
use std::ops::Deref;
use std::path::PathBuf;

use cairn_runner::sandbox::{Limits, ProcessOutcome, Sandbox, SandboxSpec, SandboxedProcess};

/// A fresh bot folder (with a `secret.txt`) unique to this test process.
pub fn bot_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("cairn-sandbox-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create bot folder");
    std::fs::write(dir.join("secret.txt"), format!("secret of {name}\n")).expect("write secret");
    dir
}

/// A spec whose bot folder is removed when it is dropped.
#[derive(Debug)]
pub struct TestSpec(SandboxSpec);

impl Deref for TestSpec {
    type Target = SandboxSpec;
    fn deref(&self) -> &SandboxSpec {
        &self.0
    }
}

impl Drop for TestSpec {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0.bot_dir);
    }
}

pub fn spec(name: &str, command: &[&str], limits: Limits) -> TestSpec {
    let command = command.iter().map(|word| word.to_string()).collect();
    let mut spec = SandboxSpec::new(command, bot_dir(name));
    spec.limits = limits;
    TestSpec(spec)
}

pub fn python(name: &str, script: &str, limits: Limits) -> TestSpec {
    spec(name, &["python3", "-c", script], limits)
}

/// What a bot printed and how it ended.
#[derive(Debug)]
pub struct Finished {
    pub stdout: String,
    pub stderr: String,
    pub outcome: ProcessOutcome,
}

/// Starts the bot with stdin closed, reads its output to the end, waits.
pub fn run(spec: &SandboxSpec) -> Finished {
    let mut process = Sandbox::shared().spawn(spec).expect("bot starts");
    drop(process.take_stdin());
    finish(&mut process)
}

pub fn finish(process: &mut SandboxedProcess) -> Finished {
    let mut stderr_pipe = process.take_stderr().expect("stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });
    let mut stdout = String::new();
    if let Some(mut pipe) = process.take_stdout() {
        let _ = pipe.read_to_string(&mut stdout);
    }
    let outcome = process.wait();
    Finished {
        stdout,
        stderr: stderr_reader.join().unwrap_or_default(),
        outcome,
    }
}

/// Reads one line of the bot's stdout.
pub fn read_line(reader: &mut BufReader<std::process::ChildStdout>) -> String {
    let mut line = String::new();
    reader.read_line(&mut line).expect("read a line");
    line.trim_end().to_string()
}
