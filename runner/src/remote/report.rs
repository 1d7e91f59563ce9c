//! A lease becomes a [`MatchSpec`] for the same match loop `cairn play`
//! uses, and the [`MatchResult`] becomes reports, one per game: every
//! seat's score, rank and forfeit, the end reason and the game's replay file.

use std::path::PathBuf;

use cairn_proto::arena::v1 as pb;

use crate::referee::{BotEntry, GameResult, MatchResult, MatchSpec};
use crate::seating::GamePlan;
use crate::time_control::TimeControl;
use cairn_proto::record::ReplayFile;

/// The match a lease describes, with each seat's bot in `folders` (by seat).
/// Every game of a leased match seats the bots the same way: the arena
/// plans seat rotations as separate matches.
pub fn match_spec(
    lease: &pb::MatchLease,
    folders: &[PathBuf],
    time_control: TimeControl,
) -> MatchSpec {
    let n_seats = lease.seats.len();
    let bots: Vec<BotEntry> = lease
        .seats
        .iter()
        .zip(folders)
        .map(|(seat, folder)| {
            let mut entry =
                super::artifacts::prepared_bot(folder, &seat.manifest.clone().unwrap_or_default())
                    .entry;
            entry.name = cairn_proto::record::seat_label(&seat.bot_name, seat.version);
            entry
        })
        .collect();
    let games: Vec<GamePlan> = lease
        .games
        .iter()
        .map(|game| GamePlan {
            seed: game.seed,
            seating: (0..n_seats).collect(),
        })
        .collect();
    MatchSpec {
        game: lease.game.clone(),
        options: lease.options.clone(),
        bots: crate::seeded_bots(&bots, &games),
        games,
        time_control,
        limits: Default::default(),
        cpu: None,
    }
}

/// The reports of a played match, one per game (each well under the
/// arena's 5 MiB message cap, whatever the match's length).
pub fn game_reports(lease: &pb::MatchLease, result: &MatchResult) -> Vec<pb::ReportGameRequest> {
    result
        .games
        .iter()
        .zip(&lease.games)
        .map(|(game, leased)| pb::ReportGameRequest {
            match_id: lease.match_id,
            lease_generation: lease.lease_generation,
            game: Some(game_result(lease, game, leased.game_index)),
        })
        .collect()
}

fn game_result(lease: &pb::MatchLease, game: &GameResult, game_index: i64) -> pb::GameResult {
    pb::GameResult {
        game_index,
        seats: game
            .seats
            .iter()
            .map(|seat| pb::SeatResult {
                bot_version_id: lease
                    .seats
                    .get(seat.bot)
                    .map_or(0, |leased_seat| leased_seat.bot_version_id),
                score: i64::from(seat.score),
                rank: seat.rank,
                forfeit: seat.forfeit.as_ref().map(|forfeit| pb::Forfeit {
                    reason: pb::ForfeitReason::from(forfeit.reason) as i32,
                    detail: forfeit.detail.clone(),
                }),
                stderr_tail: seat.stderr_tail.clone(),
            })
            .collect(),
        replay: ReplayFile {
            first_game_index: u64::try_from(game_index).unwrap_or_default(),
            ..ReplayFile::new(vec![game.record.clone()])
        }
        .to_json()
        .into_bytes(),
        end_reason: pb::EndReason::from(game.record.score.ended_by) as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(name: &str, id: i64) -> pb::LeasedSeat {
        let manifest = pb::BotManifest {
            name: name.into(),
            command: vec!["./run".into()],
            ..Default::default()
        };
        pb::LeasedSeat {
            bot_version_id: id,
            bot_name: name.into(),
            version: 3,
            content_hash: String::new(),
            manifest: Some(manifest),
        }
    }

    #[test]
    fn a_leased_match_seats_the_bots_as_leased_in_every_game_with_the_leased_seeds() {
        let lease = pb::MatchLease {
            game: "schotten-totten".into(),
            seats: vec![seat("b", 12), seat("a", 11)],
            games: vec![
                pb::LeasedGame {
                    game_id: 5,
                    game_index: 0,
                    seed: 40,
                },
                pb::LeasedGame {
                    game_id: 6,
                    game_index: 1,
                    seed: 41,
                },
            ],
            ..Default::default()
        };
        let folders = [PathBuf::from("/cache/b"), PathBuf::from("/cache/a")];
        let spec = match_spec(&lease, &folders, TimeControl::default());
        assert_eq!(
            spec.bots
                .iter()
                .map(|bot| bot.name.as_str())
                .collect::<Vec<_>>(),
            ["b@3", "a@3"]
        );
        assert_eq!(spec.bots[1].launch.bot_dir, PathBuf::from("/cache/a"));
        assert_eq!(
            spec.games
                .iter()
                .map(|game| (game.seed, game.seating.clone()))
                .collect::<Vec<_>>(),
            [(40, vec![0, 1]), (41, vec![0, 1])]
        );
    }
}
