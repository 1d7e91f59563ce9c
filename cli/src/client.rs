//! Talking to an arena: where it is and whose token to send (flags or
//! environment), and gRPC errors turned into one clear line.

use anyhow::anyhow;
use cairn_proto::arena::v1 as pb;
use cairn_runner::remote::{connect_channel, RemoteError};
use pb::arena_client::ArenaClient;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

/// The default arena address (`cairn serve`'s default).
pub const DEFAULT_ARENA: &str = "http://127.0.0.1:50051";

/// Where the arena is.
#[derive(Debug, Clone, clap::Args)]
pub struct ArenaArgs {
    /// The arena's address.
    #[arg(long, env = "CAIRN_ARENA", default_value = DEFAULT_ARENA)]
    pub arena: String,
}

/// Where the arena is, and the owner token.
#[derive(Debug, Clone, clap::Args)]
pub struct OwnerArgs {
    #[command(flatten)]
    pub arena: ArenaArgs,
    /// Your owner token (from `cairn owner register`).
    #[arg(long, env = "CAIRN_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

impl OwnerArgs {
    pub fn token(&self) -> anyhow::Result<&str> {
        self.token.as_deref().ok_or_else(|| anyhow!("an owner token is needed: pass --token or set CAIRN_TOKEN (get one with `cairn owner register NAME`)"))
    }
}

/// A client of the `Arena` service.
pub async fn connect(arena: &ArenaArgs) -> anyhow::Result<ArenaClient<Channel>> {
    let channel = connect_channel(&arena.arena).await.map_err(remote_error)?;
    Ok(ArenaClient::new(channel)
        .max_encoding_message_size(32 * 1024 * 1024)
        .max_decoding_message_size(64 * 1024 * 1024))
}

/// `message` carrying `token` as a bearer token.
pub fn authorized<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    if let Ok(value) = format!("Bearer {token}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// Items asked for per page when the CLI reads a whole list.
pub const PAGE_SIZE: u32 = 1000;

/// One line for a failed call.
pub fn status_error(status: Status) -> anyhow::Error {
    // An arena's message may quote what an owner, a bot or a runner sent.
    let message = crate::escape::line(status.message());
    match status.code() {
        Code::Unauthenticated => {
            anyhow!("the arena refused the token: {message} (check --token or CAIRN_TOKEN)")
        }
        Code::PermissionDenied => anyhow!("permission denied: {message}"),
        Code::Unavailable => anyhow!("the arena is unreachable: {message}"),
        Code::NotFound => anyhow!("{message}"),
        Code::InvalidArgument
        | Code::ResourceExhausted
        | Code::AlreadyExists
        | Code::FailedPrecondition => anyhow!("{message}"),
        // A service this port does not serve (the runners' port serves
        // runners alone): tonic gives no message.
        Code::Unimplemented => anyhow!(
            "this address does not serve that API (the runners' port, --runner-listen, \
             serves runners only: give owner commands the arena's main address)"
        ),
        code if message.is_empty() => anyhow!("the arena answered {code:?}"),
        code => anyhow!("the arena answered {code:?}: {message}"),
    }
}

pub fn remote_error(error: RemoteError) -> anyhow::Error {
    anyhow!("{error}")
}

/// A tokio runtime for one command.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_the_port_does_not_serve_is_named_not_left_blank() {
        let error = status_error(Status::unimplemented("")).to_string();
        assert!(error.contains("does not serve that API"), "{error}");
        assert!(!error.ends_with(": "), "{error}");
    }

    #[test]
    fn a_status_without_a_message_ends_with_its_code() {
        let error = status_error(Status::internal("")).to_string();
        assert_eq!(error, "the arena answered Internal");
    }
}
