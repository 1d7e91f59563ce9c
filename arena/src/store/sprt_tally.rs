//! An SPRT gauntlet's deal pairs, a tally kept as each game is recorded,
//! and its check after each match (see `rounds`): the check costs the same
//! at the 100,000th game as at the first.

use sqlx::AnyConnection;

use super::rounds::{drop_unplayed_matches, stored_format, StoredFormat};
use crate::error::ArenaError;
use crate::format::Format;
use crate::stats::{Outcomes, Verdict};

/// [`crate::format::deal_pairs`] counted in SQL (at an SPRT's first check,
/// and for `tournament show` before it) rather than over the history read back: the
/// same pairs (two-seat matches seating `challenger`, the challenger's half points of
/// each recorded game grouped by opponent and deal, the deals with exactly
/// two games), bucketed by the pair's half points.
pub(crate) async fn stored_deal_pairs(
    connection: &mut AnyConnection,
    tournament_id: i64,
    challenger: usize,
) -> Result<[u64; 5], ArenaError> {
    let buckets: Vec<(i64, i64)> = sqlx::query_as(
        "WITH sides AS ( \
           SELECT m.id AS match_id, mine.seat AS seat, opponent.entry_index AS opponent \
           FROM matches m \
           JOIN tournament_entries challenger ON challenger.tournament_id = m.tournament_id AND challenger.entry_index = $1 \
           JOIN seats mine ON mine.match_id = m.id AND mine.bot_version_id = challenger.bot_version_id \
           JOIN seats theirs ON theirs.match_id = m.id AND theirs.seat != mine.seat \
           JOIN tournament_entries opponent ON opponent.tournament_id = m.tournament_id AND opponent.bot_version_id = theirs.bot_version_id \
           WHERE m.tournament_id = $2 AND (SELECT COUNT(*) FROM seats s WHERE s.match_id = m.id) = 2), \
         halves AS ( \
           SELECT sides.opponent, g.seed, \
             CASE WHEN mine.rank < theirs.rank THEN 2 WHEN mine.rank = theirs.rank THEN 1 ELSE 0 END AS half \
           FROM sides JOIN games g ON g.match_id = sides.match_id \
           JOIN result_seats mine ON mine.game_id = g.id AND mine.seat = sides.seat \
           JOIN result_seats theirs ON theirs.game_id = g.id AND theirs.seat != sides.seat) \
         SELECT total, COUNT(*) FROM (SELECT CAST(SUM(half) AS BIGINT) AS total FROM halves GROUP BY opponent, seed HAVING COUNT(*) = 2) AS pairs \
         GROUP BY total",
    )
    .bind(challenger as i64)
    .bind(tournament_id)
    .fetch_all(&mut *connection)
    .await?;
    let mut pairs = [0_u64; 5];
    for (total, count) in buckets {
        let bucket = usize::try_from(total).unwrap_or(0).min(4);
        pairs[bucket] += u64::try_from(count).unwrap_or(0);
    }
    Ok(pairs)
}

