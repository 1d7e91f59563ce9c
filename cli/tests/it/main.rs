//! The `cairn` command's own tests, one binary with a module per area:
//! the real binary run as a user runs it, from the workspace's root.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `cairn args` from the workspace's root, as a user of a clone runs it.
fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .current_dir(workspace())
        .output()
        .unwrap()
}

mod author_hints;
mod broken_pipe;
mod cli;
mod demo;
mod games;
mod serve;
mod view;
