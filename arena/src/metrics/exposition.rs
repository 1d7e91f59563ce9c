//! Prometheus's text exposition format, version 0.0.4: each metric family
//! is a `# HELP` line, a `# TYPE` line, then its samples; label values are
//! escaped (`\\`, `\"`, `\n`), HELP text too (`\\`, `\n`).

use std::fmt::Write;

use super::{HistogramSnapshot, LATENCY_BUCKETS};

/// The content type of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Metric families written one after another.
#[derive(Debug, Default)]
pub struct Exposition {
    text: String,
}

impl Exposition {
    pub fn counter(&mut self, name: &str, help: &str, value: u64) {
        self.family(name, help, "counter");
        self.sample(name, &[], &value.to_string());
    }

    /// One sample per `(label value, count)`.
    pub fn labelled_counter<'a>(
        &mut self,
        name: &str,
        help: &str,
        label: &str,
        values: impl IntoIterator<Item = (&'a str, u64)>,
    ) {
        self.family(name, help, "counter");
        for (value, count) in values {
            self.sample(name, &[(label, value)], &count.to_string());
        }
    }

    pub fn gauge(&mut self, name: &str, help: &str, value: i64) {
        self.family(name, help, "gauge");
        self.sample(name, &[], &value.to_string());
    }

    /// One sample per `(label value, value)`.
    pub fn labelled_gauge(
        &mut self,
        name: &str,
        help: &str,
        label: &str,
        values: impl IntoIterator<Item = (String, i64)>,
    ) {
        self.family(name, help, "gauge");
        for (value, gauge) in values {
            self.sample(name, &[(label, &value)], &gauge.to_string());
        }
    }

    /// `NAME_bucket{le=..}` for every bound and `+Inf`, `NAME_sum`, `NAME_count`.
    pub fn histogram(&mut self, name: &str, help: &str, snapshot: &HistogramSnapshot) {
        self.family(name, help, "histogram");
        let bucket = format!("{name}_bucket");
        for (bound, count) in LATENCY_BUCKETS.iter().zip(snapshot.cumulative) {
            self.sample(&bucket, &[("le", &float(*bound))], &count.to_string());
        }
        self.sample(&bucket, &[("le", "+Inf")], &snapshot.count.to_string());
        self.sample(&format!("{name}_sum"), &[], &float(snapshot.sum));
        self.sample(&format!("{name}_count"), &[], &snapshot.count.to_string());
    }

    /// The text, every line ended by a line feed.
    pub fn finish(self) -> String {
        self.text
    }

    fn family(&mut self, name: &str, help: &str, kind: &str) {
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: &str) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (index, (label, value)) in labels.iter().enumerate() {
                if index > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{label}=\"{}\"", escape_label_value(value));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {value}");
    }
}

/// A label value as the format quotes it.
pub fn escape_label_value(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for character in value.chars() {
        match character {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            '\n' => escaped.push_str("\\n"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// HELP text as the format writes it (quotes stay as they are).
pub fn escape_help(help: &str) -> String {
    help.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A float as Go's `strconv` would write it for Prometheus: `+Inf`,
/// `-Inf`, `NaN`, else Rust's shortest round-trip form.
pub fn float(value: f64) -> String {
    match value {
        f64::INFINITY => "+Inf".into(),
        f64::NEG_INFINITY => "-Inf".into(),
        value if value.is_nan() => "NaN".into(),
        value => value.to_string(),
    }
}
