//! Turns a bot's command into the real program the sandbox executes.
//!
//! The program is looked up on the runner's `PATH` (or in the bot folder for
//! a relative path) and followed through symlinks. Version-manager shims
//! (pyenv, rbenv, nodenv: a script in `<root>/shims` that starts the manager
//! on every call) are asked once for the real interpreter: a shim costs tens
//! of milliseconds per start and needs the manager's whole tree, which the
//! sandbox does not show. An interpreter outside the system directories
//! brings its installation prefix into the sandbox, read-only.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use super::programs::{confined_program, shown, ProgramPolicy, SYSTEM_SEARCH_PATH};
use super::SandboxError;

/// Directories every sandbox shows read-only anyway.
pub const SYSTEM_DIRS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
];

/// The program to execute and what it needs to see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCommand {
    /// Absolute real path of the program (same path inside the sandbox).
    pub program: PathBuf,
    /// Full argv; `argv[0]` is `program`, so interpreters find their prefix.
    pub argv: Vec<String>,
    /// Directories outside the system ones to show read-only at the same path.
    pub extra_read_only: Vec<PathBuf>,
    /// `PATH` inside the sandbox.
    pub search_path: String,
    /// `PYTHONPATH` inside the sandbox: where a Python program finds
    /// `cairn_engine` when its own site folders do not hold it.
    pub python_path: Option<String>,
}

/// Resolves `command` for a bot living in `bot_dir` (already canonical),
/// refusing a program the policy does not let it reach.
pub fn resolve_command(
    command: &[String],
    bot_dir: &Path,
    policy: &ProgramPolicy,
) -> Result<ResolvedCommand, SandboxError> {
    let name = command.first().ok_or(SandboxError::EmptyCommand)?;
    let (program, installation) = match policy {
        ProgramPolicy::Confined(interpreters) => confined_program(name, bot_dir, interpreters)?,
        ProgramPolicy::Trusted => trusted_program(name, bot_dir)?,
    };
    let mut extra_read_only = Vec::new();
    let mut python_path = None;
    if let Some((package, parent)) =
        crate::python_package::sandbox_view(&program, installation.as_deref())
    {
        extra_read_only.push(package);
        python_path = Some(parent);
    }
    let mut search_path = String::new();
    if let Some(installation) = installation {
        extra_read_only.push(installation);
        let parent = program.parent().unwrap_or(Path::new("/"));
        search_path = format!("{}:", parent.display());
    }
    search_path.push_str(SYSTEM_SEARCH_PATH);
    let mut argv = vec![program.to_string_lossy().into_owned()];
    argv.extend(command[1..].iter().cloned());
    Ok(ResolvedCommand {
        program,
        argv,
        extra_read_only,
        search_path,
        python_path,
    })
}

/// The local user's program, wherever it is, with the installation it
/// needs shown (`None`: the bot folder or the system's).
fn trusted_program(name: &str, bot_dir: &Path) -> Result<(PathBuf, Option<PathBuf>), SandboxError> {
    let found = locate(name, bot_dir, std::env::var_os("PATH").as_deref())
        .ok_or_else(|| SandboxError::CommandNotFound(shown(name)))?;
    let unshimmed = match shim_manager(&found) {
        Some(manager) => resolve_shim(&manager, name, bot_dir)?,
        None => found,
    };
    let program = unshimmed
        .canonicalize()
        .map_err(|_| SandboxError::CommandNotFound(shown(name)))?;
    let installation = (!is_system_path(&program) && !program.starts_with(bot_dir))
        .then(|| installation_of(&program));
    Ok((program, installation))
}

/// The folder an interpreter outside the system folders needs: the one
/// above `bin/`, or its own folder.
pub(crate) fn installation_of(program: &Path) -> PathBuf {
    let parent = program.parent().unwrap_or(Path::new("/"));
    match parent.file_name() == Some(OsStr::new("bin")) {
        true => parent.parent().unwrap_or(parent).to_path_buf(),
        false => parent.to_path_buf(),
    }
}

/// Whether `path` lies in a directory that every sandbox shows.
pub fn is_system_path(path: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|dir| path.starts_with(dir))
}

/// Finds the file `name` designates, as a shell would.
pub(crate) fn locate(name: &str, bot_dir: &Path, search_path: Option<&OsStr>) -> Option<PathBuf> {
    if name.contains('/') {
        let path = bot_dir.join(name);
        return path.is_file().then_some(path);
    }
    std::env::split_paths(search_path?)
        .map(|dir| dir.join(name))
        .find(|path| is_executable_file(path))
}

pub(crate) fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// For `<root>/shims/<name>` of a `*env` manager: the manager's executable.
pub(crate) fn shim_manager(path: &Path) -> Option<PathBuf> {
    let shims = path.parent()?;
    if shims.file_name()? != "shims" {
        return None;
    }
    let root = shims.parent()?;
    let tool = root.file_name()?.to_str()?.trim_start_matches('.');
    if !tool.ends_with("env") {
        return None;
    }
    [root.join("libexec").join(tool), root.join("bin").join(tool)]
        .into_iter()
        .find(|path| is_executable_file(path))
}

/// Asks the version manager which real program `name` means in `bot_dir`
/// (local version files count); cached per manager, name and folder.
pub(crate) fn resolve_shim(
    manager: &Path,
    name: &str,
    bot_dir: &Path,
) -> Result<PathBuf, SandboxError> {
    type Key = (PathBuf, String, PathBuf);
    static CACHE: OnceLock<Mutex<HashMap<Key, PathBuf>>> = OnceLock::new();
    let key = (
        manager.to_path_buf(),
        name.to_string(),
        bot_dir.to_path_buf(),
    );
    let cache = CACHE.get_or_init(Default::default);
    if let Some(known) = cache
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .get(&key)
    {
        return Ok(known.clone());
    }
    let output = Command::new(manager)
        .arg("which")
        .arg(name)
        .current_dir(bot_dir)
        .output()
        .map_err(|_| SandboxError::CommandNotFound(name.to_string()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let real = PathBuf::from(text.trim());
    if !output.status.success() || !real.is_absolute() {
        return Err(SandboxError::CommandNotFound(name.to_string()));
    }
    cache
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .insert(key, real.clone());
    Ok(real)
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
