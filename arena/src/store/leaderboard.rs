//! Ratings in the database: updated with each result, read back as a
//! leaderboard, and recomputable from the stored results alone.

use std::collections::HashMap;
use std::sync::Arc;

use cairn_engine::GameOptions;
use sqlx::AnyConnection;

use super::tournaments::variant_key;
use super::{Store, Touch};
use crate::error::ArenaError;
use crate::ratings::{apply_game, RatedSeat, RatingChange, RatingModel, Standing, Standings};

/// The condition on a result `r` that it is rated: no seat's failed build
/// ended it (a game nobody played rates nobody; see `faults.rs`).
macro_rules! rated_result_sql {
    () => {
        "NOT EXISTS (SELECT 1 FROM result_seats b WHERE b.game_id = r.game_id AND b.forfeit_reason = 'build_failed')"
    };
}
pub(super) use rated_result_sql;

/// Which leaderboard to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderboardQuery {
    pub game: String,
    pub options: GameOptions,
    /// `None`: Glicko-2 if two-seat games were rated, else Weng-Lin.
    pub model: Option<RatingModel>,
}

/// One line of a leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderboardRow {
    /// 1 for the top line.
    pub position: usize,
    pub bot_version_id: i64,
    pub bot_name: String,
    pub version: i64,
    pub owner: String,
    pub model: RatingModel,
    pub standing: Standing,
    pub provisional: bool,
}

#[derive(sqlx::FromRow)]
struct StandingRow {
    bot_version_id: i64,
    bot_name: String,
    version: i64,
    owner: String,
    #[sqlx(flatten)]
    columns: StandingColumns,
}

/// A `ratings` row's numbers.
#[derive(sqlx::FromRow)]
struct StandingColumns {
    rating: f64,
    uncertainty: f64,
    volatility: f64,
    games: i64,
    wins: i64,
    draws: i64,
    losses: i64,
    forfeits: i64,
}

impl StandingColumns {
    fn standing(&self) -> Standing {
        Standing {
            rating: crate::ratings::Rating {
                value: self.rating,
                uncertainty: self.uncertainty,
                volatility: self.volatility,
            },
            games: self.games,
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            forfeits: self.forfeits,
        }
    }
}

impl Store {
    /// A leaderboard, best rating first: a snapshot shared by every reader
    /// until a result on the board is recorded.
    pub async fn leaderboard(
        &self,
        query: &LeaderboardQuery,
    ) -> Result<Arc<Vec<LeaderboardRow>>, ArenaError> {
        let key = (query.game.clone(), variant_key(&query.options), query.model);
        self.reads.board(key, || self.read_leaderboard(query)).await
    }

