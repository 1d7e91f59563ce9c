//! Archives built by hand, honest and hostile.

use std::io::Write;

use super::*;

const MANIFEST: &str = "name = \"greedy\"\ncommand = [\"python3\", \"bot.py\"]\nbuild = [\"make\"]\ngames = [\"schotten-totten\"]\n";

/// Writes a raw tar header whose name is taken as is (the tar crate's
/// builder would refuse the hostile ones).
fn raw_entry(
    builder: &mut tar::Builder<Vec<u8>>,
    path: &str,
    kind: tar::EntryType,
    data: &[u8],
    link: Option<&str>,
) {
    let mut header = tar::Header::new_gnu();
    header.as_mut_bytes()[..path.len()].copy_from_slice(path.as_bytes());
    header.set_entry_type(kind);
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    if let Some(target) = link {
        header.set_link_name(target).unwrap();
    }
    header.set_cksum();
    builder.append(&header, data).unwrap();
}

fn gzip(tar_bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(tar_bytes).unwrap();
    encoder.finish().unwrap()
}

fn archive_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in files {
        raw_entry(&mut builder, path, tar::EntryType::Regular, data, None);
    }
    gzip(&builder.into_inner().unwrap())
}

#[test]
fn an_honest_archive_yields_its_manifest_and_hash() {
    let checked = check_archive(&archive_of(&[
        ("cairn-bot.toml", MANIFEST.as_bytes()),
        ("bot.py", b"print(1)"),
    ]))
    .unwrap();
    assert_eq!(checked.manifest.name, "greedy");
    assert_eq!(checked.manifest.command, ["python3", "bot.py"]);
    assert_eq!(
        checked.manifest.build.as_deref(),
        Some(&["make".to_string()][..])
    );
    assert!(checked.manifest.plays("schotten-totten") && !checked.manifest.plays("bullfrogs"));
    assert_eq!(checked.n_files, 2);
    assert_eq!(checked.content_hash.len(), 64);
}

#[test]
fn the_hash_follows_the_contents_not_the_packing() {
    let one = archive_of(&[
        ("cairn-bot.toml", MANIFEST.as_bytes()),
        ("bot.py", b"print(1)"),
    ]);
    let reordered = archive_of(&[
        ("./bot.py", b"print(1)"),
        ("./cairn-bot.toml", MANIFEST.as_bytes()),
    ]);
    let changed = archive_of(&[
        ("cairn-bot.toml", MANIFEST.as_bytes()),
        ("bot.py", b"print(2)"),
    ]);
    let hash = |bytes: &[u8]| check_archive(bytes).unwrap().content_hash;
    assert_eq!(hash(&one), hash(&reordered));
    assert_ne!(hash(&one), hash(&changed));
}

#[test]
fn empty_oversized_and_corrupt_archives_are_refused() {
    assert_eq!(check_archive(&[]), Err(ArchiveError::Empty));
    let oversized = vec![0_u8; MAX_ARCHIVE_BYTES + 1];
    assert!(matches!(
        check_archive(&oversized),
        Err(ArchiveError::TooLarge { .. })
    ));
    assert!(matches!(
        check_archive(b"this is not gzip at all"),
        Err(ArchiveError::Corrupt(_))
    ));
    let mut truncated = archive_of(&[
        ("cairn-bot.toml", MANIFEST.as_bytes()),
        ("bot.py", &[7; 5000]),
    ]);
    truncated.truncate(truncated.len() / 2);
    assert!(matches!(
        check_archive(&truncated),
        Err(ArchiveError::Corrupt(_))
    ));
}

#[test]
fn a_gzip_bomb_is_stopped_at_the_unpack_cap() {
    let mut builder = tar::Builder::new(Vec::new());
    raw_entry(
        &mut builder,
        "cairn-bot.toml",
        tar::EntryType::Regular,
        MANIFEST.as_bytes(),
        None,
    );
    let zeros = vec![0_u8; MAX_UNPACKED_BYTES as usize + 1024];
    raw_entry(
        &mut builder,
        "padding.bin",
        tar::EntryType::Regular,
        &zeros,
        None,
    );
    let bomb = gzip(&builder.into_inner().unwrap());
    assert!(bomb.len() < MAX_ARCHIVE_BYTES, "the bomb itself is small");
    assert_eq!(
        check_archive(&bomb),
        Err(ArchiveError::UnpacksTooLarge {
            limit: MAX_UNPACKED_BYTES
        })
    );
}

