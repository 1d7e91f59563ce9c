//! Programs of the runner's own binary that a sandboxed bot runs in the
//! fork server's image, without executing the binary again.
//!
//! A bundled bot is `cairn bot-run NAME`: executing that 100 MB binary for
//! each bot cost the dynamic loader (its relocations, glibc's `cpuid` cache
//! probe, which traps to the hypervisor on a virtual machine) more than any
//! other step of a start. The fork server is already a loaded image of the
//! same binary, so the bot's process, forked from its supervisor, confines
//! itself exactly as before (rlimits, uid, working folder, Landlock,
//! seccomp, in the same namespaces, cgroups and root) and then calls the
//! program instead of `execve`.
//!
//! Only a command the runner's binary itself would run is taken: its program
//! is the very file of the running binary (same device and inode), its
//! arguments are exactly `SUBCOMMAND NAME` with a registered name. Anything
//! else is executed as always.
//!
//! A binary offers its programs with [`crate::in_image_programs!`], which
//! registers them before `main` and makes the binary's fork servers (started
//! with [`MARKER`]) serve them. A binary without it runs every bot by
//! `execve`.

use std::ffi::{c_char, c_int, CStr, CString};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// The programs a binary runs in its own image.
#[derive(Debug)]
pub struct InImagePrograms {
    /// The first argument that names them (`bot-run`).
    pub subcommand: &'static str,
    /// The names the subcommand takes.
    pub names: &'static [&'static str],
    /// Runs one by name on stdin and stdout; returns the exit code.
    pub run: fn(&str) -> i32,
}

/// The first argument of a fork server that serves the registered programs.
pub const MARKER: &CStr = c"--cairn-fork-server-in-image";

static REGISTERED: AtomicPtr<InImagePrograms> = AtomicPtr::new(std::ptr::null_mut());

/// The programs this binary registered, if any.
pub fn registered() -> Option<&'static InImagePrograms> {
    // SAFETY: only `register` stores, and only a `&'static`.
    unsafe { REGISTERED.load(Ordering::Acquire).as_ref() }
}

fn register(programs: &'static InImagePrograms) {
    REGISTERED.store(std::ptr::from_ref(programs).cast_mut(), Ordering::Release);
}

/// What [`crate::in_image_programs!`]'s constructor calls before `main`:
/// a fork server started with [`MARKER`] serves (and never returns), any
/// other process registers `programs` for the sandboxes it starts.
///
/// # Safety
/// `argv` holds `argc` valid pointers to nul-terminated strings, as glibc
/// passes a constructor.
#[doc(hidden)]
pub unsafe fn before_main(
    argc: c_int,
    argv: *const *const c_char,
    programs: &'static InImagePrograms,
) {
    if argc == 3 && !argv.is_null() {
        // SAFETY: glibc passes argc valid pointers to nul-terminated strings.
        let first = unsafe { CStr::from_ptr(*argv.add(1)) };
        if first == MARKER {
            // SAFETY: as above.
            let socket = unsafe { CStr::from_ptr(*argv.add(2)) };
            super::reexec::serve_from_constructor(socket, Some(programs));
        }
    }
    register(programs);
}

/// The name of the registered program `argv` runs, when `program` is the
/// running binary's own file: what the sandbox then runs in the image.
pub fn program_for(program: &Path, argv: &[String]) -> Option<CString> {
    program_of(registered()?, program, argv)
}

fn program_of(programs: &InImagePrograms, program: &Path, argv: &[String]) -> Option<CString> {
    let [_, subcommand, name] = argv else {
        return None;
    };
    let known = subcommand == programs.subcommand && programs.names.contains(&name.as_str());
    (known && is_running_binary(program))
        .then(|| CString::new(name.as_str()).ok())
        .flatten()
}

fn is_running_binary(program: &Path) -> bool {
    static OWN: OnceLock<Option<(u64, u64)>> = OnceLock::new();
    let identity = |path: &Path| {
        std::fs::metadata(path)
            .ok()
            .map(|found| (found.dev(), found.ino()))
    };
    let own = OWN.get_or_init(|| identity(Path::new("/proc/self/exe")));
    own.is_some() && identity(program) == *own
}

/// Runs the registered program `name` in this (confined, forked) process
/// with the environment `envp`; never returns.
///
/// # Safety
/// Call only in the bot's single-threaded process, after its confinement,
/// with `envp` a null-terminated array of C strings that outlives it.
pub(super) unsafe fn run(
    programs: Option<&'static InImagePrograms>,
    name: &CStr,
    envp: *const *const c_char,
) -> ! {
    extern "C" {
        static mut environ: *const *const c_char;
    }
    // SAFETY: single-threaded; what execve would have set up for a Rust
    // program: its environment, and SIGPIPE ignored as std's `main` does.
    unsafe {
        environ = envp;
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = match (programs, name.to_str()) {
        (Some(programs), Ok(name)) if programs.names.contains(&name) => (programs.run)(name),
        // The plan named a program this image does not have.
        _ => 127,
    };
    // Flushes stdout, as returning from `main` would, then leaves without
    // the exit handlers: the allocator's and the loader's clean-up only
    // unmap memory the kernel is about to take back anyway.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: ends this process; nothing of it is shared.
    unsafe { libc::_exit(code) }
}

/// Makes this binary run `programs` in its fork servers' image (see the
/// module [`crate::sandbox`]): one use, at the binary's top level.
#[macro_export]
macro_rules! in_image_programs {
    ($programs:expr) => {
        const _: () = {
            static PROGRAMS: $crate::sandbox::InImagePrograms = $programs;
            extern "C" fn before_main(
                argc: ::std::ffi::c_int,
                argv: *const *const ::std::ffi::c_char,
                _envp: *const *const ::std::ffi::c_char,
            ) {
                // SAFETY: glibc calls constructors with main's arguments.
                unsafe { $crate::sandbox::in_image_before_main(argc, argv, &PROGRAMS) };
            }
            #[used]
            #[link_section = ".init_array"]
            static BEFORE_MAIN: extern "C" fn(
                ::std::ffi::c_int,
                *const *const ::std::ffi::c_char,
                *const *const ::std::ffi::c_char,
            ) = before_main;
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAMS: InImagePrograms = InImagePrograms {
        subcommand: "bot-run",
        names: &["first", "random"],
        run: |_| 0,
    };

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn only_the_running_binarys_own_subcommand_and_a_known_name_run_in_the_image() {
        let own = std::env::current_exe().expect("test binary");
        let run = |program: &Path, args: &[&str]| program_of(&PROGRAMS, program, &argv(args));
        assert_eq!(
            run(&own, &["x", "bot-run", "first"]),
            Some(c"first".to_owned())
        );
        assert_eq!(run(&own, &["x", "bot-run", "unknown"]), None);
        assert_eq!(run(&own, &["x", "bot-run", "first", "more"]), None);
        assert_eq!(run(&own, &["x", "serve", "first"]), None);
        // Another file, even one named like it, is executed.
        assert_eq!(run(Path::new("/bin/sh"), &["x", "bot-run", "first"]), None);
        let copy = std::env::temp_dir().join(format!("in-image-copy-{}", std::process::id()));
        std::fs::copy(&own, &copy).expect("a copy");
        assert_eq!(run(&copy, &["x", "bot-run", "first"]), None);
        std::fs::remove_file(&copy).expect("removed");
    }
}
