//! `GET /metrics`: the process's counters and the gauges read from the
//! database, in Prometheus's text format (see [`crate::metrics`]).
//!
//! Admitted like the other reads (a scrape costs one unit); the gauges'
//! read is kept for [`GAUGES_FRESH`], so however many scrapers call, the
//! database sees at most one gauge read per that while. A gauge read that
//! fails leaves the gauges out and still answers the counters.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::Web;
use crate::metrics::{Gauges, CONTENT_TYPE};

/// How long a gauge read is shown before the database is read again.
pub const GAUGES_FRESH: Duration = Duration::from_secs(1);

/// The last gauge read and when it was made.
#[derive(Debug, Default)]
pub(super) struct GaugeCache {
    last: Mutex<Option<(Instant, Gauges)>>,
}

impl GaugeCache {
    fn fresh(&self) -> Option<Gauges> {
        let last = self
            .last
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        last.as_ref()
            .filter(|(read_at, _)| read_at.elapsed() < GAUGES_FRESH)
            .map(|(_, gauges)| gauges.clone())
    }

    fn keep(&self, gauges: Gauges) {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        *last = Some((Instant::now(), gauges));
    }
}

pub(super) async fn metrics(State(web): State<Web>) -> Response {
    let gauges = match web.gauges.fresh() {
        Some(gauges) => Some(gauges),
        None => match web.store.metrics_gauges().await {
            Ok(gauges) => {
                web.gauges.keep(gauges.clone());
                Some(gauges)
            }
            Err(error) => {
                tracing::warn!(%error, "metrics: the gauges could not be read");
                None
            }
        },
    };
    let text = web.store.metrics().render(gauges.as_ref());
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}
