//! The runner's sandbox tests, one binary with a module per area: real
//! bots and builds through the real sandbox. The fork server's kill test
//! is a binary of its own (`sandbox_fork_server.rs`): it must be alone.
mod sandbox_hostile_bots;
mod sandboxed_builds;
mod support;
