//! The arena's `RunnerService` as a runner sees it: one connection, the
//! runner token on every call, and errors worded for the person running
//! `cairn runner`.

use std::time::Duration;

use cairn_proto::arena::v1 as pb;
use pb::runner_service_client::RunnerServiceClient;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};

/// The largest message to or from the arena (its cap on a game's report).
pub const MAX_REPORT_BYTES: usize = 5 * 1024 * 1024;

/// Why the runner stopped or could not do a step.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("`{0}` is not a valid arena address (expected e.g. http://127.0.0.1:50051)")]
    BadAddress(String),
    #[error("cannot reach the arena at {address}: {detail}")]
    Unreachable { address: String, detail: String },
    #[error("the arena refused the runner token (check --token or CAIRN_RUNNER_TOKEN)")]
    BadToken,
    #[error("the arena answered {code:?}: {message}")]
    Arena { code: Code, message: String },
    #[error("artifact {hash}: {detail}")]
    Artifact { hash: String, detail: String },
    /// The bot's own fault: its build failed (`log` is the build's output).
    #[error("artifact {hash}: the build failed: {log}")]
    BuildFailed { hash: String, log: String },
    #[error("the runner's work folder {path}: {source}")]
    WorkFolder {
        path: String,
        source: std::io::Error,
    },
    #[error("the match task failed: {0}")]
    Task(String),
    /// The arena ended the lease (the tournament was cancelled, or the
    /// lease lost): the match was dropped, nothing to report or give back.
    #[error("the arena ended the lease: {0}")]
    LeaseEnded(String),
    /// The match loop could not referee the match (never a bot's fault).
    #[error("the match could not be played: {0}")]
    Play(String),
    /// The runner's disk is full: it stops leasing until there is room.
    #[error("the disk is full: {0}")]
    DiskFull(String),
}

impl RemoteError {
    /// Whether the runner must stop: the arena refused its token (wrong or
    /// revoked). Every other error concerns one match only.
    pub fn is_fatal(&self) -> bool {
        matches!(self, RemoteError::BadToken)
    }
}

impl From<Status> for RemoteError {
    fn from(status: Status) -> RemoteError {
        match status.code() {
            Code::Unauthenticated | Code::PermissionDenied => RemoteError::BadToken,
            Code::Unavailable => RemoteError::Unreachable {
                address: "the arena".into(),
                detail: status.message().to_string(),
            },
            code => RemoteError::Arena {
                code,
                message: status.message().to_string(),
            },
        }
    }
}

/// A connection to the arena's `RunnerService`, with the runner token.
#[derive(Debug, Clone)]
pub struct ArenaConnection {
    client: RunnerServiceClient<Channel>,
    token: String,
}

impl ArenaConnection {
    /// Connects to `address` (`http://host:port`; a bare `host:port` gets `http://`).
    pub async fn connect(address: &str, token: &str) -> Result<ArenaConnection, RemoteError> {
        let channel = connect_channel(address).await?;
        // One game's report at most: the arena accepts 5 MiB a message.
        let client = RunnerServiceClient::new(channel)
            .max_encoding_message_size(MAX_REPORT_BYTES)
            .max_decoding_message_size(MAX_REPORT_BYTES);
        Ok(ArenaConnection {
            client,
            token: token.to_string(),
        })
    }

    /// `message` with the runner token attached.
    pub fn authorized<T>(&self, message: T) -> Request<T> {
        let mut request = Request::new(message);
        if let Ok(value) = format!("Bearer {}", self.token).parse() {
            request.metadata_mut().insert("authorization", value);
        }
        request
    }

    pub fn client(&self) -> RunnerServiceClient<Channel> {
        self.client.clone()
    }
}

/// Opens a channel to an arena address, with a clear error if it is unreachable.
pub async fn connect_channel(address: &str) -> Result<Channel, RemoteError> {
    let uri = if address.contains("://") {
        address.to_string()
    } else {
        format!("http://{address}")
    };
    let endpoint = Endpoint::from_shared(uri.clone())
        .map_err(|_| RemoteError::BadAddress(address.to_string()))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true);
    endpoint
        .connect()
        .await
        .map_err(|error| RemoteError::Unreachable {
            address: uri,
            detail: root_cause(&error),
        })
}

/// The innermost error's text ("Connection refused (os error 111)").
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut current = error;
    while let Some(source) = current.source() {
        current = source;
    }
    current.to_string()
}
