//! Printing on stdout without panicking: `cairn replay f.json | head`
//! closes the pipe early, and `print!` would panic on the broken pipe.
//! [`out!`] and [`outln!`] return the write's error instead (through `?`),
//! and `main` ends quietly when it is a broken pipe ([`is_broken_pipe`]).

/// `print!` that returns its error through `?`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)?
    }};
}

/// `println!` that returns its error through `?`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

/// Whether `error` is a write to a closed pipe (the reader left early):
/// not a failure of the command.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
