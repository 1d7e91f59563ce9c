//! The greedy reference bots, one module per game (named as in
//! [`cairn_engine::for_each_game!`]), each with its `GreedyBot`.

pub mod bullfrogs;
pub mod lords_of_scotland;
pub mod schotten_totten;
