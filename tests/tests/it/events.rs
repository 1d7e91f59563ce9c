//! Each seat is told every other seat's action exactly once, in order, and
//! as the engine shows it to that seat: a seat's own actions interleaved
//! with the events it receives are the whole game, action for action; and
//! its `gameOver` carries its observation of the final state.

use cairn_engine::{new_game, Seat};
use cairn_proto::record::GameRecord;
use cairn_runner::{play_match, PlainLauncher};
use cairn_tests::{bot, schotten_totten, workspace_root};

/// One game in a recorder's log: its index, the recorder's seat, and what
/// it saw as (seat, action) in arrival order, and the observation its
/// `gameOver` carried.
struct Seen {
    game: usize,
    seat: Seat,
    actions: Vec<(Seat, String)>,
    final_observation: Option<serde_json::Value>,
}

fn read_log(path: &std::path::Path) -> Vec<Seen> {
    let mut games: Vec<Seen> = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        let seat = entry["seat"].as_u64().unwrap() as Seat;
        if let Some(observation) = entry.get("final") {
            games.last_mut().unwrap().final_observation = Some(observation.clone());
            continue;
        }
        match entry.get("game") {
            Some(game) => games.push(Seen {
                game: game.as_u64().unwrap() as usize,
                seat,
                actions: Vec::new(),
                final_observation: None,
            }),
            None => games
                .last_mut()
                .unwrap()
                .actions
                .push((seat, entry["action"].as_str().unwrap().to_string())),
        }
    }
    games
}

/// The game as `viewer` should have seen it, by re-simulating the record.
fn expected_view(record: &GameRecord, viewer: Seat) -> Vec<(Seat, String)> {
    let mut state = new_game(
        &record.game,
        &record.options,
        record.seats.len(),
        record.seed,
    )
    .unwrap();
    let mut view = Vec::new();
    for action in &record.actions {
        let mover = state.current_seat().unwrap();
        let shown = if mover == viewer {
            action.clone()
        } else {
            state.action_seen_by(action, viewer).unwrap()
        };
        view.push((mover, shown));
        state.apply_text(action).unwrap();
    }
    view
}

#[test]
fn own_actions_and_received_events_replay_the_whole_game_for_each_seat() {
    let dir = std::env::temp_dir().join(format!("cairn-events-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let logs = [dir.join("a.jsonl"), dir.join("b.jsonl")];
    let bots_dir = workspace_root().join("tests/bots");
    let recorder = |log: &std::path::Path, seed: &str| {
        bot(
            "recorder",
            &bots_dir,
            &["python3", "recorder.py", log.to_str().unwrap(), seed],
        )
    };
    let spec = schotten_totten(
        &["tactics=true", "rounds=2"],
        4,
        21,
        vec![recorder(&logs[0], "1"), recorder(&logs[1], "2")],
    );
    let result = play_match(&spec, &PlainLauncher).unwrap();
    for (bot_index, log) in logs.iter().enumerate() {
        let games = read_log(log);
        assert_eq!(games.len(), result.games.len());
        for seen in games {
            let game = &result.games[seen.game];
            assert!(game.seats.iter().all(|s| s.forfeit.is_none()));
            assert_eq!(game.seats[seen.seat].bot, bot_index);
            assert_eq!(
                seen.actions,
                expected_view(&game.record, seen.seat),
                "game {}, seat {}",
                seen.game,
                seen.seat
            );
            let last = seen
                .final_observation
                .as_ref()
                .expect("gameOver carries the seat's final observation");
            let last = &last["schottenTotten"];
            assert_eq!(last["seat"], seen.seat as u64, "{last}");
            assert_eq!(last["phase"], "over", "{last}");
            assert!(last.get("toMove").is_none(), "{last}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