    /// The board's live rows as the database holds them (no snapshot).
    pub(super) async fn read_leaderboard(
        &self,
        query: &LeaderboardQuery,
    ) -> Result<Vec<LeaderboardRow>, ArenaError> {
        let variant = variant_key(&query.options);
        let model = match query.model {
            Some(model) => model,
            None => self.default_model(&query.game, &variant).await?,
        };
        let rows: Vec<StandingRow> = sqlx::query_as(
            "SELECT r.bot_version_id, b.name AS bot_name, v.version, o.name AS owner, r.rating, r.uncertainty, r.volatility, \
             r.games, r.wins, r.draws, r.losses, r.forfeits \
             FROM ratings r JOIN bot_versions v ON v.id = r.bot_version_id JOIN bots b ON b.id = v.bot_id JOIN owners o ON o.id = b.owner_id \
             WHERE r.game = $1 AND r.variant = $2 AND r.model = $3 ORDER BY r.rating DESC, b.name, v.version",
        )
        .bind(&query.game)
        .bind(&variant)
        .bind(model.id())
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .enumerate()
            .map(|(index, row)| {
                let standing = row.columns.standing();
                LeaderboardRow {
                    position: index + 1,
                    bot_version_id: row.bot_version_id,
                    bot_name: row.bot_name,
                    version: row.version,
                    owner: row.owner,
                    model,
                    provisional: standing.provisional(),
                    standing,
                }
            })
            .collect())
    }

    /// The live model a board shows unless asked: the one that rated more
    /// of its seats, Glicko-2 (two-seat games) or Weng-Lin (more seats),
    /// so a board mostly played at three seats shows Weng-Lin even when
    /// some of its games were at two.
    async fn default_model(&self, game: &str, variant: &str) -> Result<RatingModel, ArenaError> {
        let seats_rated = async |model: RatingModel| -> Result<i64, ArenaError> {
            let seats: Option<i64> = sqlx::query_scalar(
                "SELECT CAST(SUM(games) AS BIGINT) FROM ratings \
                 WHERE game = $1 AND variant = $2 AND model = $3",
            )
            .bind(game)
            .bind(variant)
            .bind(model.id())
            .fetch_one(self.pool())
            .await?;
            Ok(seats.unwrap_or(0))
        };
        let two_seats = seats_rated(RatingModel::Glicko2).await?;
        let more_seats = seats_rated(RatingModel::WengLin).await?;
        Ok(if two_seats > 0 && two_seats >= more_seats {
            RatingModel::Glicko2
        } else {
            RatingModel::WengLin
        })
    }

    /// Throws away a game and variant's ratings and rebuilds them from the
    /// stored results, in the order they were recorded.
    pub async fn recompute_ratings(
        &self,
        game: &str,
        options: &GameOptions,
    ) -> Result<(), ArenaError> {
        let variant = variant_key(options);
        self.write(async |tx| {
            for table in ["rating_history", "ratings"] {
                let sql = format!("DELETE FROM {table} WHERE game = $1 AND variant = $2");
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(game)
                    .bind(&variant)
                    .execute(&mut **tx)
                    .await?;
            }
            let rows: Vec<(i64, i64, i64, super::Flag)> = sqlx::query_as(concat!(
                "SELECT r.id, rs.bot_version_id, rs.rank, rs.forfeit_reason IS NOT NULL FROM results r \
                 JOIN games g ON g.id = r.game_id JOIN matches m ON m.id = g.match_id JOIN tournaments t ON t.id = m.tournament_id \
                 JOIN result_seats rs ON rs.game_id = r.game_id WHERE t.game = $1 AND t.variant = $2 AND t.validates IS NULL AND ",
                rated_result_sql!(),
                " ORDER BY r.id, rs.seat",
            ))
            .bind(game)
            .bind(&variant)
            .fetch_all(&mut **tx)
            .await?;
            let mut standings: HashMap<RatingModel, Standings> = HashMap::new();
            for (result_id, seats) in group_by_result(rows) {
                let mut history = Vec::new();
                for &model in RatingModel::for_seats(seats.len()) {
                    let changes = apply_game(model, standings.entry(model).or_default(), &seats);
                    history.extend(changes.into_iter().map(|change| (model, change)));
                }
                insert_histories(tx, result_id, game, &variant, &history).await?;
            }
            let saved: Vec<(RatingModel, i64, Standing)> = standings
                .iter()
                .flat_map(|(&model, by_version)| {
                    by_version
                        .iter()
                        .map(move |(&bot_version_id, &standing)| (model, bot_version_id, standing))
                })
                .collect();
            // 12 numbered values a row: well under either database's limit.
            for chunk in saved.chunks(500) {
                save_standings(tx, game, &variant, chunk).await?;
            }
            tx.touches(Touch::Board {
                game: game.to_string(),
                variant,
            });
            Ok(())
        }).await?;
        Ok(())
    }
}

fn group_by_result(rows: Vec<(i64, i64, i64, super::Flag)>) -> Vec<(i64, Vec<RatedSeat>)> {
    let mut grouped: Vec<(i64, Vec<RatedSeat>)> = Vec::new();
    for (result_id, bot_version_id, rank, super::Flag(forfeited)) in rows {
        let seat = RatedSeat {
            bot_version_id,
            rank: rank as u32,
            forfeited,
        };
        match grouped.last_mut() {
            Some((last_id, seats)) if *last_id == result_id => seats.push(seat),
            _ => grouped.push((result_id, vec![seat])),
        }
    }
    grouped
}

/// What rating one game writes: the seats' new standings (model, bot
/// version, standing) and their changes, under every model.
#[derive(Debug, Default)]
pub(crate) struct RatingWrites {
    pub saved: Vec<(RatingModel, i64, Standing)>,
    pub history: Vec<(RatingModel, RatingChange)>,
}

/// Rates a game under every model that fits its table, from the seats'
/// `stored` standings (model, bot version): what a report writes.
pub(crate) fn rating_writes_from(
    stored: &HashMap<(RatingModel, i64), Standing>,
    seats: &[RatedSeat],
) -> RatingWrites {
    let mut writes = RatingWrites::default();
    for &model in RatingModel::for_seats(seats.len()) {
        let mut standings = Standings::new();
        for seat in seats {
            if let Some(standing) = stored.get(&(model, seat.bot_version_id)) {
                standings.insert(seat.bot_version_id, *standing);
            }
        }
        let changes = apply_game(model, &mut standings, seats);
        for seat in seats {
            // A bot seated twice is written once (PostgreSQL refuses an
            // upsert that touches a row twice).
            if !writes
                .saved
                .iter()
                .any(|&(done, id, _)| done == model && id == seat.bot_version_id)
            {
                let standing = standings[&seat.bot_version_id];
                writes.saved.push((model, seat.bot_version_id, standing));
            }
        }
        writes
            .history
            .extend(changes.into_iter().map(|change| (model, change)));
    }
    writes
}

