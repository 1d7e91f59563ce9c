//! `cairn doctor`: every sandbox layer, active or unavailable, the limits
//! each bot runs under, and whether sandboxed Python bots can import
//! `cairn_engine`. Exits 0 only when the whole sandbox is available (the
//! Python package is optional).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

pub fn run(_args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let report = cairn_runner::sandbox::doctor();
    outln!("{report}");
    // The limits `cairn play` and every runner give a bot.
    outln!(
        "each bot's limits: {}",
        cairn_runner::sandbox::Limits::default()
    );
    let interpreters = cairn_runner::sandbox::Interpreters::default_shared();
    let programs: Vec<_> = interpreters
        .found
        .iter()
        .map(|found| found.program.clone())
        .collect();
    outln!("{}", cairn_runner::python_package::describe(&programs));
    Ok(if report.is_complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
