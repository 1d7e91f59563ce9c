//! What the CLI says about a version's validation (`cairn bot add
//! --wait`, `cairn bot show`, `cairn demo`): its state, why it failed, and
//! the wait for it to end.

use std::time::Duration;

use cairn_proto::arena::v1 as pb;
use pb::arena_client::ArenaClient;
use serde_json::{json, Value};
use tonic::transport::Channel;

use crate::client::status_error;

/// How often a wait asks the arena again.
const POLL: Duration = Duration::from_millis(200);

/// The state column of `cairn bot show`.
pub fn state(version: &pb::BotVersion) -> String {
    let validation = match version.validation.as_str() {
        "failed" => "failed validation",
        "" => "ready",
        other => other,
    };
    match version.broken {
        true => format!("{validation}, broken"),
        false => validation.to_string(),
    }
}

/// Why a version failed its validation, in a few lines; `None` unless it did.
pub fn failure_text(version: &pb::BotVersion) -> Option<String> {
    let failure = version.validation_failure.as_ref()?;
    let table = match failure.variant.as_str() {
        "" => format!("{} at {} seats", failure.game, failure.seats),
        variant => format!("{} ({variant}) at {} seats", failure.game, failure.seats),
    };
    let mut text = format!(
        "{}@{} failed validation: {table}: {}: {}",
        version.bot_name,
        version.version,
        failure.reason,
        crate::escape::line(&failure.detail)
    );
    if failure.game_id != 0 {
        text.push_str(&format!(
            "\nreplay: cairn match show {} (web: /games/{})",
            failure.game_id, failure.game_id
        ));
    }
    if !failure.stderr_tail.is_empty() {
        text.push_str(&format!(
            "\nits stderr ended with:\n{}",
            crate::escape::block(&failure.stderr_tail)
        ));
    }
    Some(text)
}

/// The validation fields of a version's JSON.
pub fn json(version: &pb::BotVersion) -> Value {
    let failure = version.validation_failure.as_ref().map(|failure| {
        json!({
            "game": failure.game, "variant": failure.variant, "seats": failure.seats,
            "game_id": (failure.game_id != 0).then_some(failure.game_id),
            "reason": failure.reason, "detail": failure.detail, "stderr_tail": failure.stderr_tail,
        })
    });
    json!({"state": version.validation, "failure": failure})
}

/// Waits until `bot@version` is no longer validating; its final state.
pub async fn wait_until_validated(
    client: &mut ArenaClient<Channel>,
    bot: &str,
    version: i64,
) -> anyhow::Result<pb::BotVersion> {
    loop {
        let answer = client
            .show_bot(pb::ShowBotRequest { name: bot.into() })
            .await
            .map_err(status_error)?
            .into_inner();
        let Some(found) = answer.versions.into_iter().find(|v| v.version == version) else {
            anyhow::bail!("bot {bot} has no version {version}");
        };
        if found.validation != "validating" {
            return Ok(found);
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_the_game_the_reason_and_the_replay() {
        let version = pb::BotVersion {
            bot_name: "b".into(),
            version: 2,
            validation: "failed".into(),
            validation_failure: Some(pb::ValidationFailure {
                game: "schotten-totten".into(),
                seats: 2,
                game_id: 17,
                reason: "protocol_error".into(),
                detail: "hello?".into(),
                stderr_tail: "panic".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let text = failure_text(&version).unwrap();
        assert!(
            text.starts_with("b@2 failed validation: schotten-totten at 2 seats: protocol_error")
        );
        assert!(text.contains("cairn match show 17"), "{text}");
        assert!(text.contains("panic"), "{text}");
        assert_eq!(state(&version), "failed validation");
    }
}
