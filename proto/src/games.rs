//! The table of games above the engine. Every layer that dispatches on a
//! game (wire conversion, replay steps, the CLI boards, the SDK's bots) is
//! generated from [`for_each_game!`], so a game added here and lacking a
//! face there is a compile error, not a silent fallback.

/// Calls `$callback! { [args] (Type, module) ... }` once with every game:
/// its engine type (`cairn_engine::<module>::<Type>`, also the name of its
/// variant in the wire's `observation::Game`) and its module name, which
/// every layer uses for that game's module. Extra `args` (identifiers of the
/// caller's locals, passed through for hygiene) come first, in brackets.
#[macro_export]
macro_rules! for_each_game {
    ($callback:ident $(, $arg:tt)* $(,)?) => {
        $callback! {
            [$($arg),*]
            (SchottenTotten, schotten_totten)
            (LordsOfScotland, lords_of_scotland)
            (Bullfrogs, bullfrogs)
        }
    };
}

macro_rules! game_ids {
    ([] $(($game:ident, $module:ident))*) => {
        /// The ids of the games [`for_each_game!`] lists, in its order.
        pub const GAME_IDS: &[&str] = &[$(<cairn_engine::$module::$game as cairn_engine::Game>::ID),*];
    };
}
for_each_game!(game_ids);

#[cfg(test)]
mod tests {
    #[test]
    fn the_table_lists_every_engine_game_in_the_engine_order() {
        let engine: Vec<&str> = cairn_engine::game_ids().collect();
        assert_eq!(super::GAME_IDS, engine.as_slice());
    }
}
