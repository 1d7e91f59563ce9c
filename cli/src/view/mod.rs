//! The terminal replay viewer (`cairn replay FILE --show`, `cairn match show
//! ID --show`): re-simulates a game with [`cairn_proto::steps`] and draws
//! its board at each step, as every seat sees it together (the omniscient
//! view) or as one seat saw it (`--seat`).
//!
//! # Layout
//! - one module per game (declared from [`cairn_engine::for_each_game!`]):
//!   its board.
//! - `terminal`: raw mode and keys, for stepping with the arrow keys.
//! - `faces` (tests): every game of the engine's table has every face.

#[cfg(test)]
mod faces;
mod terminal;

macro_rules! modules {
    ([] $(($game:ident, $module:ident))*) => {
        $(mod $module;)*
    };
}
cairn_engine::for_each_game!(modules);

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::process::ExitCode;

use cairn_engine::Seat;
use cairn_proto::game::v1::observation::Game as Which;
use cairn_proto::record::{GameRecord, ReplayFile};
use cairn_proto::steps::{ReplaySteps, Step};

use crate::escape;

/// The viewer's flags, shared by `cairn replay` and `cairn match show`.
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    /// Draw the board at each step (with the arrow keys in a terminal).
    #[arg(long)]
    pub show: bool,
    /// Print step N and exit (implies --show): 0 is the deal, N the board
    /// after action N as `cairn replay` lists it (actions count from 1).
    #[arg(long, value_name = "N")]
    pub at: Option<usize>,
    /// Show only what seat S could see (implies --show).
    #[arg(long, value_name = "S")]
    pub seat: Option<usize>,
    /// Which game of a replay file holding a whole match to show, numbered
    /// as `cairn replay` lists them (from 1, as in TOURNAMENT/MATCH/GAME);
    /// implies --show.
    #[arg(long = "game", id = "game_number", value_name = "G")]
    pub game_number: Option<u64>,
}

impl ViewArgs {
    /// Whether to draw the board: `--show`, or any flag that says which
    /// board to draw.
    pub fn wants_board(&self) -> bool {
        self.show || self.at.is_some() || self.seat.is_some() || self.game_number.is_some()
    }
}

/// Whose view a board shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Perspective {
    /// Every seat's view together: every hand.
    Omniscient,
    Seat(Seat),
}

/// One game's views at one step, from one perspective.
#[derive(Debug)]
pub struct Board<'a, T> {
    pub views: Vec<&'a T>,
    pub perspective: Perspective,
    pub names: &'a [String],
}

impl<T> Board<'_, T> {
    /// The view the public parts are read from.
    pub fn public(&self) -> &T {
        match self.perspective {
            Perspective::Seat(seat) => self.views[seat],
            Perspective::Omniscient => self.views[0],
        }
    }

    /// `seat`'s own view, when this perspective may see it.
    pub fn seen_by(&self, seat: Seat) -> Option<&T> {
        match self.perspective {
            Perspective::Seat(viewer) if viewer != seat => None,
            _ => self.views.get(seat).copied(),
        }
    }

    pub fn n_seats(&self) -> usize {
        self.views.len()
    }

    /// `seat 1 greedy`, the name escaped and cut to fit a column.
    pub fn seat_label(&self, seat: Seat) -> String {
        let name = self.names.get(seat).map_or("?", String::as_str);
        let name: String = escape::line(name).chars().take(14).collect();
        format!("seat {seat} {name}")
    }

    pub fn short_seat(&self, seat: Seat) -> String {
        format!("seat {seat}")
    }
}

/// The number users see for the `index`th game of `replay`: its number in
/// its match, from 1 (a file from `cairn match show` holds one game of a match).
pub(crate) fn game_number(replay: &ReplayFile, index: usize) -> u64 {
    replay
        .first_game_index
        .saturating_add(index as u64)
        .saturating_add(1)
}

