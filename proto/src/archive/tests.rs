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
    ];
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
