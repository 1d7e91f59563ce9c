//! A bot's program comes from its own folder or the runner's interpreters
//! (issue 30, finding 1): an absolute path or a `..` is refused by a real
//! arena over gRPC at submission, and a link its build leaves pointing at a
//! program of the runner's host is refused by a sandboxed runner before any
//! mount: the bot forfeits, and nothing of the host reaches a listing.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use arena_support::{
    add_bot, add_bot_folder, authorized, cairn_binary, create_round_robin, leaderboard,
    matches_with_games, register_owner, wait_for_progress, Arena, Running, RUNNER_TOKEN,
};
use cairn_arena::testkit::tar_gz;
use cairn_proto::arena::v1 as pb;
use tonic::Code;

use crate::arena_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_outside_the_bot_folder_is_refused_over_grpc_at_submission() {
    let arena = Arena::start();
    let token = register_owner(&arena, "mallory").await;
    let mut client = arena.client().await;
    let cases = [
        ("command = [\"/home/op/bin/sh\"]", "absolute path"),
        ("command = [\"../../bin/sh\"]", "`..`"),
        ("command = [\"bin/../../sh\"]", "`..`"),
        (
            "command = [\"./bot\"]\nbuild = [\"/home/op/bin/make\"]",
            "absolute path",
        ),
    ];
    for (lines, reason) in cases {
        let manifest = format!("name = \"stray\"\n{lines}\n");
        let archive = tar_gz(&[("cairn-bot.toml", manifest.as_bytes()), ("bot", b"x")]);
        let request = authorized(pb::SubmitBotVersionRequest { archive }, &token);
        let refused = client.submit_bot_version(request).await.expect_err(lines);
        assert_eq!(
            refused.code(),
            Code::InvalidArgument,
            "{lines}: {refused:?}"
        );
        assert!(
            refused.message().contains(reason),
            "{lines}: {}",
            refused.message()
        );
        assert!(
            refused.message().contains("bot folder"),
            "{}",
            refused.message()
        );
    }
    let bots = client
        .list_bots(pb::ListBotsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(!format!("{bots:?}").contains("stray"), "{bots:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_its_build_leaves_to_a_host_program_makes_the_bot_forfeit_unseen() {
    // An operator's home: a world-readable secret and a program that prints it.
    let home = tempfile::tempdir().unwrap();
    let secret = "operator-secret-4f1c9a";
    std::fs::create_dir_all(home.path().join("bin")).unwrap();
    std::fs::write(home.path().join("notes.txt"), secret).unwrap();
    let tool = home.path().join("bin/tool");
    let script = format!("#!/bin/sh\ncat {}/notes.txt >&2\n", home.path().display());
    std::fs::write(&tool, script).unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let arena = Arena::start();
    let token = register_owner(&arena, "mallory").await;
    add_bot(&arena, &token, "plain", "first");
    let folder = arena.folder.path().join("bots").join("linker");
    std::fs::create_dir_all(&folder).unwrap();
    let build = format!("ln -s {} evil", tool.display());
    let manifest =
        format!("name = \"linker\"\nbuild = [\"sh\", \"-c\", {build:?}]\ncommand = [\"./evil\"]\n");
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    add_bot_folder(&arena, &token, &folder);
    let tournament = create_round_robin(&arena, &token, &["plain", "linker"], 2).await;
    let cache = arena.folder.path().join("sandboxed-runner-cache");
    let _runner = Running(
        Command::new(cairn_binary())
            .args(["runner", "--arena", &arena.address, "--token", RUNNER_TOKEN])
            .args(["--poll-ms", "50", "--lease-ms", "10000", "--jobs", "1"])
            .arg("--cache")
            .arg(&cache)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cairn runner starts"),
    );
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    let board = leaderboard(&arena, "schotten-totten").await;
    let linker = board
        .rows
        .iter()
        .find(|row| row.bot_name == "linker")
        .expect("linker is rated");
    assert!(
        linker.games > 0 && linker.forfeits == linker.games,
        "{board:?}"
    );
    let matches = matches_with_games(&arena, tournament.id).await;
    let listed = format!("{matches:?}");
    assert!(listed.contains("leaves the bot folder"), "{listed}");
    assert!(
        !listed.contains(secret),
        "the secret was published: {listed}"
    );
    let host_path = home.path().display().to_string();
    assert!(
        !listed.contains(&host_path),
        "the host path was published: {listed}"
    );
    let mut client = arena.client().await;
    for game in matches.iter().flat_map(|summary| &summary.games) {
        let replay = client
            .get_replay(pb::GetReplayRequest {
                game_id: game.game_id,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!format!("{replay:?}").contains(secret), "{replay:?}");
    }
}
