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
}

/// Resolves `command` for a bot living in `bot_dir` (already canonical).
pub fn resolve_command(
    command: &[String],
    bot_dir: &Path,
) -> Result<ResolvedCommand, SandboxError> {
    let name = command.first().ok_or(SandboxError::EmptyCommand)?;
    let found = locate(name, bot_dir, std::env::var_os("PATH").as_deref())
        .ok_or_else(|| SandboxError::CommandNotFound(name.clone()))?;
    let unshimmed = match shim_manager(&found) {
        Some(manager) => resolve_shim(&manager, name, bot_dir)?,
        None => found,
    };
    let program = unshimmed
        .canonicalize()
        .map_err(|_| SandboxError::CommandNotFound(name.clone()))?;
    let mut extra_read_only = Vec::new();
    let mut search_path = String::new();
    if !is_system_path(&program) && !program.starts_with(bot_dir) {
        let parent = program.parent().unwrap_or(Path::new("/"));
        let is_bin_dir = parent.file_name() == Some(OsStr::new("bin"));
        let prefix = if is_bin_dir {
            parent.parent().unwrap_or(parent)
        } else {
            parent
        };
        extra_read_only.push(prefix.to_path_buf());
        search_path = format!("{}:", parent.display());
    }
    search_path.push_str("/usr/local/bin:/usr/bin:/bin");
    let mut argv = vec![program.to_string_lossy().into_owned()];
    argv.extend(command[1..].iter().cloned());
    Ok(ResolvedCommand {
        program,
        argv,
        extra_read_only,
        search_path,
    })
}

/// Whether `path` lies in a directory that every sandbox shows.
pub fn is_system_path(path: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|dir| path.starts_with(dir))
}

/// Finds the file `name` designates, as a shell would.
fn locate(name: &str, bot_dir: &Path, search_path: Option<&OsStr>) -> Option<PathBuf> {
    if name.contains('/') {
        let path = bot_dir.join(name);
        return path.is_file().then_some(path);
    }
    std::env::split_paths(search_path?)
        .map(|dir| dir.join(name))
        .find(|path| is_executable_file(path))
}

fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// For `<root>/shims/<name>` of a `*env` manager: the manager's executable.
fn shim_manager(path: &Path) -> Option<PathBuf> {
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
fn resolve_shim(manager: &Path, name: &str, bot_dir: &Path) -> Result<PathBuf, SandboxError> {
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
mod tests {
    use super::*;

    fn words(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn a_system_program_is_followed_through_its_symlinks() {
        let resolved =
            resolve_command(&words(&["sh", "-c", "true"]), Path::new("/")).expect("sh resolves");
        assert!(resolved.program.is_absolute());
        assert_eq!(
            resolved.program,
            Path::new("/bin/sh").canonicalize().expect("sh exists")
        );
        assert_eq!(resolved.argv[1..], words(&["-c", "true"])[..]);
        assert!(resolved.extra_read_only.is_empty());
    }

    #[test]
    fn python3_never_stays_a_shim() {
        let resolved =
            resolve_command(&words(&["python3"]), Path::new("/")).expect("python3 resolves");
        assert!(
            shim_manager(&resolved.program).is_none(),
            "{:?}",
            resolved.program
        );
        let first_bytes = std::fs::read(&resolved.program).expect("readable program");
        assert_eq!(
            &first_bytes[..4],
            b"\x7fELF",
            "{:?} is not a binary",
            resolved.program
        );
    }

    #[test]
    fn an_interpreter_outside_the_system_brings_its_prefix() {
        let dir = std::env::temp_dir().join(format!("cairn-resolve-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("opt/tool/bin")).expect("dirs");
        let program = dir.join("opt/tool/bin/tool");
        std::fs::write(&program, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(
            &program,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("chmod");
        let bot_dir = dir.join("bot");
        std::fs::create_dir_all(&bot_dir).expect("bot dir");
        let command = vec![program.to_string_lossy().into_owned()];
        let resolved = resolve_command(&command, &bot_dir).expect("absolute path resolves");
        assert_eq!(
            resolved.extra_read_only,
            vec![dir.join("opt/tool").canonicalize().expect("prefix")]
        );
        assert!(resolved
            .search_path
            .starts_with(&*dir.join("opt/tool/bin").to_string_lossy()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_program_is_reported_by_name() {
        let error =
            resolve_command(&words(&["no-such-program-cairn"]), Path::new("/")).unwrap_err();
        assert!(
            matches!(error, SandboxError::CommandNotFound(name) if name == "no-such-program-cairn")
        );
    }
}
