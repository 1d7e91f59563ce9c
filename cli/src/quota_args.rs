//! `cairn serve`'s quota flags.

use cairn_arena::store::Quotas;

/// Each owner's limits (README, "Quotas"); a refusal names the quota and
/// the figures.
#[derive(Debug, clap::Args)]
pub struct QuotaArgs {
    /// Live bots per owner (a deleted bot brought back counts again).
    #[arg(long, value_name = "N", default_value_t = Quotas::default().bots,
          value_parser = clap::value_parser!(i64).range(1..))]
    quota_bots: i64,
    /// Versions per bot.
    #[arg(long, value_name = "N", default_value_t = Quotas::default().versions_per_bot,
          value_parser = clap::value_parser!(i64).range(1..))]
    quota_versions_per_bot: i64,
    /// MiB of archives stored per owner, deleted bots' archives included.
    #[arg(long, value_name = "MIB", default_value_t = Quotas::default().storage_bytes >> 20,
          value_parser = clap::value_parser!(i64).range(1..=(1 << 43)))]
    quota_storage_mib: i64,
    /// New versions per owner in any hour.
    #[arg(long, value_name = "N", default_value_t = Quotas::default().uploads_per_hour,
          value_parser = clap::value_parser!(i64).range(1..))]
    quota_uploads_per_hour: i64,
    /// Games queued at once over all of an owner's tournaments.
    #[arg(long, value_name = "N", default_value_t = Quotas::default().queued_games,
          value_parser = clap::value_parser!(i64).range(1..))]
    quota_queued_games: i64,
    /// Unfinished tournaments per owner.
    #[arg(long, value_name = "N", default_value_t = Quotas::default().unfinished_tournaments,
          value_parser = clap::value_parser!(i64).range(1..))]
    quota_tournaments: i64,
}

impl QuotaArgs {
    pub fn quotas(&self) -> Quotas {
        Quotas {
            bots: self.quota_bots,
            versions_per_bot: self.quota_versions_per_bot,
            queued_games: self.quota_queued_games,
            unfinished_tournaments: self.quota_tournaments,
            storage_bytes: self.quota_storage_mib << 20,
            uploads_per_hour: self.quota_uploads_per_hour,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Serve {
        #[command(flatten)]
        quotas: QuotaArgs,
    }

    #[test]
    fn the_defaults_are_the_stores_own_quotas() {
        let parsed = Serve::try_parse_from(["serve"]).unwrap();
        assert_eq!(parsed.quotas.quotas(), Quotas::default());
    }

    #[test]
    fn each_flag_sets_its_quota_and_storage_is_given_in_mib() {
        let parsed = Serve::try_parse_from([
            "serve",
            "--quota-bots=3",
            "--quota-versions-per-bot=4",
            "--quota-storage-mib=5",
            "--quota-uploads-per-hour=6",
            "--quota-queued-games=7",
            "--quota-tournaments=8",
        ])
        .unwrap();
        let expected = Quotas {
            bots: 3,
            versions_per_bot: 4,
            storage_bytes: 5 << 20,
            uploads_per_hour: 6,
            queued_games: 7,
            unfinished_tournaments: 8,
        };
        assert_eq!(parsed.quotas.quotas(), expected);
    }

    #[test]
    fn a_quota_of_zero_or_less_is_refused() {
        for flag in [
            "--quota-bots=0",
            "--quota-storage-mib=-1",
            "--quota-uploads-per-hour=0",
        ] {
            assert!(Serve::try_parse_from(["serve", flag]).is_err(), "{flag}");
        }
    }
}
