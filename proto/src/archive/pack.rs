//! Packing a bot folder into an archive (the CLI's `bot add`) and unpacking
//! a fetched archive into a fresh folder (the runner). Unpacking goes
//! through the same checks as submitting, so a runner never writes an entry
//! the arena would have refused, whatever the bytes it was sent.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{read_items, ArchiveError, CheckedArchive, Item};

/// Folders never packed: build output and tool caches, which can be large
/// and which a runner rebuilds with the manifest's `build` command.
const SKIPPED_FOLDERS: &[&str] = &[".git", "target", "node_modules", "__pycache__", ".venv"];

/// Why a folder could not be packed or an archive unpacked.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} is a symbolic link; bot folders may hold only files and folders")]
    Link(PathBuf),
    #[error("{0} already exists and is not empty")]
    NotEmpty(PathBuf),
    #[error(transparent)]
    Archive(#[from] ArchiveError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> PackError + '_ {
    move |source| PackError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Packs the contents of `folder` (not the folder itself) into a tar.gz,
/// with paths in a fixed order, then checks it as the arena will.
pub fn pack_folder(folder: &Path) -> Result<Vec<u8>, PackError> {
    let mut files = Vec::new();
    collect_files(folder, folder, &mut files)?;
    let mut builder = tar::Builder::new(Vec::new());
    for (relative, absolute) in &files {
        let data = std::fs::read(absolute).map_err(io_error(absolute))?;
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(data.len() as u64);
        header.set_mode(if is_executable(absolute) {
            0o755
        } else {
            0o644
        });
        builder
            .append_data(&mut header, relative, data.as_slice())
            .map_err(io_error(absolute))?;
    }
    let tar_bytes = builder.into_inner().map_err(io_error(folder))?;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&tar_bytes).map_err(io_error(folder))?;
    let archive = encoder.finish().map_err(io_error(folder))?;
    super::check_archive(&archive)?;
    Ok(archive)
}

fn collect_files(
    root: &Path,
    folder: &Path,
    files: &mut Vec<(String, PathBuf)>,
) -> Result<(), PackError> {
    let mut entries: Vec<_> = std::fs::read_dir(folder)
        .map_err(io_error(folder))?
        .collect::<Result<_, _>>()
        .map_err(io_error(folder))?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let path = entry.path();
        let kind = entry.file_type().map_err(io_error(&path))?;
        if kind.is_symlink() {
            return Err(PackError::Link(path));
        }
        if kind.is_dir() {
            if !SKIPPED_FOLDERS
                .iter()
                .any(|skipped| entry.file_name() == *skipped)
            {
                collect_files(root, &path, files)?;
            }
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        files.push((relative, path));
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|metadata| metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    false
}

/// Checks `archive` exactly as the arena does, then writes its files into
/// `destination` (refused unless missing or empty). Every path was
/// normalised by the check, so nothing lands outside `destination`.
///
/// The files are written into a sibling folder, `destination` with
/// `.partial` appended, which is renamed into place only once complete and
/// removed on every failure: a failed unpack leaves nothing behind.
pub fn unpack_archive(archive: &[u8], destination: &Path) -> Result<CheckedArchive, PackError> {
    let items = read_items(archive)?;
    let checked = super::check_items(&items)?;
    let is_empty_folder = match std::fs::read_dir(destination) {
        Ok(mut entries) => entries.next().is_none(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => true,
        Err(error) => return Err(io_error(destination)(error)),
    };
    if !is_empty_folder {
        return Err(PackError::NotEmpty(destination.to_path_buf()));
    }
    let mut partial = destination.as_os_str().to_os_string();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    if partial.symlink_metadata().is_ok() {
        // Left by an unpack that was killed half way.
        std::fs::remove_dir_all(&partial).map_err(io_error(&partial))?;
    }
    let written = write_items(&items, &partial).and_then(|()| {
        if destination.is_dir() {
            std::fs::remove_dir(destination).map_err(io_error(destination))?;
        }
        std::fs::rename(&partial, destination).map_err(io_error(destination))
    });
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    written.map(|()| checked)
}

fn write_items(items: &BTreeMap<String, Item>, folder: &Path) -> Result<(), PackError> {
    if let Some(parent) = folder.parent() {
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
    }
    std::fs::create_dir(folder).map_err(io_error(folder))?;
    for (relative, item) in items {
        let path = folder.join(relative);
        match item {
            Item::Folder => std::fs::create_dir_all(&path).map_err(io_error(&path))?,
            Item::File { executable, bytes } => write_new_file(&path, bytes, *executable)?,
        }
    }
    Ok(())
}

fn write_new_file(path: &Path, bytes: &[u8], executable: bool) -> Result<(), PackError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
    }
    let mut options = std::fs::OpenOptions::new();
    // `create_new` never follows a link someone left at the path.
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if executable { 0o755 } else { 0o644 });
    }
    let mut file = options.open(path).map_err(io_error(path))?;
    file.write_all(bytes).map_err(io_error(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_folder_unpacks_to_the_same_files_with_the_same_hash() {
        let source = tempfile::tempdir().unwrap();
        std::fs::write(
            source.path().join("cairn-bot.toml"),
            "name = \"b\"\ncommand = [\"./run.sh\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(source.path().join("lib/target")).unwrap();
        std::fs::write(source.path().join("lib/helper.py"), "x = 1\n").unwrap();
        std::fs::write(source.path().join("lib/target/big.bin"), "skipped").unwrap();
        std::fs::write(source.path().join("run.sh"), "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                source.path().join("run.sh"),
                std::fs::Permissions::from_mode(0o755),
            )
            .unwrap();
        }
        let archive = pack_folder(source.path()).unwrap();
        let destination = tempfile::tempdir().unwrap();
        let unpacked = unpack_archive(&archive, &destination.path().join("bot")).unwrap();
        assert_eq!(unpacked.manifest.name, "b");
        assert_eq!(unpacked.n_files, 3);
        assert_eq!(
            std::fs::read_to_string(destination.path().join("bot/lib/helper.py")).unwrap(),
            "x = 1\n"
        );
        assert!(!destination.path().join("bot/lib/target").exists());
        assert!(is_executable(&destination.path().join("bot/run.sh")));
        assert_eq!(
            super::super::check_archive(&pack_folder(source.path()).unwrap())
                .unwrap()
                .content_hash,
            unpacked.content_hash
        );
    }

    #[test]
    fn unpacking_refuses_a_hostile_archive_and_writes_nothing() {
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        let path = "../escape.txt";
        header.as_mut_bytes()[..path.len()].copy_from_slice(path.as_bytes());
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(2);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append(&header, &b"hi"[..]).unwrap();
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&builder.into_inner().unwrap()).unwrap();
        let archive = encoder.finish().unwrap();
        let destination = tempfile::tempdir().unwrap();
        let refused = unpack_archive(&archive, &destination.path().join("bot"));
        assert!(
            matches!(
                refused,
                Err(PackError::Archive(ArchiveError::UnsafePath(_)))
            ),
            "{refused:?}"
        );
        assert!(
            !destination.path().join("bot").exists()
                && !destination.path().join("escape.txt").exists()
        );
    }

    #[test]
    fn unpacking_into_a_folder_that_holds_files_is_refused() {
        let source = tempfile::tempdir().unwrap();
        std::fs::write(
            source.path().join("cairn-bot.toml"),
            "name = \"b\"\ncommand = [\"x\"]\n",
        )
        .unwrap();
        let archive = pack_folder(source.path()).unwrap();
        assert!(matches!(
            unpack_archive(&archive, source.path()),
            Err(PackError::NotEmpty(_))
        ));
    }
}
