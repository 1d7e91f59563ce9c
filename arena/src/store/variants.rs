//! Tournaments stored before options were canonical (an explicit default
//! such as `tactics=false` kept as its own variant) are rewritten at open,
//! with the engine's own [`cairn_engine::GameDescriptor::canonical_options`]
//! rather than SQL that would repeat each game's defaults; the ratings of
//! every variant touched are rebuilt from the stored results. A store whose
//! tournaments are all canonical (every store written by this version) reads
//! one column and changes nothing. Every variant the arena stores or looks
//! up is made canonical by [`Store::canonical_options`].

use std::collections::BTreeSet;

use cairn_engine::{GameOptions, SetupError};

use super::tournaments::variant_key;
use super::Store;
use crate::error::ArenaError;

impl Store {
    /// `options` of `game` in their canonical form (an option equal to its
    /// default left out), or why the game or an option is refused: every
    /// variant the arena stores or looks up goes through here.
    pub fn canonical_options(
        &self,
        game: &str,
        options: &GameOptions,
    ) -> Result<GameOptions, ArenaError> {
        let descriptor = (self.game_check)(game)
            .ok_or_else(|| SetupError::UnknownGame(cairn_engine::descriptor::shown(game)))?;
        Ok(descriptor.canonical_options(options)?)
    }

    /// Canonical options, refusing a seat count the game does not take.
    pub fn check_game(
        &self,
        game: &str,
        options: &GameOptions,
        n_seats: usize,
    ) -> Result<GameOptions, ArenaError> {
        let descriptor = (self.game_check)(game)
            .ok_or_else(|| SetupError::UnknownGame(cairn_engine::descriptor::shown(game)))?;
        Ok(descriptor.check_setup(options, n_seats)?)
    }

    pub(crate) async fn canonicalise_stored_variants(&self) -> Result<(), ArenaError> {
        let rows: Vec<(i64, String, String, String)> =
            sqlx::query_as("SELECT id, game, options, variant FROM tournaments")
                .fetch_all(self.pool())
                .await?;
        let mut stale: BTreeSet<(String, String)> = BTreeSet::new();
        let mut rebuilt: BTreeSet<(String, GameOptions)> = BTreeSet::new();
        self.write(async |tx| {
            for (id, game, options, variant) in rows {
                // A game this build does not know, or options it refuses, stay
                // as they are: nothing canonical to write.
                let Some(descriptor) = (self.game_check)(&game) else {
                    continue;
                };
                let Ok(options) = serde_json::from_str::<GameOptions>(&options) else {
                    continue;
                };
                let Ok(canonical) = descriptor.canonical_options(&options) else {
                    continue;
                };
                let canonical_variant = variant_key(&canonical);
                if canonical == options && canonical_variant == variant {
                    continue;
                }
                let text = serde_json::to_string(&canonical)
                    .map_err(|error| ArenaError::Internal(error.to_string()))?;
                sqlx::query("UPDATE tournaments SET options = $1, variant = $2 WHERE id = $3")
                    .bind(text)
                    .bind(&canonical_variant)
                    .bind(id)
                    .execute(&mut **tx)
                    .await?;
                stale.insert((game.clone(), variant));
                rebuilt.insert((game, canonical));
            }
            for (game, variant) in &stale {
                for table in ["rating_history", "ratings"] {
                    let sql = format!("DELETE FROM {table} WHERE game = $1 AND variant = $2");
                    sqlx::query(sqlx::AssertSqlSafe(sql))
                        .bind(game)
                        .bind(variant)
                        .execute(&mut **tx)
                        .await?;
                }
            }
            Ok(())
        })
        .await?;
        for (game, options) in &rebuilt {
            tracing::info!(
                "options made canonical: the ratings of {game} {} are rebuilt",
                variant_key(options)
            );
            self.recompute_ratings(game, options).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::{both_backends, count, duel, owner_with_bots, test_store, LEASE_MS};
    use crate::store::LeaderboardQuery;
    use crate::testkit::{report_by_strength, TEST_DUEL};

    both_backends! {
    async fn a_tournament_stored_with_an_explicit_default_joins_the_plain_variant() {
        let test = test_store().await;
        let store = &test.store;
        let owner = owner_with_bots(store, "ada", &["a", "b"]).await;
        let (runner, _) = store.register_runner("box-1").await.unwrap();
        let mut explicit = duel(&["a", "b"], 2);
        explicit.options.insert("fast".into(), "false".into());
        let created = store.create_tournament(&owner, &explicit).await.unwrap();
        assert_eq!(created.variant, "", "created canonical");
        while let Some(lease) = store.lease_match(&runner, LEASE_MS).await.unwrap() {
            let report = report_by_strength(&lease, |id| id);
            store.report_result(&runner, &report).await.unwrap();
        }
        // As a store written before options were canonical kept it.
        for sql in [
            "UPDATE tournaments SET options = '{\"fast\":\"false\"}', variant = 'fast=false'",
            "UPDATE ratings SET variant = 'fast=false'",
            "UPDATE rating_history SET variant = 'fast=false'",
        ] {
            sqlx::query(sql).execute(store.pool()).await.unwrap();
        }
        let ratings = count(store, "ratings").await;
        let history = count(store, "rating_history").await;
        assert!(ratings > 0 && history > 0);

        store.canonicalise_stored_variants().await.unwrap();
        let tournament = store.tournament(created.id).await.unwrap();
        assert_eq!(
            (tournament.variant.as_str(), tournament.options.len()),
            ("", 0)
        );
        let stale: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM ratings WHERE variant = 'fast=false'")
                .fetch_one(store.pool())
                .await
                .unwrap();
        assert_eq!(stale, 0);
        assert_eq!(count(store, "ratings").await, ratings);
        assert_eq!(count(store, "rating_history").await, history);
        let query = LeaderboardQuery {
            game: TEST_DUEL.into(),
            options: GameOptions::new(),
            model: None,
        };
        assert_eq!(store.leaderboard(&query).await.unwrap().len(), 2);
        // Canonical already: a second pass changes nothing.
        store.canonicalise_stored_variants().await.unwrap();
        assert_eq!(count(store, "ratings").await, ratings);
    }
    }
}
