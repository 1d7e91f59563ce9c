use std::time::Duration;

use cairn_engine::forfeit::ForfeitReason;

use super::exposition::{escape_help, escape_label_value, float, Exposition};
use super::*;

/// The value of the sample written exactly as `series` (name and labels).
fn sample(text: &str, series: &str) -> Option<String> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| Some(line.strip_prefix(series)?.strip_prefix(' ')?.to_string()))
}

#[test]
fn a_label_value_escapes_backslash_quote_and_line_feed_only() {
    assert_eq!(escape_label_value(r#"a\b"c"#), r#"a\\b\"c"#);
    assert_eq!(escape_label_value("one\ntwo"), r"one\ntwo");
    assert_eq!(escape_label_value("tab\tand é"), "tab\tand é");
}

#[test]
fn help_text_escapes_backslash_and_line_feed_but_keeps_quotes() {
    assert_eq!(escape_help("a \"b\" c\\d\ne"), "a \"b\" c\\\\d\\ne");
}

#[test]
fn a_hostile_label_value_stays_inside_its_quotes() {
    let mut out = Exposition::default();
    let hostile = "x\"} 1\ncairn_fake_total 99\n# TYPE";
    out.labelled_gauge(
        "cairn_test",
        "test",
        "tournament",
        [(hostile.to_string(), 7)],
    );
    let text = out.finish();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        !text
            .lines()
            .any(|line| line.starts_with("cairn_fake_total")),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"cairn_test{tournament="x\"} 1\ncairn_fake_total 99\n# TYPE"}"#
        ),
        Some("7".into())
    );
}

#[test]
fn floats_are_written_as_prometheus_reads_them() {
    assert_eq!(float(0.005), "0.005");
    assert_eq!(float(1.0), "1");
    assert_eq!(float(f64::INFINITY), "+Inf");
    assert_eq!(float(f64::NEG_INFINITY), "-Inf");
    assert_eq!(float(f64::NAN), "NaN");
}

#[test]
fn histogram_buckets_are_cumulative_and_end_with_inf_equal_to_the_count() {
    let metrics = Metrics::default();
    for millis in [0, 1, 3, 40, 40, 900, 60_000] {
        metrics.lease_answered(Duration::from_millis(millis));
    }
    let text = metrics.render(None);
    let bucket = |le: &str| {
        sample(
            &text,
            &format!("cairn_lease_duration_seconds_bucket{{le=\"{le}\"}}"),
        )
        .unwrap_or_else(|| panic!("no bucket {le} in {text}"))
    };
    assert_eq!(
        bucket("0.001"),
        "2",
        "0 ms and 1 ms are at most a millisecond"
    );
    assert_eq!(bucket("0.0025"), "2");
    assert_eq!(bucket("0.005"), "3");
    assert_eq!(bucket("0.05"), "5");
    assert_eq!(bucket("1"), "6");
    assert_eq!(bucket("30"), "6", "a minute is past the last bound");
    assert_eq!(bucket("+Inf"), "7");
    assert_eq!(
        sample(&text, "cairn_lease_duration_seconds_count"),
        Some("7".into())
    );
    let sum: f64 = sample(&text, "cairn_lease_duration_seconds_sum")
        .unwrap()
        .parse()
        .unwrap();
    assert!((sum - 60.984).abs() < 1e-9, "{sum}");
    let bounds: Vec<f64> = text
        .lines()
        .filter_map(|line| line.strip_prefix("cairn_lease_duration_seconds_bucket{le=\""))
        .filter_map(|rest| rest.split('"').next()?.parse().ok())
        .collect();
    assert!(
        bounds.windows(2).all(|pair| pair[0] < pair[1]),
        "{bounds:?}"
    );
}