/// `($1, $2, ..), ($n+1, ..), ..`: `rows` groups of `columns` numbered
/// placeholders, the first numbered `first`.
pub(super) fn numbered_rows(rows: usize, columns: usize, first: usize) -> String {
    (0..rows)
        .map(|row| {
            let numbers: Vec<String> = (0..columns)
                .map(|column| format!("${}", first + row * columns + column))
                .collect();
            format!("({})", numbers.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The stored standings of the seats' bot versions, under every model
/// that rates their table.
pub(super) async fn load_standings(
    tx: &mut AnyConnection,
    game: &str,
    variant: &str,
    seats: &[RatedSeat],
) -> Result<HashMap<(RatingModel, i64), Standing>, ArenaError> {
    let sql = format!(
        "SELECT {STORED_STANDING_COLUMNS} FROM ratings WHERE {}",
        seats_standings_filter("ratings", 1, seats.len())
    );
    let query = sqlx::query_as::<_, StoredStanding>(sqlx::AssertSqlSafe(sql));
    let rows = bind_seats_standings_filter(query, game, variant, seats)
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().filter_map(StoredStanding::keyed).collect())
}

/// The columns of a `ratings` row that [`StoredStanding`] reads.
pub(super) const STORED_STANDING_COLUMNS: &str =
    "model, bot_version_id, rating, uncertainty, volatility, games, wins, draws, losses, forfeits";

/// [`STORED_STANDING_COLUMNS`], each prefixed with `table.`.
pub(super) fn stored_standing_columns_of(table: &str) -> String {
    STORED_STANDING_COLUMNS
        .split(", ")
        .map(|column| format!("{table}.{column}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The condition on `ratings` rows (as `table`) that picks the standings of
/// `n_seats` seats' bot versions under the models rating their table: its
/// values numbered from `first` (game, variant, the models, the seats'
/// bot versions), bound by [`bind_seats_standings_filter`]. Every column
/// of the key is bound, so the lookup is by the whole primary key.
pub(super) fn seats_standings_filter(table: &str, first: usize, n_seats: usize) -> String {
    let n_models = RatingModel::for_seats(n_seats).len();
    if n_models == 0 || n_seats == 0 {
        return "1 = 0".to_string();
    }
    let numbers = |from: usize, n: usize| {
        (from..from + n)
            .map(|number| format!("${number}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{table}.game = ${} AND {table}.variant = ${} AND {table}.model IN ({}) AND {table}.bot_version_id IN ({})",
        first,
        first + 1,
        numbers(first + 2, n_models),
        numbers(first + 2 + n_models, n_seats),
    )
}

/// Binds the values of [`seats_standings_filter`] (none when it binds none).
pub(super) fn bind_seats_standings_filter<'q, Q: BindValue<'q>>(
    mut query: Q,
    game: &'q str,
    variant: &'q str,
    seats: &[RatedSeat],
) -> Q {
    let models = RatingModel::for_seats(seats.len());
    if models.is_empty() || seats.is_empty() {
        return query;
    }
    query = query.bind_text(game).bind_text(variant);
    for model in models {
        query = query.bind_text(model.id());
    }
    for seat in seats {
        query = query.bind_integer(seat.bot_version_id);
    }
    query
}

/// A query of either kind ([`AnyQuery`], or one read as rows of `O`),
/// for binders that serve both.
pub(super) trait BindValue<'q>: Sized {
    fn bind_text(self, value: &'q str) -> Self;
    fn bind_integer(self, value: i64) -> Self;
}

impl<'q> BindValue<'q> for AnyQuery<'q> {
    fn bind_text(self, value: &'q str) -> Self {
        self.bind(value)
    }
    fn bind_integer(self, value: i64) -> Self {
        self.bind(value)
    }
}

impl<'q, O> BindValue<'q> for sqlx::query::QueryAs<'q, sqlx::Any, O, sqlx::any::AnyArguments> {
    fn bind_text(self, value: &'q str) -> Self {
        self.bind(value)
    }
    fn bind_integer(self, value: i64) -> Self {
        self.bind(value)
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct StoredStanding {
    model: String,
    bot_version_id: i64,
    #[sqlx(flatten)]
    columns: StandingColumns,
}

impl StoredStanding {
    /// The standing a row of a `LEFT JOIN ratings` carries, none when the
    /// join found no row (its `model` is null).
    pub(super) fn joined(row: &sqlx::any::AnyRow) -> Result<Option<StoredStanding>, sqlx::Error> {
        use sqlx::{FromRow, Row};
        let model: Option<String> = row.try_get("model")?;
        model.map(|_| StoredStanding::from_row(row)).transpose()
    }

    /// The standing under its model and bot version (none under a model
    /// this build does not know).
    pub(super) fn keyed(self) -> Option<((RatingModel, i64), Standing)> {
        let model = RatingModel::from_id(&self.model)?;
        Some(((model, self.bot_version_id), self.columns.standing()))
    }
}

/// Writes `standings` (model, bot version, standing) in one statement.
async fn save_standings(
    tx: &mut AnyConnection,
    game: &str,
    variant: &str,
    standings: &[(RatingModel, i64, Standing)],
) -> Result<(), ArenaError> {
    if standings.is_empty() {
        return Ok(());
    }
    let sql = save_standings_sql(standings.len(), 1);
    let query = sqlx::query(sqlx::AssertSqlSafe(sql));
    bind_standings(query, game, variant, standings)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// A query of the store's, its values bound in order.
pub(super) type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>;

/// The upsert of `rows` standings, its values numbered from `first`.
pub(super) fn save_standings_sql(rows: usize, first: usize) -> String {
    upsert_standings_sql(&format!("VALUES {}", numbered_rows(rows, 12, first)))
}

/// The upsert of the standings `source` (a `VALUES` list or a `SELECT`
/// of [`save_standings_sql`]'s 12 columns) yields.
pub(super) fn upsert_standings_sql(source: &str) -> String {
    format!(
        "INSERT INTO ratings (game, variant, model, bot_version_id, rating, uncertainty, volatility, games, wins, draws, losses, forfeits) \
         {source} ON CONFLICT (game, variant, model, bot_version_id) DO UPDATE SET \
         rating = excluded.rating, uncertainty = excluded.uncertainty, volatility = excluded.volatility, \
         games = excluded.games, wins = excluded.wins, draws = excluded.draws, losses = excluded.losses, forfeits = excluded.forfeits"
    )
}

/// Binds the values of [`save_standings_sql`].
pub(super) fn bind_standings<'q>(
    mut query: AnyQuery<'q>,
    game: &'q str,
    variant: &'q str,
    standings: &[(RatingModel, i64, Standing)],
) -> AnyQuery<'q> {
    for (model, bot_version_id, standing) in standings {
        query = query
            .bind(game)
            .bind(variant)
            .bind(model.id())
            .bind(*bot_version_id)
            .bind(standing.rating.value)
            .bind(standing.rating.uncertainty)
            .bind(standing.rating.volatility)
            .bind(standing.games)
            .bind(standing.wins)
            .bind(standing.draws)
            .bind(standing.losses)
            .bind(standing.forfeits);
    }
    query
}

/// Keeps one result's rating changes under every model, in one statement.
async fn insert_histories(
    tx: &mut AnyConnection,
    result_id: i64,
    game: &str,
    variant: &str,
    changes: &[(RatingModel, RatingChange)],
) -> Result<(), ArenaError> {
    if changes.is_empty() {
        return Ok(());
    }
    let sql = history_insert_sql(changes.len(), 1, "$1");
    let query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(result_id);
    bind_histories(query, game, variant, changes)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// The insert of `rows` rating changes of the result whose id is
/// `result_id` (SQL), their other values numbered after `first`.
pub(super) fn history_insert_sql(rows: usize, first: usize, result_id: &str) -> String {
    format!(
        "INSERT INTO rating_history (result_id, game, variant, model, bot_version_id, rating_before, rating_after, uncertainty) VALUES {}",
        history_rows(rows, first, result_id)
    )
}

/// `rows` rows of a `rating_history` insert, each starting with the result
/// id `result_id` (SQL), their other 7 values numbered after `first`.
pub(super) fn history_rows(rows: usize, first: usize, result_id: &str) -> String {
    (0..rows)
        .map(|row| {
            let numbers: Vec<String> = (1..=7)
                .map(|column| format!("${}", first + row * 7 + column))
                .collect();
            format!("({result_id}, {})", numbers.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Binds the values of [`history_rows`].
pub(super) fn bind_histories<'q>(
    mut query: AnyQuery<'q>,
    game: &'q str,
    variant: &'q str,
    changes: &[(RatingModel, RatingChange)],
) -> AnyQuery<'q> {
    for (model, change) in changes {
        query = query
            .bind(game)
            .bind(variant)
            .bind(model.id())
            .bind(change.bot_version_id)
            .bind(change.before)
            .bind(change.after.value)
            .bind(change.after.uncertainty);
    }
    query
}