#[test]
fn paths_that_escape_the_folder_are_refused() {
    for hostile in ["../evil.sh", "/etc/passwd", "bots/../../evil.sh"] {
        let archive = archive_of(&[("cairn-bot.toml", MANIFEST.as_bytes()), (hostile, b"x")]);
        assert_eq!(
            check_archive(&archive),
            Err(ArchiveError::UnsafePath(hostile.to_string())),
            "{hostile}"
        );
    }
}

#[test]
fn links_and_devices_are_refused() {
    for (kind, link) in [
        (tar::EntryType::Symlink, Some("/etc/passwd")),
        (tar::EntryType::Link, Some("cairn-bot.toml")),
    ] {
        let mut builder = tar::Builder::new(Vec::new());
        raw_entry(
            &mut builder,
            "cairn-bot.toml",
            tar::EntryType::Regular,
            MANIFEST.as_bytes(),
            None,
        );
        raw_entry(&mut builder, "escape", kind, b"", link);
        let archive = gzip(&builder.into_inner().unwrap());
        assert_eq!(
            check_archive(&archive),
            Err(ArchiveError::Link("escape".into()))
        );
    }
    let mut builder = tar::Builder::new(Vec::new());
    raw_entry(&mut builder, "null", tar::EntryType::Char, b"", None);
    let archive = gzip(&builder.into_inner().unwrap());
    assert!(matches!(
        check_archive(&archive),
        Err(ArchiveError::UnsupportedEntry { .. })
    ));
}

#[test]
fn a_missing_manifest_is_named_with_a_hint_when_packed_too_deep() {
    let flat = archive_of(&[("bot.py", b"print(1)")]);
    assert_eq!(
        check_archive(&flat),
        Err(ArchiveError::MissingManifest {
            hint: String::new()
        })
    );
    let nested = archive_of(&[("mybot/cairn-bot.toml", MANIFEST.as_bytes())]);
    let message = check_archive(&nested).unwrap_err().to_string();
    assert!(
        message.contains("mybot/cairn-bot.toml") && message.contains("-C mybot"),
        "{message}"
    );
}

#[test]
fn bad_manifests_say_what_is_wrong() {
    let cases = [
        ("name = \"x\"\n", "command"),
        ("name = \"x\"\ncommand = []\n", "command"),
        ("name = \"\"\ncommand = [\"a\"]\n", "name"),
        ("name = \"x\"\ncommand = [\"a\"]\nbuild = []\n", "build"),
        ("name = \"x\"\ncommand = [\"a\"]\ngames = []\n", "games"),
        ("name = \"x\"\ncommand = \"python3 bot.py\"\n", "sequence"),
        ("this is [not toml", ""),
        ("name = \"x\"\ncommand = [\"a\\u0000b\"]\n", "NUL"),
        (
            "name = \"x\"\ncommand = [\"a\"]\ngames = [\"<script>\"]\n",
            "not a game",
        ),
        (
            "name = \"x\"\ncommand = [\"a\"]\nbuild = [\"make\", \"\\u0000\"]\n",
            "NUL",
        ),
    ];
    // A command too long for a lease to carry.
    let huge = format!(
        "name = \"x\"\ncommand = [\"{}\"]\n",
        "a".repeat(MAX_MANIFEST_BYTES)
    );
    let cases = cases.into_iter().chain([(huge.as_str(), "at most 16384")]);
    for (text, mentions) in cases {
        let message = check_archive(&archive_of(&[("cairn-bot.toml", text.as_bytes())]))
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("cairn-bot.toml is invalid") && message.contains(mentions),
            "{text:?}: {message}"
        );
    }
}

#[test]
fn duplicate_entries_are_refused() {
    let archive = archive_of(&[
        ("cairn-bot.toml", MANIFEST.as_bytes()),
        ("bot.py", b"1"),
        ("./bot.py", b"2"),
    ]);
    assert_eq!(
        check_archive(&archive),
        Err(ArchiveError::DuplicateEntry("bot.py".into()))
    );
}

