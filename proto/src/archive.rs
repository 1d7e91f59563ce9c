//! Bot archives: a gzip-compressed tar of a bot folder, checked before the
//! arena stores it and checked again, by the same code, when a runner unpacks
//! it on its own machine ([`unpack_archive`]). So nothing
//! in it may escape that folder: no absolute paths, no `..`, no links, no
//! devices; nothing may blow up on unpacking (caps on the compressed
//! size, the unpacked size and the number of entries); and nothing a runner
//! could not write: no entry twice, no file where another entry needs a
//! folder (`a` and `a/b`), no path deeper, longer or with a longer name than
//! [`MAX_PATH_DEPTH`], [`MAX_PATH_BYTES`] and [`MAX_NAME_BYTES`].
//!
//! The folder's `cairn-bot.toml` (at the archive root) names the bot and
//! says how to run it: `name`, `command` (an argv list run in the folder),
//! optional `build` (an argv list) and optional `games` (game ids).
//!
//! This module lives in `cairn-proto` (feature `archive`) because both sides
//! of the wire need it: the arena checks what owners submit, runners unpack
//! what they fetch, and the CLI packs a folder ([`pack_folder`]).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path};

mod command;
mod pack;

pub use self::command::{check_programs_stay_inside, program_leaves_folder};
pub use self::pack::{pack_folder, unpack_archive, PackError};

use sha2::{Digest, Sha256};

/// The largest archive accepted, compressed.
pub const MAX_ARCHIVE_BYTES: usize = 16 * 1024 * 1024;
/// The most an archive may unpack to.
pub const MAX_UNPACKED_BYTES: u64 = 64 * 1024 * 1024;
/// The most files and folders an archive may hold.
pub const MAX_ENTRIES: usize = 10_000;
/// The most folders an entry may lie under, plus one for its own name.
pub const MAX_PATH_DEPTH: usize = 32;
/// The longest entry path, in bytes (far under the 4,096 of `PATH_MAX`,
/// so a runner's cache folder fits in front of it).
pub const MAX_PATH_BYTES: usize = 1024;
/// The longest file or folder name, in bytes (`NAME_MAX` of Linux file systems).
pub const MAX_NAME_BYTES: usize = 255;
/// The manifest's file name, at the archive root.
pub const MANIFEST_FILE: &str = "cairn-bot.toml";

/// Why an archive was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    #[error("the archive is empty")]
    Empty,
    #[error("the archive is {size} bytes, more than the {limit} allowed")]
    TooLarge { size: usize, limit: usize },
    #[error("the archive unpacks to more than {limit} bytes")]
    UnpacksTooLarge { limit: u64 },
    #[error("the archive holds more than {limit} entries")]
    TooManyEntries { limit: usize },
    #[error("the archive is not a readable tar.gz: {0}")]
    Corrupt(String),
    #[error("the archive entry `{0}` would land outside the bot folder")]
    UnsafePath(String),
    #[error("the archive entry `{0}` is a link; bot archives may hold only files and folders")]
    Link(String),
    #[error(
        "the archive entry `{path}` is a {kind}; bot archives may hold only files and folders"
    )]
    UnsupportedEntry { path: String, kind: String },
    #[error("the archive holds `{0}` twice")]
    DuplicateEntry(String),
    #[error("the archive holds `{file}` as a file and `{inside}` inside it")]
    FileAsFolder { file: String, inside: String },
    #[error("the archive entry `{path}` is more than {limit} folders deep")]
    PathTooDeep { path: String, limit: usize },
    #[error("the archive entry `{path}` has a path longer than {limit} bytes")]
    PathTooLong { path: String, limit: usize },
    #[error("the archive entry `{path}` has a name longer than {limit} bytes")]
    NameTooLong { path: String, limit: usize },
    #[error("{MANIFEST_FILE} not found at the archive root{hint}")]
    MissingManifest { hint: String },
    #[error("{MANIFEST_FILE} is invalid: {0}")]
    BadManifest(String),
}

/// The largest `cairn-bot.toml` taken.
pub const MAX_MANIFEST_BYTES: usize = 16 * 1024;

