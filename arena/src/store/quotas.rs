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
    /// Bytes of archives stored for the owner's versions, deleted bots'
    /// included (their archives are kept with their games and replays).
    pub storage_bytes: i64,
    /// New versions per owner in any hour.
    pub uploads_per_hour: i64,
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas {
            bots: 20,
            versions_per_bot: 100,
            queued_games: 200_000,
            unfinished_tournaments: 10,
            storage_bytes: 512 << 20,
            uploads_per_hour: 60,
        }
    }
}

/// `12.5 MiB`.
fn mib(bytes: i64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
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
    /// Checks the bot quota before `owner` gets one more live bot: a new
    /// one, or a deleted one brought back by a submission.
    pub(crate) async fn check_bot_quota(
        &self,
        tx: &mut sqlx::AnyConnection,
        owner: &Owner,
    ) -> Result<(), ArenaError> {
        let bots: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM bots WHERE owner_id = $1 AND deleted_at IS NULL",
        )
        .bind(owner.id)
        .fetch_one(&mut *tx)
        .await?;
        over("bots", bots, 1, self.quotas.bots)
    }

    /// Checks the quotas a new version of `bot_id` counts against: versions
    /// of the bot, bytes stored for the owner (an archive another of the
    /// owner's versions already holds is stored once and costs nothing) and
    /// uploads in the last hour.
    pub(crate) async fn check_version_quota(
        &self,
        tx: &mut sqlx::AnyConnection,
        owner: &Owner,
        bot_id: i64,
        (content_hash, bytes): (&str, i64),
    ) -> Result<(), ArenaError> {
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
        )?;
        let (stored, holds_it): (i64, super::Flag) = sqlx::query_as(
            "SELECT CAST(COALESCE(SUM(a.size_bytes), 0) AS BIGINT), COALESCE(MAX(CASE WHEN a.content_hash = $2 THEN 1 ELSE 0 END), 0) = 1 \
             FROM artifacts a WHERE a.content_hash IN (SELECT v.content_hash FROM bot_versions v \
             JOIN bots b ON b.id = v.bot_id WHERE b.owner_id = $1)",
        )
        .bind(owner.id)
        .bind(content_hash)
        .fetch_one(&mut *tx)
        .await?;
        let adding = if holds_it.0 { 0 } else { bytes };
        if stored + adding > self.quotas.storage_bytes {
            return Err(ArenaError::Quota(format!(
                "over the storage quota of {} per owner (your versions hold {}, this archive adds {}; \
                 deleted bots' archives count, as their games keep them)",
                mib(self.quotas.storage_bytes),
                mib(stored),
                mib(adding)
            )));
        }
        let hour_ago = self.now_ms() - 3_600_000;
        let recent: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM bot_versions v JOIN bots b ON b.id = v.bot_id \
             WHERE b.owner_id = $1 AND v.created_at > $2",
        )
        .bind(owner.id)
        .bind(hour_ago)
        .fetch_one(&mut *tx)
        .await?;
        if recent >= self.quotas.uploads_per_hour {
            return Err(ArenaError::Quota(format!(
                "over the upload rate of {} new versions per owner per hour (you uploaded {recent} \
                 in the last hour; try again later)",
                self.quotas.uploads_per_hour
            )));
        }
        Ok(())
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
            ..Quotas::default()
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

    fn refusal<T: std::fmt::Debug>(result: Result<T, ArenaError>) -> String {
        match result {
            Err(ArenaError::Quota(message)) => message,
            other => panic!("not a quota refusal: {other:?}"),
        }
    }

    both_backends! {
    async fn a_deleted_bot_brought_back_counts_against_the_bot_quota() {
        // Issue 30: submitting to one's deleted bot revived it unchecked
        // (25 live bots against a quota of 20).
        let kept = test_store().await;
        let quotas = Quotas { bots: 2, ..Quotas::default() };
        let store = kept.store.clone().with_quotas(quotas);
        let (owner, _) = store.register_owner("ada").await.unwrap();
        for bot in ["a", "b"] {
            store.submit_bot_version(&owner, &bot_archive(bot, 1)).await.unwrap();
        }
        store.delete_bot(&owner, "a").await.unwrap();
        store.submit_bot_version(&owner, &bot_archive("c", 1)).await.unwrap();
        let message = refusal(store.submit_bot_version(&owner, &bot_archive("a", 2)).await);
        assert!(message.contains("quota of 2 bots") && message.contains("you have 2"), "{message}");
        // A live bot takes new versions whatever the bot count.
        store.submit_bot_version(&owner, &bot_archive("c", 2)).await.unwrap();
    }
    }

    both_backends! {
    async fn stored_bytes_are_capped_per_owner_deleted_bots_included() {
        let kept = test_store().await;
        let size = bot_archive("a", 1).len() as i64;
        let quotas = Quotas { storage_bytes: 2 * size + size / 2, ..Quotas::default() };
        let store = kept.store.clone().with_quotas(quotas);
        let (owner, _) = store.register_owner("ada").await.unwrap();
        store.submit_bot_version(&owner, &bot_archive("a", 1)).await.unwrap();
        store.submit_bot_version(&owner, &bot_archive("b", 1)).await.unwrap();
        store.delete_bot(&owner, "a").await.unwrap();
        let message = refusal(store.submit_bot_version(&owner, &bot_archive("b", 2)).await);
        assert!(message.contains("storage quota") && message.contains("MiB"), "{message}");
        // The same archive again is stored once and costs nothing.
        let again = store.submit_bot_version(&owner, &bot_archive("b", 1)).await.unwrap();
        assert!(!again.created);
        // Another owner has a quota of their own.
        let (other, _) = store.register_owner("bob").await.unwrap();
        store.submit_bot_version(&other, &bot_archive("z", 1)).await.unwrap();
    }
    }

    both_backends! {
    async fn uploads_are_rate_limited_per_owner_per_hour() {
        let kept = test_store().await;
        let quotas = Quotas { uploads_per_hour: 2, ..Quotas::default() };
        let store = kept.store.clone().with_quotas(quotas);
        let (owner, _) = store.register_owner("ada").await.unwrap();
        for revision in 1..=2 {
            store.submit_bot_version(&owner, &bot_archive("a", revision)).await.unwrap();
        }
        let message = refusal(store.submit_bot_version(&owner, &bot_archive("a", 3)).await);
        assert!(message.contains("2 new versions per owner per hour"), "{message}");
        kept.clock.advance_ms(3_600_001);
        store.submit_bot_version(&owner, &bot_archive("a", 3)).await.unwrap();
    }
    }
}