#[test]
fn an_archive_with_too_many_entries_is_refused() {
    let mut builder = tar::Builder::new(Vec::new());
    raw_entry(
        &mut builder,
        "cairn-bot.toml",
        tar::EntryType::Regular,
        MANIFEST.as_bytes(),
        None,
    );
    for index in 0..MAX_ENTRIES {
        raw_entry(
            &mut builder,
            &format!("f{index}"),
            tar::EntryType::Regular,
            b"",
            None,
        );
    }
    let archive = gzip(&builder.into_inner().unwrap());
    assert_eq!(
        check_archive(&archive),
        Err(ArchiveError::TooManyEntries { limit: MAX_ENTRIES })
    );
}

/// One entry of a corpus archive: a path (any length) and what it is.
enum Entry<'a> {
    File(&'a str, &'a [u8]),
    Folder(&'a str),
    Raw(&'a str, tar::EntryType, Option<&'a str>),
}

/// Packs entries in order; long paths go through GNU long-name records,
/// as real tar tools write them.
fn archive_with(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        match entry {
            Entry::File(path, data) => {
                let mut header = tar::Header::new_gnu();
                header.set_entry_type(tar::EntryType::Regular);
                header.set_size(data.len() as u64);
                header.set_mode(0o644);
                builder.append_data(&mut header, path, *data).unwrap();
            }
            Entry::Folder(path) => {
                let mut header = tar::Header::new_gnu();
                header.set_entry_type(tar::EntryType::Directory);
                header.set_size(0);
                header.set_mode(0o755);
                builder.append_data(&mut header, path, &b""[..]).unwrap();
            }
            Entry::Raw(path, kind, link) => raw_entry(&mut builder, path, *kind, b"", *link),
        }
    }
    gzip(&builder.into_inner().unwrap())
}

/// `depth` folders of `name`, then a file `f`.
fn nested(depth: usize, name: &str) -> String {
    let mut path = format!("{name}/").repeat(depth);
    path.push('f');
    path
}

