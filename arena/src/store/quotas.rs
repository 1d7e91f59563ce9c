//! Who may register, and how much one owner may ask of the arena: bots,
//! versions per bot, queued games and unfinished tournaments. A refusal
//! names the quota and the figures, and changes nothing.

use sqlx::AnyConnection;

use super::accounts::Owner;
use super::Store;
use crate::error::ArenaError;

/// Who may register a new owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// Anyone (`cairn serve --open-registration`; the library default, for
    /// embedded arenas such as the demo).
    Open,
    /// Only a caller with the admin token (kept hashed).
    AdminToken { token_hash: String },
    /// Nobody: `cairn serve` with neither an admin token nor open registration.
    Closed,
}

impl Registration {
    pub fn admin_token(token: &str) -> Registration {
        Registration::AdminToken {
            token_hash: super::token_hash(token),
        }
    }

    /// Refuses a registration this policy does not allow; `bearer` is the
    /// caller's token, if any.
    pub fn check(&self, bearer: Option<&str>) -> Result<(), ArenaError> {
        match self {
            Registration::Open => Ok(()),
            Registration::AdminToken { token_hash }
                if bearer.is_some_and(|token| super::token_hash(token) == *token_hash) =>
            {
                Ok(())
            }
            Registration::AdminToken { .. } => Err(ArenaError::PermissionDenied(
                "registering an owner needs the arena's admin token (--admin-token or CAIRN_ADMIN_TOKEN)".into(),
            )),
            Registration::Closed => Err(ArenaError::PermissionDenied(
                "this arena registers no owners (start it with --admin-token or --open-registration)".into(),
            )),
        }
    }
}

/// Per-owner limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    pub bots: i64,
    pub versions_per_bot: i64,
    /// Games in matches not yet done, over all the owner's tournaments.
    pub queued_games: i64,
    pub unfinished_tournaments: i64,
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas {
            bots: 20,
            versions_per_bot: 100,
            queued_games: 200_000,
            unfinished_tournaments: 10,
        }
    }
}

fn over(what: &str, have: i64, adding: i64, quota: i64) -> Result<(), ArenaError> {
    if have + adding > quota {
        return Err(ArenaError::Quota(format!(
            "over the quota of {quota} {what} per owner (you have {have}, this adds {adding})"
        )));
    }
    Ok(())
}

