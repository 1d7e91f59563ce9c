//! Who a public call is counted against ([`crate::admission`]): the owner
//! or runner its valid token names, else its peer's address.
//!
//! A token is checked against the store once and the answer kept (a
//! bounded map by the token's hash): a flood of made-up tokens costs one
//! lookup each, and every one of them counts against the caller's address.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};
use tonic::metadata::MetadataMap;

use super::bearer_token;
use crate::admission::Client;
use crate::store::Store;

/// Tokens whose client is remembered; past this all are forgotten.
const MAX_TOKENS: usize = 4096;

/// The clients of the tokens seen (`None`: the token names nobody).
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenClients {
    known: Arc<Mutex<HashMap<[u8; 32], Option<Client>>>>,
}

impl TokenClients {
    /// Who a call with `metadata` from `peer` is counted against.
    pub(crate) async fn client(
        &self,
        store: &Store,
        metadata: &MetadataMap,
        peer: Option<SocketAddr>,
    ) -> Client {
        let by_address = peer.map_or(Client::Unknown, |peer| Client::Peer(peer.ip()));
        let Ok(token) = bearer_token(metadata, "owner") else {
            return by_address;
        };
        let hash: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(known) = self.lock().get(&hash).cloned() {
            return known.unwrap_or(by_address);
        }
        let found = match store.owner_by_token(&token).await {
            Ok(owner) => Some(Client::Owner(owner.id)),
            Err(_) => match store.runner_by_token(&token).await {
                Ok(runner) => Some(Client::Runner(runner.id)),
                Err(_) => None,
            },
        };
        let mut known = self.lock();
        if known.len() >= MAX_TOKENS {
            known.clear();
        }
        known.insert(hash, found.clone());
        found.unwrap_or(by_address)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Option<Client>>> {
        self.known
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}