/// Every archive here is given to the check and to the unpack: what the
/// check accepts unpacks completely, what it refuses the unpack refuses for
/// the same reason, leaving nothing (no folder, no `.partial`) behind.
#[test]
fn the_check_and_the_unpack_agree_on_a_corpus_of_honest_and_hostile_archives() {
    let deepest = nested(MAX_PATH_DEPTH - 1, "d");
    let too_deep = nested(MAX_PATH_DEPTH, "d");
    let very_deep = nested(2000, "d");
    // Five names of 204 bytes and four slashes: 1,024 bytes.
    let longest = vec!["x".repeat(204); 5].join("/");
    assert_eq!(longest.len(), MAX_PATH_BYTES);
    let too_long = longest.clone() + "z";
    let longest_name = "n".repeat(MAX_NAME_BYTES);
    let too_long_name = "n".repeat(MAX_NAME_BYTES + 1);
    type Case<'a> = (&'a str, Vec<Entry<'a>>, Option<fn(&ArchiveError) -> bool>);
    let cases: Vec<Case<'_>> = vec![
        (
            "honest",
            vec![
                Entry::Folder("lib"),
                Entry::File("lib/a.py", b"1"),
                Entry::File("bot.py", b"2"),
            ],
            None,
        ),
        (
            "folder then its file",
            vec![Entry::Folder("a"), Entry::File("a/b", b"1")],
            None,
        ),
        ("deepest path", vec![Entry::File(&deepest, b"1")], None),
        ("longest path", vec![Entry::File(&longest, b"1")], None),
        ("longest name", vec![Entry::File(&longest_name, b"1")], None),
        (
            "file then a file inside it",
            vec![Entry::File("a", b"1"), Entry::File("a/b", b"2")],
            Some(
                |e| matches!(e, ArchiveError::FileAsFolder { file, inside } if file == "a" && inside == "a/b"),
            ),
        ),
        (
            "file inside then the file",
            vec![Entry::File("a/b/c", b"2"), Entry::File("a/b", b"1")],
            Some(|e| matches!(e, ArchiveError::FileAsFolder { file, .. } if file == "a/b")),
        ),
        (
            "file then a folder inside it",
            vec![Entry::File("a", b"1"), Entry::Folder("a/b")],
            Some(|e| matches!(e, ArchiveError::FileAsFolder { .. })),
        ),
        (
            "a file twice",
            vec![Entry::File("a", b"1"), Entry::File("./a", b"2")],
            Some(|e| matches!(e, ArchiveError::DuplicateEntry(path) if path == "a")),
        ),
        (
            "a file and a folder of one name",
            vec![Entry::Folder("a"), Entry::File("a", b"2")],
            Some(|e| matches!(e, ArchiveError::DuplicateEntry(_))),
        ),
        (
            "a folder twice",
            vec![Entry::Folder("a"), Entry::Folder("a/")],
            Some(|e| matches!(e, ArchiveError::DuplicateEntry(_))),
        ),
        (
            "one folder too deep",
            vec![Entry::File(&too_deep, b"1")],
            Some(|e| {
                matches!(
                    e,
                    ArchiveError::PathTooDeep {
                        limit: MAX_PATH_DEPTH,
                        ..
                    }
                )
            }),
        ),
        (
            "2,000 folders deep",
            vec![Entry::File(&very_deep, b"1")],
            Some(|e| matches!(e, ArchiveError::PathTooDeep { path, .. } if path.len() < 200)),
        ),
        (
            "one byte too long",
            vec![Entry::File(&too_long, b"1")],
            Some(|e| {
                matches!(
                    e,
                    ArchiveError::PathTooLong {
                        limit: MAX_PATH_BYTES,
                        ..
                    }
                )
            }),
        ),
        (
            "a name one byte too long",
            vec![Entry::File(&too_long_name, b"1")],
            Some(|e| {
                matches!(
                    e,
                    ArchiveError::NameTooLong {
                        limit: MAX_NAME_BYTES,
                        ..
                    }
                )
            }),
        ),
        (
            "parent folder",
            vec![Entry::Raw("../evil", tar::EntryType::Regular, None)],
            Some(|e| matches!(e, ArchiveError::UnsafePath(_))),
        ),
        (
            "absolute path",
            vec![Entry::Raw("/tmp/evil", tar::EntryType::Regular, None)],
            Some(|e| matches!(e, ArchiveError::UnsafePath(_))),
        ),
        (
            "symbolic link",
            vec![Entry::Raw("l", tar::EntryType::Symlink, Some("/etc"))],
            Some(|e| matches!(e, ArchiveError::Link(_))),
        ),
        (
            "hard link",
            vec![Entry::Raw(
                "l",
                tar::EntryType::Link,
                Some("cairn-bot.toml"),
            )],
            Some(|e| matches!(e, ArchiveError::Link(_))),
        ),
        (
            "character device",
            vec![Entry::Raw("tty", tar::EntryType::Char, None)],
            Some(|e| matches!(e, ArchiveError::UnsupportedEntry { .. })),
        ),
        (
            "block device",
            vec![Entry::Raw("sda", tar::EntryType::Block, None)],
            Some(|e| matches!(e, ArchiveError::UnsupportedEntry { .. })),
        ),
        (
            "fifo",
            vec![Entry::Raw("pipe", tar::EntryType::Fifo, None)],
            Some(|e| matches!(e, ArchiveError::UnsupportedEntry { .. })),
        ),
    ];
    for (name, mut entries, refusal) in cases {
        entries.insert(0, Entry::File("cairn-bot.toml", MANIFEST.as_bytes()));
        let archive = archive_with(&entries);
        let checked = check_archive(&archive);
        let scratch = tempfile::tempdir().unwrap();
        let destination = scratch.path().join("bot");
        let unpacked = unpack_archive(&archive, &destination);
        match refusal {
            None => {
                let checked = checked.unwrap_or_else(|e| panic!("{name}: {e}"));
                let unpacked = unpacked.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(checked, unpacked, "{name}");
                for entry in &entries {
                    match entry {
                        Entry::File(path, data) => {
                            assert_eq!(
                                &std::fs::read(destination.join(path)).unwrap(),
                                data,
                                "{name}"
                            )
                        }
                        Entry::Folder(path) => assert!(destination.join(path).is_dir(), "{name}"),
                        Entry::Raw(..) => unreachable!("raw entries are all hostile"),
                    }
                }
            }
            Some(is_expected) => {
                let error = checked.expect_err(name);
                assert!(is_expected(&error), "{name}: {error}");
                match unpacked {
                    Err(PackError::Archive(same)) => assert_eq!(same, error, "{name}"),
                    other => panic!("{name}: the unpack said {other:?}"),
                }
            }
        }
        let left: Vec<_> = std::fs::read_dir(scratch.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        let expected: Vec<std::ffi::OsString> = match refusal {
            None => vec!["bot".into()],
            Some(_) => vec![],
        };
        assert_eq!(left, expected, "{name}: what the unpack left");
    }
}