impl Store {
    pub(crate) async fn check_bot_quota(
        &self,
        tx: &mut sqlx::AnyConnection,
        owner: &Owner,
        bot_id: Option<i64>,
    ) -> Result<(), ArenaError> {
        match bot_id {
            None => {
                let bots: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM bots WHERE owner_id = $1 AND deleted_at IS NULL",
                )
                .bind(owner.id)
                .fetch_one(&mut *tx)
                .await?;
                over("bots", bots, 1, self.quotas.bots)
            }
            Some(bot_id) => {
                let versions: i64 =
                    sqlx::query_scalar("SELECT COUNT(*) FROM bot_versions WHERE bot_id = $1")
                        .bind(bot_id)
                        .fetch_one(&mut *tx)
                        .await?;
                over(
                    "versions of a bot",
                    versions,
                    1,
                    self.quotas.versions_per_bot,
                )
            }
        }
    }

    /// Checks an owner's tournament quotas on `tx`, the transaction that
    /// creates the tournament: under the write lock, so concurrent
    /// creations are counted one after another. A tournament still being
    /// planned counts with every game of its plan.
    pub(crate) async fn check_tournament_quota(
        &self,
        tx: &mut AnyConnection,
        owner: &Owner,
        new_games: i64,
    ) -> Result<(), ArenaError> {
        let (unfinished, queued_games): (i64, i64) = sqlx::query_as(concat!(
            "SELECT COUNT(*), CAST(COALESCE(SUM(CASE WHEN t.planning_done = 0 \
             THEN COALESCE(t.planned_matches, 0) * ",
            super::games_per_match_sql!(),
            " \
             ELSE (SELECT COUNT(*) FROM games g JOIN matches m ON m.id = g.match_id \
                   WHERE m.tournament_id = t.id AND m.status != 'done') END), 0) AS BIGINT) \
             FROM tournaments t WHERE t.owner_id = $1 AND t.cancelled_at IS NULL \
             AND (t.planning_done = 0 OR EXISTS (SELECT 1 FROM matches m WHERE m.tournament_id = t.id AND m.status != 'done'))",
        ))
        .bind(owner.id)
        .fetch_one(&mut *tx)
        .await?;
        over(
            "unfinished tournaments",
            unfinished,
            1,
            self.quotas.unfinished_tournaments,
        )?;
        over(
            "queued games",
            queued_games,
            new_games,
            self.quotas.queued_games,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::{both_backends, duel, owner_with_bots, test_store};
    use crate::testkit::bot_archive;

    #[test]
    fn registration_needs_the_admin_token_unless_open() {
        assert!(Registration::Open.check(None).is_ok());
        let admin = Registration::admin_token("sesame-sesame-sesame");
        assert!(admin.check(Some("sesame-sesame-sesame")).is_ok());
        assert!(matches!(
            admin.check(Some("guess")),
            Err(ArenaError::PermissionDenied(_))
        ));
        assert!(admin.check(None).is_err());
        assert!(Registration::Closed.check(Some("anything")).is_err());
    }

    both_backends! {
    async fn an_owner_over_a_quota_is_refused_with_the_figures_and_nothing_changes() {
        let kept = test_store().await;
        let quotas = Quotas {
            bots: 2,
            versions_per_bot: 2,
            queued_games: 5,
            unfinished_tournaments: 1,
        };
        let store = kept.store.clone().with_quotas(quotas);
        let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
        let refused = store.submit_bot_version(&owner, &bot_archive("c", 1)).await;
        assert!(
            matches!(&refused, Err(ArenaError::Quota(m)) if m.contains("2 bots")),
            "{refused:?}"
        );
        store
            .submit_bot_version(&owner, &bot_archive("a", 2))
            .await
            .unwrap();
        // The same contents again create nothing, so they are not refused.
        store
            .submit_bot_version(&owner, &bot_archive("a", 2))
            .await
            .unwrap();
        assert!(matches!(
            store.submit_bot_version(&owner, &bot_archive("a", 3)).await,
            Err(ArenaError::Quota(_))
        ));
        // 2 bots x 6 games: over 5 queued games.
        assert!(matches!(
            store.create_tournament(&owner, &duel(&["a", "b"], 6)).await,
            Err(ArenaError::Quota(m)) if m.contains("queued games")
        ));
        store
            .create_tournament(&owner, &duel(&["a", "b"], 2))
            .await
            .unwrap();
        assert!(matches!(
            store.create_tournament(&owner, &duel(&["a", "b"], 2)).await,
            Err(ArenaError::Quota(m)) if m.contains("unfinished tournaments")
        ));
    }
    }

    both_backends! {
    async fn tournaments_created_at_once_are_counted_one_after_another() {
        let kept = test_store().await;
        let quotas = Quotas {
            unfinished_tournaments: 2,
            ..Quotas::default()
        };
        let store = kept.store.clone().with_quotas(quotas);
        let owner = owner_with_bots(&store, "ada", &["a", "b"]).await;
        let creations = (0..6).map(|_| {
            let (store, owner) = (store.clone(), owner.clone());
            tokio::spawn(async move { store.create_tournament(&owner, &duel(&["a", "b"], 2)).await })
        });
        let mut created = 0;
        for creation in creations.collect::<Vec<_>>() {
            match creation.await.unwrap() {
                Ok(_) => created += 1,
                Err(ArenaError::Quota(_)) => {}
                Err(other) => panic!("{other:?}"),
            }
        }
        assert_eq!(created, 2);
    }
    }
}
