//! The `cairn` command's own tests, one binary with a module per area:
//! the real binary run as a user runs it.
mod author_hints;
mod broken_pipe;
mod cli;
mod demo;
mod games;
mod serve;
mod view;
