//! A bot's stderr, kept for its author but capped: a thread drains the pipe
//! (so a chatty bot never blocks on it) and keeps only the first bytes.

use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

/// The kept part of a bot's stderr.
#[derive(Debug, Clone, Default)]
pub struct StderrLog {
    shared: Arc<Mutex<Kept>>,
}

#[derive(Debug, Default)]
struct Kept {
    bytes: Vec<u8>,
    dropped: u64,
}

impl StderrLog {
    /// Starts draining `fd` into a log that keeps at most `cap` bytes. The
    /// thread ends when every writer of the pipe is gone.
    pub fn drain(fd: OwnedFd, cap: usize) -> StderrLog {
        let log = StderrLog::default();
        let shared = Arc::clone(&log.shared);
        let spawned = std::thread::Builder::new()
            .name("bot-stderr".into())
            .spawn(move || {
                let mut file = File::from(fd);
                let mut chunk = [0u8; 8192];
                while let Ok(n) = file.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    let Ok(mut kept) = shared.lock() else { break };
                    let room = cap.saturating_sub(kept.bytes.len()).min(n);
                    kept.bytes.extend_from_slice(&chunk[..room]);
                    kept.dropped += (n - room) as u64;
                }
            });
        // Without a thread the pipe is simply not drained; the bot then
        // blocks on stderr and times out, which is reported as usual.
        drop(spawned);
        log
    }

    /// The kept text, with a note of how much was cut.
    pub fn text(&self) -> String {
        let Ok(kept) = self.shared.lock() else {
            return String::new();
        };
        let mut text = String::from_utf8_lossy(&kept.bytes).into_owned();
        if kept.dropped > 0 {
            text.push_str(&format!(
                "\n[... {} more bytes of stderr not kept]",
                kept.dropped
            ));
        }
        text
    }
}
