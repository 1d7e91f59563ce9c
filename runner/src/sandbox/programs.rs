//! Which programs a bot may run: [`ProgramPolicy`].
//!
//! A bot from the arena is a stranger: its program is a file of its own
//! folder (a relative path that stays inside once every link is followed)
//! or an interpreter by bare name, found in the system folders or in the
//! runner's list of [`Interpreters`], whose installations are the only host
//! folders beyond the system ones that its sandbox shows. A command of the
//! local user (`cairn play`) is trusted: any program, its folder shown.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cairn_proto::archive::program_leaves_folder;

use crate::launch::{own_program, OWN_PROGRAM};

use super::resolve::{installation_of, is_system_path, locate, resolve_shim, shim_manager};
use super::SandboxError;

/// Where a bare program name is looked up for a stranger's bot: the system
/// folders only (the listed interpreters aside).
pub const SYSTEM_SEARCH_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// How far a bot's command may reach on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramPolicy {
    /// A bot from outside: a program of its folder, a system program or a
    /// listed interpreter.
    Confined(Arc<Interpreters>),
    /// The local user's own command: any program; one outside the system
    /// folders brings its installation, read-only.
    Trusted,
}

impl Default for ProgramPolicy {
    /// Confined to the default interpreters: a sandbox trusts nobody unless told.
    fn default() -> ProgramPolicy {
        ProgramPolicy::Confined(Interpreters::default_shared())
    }
}

static PROCESS_LIST: OnceLock<Arc<Interpreters>> = OnceLock::new();

/// One interpreter the operator lets bots run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    pub name: String,
    /// Its real program (shims and links followed).
    pub program: PathBuf,
    /// The installation shown read-only, `None` for a system program.
    pub installation: Option<PathBuf>,
}

/// The runner's list of interpreters, resolved once on its own `PATH`,
/// and `cairn` itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interpreters {
    pub found: Vec<Interpreter>,
    /// Names that were asked for but are not on the runner's `PATH`.
    pub missing: Vec<String>,
}

impl Interpreters {
    /// The names listed when the operator lists none.
    pub const DEFAULT_NAMES: &'static [&'static str] = &[
        "python3", "python", "pypy3", "node", "deno", "bun", "ruby", "perl", "lua", "php", "java",
    ];

    /// Resolves `names` on the runner's `PATH` (version-manager shims asked
    /// from `/`, so no bot's version file steers them).
    pub fn listed(names: &[String]) -> Interpreters {
        let search_path = std::env::var_os("PATH");
        Interpreters::listed_on(names, search_path.as_deref())
    }

    pub(crate) fn listed_on(names: &[String], search_path: Option<&OsStr>) -> Interpreters {
        let mut interpreters = Interpreters::default();
        if let Some(program) = own_program(OWN_PROGRAM) {
            // Its own folder only: `~/.cargo/bin`, never `~/.cargo`.
            let installation = program.parent().map(Path::to_path_buf);
            interpreters.found.push(Interpreter {
                name: OWN_PROGRAM.to_string(),
                program,
                installation,
            });
        }
        for name in names {
            match resolve_interpreter(name, search_path) {
                Some(found) => interpreters.found.push(found),
                None => interpreters.missing.push(name.clone()),
            }
        }
        interpreters
    }

    /// The process's list: the one [`Interpreters::install`] set, else
    /// [`Interpreters::DEFAULT_NAMES`] resolved on first use.
    pub fn default_shared() -> Arc<Interpreters> {
        PROCESS_LIST
            .get_or_init(|| {
                let names: Vec<String> = Self::DEFAULT_NAMES
                    .iter()
                    .map(|name| name.to_string())
                    .collect();
                Arc::new(Interpreters::listed(&names))
            })
            .clone()
    }

    /// Makes `self` the process's list (the runner's `--interpreter`
    /// flags), for bots and builds alike; `false` when one was already in
    /// use, which then stays.
    pub fn install(self) -> bool {
        PROCESS_LIST.set(Arc::new(self)).is_ok()
    }

    /// One line for the runner's log: each name, its program, what it shows.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .found
            .iter()
            .map(|found| match &found.installation {
                Some(dir) => format!(
                    "{} ({}, shows {})",
                    found.name,
                    found.program.display(),
                    dir.display()
                ),
                None => format!("{} ({})", found.name, found.program.display()),
            })
            .collect();
        if !self.missing.is_empty() {
            parts.push(format!("not found: {}", self.missing.join(", ")));
        }
        format!("interpreters: {}", parts.join("; "))
    }

    fn named(&self, name: &str) -> Option<&Interpreter> {
        self.found.iter().find(|found| found.name == name)
    }
}

fn resolve_interpreter(name: &str, search_path: Option<&OsStr>) -> Option<Interpreter> {
    if name.contains('/') {
        return None;
    }
    let found = locate(name, Path::new("/"), search_path)?;
    let unshimmed = match shim_manager(&found) {
        Some(manager) => resolve_shim(&manager, name, Path::new("/")).ok()?,
        None => found,
    };
    let program = unshimmed.canonicalize().ok()?;
    let installation = (!is_system_path(&program)).then(|| installation_of(&program));
    Some(Interpreter {
        name: name.to_string(),
        program,
        installation,
    })
}

/// A confined bot's program: its real path and the installation it needs
/// shown (`None`: the bot folder or the system's).
pub(crate) fn confined_program(
    name: &str,
    bot_dir: &Path,
    interpreters: &Interpreters,
) -> Result<(PathBuf, Option<PathBuf>), SandboxError> {
    let outside =
        |why: &str| SandboxError::ProgramOutsideFolder(format!("`{}` {why}", shown(name)));
    if name.contains('/') {
        if let Some(why) = program_leaves_folder(name) {
            return Err(outside(&format!("is {why}")));
        }
        let path = locate(name, bot_dir, None)
            .ok_or_else(|| SandboxError::CommandNotFound(shown(name)))?;
        let real = path
            .canonicalize()
            .map_err(|_| SandboxError::CommandNotFound(shown(name)))?;
        return match real.starts_with(bot_dir) {
            true => Ok((real, None)),
            false => Err(outside("is a link that leaves the bot folder")),
        };
    }
    if let Some(listed) = interpreters.named(name) {
        return Ok((listed.program.clone(), listed.installation.clone()));
    }
    let path = locate(name, bot_dir, Some(OsStr::new(SYSTEM_SEARCH_PATH)))
        .ok_or_else(|| SandboxError::CommandNotFound(shown(name)))?;
    let real = path
        .canonicalize()
        .map_err(|_| SandboxError::CommandNotFound(shown(name)))?;
    match is_system_path(&real) {
        true => Ok((real, None)),
        false => Err(outside(
            "leads out of the system folders and is not one of the runner's interpreters",
        )),
    }
}

/// A name as an error quotes it: at most 120 characters.
pub(crate) fn shown(name: &str) -> String {
    const SHOWN: usize = 120;
    match name.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}...", &name[..cut]),
        None => name.to_string(),
    }
}