/// A write that fails half way (here: the full path passes `PATH_MAX` on
/// this disk) removes the `.partial` folder, and a `.partial` left by a
/// killed unpack is cleared by the next one.
#[test]
fn a_failed_unpack_leaves_no_partial_folder() {
    let scratch = tempfile::tempdir().unwrap();
    let deep_parent = (0..14).fold(scratch.path().to_path_buf(), |path, _| {
        path.join("p".repeat(250))
    });
    std::fs::create_dir_all(&deep_parent).unwrap();
    let long = nested(3, &"x".repeat(250));
    let archive = archive_with(&[
        Entry::File("cairn-bot.toml", MANIFEST.as_bytes()),
        Entry::File(&long, b"1"),
    ]);
    check_archive(&archive).expect("the archive itself is fine");
    let destination = deep_parent.join("bot");
    let failed = unpack_archive(&archive, &destination);
    assert!(matches!(failed, Err(PackError::Io { .. })), "{failed:?}");
    let left: Vec<_> = std::fs::read_dir(&deep_parent).unwrap().flatten().collect();
    assert!(left.is_empty(), "left {left:?}");

    let destination = scratch.path().join("bot");
    std::fs::create_dir_all(scratch.path().join("bot.partial/stale")).unwrap();
    let honest = archive_of(&[("cairn-bot.toml", MANIFEST.as_bytes())]);
    unpack_archive(&honest, &destination).unwrap();
    assert!(!scratch.path().join("bot.partial").exists());
    assert!(destination.join("cairn-bot.toml").is_file());
}

fn archive_with_folders(folders: &[&str]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    raw_entry(
        &mut builder,
        "cairn-bot.toml",
        tar::EntryType::Regular,
        MANIFEST.as_bytes(),
        None,
    );
    for folder in folders {
        raw_entry(&mut builder, folder, tar::EntryType::Directory, b"", None);
    }
    gzip(&builder.into_inner().unwrap())
}

#[test]
fn a_folder_whose_name_spells_two_folders_hashes_apart_from_them() {
    let one = check_archive(&archive_with_folders(&["zz\nfolder zzz/"])).unwrap();
    let two = check_archive(&archive_with_folders(&["zz/", "zzz/"])).unwrap();
    // The first encoding could not tell them apart; the current one can.
    assert_eq!(one.line_content_hash, two.line_content_hash);
    assert_ne!(one.content_hash, two.content_hash);
    assert!(one.is_named_by(&one.content_hash) && one.is_named_by(&one.line_content_hash));
    assert!(!one.is_named_by(&two.content_hash));
}

#[test]
fn both_encodings_of_the_content_hash_stay_as_stored() {
    // Stored hashes name artifacts for good: neither encoding may drift.
    let checked = check_archive(&archive_of(&[
        ("cairn-bot.toml", MANIFEST.as_bytes()),
        ("bot.py", b"print(1)"),
    ]))
    .unwrap();
    assert_eq!(
        (
            checked.content_hash.as_str(),
            checked.line_content_hash.as_str()
        ),
        (
            "cdd77d7eddedf2909f133b87096ce66961a0ab33feb40b83e80ea9d3790751f9",
            "eebcb5bec27392f05c50eac9f4daa6379ac43db1858a555e90f5dc5ed2a685f4"
        )
    );
}