/// The parsed `cairn-bot.toml`. Unknown keys are refused, so a typo such as
/// `buld` is an error rather than a bot that is silently never built.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<Vec<String>>,
}

impl Manifest {
    /// Reads and checks a manifest's text.
    pub fn parse(text: &str) -> Result<Manifest, ArchiveError> {
        // Every lease carries its seats' manifests: one past a runner's
        // message limit would make its matches impossible to hand out.
        if text.len() > MAX_MANIFEST_BYTES {
            return Err(ArchiveError::BadManifest(format!(
                "it is {} bytes; at most {MAX_MANIFEST_BYTES} are taken",
                text.len()
            )));
        }
        let manifest: Manifest = toml::from_str(text)
            .map_err(|error| ArchiveError::BadManifest(error.message().to_string()))?;
        if manifest.name.trim().is_empty() {
            return Err(ArchiveError::BadManifest("`name` is empty".into()));
        }
        if manifest
            .command
            .first()
            .is_none_or(|program| program.is_empty())
        {
            return Err(ArchiveError::BadManifest(
                "`command` must be a non-empty argv list".into(),
            ));
        }
        if manifest
            .build
            .as_ref()
            .is_some_and(|build| build.first().is_none_or(|program| program.is_empty()))
        {
            return Err(ArchiveError::BadManifest(
                "`build`, when given, must be a non-empty argv list".into(),
            ));
        }
        let mut words = std::iter::once(&manifest.name)
            .chain(&manifest.command)
            .chain(manifest.build.iter().flatten())
            .chain(manifest.games.iter().flatten());
        if words.any(|word| word.contains('\0')) {
            return Err(ArchiveError::BadManifest(
                "a NUL character cannot be passed to a program".into(),
            ));
        }
        if manifest.games.as_ref().is_some_and(Vec::is_empty) {
            return Err(ArchiveError::BadManifest(
                "`games`, when given, must list at least one game".into(),
            ));
        }
        if let Some(unknown) = manifest
            .games
            .iter()
            .flatten()
            .find(|game| cairn_engine::descriptor(game).is_none())
        {
            return Err(ArchiveError::BadManifest(format!(
                "`games` lists `{unknown}`, which is not a game (games: {})",
                cairn_engine::game_ids().collect::<Vec<_>>().join(", ")
            )));
        }
        Ok(manifest)
    }

    /// Whether the bot says it plays `game` (a bot that lists no games plays any).
    pub fn plays(&self, game: &str) -> bool {
        self.games
            .as_ref()
            .is_none_or(|games| games.iter().any(|listed| listed == game))
    }
}

/// An archive that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedArchive {
    pub manifest: Manifest,
    /// sha-256 over the unpacked contents (paths, executable bits, bytes), so
    /// the same folder packed twice has the same hash whatever tar and gzip
    /// did. Every path and file is length-prefixed: no two trees hash alike.
    pub content_hash: String,
    /// The hash of the first encoding (lines of `folder PATH` and `file
    /// PATH X LEN`), under which versions stored before the current one
    /// are known: a folder named `a\nfolder b` hashed as two folders. A
    /// runner still takes it as the name of an artifact it fetched.
    pub line_content_hash: String,
    pub n_files: usize,
    pub unpacked_bytes: u64,
}

/// One entry's part of the content hash.
enum Item {
    Folder,
    File { executable: bool, bytes: Vec<u8> },
}

/// Checks an archive and reads its manifest.
pub fn check_archive(archive: &[u8]) -> Result<CheckedArchive, ArchiveError> {
    if archive.is_empty() {
        return Err(ArchiveError::Empty);
    }
    if archive.len() > MAX_ARCHIVE_BYTES {
        return Err(ArchiveError::TooLarge {
            size: archive.len(),
            limit: MAX_ARCHIVE_BYTES,
        });
    }
    let items = read_items(archive)?;
    check_items(&items)
}

/// The checks on the entries as a whole, once every one was read.
fn check_items(items: &BTreeMap<String, Item>) -> Result<CheckedArchive, ArchiveError> {
    check_files_are_not_folders(items)?;
    let manifest = find_manifest(items)?;
    let n_files = items
        .values()
        .filter(|item| matches!(item, Item::File { .. }))
        .count();
    let unpacked_bytes = items
        .values()
        .map(|item| {
            if let Item::File { bytes, .. } = item {
                bytes.len() as u64
            } else {
                0
            }
        })
        .sum();
    Ok(CheckedArchive {
        manifest,
        content_hash: content_hash(items),
        line_content_hash: line_content_hash(items),
        n_files,
        unpacked_bytes,
    })
}

