//! A runner whose disk is full (issue 30, finding 4): it hands its lease
//! back without counting an attempt, stops leasing until there is room,
//! then plays everything; no bot is charged and no match given up. The
//! full disk is a fake one handed to a real runner (in this process)
//! against a real `cairn serve`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arena_support::{
    add_bot_folder, assert_complete_and_exact, cairn_binary, create_round_robin,
    matches_with_games, register_owner, wait_for_progress, Arena, DEADLINE, RUNNER_TOKEN,
};
use cairn_runner::remote::{run_runner, CacheLimits, Disk, RunnerConfig};
use tokio::sync::watch;

use crate::arena_support;

/// A disk with the room the test sets, counting how often it is asked.
#[derive(Debug)]
struct FakeDisk {
    free: AtomicU64,
    asked: watch::Sender<u64>,
}

impl Disk for FakeDisk {
    fn free_bytes(&self, _: &Path) -> std::io::Result<u64> {
        self.asked.send_modify(|asked| *asked += 1);
        Ok(self.free.load(Ordering::SeqCst))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_pauses_the_runner_charging_no_one_and_room_resumes_it() {
    let arena = Arena::start();
    let token = register_owner(&arena, "ada").await;
    for (name, bundled) in [("one", "first"), ("two", "random")] {
        add_bot_folder(&arena, &token, &plain_bot(&arena, name, bundled));
    }
    let tournament = create_round_robin(&arena, &token, &["one", "two"], 2).await;
    let (asked, mut asking) = watch::channel(0);
    let disk = Arc::new(FakeDisk {
        free: AtomicU64::new(10),
        asked,
    });
    let mut config = RunnerConfig::new(&arena.address, RUNNER_TOKEN);
    config.cache_dir = arena.folder.path().join("full-cache");
    config.cache_limits = CacheLimits {
        cap_bytes: 1 << 30,
        min_free_bytes: 1 << 20,
    };
    config.disk = Arc::clone(&disk) as Arc<dyn Disk>;
    config.no_sandbox = true;
    config.idle_poll = Duration::from_millis(20);
    config.lease = Duration::from_secs(30);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let runner = tokio::spawn(run_runner(config, async {
        let _ = stopped.await;
    }));
    // The first lease found the disk full; the paused runner then looks
    // for room again and again.
    tokio::time::timeout(DEADLINE, asking.wait_for(|asked| *asked >= 5))
        .await
        .expect("the runner looks for room")
        .unwrap();
    let matches = matches_with_games(&arena, tournament.id).await;
    assert!(matches.iter().all(|m| m.games_done == 0), "{matches:?}");
    assert!(matches.iter().all(|m| m.failure.is_empty()), "{matches:?}");
    assert_eq!(
        attempts_counted(&arena).await,
        0,
        "a paused runner gave up matches"
    );
    disk.free.store(u64::MAX, Ordering::SeqCst);
    wait_for_progress(&arena, tournament.id, |p| p.finished).await;
    assert_complete_and_exact(&arena, &tournament, 2).await;
    for summary in matches_with_games(&arena, tournament.id).await {
        for game in &summary.games {
            assert!(
                game.result.iter().all(|seat| seat.forfeit.is_none()),
                "{game:?}"
            );
        }
    }
    assert_eq!(attempts_counted(&arena).await, 0);
    stop.send(()).unwrap();
    let summary = runner.await.unwrap().unwrap();
    assert_eq!(summary.matches_reported as usize, 2);
}

/// A bundled bot run through a script naming this build's `cairn` (the
/// runner in this process is the test binary, not `cairn`).
fn plain_bot(arena: &Arena, name: &str, bundled: &str) -> std::path::PathBuf {
    let folder = arena.folder.path().join("bots").join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let manifest = format!("name = \"{name}\"\ncommand = [\"sh\", \"run.sh\"]\n");
    std::fs::write(folder.join("cairn-bot.toml"), manifest).unwrap();
    let script = format!("exec {} bot-run {bundled}\n", cairn_binary().display());
    std::fs::write(folder.join("run.sh"), script).unwrap();
    folder
}

/// Attempts counted against the arena's matches (give-backs).
async fn attempts_counted(arena: &Arena) -> i64 {
    sqlx::any::install_default_drivers();
    let url = format!("sqlite://{}?mode=ro", arena.db().display());
    let pool = sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .expect("the arena's database opens");
    sqlx::query_scalar("SELECT CAST(COALESCE(SUM(attempts), 0) AS BIGINT) FROM matches")
        .fetch_one(&pool)
        .await
        .unwrap()
}
