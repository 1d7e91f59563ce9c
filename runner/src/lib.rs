//! cairn's runner: starts bot processes and referees matches between them.
//!
//! # Layout
//! - [`sandbox`]: starts one untrusted bot process in a layered sandbox
//!   (namespaces, private root, unprivileged uid, rlimits, cgroups, Landlock,
//!   seccomp) and reports how it ended and which limit it broke.

pub mod sandbox;