/// Shows game `args.game_number` of `replay` (its first when absent): one
/// step (`--at`), every step one after another (not a terminal), or
/// interactively.
pub fn show(replay: &ReplayFile, args: &ViewArgs) -> anyhow::Result<ExitCode> {
    let first = game_number(replay, 0);
    let number = args.game_number.unwrap_or(first);
    let record = number
        .checked_sub(first)
        .and_then(|index| replay.games.get(usize::try_from(index).ok()?));
    let Some(record) = record else {
        anyhow::bail!(
            "game {number} is not in this replay (it holds games {first} to {})",
            game_number(replay, replay.games.len().saturating_sub(1))
        );
    };
    let steps = record.steps()?;
    let perspective = match args.seat {
        Some(seat) if seat >= steps.n_seats => {
            anyhow::bail!("seat {seat} is not at this table ({} seats)", steps.n_seats)
        }
        Some(seat) => Perspective::Seat(seat),
        None => Perspective::Omniscient,
    };
    let viewer = Viewer {
        record,
        steps: &steps,
        perspective,
    };
    if let Some(at) = args.at {
        let last = steps.steps.len() - 1;
        if at > last {
            anyhow::bail!("step {at} is past the last step ({last})");
        }
        out!("{}", viewer.frame(at));
        return Ok(ExitCode::SUCCESS);
    }
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        terminal::step_through(&viewer)?;
    } else {
        for index in 0..steps.steps.len() {
            outln!("{}", viewer.frame(index));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A game's steps and how to draw them.
#[derive(Debug)]
pub struct Viewer<'a> {
    record: &'a GameRecord,
    steps: &'a ReplaySteps,
    perspective: Perspective,
}

impl Viewer<'_> {
    pub fn n_steps(&self) -> usize {
        self.steps.steps.len()
    }

    /// The first step after `from` where `seat` is to decide.
    pub fn next_decision(&self, from: usize, seat: Seat) -> Option<usize> {
        (from + 1..self.n_steps()).find(|&index| self.steps.steps[index].to_move == Some(seat))
    }

    /// Step `index` drawn whole: heading, the action, the board, the result.
    pub fn frame(&self, index: usize) -> String {
        let step = &self.steps.steps[index];
        let mut out = format!(
            "{} · {} · seed {} · step {index}/{}\n",
            self.steps.game,
            options_text(&self.steps.options),
            self.steps.seed,
            self.n_steps() - 1
        );
        let _ = writeln!(out, "{}", self.action_line(step));
        out.push_str(&self.board(step));
        if let Some(seat) = step.to_move {
            let _ = writeln!(out, "to move: {}", self.seat_name(seat));
        }
        if index + 1 == self.n_steps() {
            out.push_str(&self.ending());
        }
        out
    }

    fn action_line(&self, step: &Step) -> String {
        let (Some(action), Some(actor)) = (&step.action, step.actor) else {
            return "the deal".to_string();
        };
        let action = match self.perspective {
            Perspective::Seat(viewer) => step.action_seen.get(viewer).unwrap_or(action),
            Perspective::Omniscient => action,
        };
        format!(
            "{} played `{}` · {}",
            self.seat_name(actor),
            escape::line(action),
            decision_time(step.cpu_us)
        )
    }

    fn seat_name(&self, seat: Seat) -> String {
        let name = self.record.seats.get(seat).map_or("?", String::as_str);
        format!("seat {seat} ({})", escape::line(name))
    }

    fn board(&self, step: &Step) -> String {
        macro_rules! boards {
            ([$viewer:ident, $step:ident] $(($game:ident, $module:ident))*) => {
                match $step.views.first() {
                    $(Some(Which::$game(_)) => $viewer.draw($step, $module::draw, |view| match view {
                        Which::$game(seen) => Some(seen),
                        _ => None,
                    }),)*
                    None => String::new(),
                }
            };
        }
        let viewer = self;
        cairn_engine::for_each_game!(boards, viewer, step)
    }

    /// Draws `step` with one game's `draw`, its views picked out by `each`
    /// (all views of a step are of one game).
    fn draw<'a, T: 'a>(
        &'a self,
        step: &'a Step,
        draw: fn(&Board<'_, T>) -> String,
        each: impl Fn(&'a Which) -> Option<&'a T>,
    ) -> String {
        draw(&Board {
            views: step.views.iter().filter_map(each).collect(),
            perspective: self.perspective,
            names: &self.record.seats,
        })
    }

    fn ending(&self) -> String {
        let mut out = String::new();
        if let Some(error) = &self.steps.error {
            let _ = writeln!(out, "the replay stops here: {}", escape::line(error));
        }
        for forfeit in &self.record.forfeits {
            let _ = writeln!(
                out,
                "{} forfeits: {} ({})",
                self.seat_name(forfeit.seat),
                forfeit.reason.as_str(),
                escape::line(&forfeit.detail)
            );
        }
        let score = &self.record.score;
        let scores: Vec<String> = score.scores.iter().map(i32::to_string).collect();
        let ranks: Vec<String> = score.ranks.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "ended: {} · scores {} · ranks {}",
            score.ended_by.as_str(),
            scores.join(" : "),
            ranks.join(" : ")
        );
        out
    }
}

/// A decision's CPU time (the clock the time control charges).
fn decision_time(cpu_us: Option<u64>) -> String {
    match cpu_us {
        Some(cpu_us) => format!("took {:.1} ms of CPU", cpu_us as f64 / 1000.0),
        None => "decision time not recorded".to_string(),
    }
}

/// A variant as people write it (`base`, or `key=value,...`), escaped: it
/// comes from a file.
pub(crate) fn options_text(options: &cairn_engine::GameOptions) -> String {
    if options.is_empty() {
        return "base".to_string();
    }
    let pairs: Vec<String> = options
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    escape::line(&pairs.join(",")).into_owned()
}
