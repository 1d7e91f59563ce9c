//! The end-to-end tests of the workspace, one binary (one link of tonic,
//! sqlx and the arena) with a module per area. Real processes, a real
//! server on 127.0.0.1:0, temporary databases; `arena_support` and
//! `webdriver` are what the areas share.
mod architecture_map;
mod arena_archives;
mod arena_backup;
mod arena_builds;
mod arena_cancel;
mod arena_cli;
mod arena_disk_full;
mod arena_formats;
mod arena_idempotency;
mod arena_large_match;
mod arena_malformed;
mod arena_programs;
mod arena_refusals;
mod arena_runner_tokens;
mod arena_scale_out;
mod arena_stderr;
mod arena_support;
mod arena_tournaments;
mod arena_untrusted;
mod arena_validation;
mod arena_variants;
mod dependency_invariants;
mod deploy_units;
mod events;
mod game_docs;
mod greedy;
mod hello;
mod hostile;
mod languages;
mod mcts;
mod metrics_prometheus;
mod play_builds;
mod play_progress;
mod python_package;
mod sandboxed;
mod sandboxed_hostile;
mod start_faults;
mod teaching_errors;
mod web_browser;
mod webdriver;