#[test]
fn every_refusal_reason_has_its_own_counter_from_zero() {
    let metrics = Metrics::default();
    let text = metrics.render(None);
    for reason in RefusalReason::ALL {
        let series = format!("cairn_reports_refused_total{{reason=\"{}\"}}", reason.id());
        assert_eq!(sample(&text, &series), Some("0".into()), "{series}");
    }
    let lost = ArenaError::LeaseLost { match_id: 4 };
    metrics.report_answered(Duration::from_millis(2), Some(&lost));
    metrics.report_answered(Duration::from_millis(2), Some(&lost));
    metrics.report_answered(
        Duration::from_millis(2),
        Some(&ArenaError::invalid("bad replay")),
    );
    metrics.report_answered(Duration::from_millis(2), None);
    let text = metrics.render(None);
    assert_eq!(
        sample(&text, r#"cairn_reports_refused_total{reason="lease_lost"}"#),
        Some("2".into())
    );
    assert_eq!(
        sample(&text, r#"cairn_reports_refused_total{reason="invalid"}"#),
        Some("1".into())
    );
    assert_eq!(
        sample(&text, r#"cairn_reports_refused_total{reason="not_found"}"#),
        Some("0".into())
    );
    assert_eq!(
        sample(&text, "cairn_reports_received_total"),
        Some("4".into())
    );
    assert_eq!(
        sample(&text, "cairn_report_duration_seconds_count"),
        Some("4".into())
    );
}

#[test]
fn every_forfeit_reason_has_its_own_counter() {
    let metrics = Metrics::default();
    metrics.game_recorded([ForfeitReason::Timeout, ForfeitReason::IllegalAction]);
    metrics.game_recorded([]);
    metrics.game_recorded([ForfeitReason::Timeout]);
    let text = metrics.render(None);
    assert_eq!(
        sample(&text, "cairn_games_recorded_total"),
        Some("3".into())
    );
    for reason in ForfeitReason::ALL {
        let expected = match reason {
            ForfeitReason::Timeout => "2",
            ForfeitReason::IllegalAction => "1",
            _ => "0",
        };
        let series = format!("cairn_forfeits_total{{reason=\"{}\"}}", reason.as_str());
        assert_eq!(
            sample(&text, &series).as_deref(),
            Some(expected),
            "{series}"
        );
    }
}

#[test]
fn every_family_has_help_and_type_and_counters_say_they_reset() {
    let gauges = Gauges {
        matches_waiting: 5,
        waiting_by_tournament: vec![(3, 4), (9, 1)],
        runners_seen: 2,
    };
    let text = Metrics::default().render(Some(&gauges));
    let mut families = 0;
    for line in text.lines().filter(|line| line.starts_with("# TYPE ")) {
        let words: Vec<&str> = line.split(' ').collect();
        let (name, kind) = (words[2], words[3]);
        families += 1;
        let help = text
            .lines()
            .find_map(|line| line.strip_prefix(&format!("# HELP {name} ")))
            .unwrap_or_else(|| panic!("no HELP for {name}"));
        assert!(name.starts_with("cairn_"), "{name}");
        match kind {
            "counter" => {
                assert!(name.ends_with("_total"), "{name}");
                assert!(help.contains("per process, reset on restart"), "{help}");
            }
            "histogram" => assert!(name.ends_with("_seconds"), "{name}"),
            "gauge" => {}
            other => panic!("{name} is a {other}"),
        }
    }
    assert_eq!(families, 14, "{text}");
    assert_eq!(sample(&text, "cairn_matches_waiting"), Some("5".into()));
    assert_eq!(
        sample(&text, r#"cairn_tournament_matches_waiting{tournament="3"}"#),
        Some("4".into())
    );
    assert_eq!(sample(&text, "cairn_runners_seen"), Some("2".into()));
    assert!(text.ends_with('\n'));
}

#[test]
fn no_more_tournaments_than_the_cap_become_series() {
    let gauges = Gauges {
        matches_waiting: 1000,
        waiting_by_tournament: (1..=1000).map(|id| (id, 1)).collect(),
        runners_seen: 0,
    };
    let text = Metrics::default().render(Some(&gauges));
    let series = text
        .lines()
        .filter(|line| line.starts_with("cairn_tournament_matches_waiting{"))
        .count();
    assert_eq!(series, MAX_TOURNAMENT_SERIES);
}

#[test]
fn leases_count_grants_expiries_and_give_backs_and_database_errors_count_once() {
    let metrics = Metrics::default();
    metrics.lease_granted(false);
    metrics.lease_granted(true);
    metrics.lease_given_back();
    metrics.build_failed();
    let failed: Result<(), ArenaError> = Err(ArenaError::Database(sqlx::Error::PoolTimedOut));
    assert!(metrics.database(failed).is_err());
    assert!(metrics
        .database(Err::<(), _>(ArenaError::invalid("no")))
        .is_err());
    assert_eq!(metrics.database(Ok::<_, ArenaError>(3)).unwrap(), 3);
    let text = metrics.render(None);
    assert_eq!(
        sample(&text, "cairn_leases_granted_total"),
        Some("2".into())
    );
    assert_eq!(
        sample(&text, "cairn_leases_expired_total"),
        Some("1".into())
    );
    assert_eq!(
        sample(&text, "cairn_leases_given_back_total"),
        Some("1".into())
    );
    assert_eq!(
        sample(&text, "cairn_build_failures_total"),
        Some("1".into())
    );
    assert_eq!(
        sample(&text, "cairn_database_errors_total"),
        Some("1".into())
    );
    assert!(
        !text.contains("cairn_matches_waiting"),
        "no gauges without a read"
    );
}