fn read_items(archive: &[u8]) -> Result<BTreeMap<String, Item>, ArchiveError> {
    // The cap bounds how much a gzip bomb can make us inflate.
    let unpacked = flate2::read::GzDecoder::new(archive).take(MAX_UNPACKED_BYTES + 1);
    let mut tar = tar::Archive::new(unpacked);
    let corrupt = |error: std::io::Error| ArchiveError::Corrupt(error.to_string());
    let mut items = BTreeMap::new();
    let mut total_bytes = 0_u64;
    for entry in tar.entries().map_err(corrupt)? {
        let mut entry = entry.map_err(|error| corrupt_or_too_large(error, total_bytes))?;
        if items.len() >= MAX_ENTRIES {
            return Err(ArchiveError::TooManyEntries { limit: MAX_ENTRIES });
        }
        let raw_path = entry
            .path()
            .map_err(corrupt)?
            .to_string_lossy()
            .into_owned();
        let Some(path) = normalised_path(&raw_path)? else {
            continue;
        };
        let item = read_item(&mut entry, &path, &mut total_bytes)?;
        if items.insert(path.clone(), item).is_some() {
            return Err(ArchiveError::DuplicateEntry(path));
        }
    }
    Ok(items)
}

/// Refuses a file that another entry's path needs as a folder (`a` and
/// `a/b`, in either order): unpacking one of them would fail.
fn check_files_are_not_folders(items: &BTreeMap<String, Item>) -> Result<(), ArchiveError> {
    for path in items.keys() {
        let mut end = 0;
        while let Some(offset) = path[end..].find('/') {
            end += offset;
            if let Some(Item::File { .. }) = items.get(&path[..end]) {
                return Err(ArchiveError::FileAsFolder {
                    file: shown(&path[..end]),
                    inside: shown(path),
                });
            }
            end += 1;
        }
    }
    Ok(())
}

/// A path as an error shows it: at most 120 characters.
fn shown(path: &str) -> String {
    const SHOWN: usize = 120;
    match path.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}...", &path[..cut]),
        None => path.to_string(),
    }
}

/// A truncated stream past the unpack cap is a bomb, not corruption.
fn corrupt_or_too_large(error: std::io::Error, total_bytes: u64) -> ArchiveError {
    if total_bytes >= MAX_UNPACKED_BYTES {
        ArchiveError::UnpacksTooLarge {
            limit: MAX_UNPACKED_BYTES,
        }
    } else {
        ArchiveError::Corrupt(error.to_string())
    }
}

fn read_item<R: Read>(
    entry: &mut tar::Entry<R>,
    path: &str,
    total_bytes: &mut u64,
) -> Result<Item, ArchiveError> {
    let kind = entry.header().entry_type();
    match kind {
        tar::EntryType::Directory => Ok(Item::Folder),
        tar::EntryType::Regular | tar::EntryType::Continuous => {
            let declared = entry
                .header()
                .size()
                .map_err(|error| ArchiveError::Corrupt(error.to_string()))?;
            *total_bytes = total_bytes.saturating_add(declared);
            if *total_bytes > MAX_UNPACKED_BYTES {
                return Err(ArchiveError::UnpacksTooLarge {
                    limit: MAX_UNPACKED_BYTES,
                });
            }
            let mut bytes = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
            entry
                .read_to_end(&mut bytes)
                .map_err(|error| corrupt_or_too_large(error, *total_bytes))?;
            let executable = entry.header().mode().is_ok_and(|mode| mode & 0o111 != 0);
            Ok(Item::File { executable, bytes })
        }
        tar::EntryType::Symlink | tar::EntryType::Link => Err(ArchiveError::Link(path.to_string())),
        other => Err(ArchiveError::UnsupportedEntry {
            path: path.to_string(),
            kind: format!("{other:?}").to_lowercase(),
        }),
    }
}