/// Adds what game `game_id`, just recorded, changes to its SPRT
/// gauntlet's stored deal pairs (nothing when the tournament has none
/// stored: its first check counts them all; kept after the verdict too,
/// for the matches that were in play, so `tournament show` reads it). A deal's two games are the
/// same game index of the table's two rotations (the plan deals each
/// rotation the same seeds in the same order); the seed is checked too.
/// Reads the few matches of the gauntlet and two games, whatever the
/// history.
pub(crate) async fn tally_recorded_game(
    tx: &mut AnyConnection,
    game_id: i64,
) -> Result<(), ArenaError> {
    let row: Option<(i64, String, String)> = sqlx::query_as(
        "SELECT t.id, t.challengers, t.sprt_pairs FROM games g JOIN matches m ON m.id = g.match_id \
         JOIN tournaments t ON t.id = m.tournament_id \
         WHERE g.id = $1 AND t.sprt_pairs IS NOT NULL",
    )
    .bind(game_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((tournament_id, challengers, pairs)) = row else {
        return Ok(());
    };
    let unreadable = |what: &str| ArenaError::Internal(format!("stored {what} unreadable"));
    let challengers: Vec<usize> =
        serde_json::from_str(&challengers).map_err(|_| unreadable("challengers"))?;
    let mut pairs: [u64; 5] = serde_json::from_str(&pairs).map_err(|_| unreadable("sprt pairs"))?;
    let Some(&challenger) = challengers.first() else {
        return Ok(());
    };
    // The deal's recorded games (this one and its partner, if recorded):
    // the two-seat matches seating the challenger and this game's other
    // seat, their game of this index and seed, the challenger's half points.
    let halves: Vec<(i64, i64)> = sqlx::query_as(
        "WITH this AS (SELECT g.match_id, g.game_index, g.seed FROM games g WHERE g.id = $1), \
         challenger AS (SELECT bot_version_id FROM tournament_entries WHERE tournament_id = $2 AND entry_index = $3), \
         opponent AS (SELECT s.bot_version_id FROM seats s, this WHERE s.match_id = this.match_id \
           AND s.bot_version_id != (SELECT bot_version_id FROM challenger) \
           AND (SELECT COUNT(*) FROM seats all_seats WHERE all_seats.match_id = this.match_id) = 2 \
           AND EXISTS (SELECT 1 FROM seats c WHERE c.match_id = this.match_id AND c.bot_version_id = (SELECT bot_version_id FROM challenger))), \
         deal AS (SELECT m.id AS match_id, mine.seat AS seat FROM matches m \
           JOIN seats mine ON mine.match_id = m.id AND mine.bot_version_id = (SELECT bot_version_id FROM challenger) \
           JOIN seats theirs ON theirs.match_id = m.id AND theirs.seat != mine.seat AND theirs.bot_version_id = (SELECT bot_version_id FROM opponent) \
           WHERE m.tournament_id = $4 AND (SELECT COUNT(*) FROM seats all_seats WHERE all_seats.match_id = m.id) = 2) \
         SELECT g.id, CASE WHEN mine.rank < theirs.rank THEN 2 WHEN mine.rank = theirs.rank THEN 1 ELSE 0 END \
         FROM deal CROSS JOIN this JOIN games g ON g.match_id = deal.match_id AND g.game_index = this.game_index AND g.seed = this.seed \
         JOIN result_seats mine ON mine.game_id = g.id AND mine.seat = deal.seat \
         JOIN result_seats theirs ON theirs.game_id = g.id AND theirs.seat != deal.seat",
    )
    .bind(game_id)
    .bind(tournament_id)
    .bind(challenger as i64)
    .bind(tournament_id)
    .fetch_all(&mut *tx)
    .await?;
    // As the pure count: a deal counts while exactly two games are recorded.
    let bucket = |halves: &[i64]| {
        (halves.len() == 2).then(|| {
            usize::try_from(halves.iter().sum::<i64>())
                .unwrap_or(0)
                .min(4)
        })
    };
    let after: Vec<i64> = halves.iter().map(|&(_, half)| half).collect();
    let before: Vec<i64> = halves
        .iter()
        .filter(|&&(id, _)| id != game_id)
        .map(|&(_, half)| half)
        .collect();
    if before.len() == after.len() {
        return Ok(());
    }
    if let Some(old) = bucket(&before) {
        pairs[old] = pairs[old].saturating_sub(1);
    }
    if let Some(new) = bucket(&after) {
        pairs[new] += 1;
    }
    store_pairs(tx, tournament_id, &pairs).await?;
    // A deal pair completed: the test decides now, not when the match (a
    // whole seating of the field) ends.
    if bucket(&after).is_some() {
        let stored = stored_format(tx, tournament_id).await?;
        check_sprt(tx, tournament_id, &stored).await?;
    }
    Ok(())
}

async fn store_pairs(
    tx: &mut AnyConnection,
    tournament_id: i64,
    pairs: &[u64; 5],
) -> Result<(), ArenaError> {
    let text =
        serde_json::to_string(pairs).map_err(|error| ArenaError::Internal(error.to_string()))?;
    sqlx::query("UPDATE tournaments SET sprt_pairs = $1 WHERE id = $2")
        .bind(text)
        .bind(tournament_id)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// An open SPRT gauntlet's check over its deal pairs: the LLR and the
/// verdict stored, and on a verdict the unplayed matches dropped.
pub(super) async fn check_sprt(
    tx: &mut AnyConnection,
    tournament_id: i64,
    stored: &StoredFormat,
) -> Result<(), ArenaError> {
    let (Some(sprt), None, Format::Gauntlet { challengers }) =
        (stored.sprt, &stored.sprt_verdict, &stored.spec.format)
    else {
        return Ok(());
    };
    // The tally kept game by game; counted once, in SQL, at the first
    // check (and for a tournament stored before the tally).
    let pairs = match (stored.sprt_pairs, challengers.first()) {
        (Some(pairs), _) => pairs,
        (None, Some(&challenger)) => {
            let pairs = stored_deal_pairs(tx, tournament_id, challenger).await?;
            store_pairs(tx, tournament_id, &pairs).await?;
            pairs
        }
        (None, None) => [0; 5],
    };
    let check = sprt.check(&Outcomes::pentanomial(pairs));
    let llr = check.llr;
    let verdict = match check.verdict {
        Verdict::Continue => None,
        Verdict::AcceptH0 => Some("h0"),
        Verdict::AcceptH1 => Some("h1"),
    };
    sqlx::query("UPDATE tournaments SET sprt_llr = $1, sprt_verdict = $2 WHERE id = $3")
        .bind(llr)
        .bind(verdict)
        .bind(tournament_id)
        .execute(&mut *tx)
        .await?;
    if verdict.is_some() {
        drop_unplayed_matches(tx, tournament_id).await?;
    }
    Ok(())
}
