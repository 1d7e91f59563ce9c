//! Keeping several arena processes' read snapshots and fits current on one
//! PostgreSQL database.
//!
//! Each write transaction that touches a cached read also sends, inside the
//! transaction, `pg_notify('cairn_reads', what it touched)`: PostgreSQL
//! delivers it only if the transaction commits, right after it commits, to
//! every process listening. Each store listens on its own connection and
//! drops what another store's write touched, as its own writes do (its own
//! notifications are recognised by the store's id and skipped). So a read in
//! one process lags a write committed in another by the notification's
//! trip, a moment. A listening connection that is lost may have missed
//! notifications: the store drops every snapshot and listens again.

use std::sync::Weak;

use serde_json::{json, Value};
use sqlx::postgres::PgListener;
use tokio::sync::watch;

use crate::error::ArenaError;
use crate::store::snapshots::{ReadCache, Touch, Touched};

/// The channel every store of one database notifies and listens on.
pub(crate) const CHANNEL: &str = "cairn_reads";

/// PostgreSQL refuses payloads of 8000 bytes or more: past this, a write
/// says it touched everything.
const MAX_PAYLOAD_BYTES: usize = 7_000;

/// What a write touched, from the store `sender`, as a notification.
pub(crate) fn payload(sender: u64, touched: &Touched) -> String {
    let touches = match touched {
        Touched::Everything => Value::Null,
        Touched::Only(touches) => touches
            .iter()
            .map(|touch| match touch {
                Touch::Match {
                    tournament_id,
                    match_index,
                } => json!(["m", tournament_id, match_index]),
                Touch::Board { game, variant } => json!(["b", game, variant]),
            })
            .collect(),
    };
    let text = json!({ "from": sender.to_string(), "touched": touches }).to_string();
    if text.len() <= MAX_PAYLOAD_BYTES {
        text
    } else {
        json!({ "from": sender.to_string(), "touched": null }).to_string()
    }
}

/// The SQL of [`payload`] for one touched match, from the store id in
/// parameter `sender` (text) and the match's tournament id and index in
/// the columns named: for a statement that learns which match it touched
/// as it writes, and notifies in the same round trip.
pub(crate) fn match_payload_sql(sender: &str, tournament_id: &str, match_index: &str) -> String {
    format!(
        "json_build_object('from', {sender}::text, 'touched', \
         json_build_array(json_build_array('m', {tournament_id}, {match_index})))::text"
    )
}

/// The sender and what it touched; anything unreadable touched everything.
pub(crate) fn parse(payload: &str) -> (Option<u64>, Touched) {
    let Ok(value) = serde_json::from_str::<Value>(payload) else {
        return (None, Touched::Everything);
    };
    let sender = value["from"].as_str().and_then(|s| s.parse().ok());
    let Some(touches) = value["touched"].as_array() else {
        return (sender, Touched::Everything);
    };
    let mut parsed = Vec::with_capacity(touches.len());
    for touch in touches {
        let touch = match (touch[0].as_str(), &touch[1], &touch[2]) {
            (Some("m"), tournament, index) => match (tournament.as_i64(), index.as_i64()) {
                (Some(tournament_id), Some(match_index)) => Touch::Match {
                    tournament_id,
                    match_index,
                },
                _ => return (sender, Touched::Everything),
            },
            (Some("b"), Value::String(game), Value::String(variant)) => Touch::Board {
                game: game.clone(),
                variant: variant.clone(),
            },
            _ => return (sender, Touched::Everything),
        };
        parsed.push(touch);
    }
    (sender, Touched::Only(parsed))
}

/// Starts listening for other stores' writes on `url`; returns once the
/// store listens, so a write committed after the store opened is never
/// missed. Each write another store made drops what it touched from
/// `reads` and then bumps `changes` (so watchers of progress wake on
/// results recorded by any process). The task ends when the store is gone.
pub(crate) async fn listen(
    url: &str,
    me: u64,
    reads: Weak<ReadCache>,
    changes: Weak<watch::Sender<u64>>,
) -> Result<(), ArenaError> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    tokio::spawn(async move {
        loop {
            let received = listener.try_recv().await;
            let Some(reads) = reads.upgrade() else {
                return;
            };
            match received {
                Ok(Some(notification)) => {
                    let (sender, touched) = parse(notification.payload());
                    if sender != Some(me) {
                        reads.invalidate(&touched);
                        if let Some(changes) = changes.upgrade() {
                            changes.send_modify(|count| *count += 1);
                        }
                    }
                }
                // Lost (the next call reconnects): what was missed is unknown.
                Ok(None) => reads.invalidate(&Touched::Everything),
                Err(error) => {
                    tracing::warn!(%error, "listening for other arena processes' writes");
                    reads.invalidate(&Touched::Everything);
                    drop(reads);
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                }
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_write_touched_reads_back_from_its_notification() {
        let touched = Touched::Only(vec![
            Touch::Match {
                tournament_id: 7,
                match_index: 3,
            },
            Touch::Board {
                game: "test-duel".into(),
                variant: "a=1,\"b\"=\n".into(),
            },
        ]);
        assert_eq!(parse(&payload(42, &touched)), (Some(42), touched));
        assert_eq!(
            parse(&payload(42, &Touched::Everything)),
            (Some(42), Touched::Everything)
        );
        assert_eq!(parse("not json"), (None, Touched::Everything));
        assert_eq!(
            parse(r#"{"from":"1","touched":[["m","x",1]]}"#),
            (Some(1), Touched::Everything)
        );
        let huge = Touched::Only(vec![
            Touch::Board {
                game: "g".repeat(10_000),
                variant: String::new(),
            };
            1
        ]);
        assert_eq!(parse(&payload(5, &huge)), (Some(5), Touched::Everything));
    }
}
