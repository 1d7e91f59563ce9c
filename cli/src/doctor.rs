//! `cairn doctor`: every sandbox layer, active or unavailable. Exits 0 only
//! when the whole sandbox is available.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

pub fn run(_args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let report = cairn_runner::sandbox::doctor();
    println!("{report}");
    Ok(if report.is_complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
