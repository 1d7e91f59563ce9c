//! Every game of the engine's table has every face above the engine. The
//! dispatch of each Rust layer, like `GAMES` itself, is generated from
//! [`cairn_engine::for_each_game!`], so a game listed there but missing a
//! layer's module does not compile. The faces outside Rust (the web board,
//! the docs page) are checked here by reading their files, the playout
//! bench's tables by counting them; the search arm by
//! `the_searching_bot_searches_every_game_of_the_engine_table` in the SDK.

use std::path::{Path, PathBuf};

use cairn_engine::forfeit::final_score;
use cairn_engine::{new_game, GameDescriptor, GameOptions, GAMES};
use cairn_proto::record::{hash_text, GameRecord};
use cairn_sdk::bots::GreedyBot;
use cairn_sdk::{Bot, Request};

use super::{Perspective, Viewer};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    let path = workspace_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A whole game of `descriptor` played by the greedy bot at every seat,
/// each decision asked with the seat's wire observation.
fn greedy_game(descriptor: &GameDescriptor) -> GameRecord {
    let n_seats = descriptor.seat_bounds().0.max(2);
    let mut state = new_game(descriptor.id, &GameOptions::new(), n_seats, 5).unwrap();
    let (mut actions, mut hashes) = (Vec::new(), Vec::new());
    while let Some(seat) = state.current_seat() {
        let observation = cairn_proto::convert::observation(state.as_ref(), seat)
            .unwrap_or_else(|error| panic!("{}: no wire conversion: {error}", descriptor.id));
        let request = Request {
            observation: Some(observation),
            legal_actions: state.legal_actions(),
            ..Request::default()
        };
        let action = GreedyBot.decide(&request);
        assert!(
            request.legal_actions.contains(&action),
            "{}: the greedy bot chose {action:?}",
            descriptor.id
        );
        state.apply_text(&action).unwrap();
        actions.push(action);
        hashes.push(hash_text(state.state_hash()));
    }
    GameRecord {
        game: descriptor.id.to_string(),
        options: GameOptions::new(),
        seed: 5,
        seats: (0..n_seats).map(|seat| format!("greedy-{seat}")).collect(),
        cpu_us: Vec::new(),
        score: final_score(descriptor.id, state.outcome().as_ref(), n_seats, &[]),
        forfeits: Vec::new(),
        actions,
        hashes,
    }
}

/// Each game's id and the number of tables the playout bench times it at
/// (`engine/benches/playouts.rs` runs every game's `PLAYOUT_BENCHES`).
fn playout_benches() -> Vec<(&'static str, usize)> {
    macro_rules! benches {
        ([] $(($game:ident, $module:ident))*) => {
            vec![$((
                <cairn_engine::$module::$game as cairn_engine::Game>::ID,
                cairn_engine::$module::PLAYOUT_BENCHES.len(),
            )),*]
        };
    }
    cairn_engine::for_each_game!(benches)
}

/// The games `boards.js` draws: the keys of the table it returns.
fn web_boards() -> Vec<String> {
    let source = read("arena/src/web/assets/boards.js");
    let table = source
        .lines()
        .rev()
        .find_map(|line| line.trim().strip_prefix("return {"))
        .expect("boards.js ends by returning its table of boards");
    table
        .trim_end_matches(['}', ';', ' '])
        .split(',')
        .map(|entry| entry.split(':').next().unwrap().trim().trim_matches('"'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_game_has_a_wire_conversion_replay_steps_a_board_and_a_greedy_bot() {
    for game in GAMES {
        let record = greedy_game(game.descriptor);
        let steps = record.steps().unwrap();
        assert_eq!(steps.steps.len(), record.actions.len() + 1);
        let viewer = Viewer {
            record: &record,
            steps: &steps,
            perspective: Perspective::Omniscient,
        };
        for index in [0, viewer.n_steps() - 1] {
            let step = &steps.steps[index];
            assert!(
                !viewer.board(step).is_empty(),
                "{}: no CLI board",
                game.descriptor.id
            );
        }
    }
}

#[test]
fn every_game_has_a_web_board_a_docs_page_and_a_playout_bench_entry() {
    let boards = web_boards();
    let benches = playout_benches();
    for game in GAMES {
        let id = game.descriptor.id;
        assert!(
            boards.iter().any(|board| board == id),
            "{id}: no board in boards.js"
        );
        assert!(
            workspace_root()
                .join(format!("docs/games/{id}.md"))
                .is_file(),
            "{id}: no docs/games/{id}.md"
        );
        assert!(
            benches
                .iter()
                .any(|&(game, tables)| game == id && tables > 0),
            "{id}: no table in its PLAYOUT_BENCHES"
        );
    }
}
