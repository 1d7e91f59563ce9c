//! `cairn replay PATH`: prints a replay move by move (who moved is found by
//! re-simulating) and verifies it: every action legal, every state hash
//! equal, the score following from the play. Exit 1 when it does not verify.
//! With `--show`, draws the board at each step instead (see [`crate::view`]).
//!
//! Games and actions are numbered from 1, as `TOURNAMENT/MATCH/GAME` numbers
//! games: action N leads to step N of `--at` (step 0 is the deal).

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_engine::new_game;
use cairn_proto::record::{GameRecord, ReplayFile};

/// Games and actions are numbered from 1 (games as in `cairn match show
/// T/M/G`); `--at N` shows the board after action N, `--at 0` the deal.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The replay file written by `cairn play --replay`.
    path: PathBuf,
    /// Only verify; print the verdict alone.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    view: crate::view::ViewArgs,
}

pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let replay = ReplayFile::read(&args.path)?;
    if args.view.wants_board() {
        return crate::view::show(&replay, &args.view);
    }
    if !args.quiet {
        for (index, game) in replay.games.iter().enumerate() {
            out!(
                "{}",
                describe_game(crate::view::game_number(&replay, index), game)
            );
        }
    }
    match replay.verify() {
        Ok(()) => {
            let n_actions: usize = replay.games.iter().map(|g| g.actions.len()).sum();
            outln!(
                "verified: {} game(s), {n_actions} actions re-simulated, every state hash matches",
                replay.games.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            outln!("NOT verified: {error}");
            Ok(ExitCode::from(1))
        }
    }
}

/// Game `number` (from 1), its actions numbered from 1.
fn describe_game(number: u64, game: &GameRecord) -> String {
    // A replay file may come from anywhere: its names, actions and details
    // are escaped like every bot-written text.
    use crate::escape::line;
    let mut out = format!(
        "game {number}: {} {}, seed {}\n",
        line(&game.game),
        crate::view::options_text(&game.options),
        game.seed
    );
    for (seat, name) in game.seats.iter().enumerate() {
        out.push_str(&format!("  seat {seat}: {}\n", line(name)));
    }
    let forfeit_line = |forfeit: &cairn_engine::forfeit::Forfeit| {
        format!(
            "  -- seat {} forfeits: {} ({})\n",
            forfeit.seat,
            forfeit.reason.as_str(),
            line(&forfeit.detail)
        )
    };
    // Who moved comes from the engine; a record that does not re-simulate
    // is still printed, with `?` for unknown seats.
    let mut state = new_game(&game.game, &game.options, game.seats.len(), game.seed).ok();
    for (n_before, action) in game.actions.iter().enumerate() {
        for forfeit in game.forfeits.iter().filter(|f| f.after_actions == n_before) {
            out.push_str(&forfeit_line(forfeit));
        }
        let seat = state
            .as_ref()
            .and_then(|s| s.current_seat())
            .map_or("?".to_string(), |s| s.to_string());
        let number = n_before + 1;
        out.push_str(&format!("  {number:>4}  seat {seat}  {}\n", line(action)));
        if let Some(live) = state.as_mut() {
            if live.apply_text(action).is_err() {
                state = None;
            }
        }
    }
    for forfeit in game
        .forfeits
        .iter()
        .filter(|f| f.after_actions >= game.actions.len())
    {
        out.push_str(&forfeit_line(forfeit));
    }
    out.push_str(&format!(
        "  ended: {}; scores {:?}, ranks {:?}\n\n",
        game.score.ended_by.as_str(),
        game.score.scores,
        game.score.ranks
    ));
    out
}

#[cfg(test)]
mod tests {
    use cairn_engine::forfeit::{final_score, Forfeit, ForfeitReason};
    use cairn_proto::record::GameRecord;

    #[test]
    fn a_replay_files_names_actions_and_details_are_printed_escaped() {
        let forfeit = Forfeit::new(0, ForfeitReason::Crash, "\u{1b}[2Jgone", 1);
        let record = GameRecord {
            game: "schotten-totten".into(),
            options: Default::default(),
            seed: 1,
            seats: vec!["\u{1b}]0;evil\u{7}".into(), "b@1".into()],
            actions: vec!["\u{1b}[31mplay".into()],
            hashes: vec![String::new()],
            forfeits: vec![forfeit.clone()],
            score: final_score("schotten-totten", None, 2, &[forfeit]),
            cpu_us: Vec::new(),
        };
        let text = super::describe_game(1, &record);
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.contains("\\u{1b}]0;evil\\u{7}"), "{text}");
        assert!(
            text.contains("\\u{1b}[2Jgone") && text.contains("\\u{1b}[31mplay"),
            "{text}"
        );
    }
}
