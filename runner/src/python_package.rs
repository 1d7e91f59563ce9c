//! Where a Python interpreter of the host finds `cairn_engine`, the engine
//! as a Python package (`python/`), so a sandboxed Python bot can import it
//! without vendoring it. A package in the interpreter's own installation or
//! in the system folders is shown already; one elsewhere (`pip install
//! --user`) is shown read-only at its own path and put on `PYTHONPATH`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The package's import name.
pub const MODULE: &str = "cairn_engine";

/// Finds the package without importing it: its folder, or its one file.
const FIND: &str = "import importlib.util as u\n\
s = u.find_spec('cairn_engine')\n\
print(s.submodule_search_locations[0] if s and s.submodule_search_locations else (s.origin if s and s.origin else ''))";

/// Whether `program` is a Python interpreter (by its file name).
pub fn is_python(program: &Path) -> bool {
    program
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("python") || name.starts_with("pypy"))
}

/// Where the Python interpreter `program` imports `cairn_engine` from,
/// asked once per program and process (from `/`, with only `HOME` of the
/// runner's environment); `None` when it does not find it or is no Python.
pub fn location(program: &Path) -> Option<PathBuf> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    if !is_python(program) {
        return None;
    }
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().ok()?.get(program) {
        return found.clone();
    }
    let found = ask(program);
    if let Ok(mut cache) = cache.lock() {
        cache.insert(program.to_path_buf(), found.clone());
    }
    found
}

fn ask(program: &Path) -> Option<PathBuf> {
    let mut command = Command::new(program);
    command
        .args(["-c", FIND])
        .current_dir("/")
        .env_clear()
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    if let Some(home) = std::env::var_os("HOME") {
        command.env("HOME", home);
    }
    let output = command.output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let path = PathBuf::from(text.trim());
    (output.status.success() && path.is_absolute() && path.exists()).then_some(path)
}

/// What a sandboxed `program` needs to import the package: the folder or
/// file to show (read-only, at its own path) and the `PYTHONPATH` entry,
/// when the package lies outside `installation` and the system folders.
pub fn sandbox_view(program: &Path, installation: Option<&Path>) -> Option<(PathBuf, String)> {
    let package = location(program)?;
    let shown_already = crate::sandbox::is_system_path(&package)
        || installation.is_some_and(|dir| package.starts_with(dir));
    if shown_already {
        return None;
    }
    let parent = package.parent()?.to_str()?.to_string();
    Some((package, parent))
}

/// One line for `cairn doctor`: which interpreters find the package.
pub fn describe(programs: &[PathBuf]) -> String {
    let mut pythons: Vec<&PathBuf> = programs
        .iter()
        .filter(|program| is_python(program))
        .collect();
    pythons.sort();
    pythons.dedup();
    if pythons.is_empty() {
        return format!("python package {MODULE}: no Python interpreter found");
    }
    let parts: Vec<String> = pythons
        .iter()
        .map(|program| match location(program) {
            Some(package) => format!(
                "{} imports it from {}",
                program.display(),
                package.display()
            ),
            None => format!(
                "{} lacks it (see README: Python package)",
                program.display()
            ),
        })
        .collect();
    format!("python package {MODULE}: {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_python_interpreters_are_asked() {
        assert!(is_python(Path::new("/usr/bin/python3.11")));
        assert!(is_python(Path::new("/opt/pypy3")));
        assert!(!is_python(Path::new("/usr/bin/node")));
        assert_eq!(location(Path::new("/usr/bin/node")), None);
    }

    #[test]
    fn an_interpreter_that_cannot_run_finds_nothing() {
        assert_eq!(location(Path::new("/nonexistent/python3")), None);
    }
}
