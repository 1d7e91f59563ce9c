//! The SDK's face of each game, one module per game (named as in
//! [`cairn_engine::for_each_game!`]): its greedy reference bot, `GreedyBot`,
//! and `QUICK_ITERATIONS`, the `mcts-quick` iterations per decision in it
//! (see [`super::quick_iterations`]).

macro_rules! modules {
    ([] $(($game:ident, $module:ident))*) => {
        $(pub mod $module;)*
    };
}
cairn_engine::for_each_game!(modules);
