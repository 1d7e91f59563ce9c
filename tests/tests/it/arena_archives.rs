//! One archive check on both sides (issue 9, finding 2): an archive that a
//! runner could not unpack (a file `a` and a file `a/b`, in either order;
//! an entry twice; a path too deep) is refused by a real arena at
//! submission, with the very message the runner's unpack gives for it.

use arena_support::{authorized, register_owner, Arena};
use cairn_arena::testkit::tar_gz;
use cairn_proto::archive::{unpack_archive, PackError};
use cairn_proto::arena::v1 as pb;
use tonic::Code;

use crate::arena_support;

/// An archive entry: its path and bytes.
type File<'a> = (&'a str, &'a [u8]);

const MANIFEST: &[u8] = b"name = \"collide\"\ncommand = [\"python3\", \"bot.py\"]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archives_a_runner_could_not_unpack_are_refused_at_submission_for_the_same_reason() {
    let arena = Arena::start();
    let token = register_owner(&arena, "mallory").await;
    let mut client = arena.client().await;
    let too_deep = format!("{}f", "d/".repeat(cairn_proto::archive::MAX_PATH_DEPTH));
    let cases: Vec<(&str, Vec<File<'_>>)> = vec![
        (
            "a file then a file inside it",
            vec![("a", b"1"), ("a/b", b"2")],
        ),
        (
            "a file inside then the file",
            vec![("a/b", b"2"), ("a", b"1")],
        ),
        ("a file twice", vec![("a", b"1"), ("./a", b"2")]),
        ("a path too deep", vec![(too_deep.as_str(), b"1")]),
    ];
    for (name, mut files) in cases {
        files.insert(0, ("cairn-bot.toml", MANIFEST));
        let archive = tar_gz(&files);
        let refused = client
            .submit_bot_version(authorized(
                pb::SubmitBotVersionRequest {
                    archive: archive.clone(),
                },
                &token,
            ))
            .await
            .expect_err(name);
        assert_eq!(refused.code(), Code::InvalidArgument, "{name}: {refused:?}");
        let scratch = tempfile::tempdir().unwrap();
        let unpacked = unpack_archive(&archive, &scratch.path().join("bot"));
        let Err(PackError::Archive(error)) = unpacked else {
            panic!("{name}: the runner's unpack said {unpacked:?}");
        };
        assert!(
            refused.message().contains(&error.to_string()),
            "{name}: the arena said `{}`, the runner `{error}`",
            refused.message()
        );
        assert_eq!(
            std::fs::read_dir(scratch.path()).unwrap().count(),
            0,
            "{name}"
        );
    }
    let bots = client
        .list_bots(pb::ListBotsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(!format!("{bots:?}").contains("collide"), "{bots:?}");
}