/// The entry's path relative to the bot folder (`None` for the folder
/// itself), refusing anything that could point outside it or that a
/// runner could not create.
fn normalised_path(raw: &str) -> Result<Option<String>, ArchiveError> {
    let mut parts = Vec::new();
    for component in Path::new(raw).components() {
        match component {
            Component::Normal(part) => {
                let part = part.to_string_lossy().into_owned();
                if part.len() > MAX_NAME_BYTES {
                    return Err(ArchiveError::NameTooLong {
                        path: shown(raw),
                        limit: MAX_NAME_BYTES,
                    });
                }
                parts.push(part);
                if parts.len() > MAX_PATH_DEPTH {
                    return Err(ArchiveError::PathTooDeep {
                        path: shown(raw),
                        limit: MAX_PATH_DEPTH,
                    });
                }
            }
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(ArchiveError::UnsafePath(shown(raw)));
            }
        }
    }
    let path = parts.join("/");
    if path.len() > MAX_PATH_BYTES {
        return Err(ArchiveError::PathTooLong {
            path: shown(raw),
            limit: MAX_PATH_BYTES,
        });
    }
    Ok((!parts.is_empty()).then_some(path))
}

fn find_manifest(items: &BTreeMap<String, Item>) -> Result<Manifest, ArchiveError> {
    match items.get(MANIFEST_FILE) {
        Some(Item::File { bytes, .. }) => {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| ArchiveError::BadManifest("it is not UTF-8 text".into()))?;
            let manifest = Manifest::parse(text)?;
            check_programs_stay_inside(&manifest)?;
            Ok(manifest)
        }
        Some(Item::Folder) => Err(ArchiveError::BadManifest("it is a folder".into())),
        None => Err(ArchiveError::MissingManifest {
            hint: nested_manifest_hint(items),
        }),
    }
}

/// Points at a manifest packed one folder too deep, the usual mistake.
fn nested_manifest_hint(items: &BTreeMap<String, Item>) -> String {
    let suffix = format!("/{MANIFEST_FILE}");
    match items.keys().find(|path| path.ends_with(&suffix)) {
        Some(path) => {
            let folder = &path[..path.len() - suffix.len()];
            format!(" (it is at `{path}`: pack the folder's contents, e.g. `tar czf bot.tar.gz -C {folder} .`)")
        }
        None => String::new(),
    }
}

impl CheckedArchive {
    /// Whether `hash` names these contents, in the current encoding or in
    /// the first one (see [`CheckedArchive::line_content_hash`]).
    pub fn is_named_by(&self, hash: &str) -> bool {
        self.content_hash == hash || self.line_content_hash == hash
    }
}

/// The tag that opens the current encoding (never the start of the first,
/// which opens with `folder ` or `file `).
const CONTENT_HASH_V2: &[u8] = b"cairn-content-v2\0";

/// sha-256 over a tag, then per entry (sorted by path) a kind byte, the
/// path's length (8 bytes, big-endian) and bytes, and for a file its
/// executable bit, its length and its bytes.
fn content_hash(items: &BTreeMap<String, Item>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(CONTENT_HASH_V2);
    for (path, item) in items {
        let kind: &[u8] = match item {
            Item::Folder => b"d",
            Item::File { .. } => b"f",
        };
        hasher.update(kind);
        hasher.update((path.len() as u64).to_be_bytes());
        hasher.update(path.as_bytes());
        if let Item::File { executable, bytes } = item {
            hasher.update([u8::from(*executable)]);
            hasher.update((bytes.len() as u64).to_be_bytes());
            hasher.update(bytes);
        }
    }
    hex::encode(hasher.finalize())
}

fn line_content_hash(items: &BTreeMap<String, Item>) -> String {
    let mut hasher = Sha256::new();
    for (path, item) in items {
        match item {
            Item::Folder => hasher.update(format!("folder {path}\n").as_bytes()),
            Item::File { executable, bytes } => {
                hasher.update(
                    format!("file {path} {} {}\n", u8::from(*executable), bytes.len()).as_bytes(),
                );
                hasher.update(bytes);
            }
        }
    }
    hex::encode(hasher.finalize())
}

#[cfg(test)]
mod tests;
