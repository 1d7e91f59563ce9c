//! A bot's stderr, kept for its author but capped: a thread drains the pipe
//! (so a chatty bot never blocks on it) and keeps the first bytes of the
//! whole match, and the last bytes written since the previous game ended
//! (the tail each game's report carries, see [`StderrLog::take_tail`]).
//!
//! A drain thread that saw its pipe end waits for the next pipe instead of
//! exiting: a bot starts every game, and a new thread per start (its stack,
//! guard page and signal stack) cost about 2% of a trivial game's CPU.
//! Parallel pipes never queue: there are as many threads as pipes ever
//! drained at once.

use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub use cairn_proto::STDERR_TAIL_CAP;

/// The kept part of a bot's stderr.
#[derive(Debug, Clone, Default)]
pub struct StderrLog {
    shared: Arc<(Mutex<Kept>, Condvar)>,
}

#[derive(Debug, Default)]
struct Kept {
    bytes: Vec<u8>,
    dropped: u64,
    /// The last [`STDERR_TAIL_CAP`] bytes since the last [`StderrLog::take_tail`].
    tail: Vec<u8>,
    /// Whether the pipe has ended (every writer gone).
    ended: bool,
}

impl Kept {
    fn keep(&mut self, chunk: &[u8], cap: usize) {
        let room = cap.saturating_sub(self.bytes.len()).min(chunk.len());
        self.bytes.extend_from_slice(&chunk[..room]);
        self.dropped += (chunk.len() - room) as u64;
        let chunk = &chunk[chunk.len().saturating_sub(STDERR_TAIL_CAP)..];
        let excess = (self.tail.len() + chunk.len()).saturating_sub(STDERR_TAIL_CAP);
        self.tail.drain(..excess);
        self.tail.extend_from_slice(chunk);
    }
}

/// Drain threads waiting for a pipe.
static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

/// One pipe to drain into its log.
struct Job {
    fd: OwnedFd,
    cap: usize,
    shared: Arc<(Mutex<Kept>, Condvar)>,
}

impl Job {
    fn run(self) {
        let (kept, ended) = &*self.shared;
        let mut file = File::from(self.fd);
        let mut chunk = [0u8; 8192];
        while let Ok(n) = file.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let Ok(mut kept) = kept.lock() else { break };
            kept.keep(&chunk[..n], self.cap);
        }
        // The pipe is closed before the log says it ended.
        drop(file);
        if let Ok(mut kept) = kept.lock() {
            kept.ended = true;
        }
        ended.notify_all();
    }
}

impl StderrLog {
    /// Starts draining `fd` into a log that keeps at most `cap` bytes, on an
    /// idle drain thread or a new one; its job ends when every writer of the
    /// pipe is gone.
    pub fn drain(fd: OwnedFd, cap: usize) -> StderrLog {
        let log = StderrLog::default();
        let mut job = Job {
            fd,
            cap,
            shared: Arc::clone(&log.shared),
        };
        loop {
            let idle = IDLE.lock().ok().and_then(|mut idle| idle.pop());
            match idle {
                // A thread that is gone hands the job back: try the next.
                Some(drainer) => match drainer.send(job) {
                    Ok(()) => return log,
                    Err(returned) => job = returned.0,
                },
                None => break,
            }
        }
        let (sender, jobs) = channel::<Job>();
        let spawned = std::thread::Builder::new()
            .name("bot-stderr".into())
            .spawn(move || {
                let mut job = job;
                loop {
                    job.run();
                    if let Ok(mut idle) = IDLE.lock() {
                        idle.push(sender.clone());
                    }
                    match jobs.recv() {
                        Ok(next) => job = next,
                        Err(_) => break,
                    }
                }
            });
        // Without a thread the pipe is simply not drained; the bot then
        // blocks on stderr and times out, which is reported as usual.
        drop(spawned);
        log
    }

    /// The last bytes written since the previous call (at most
    /// [`STDERR_TAIL_CAP`]), after waiting up to `wait` for the pipe to end
    /// (a killed bot's last words may still be in the pipe).
    pub fn take_tail(&self, wait: Duration) -> Vec<u8> {
        let (kept, ended) = &*self.shared;
        let Ok(mut guard) = kept.lock() else {
            return Vec::new();
        };
        let deadline = Instant::now() + wait;
        while !guard.ended {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match ended.wait_timeout(guard, left) {
                Ok((next, _)) => guard = next,
                Err(_) => return Vec::new(),
            }
        }
        std::mem::take(&mut guard.tail)
    }

    /// The kept text once the pipe has ended, or after `wait` at most (an
    /// exited bot's last words may still be in the pipe).
    pub fn text_after_end(&self, wait: Duration) -> String {
        let (kept, ended) = &*self.shared;
        if let Ok(guard) = kept.lock() {
            let _ = ended.wait_timeout_while(guard, wait, |kept| !kept.ended);
        }
        self.text()
    }

    /// The kept text, with a note of how much was cut.
    pub fn text(&self) -> String {
        self.kept().to_string()
    }

    /// The kept text and how many bytes were cut.
    pub fn kept(&self) -> KeptStderr {
        let Ok(kept) = self.shared.0.lock() else {
            return KeptStderr::default();
        };
        KeptStderr {
            text: String::from_utf8_lossy(&kept.bytes).into_owned(),
            dropped: kept.dropped,
        }
    }
}

/// What was kept of a bot's stderr: the first bytes, and how many more
/// there were. Shown with a note of the cut, so that joining several never
/// counts one note's own bytes as cut stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeptStderr {
    pub text: String,
    pub dropped: u64,
}

impl KeptStderr {
    /// `parts` one after another (each non-empty one on a line of its
    /// own after `separator`), the first `cap` bytes of their texts kept,
    /// cut on a character; every byte not kept is counted.
    pub fn joined<'a>(
        parts: impl IntoIterator<Item = &'a KeptStderr>,
        separator: &str,
        cap: usize,
    ) -> KeptStderr {
        let mut joined = KeptStderr::default();
        for part in parts {
            joined.dropped += part.dropped;
            if part.text.is_empty() {
                continue;
            }
            let text = match joined.text.is_empty() {
                true => part.text.clone(),
                false => format!("{separator}{}", part.text),
            };
            let room = cap.saturating_sub(joined.text.len());
            let mut end = room.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            joined.text.push_str(&text[..end]);
            joined.dropped += (text.len() - end) as u64;
        }
        joined
    }
}

impl std::fmt::Display for KeptStderr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)?;
        if self.dropped > 0 {
            write!(f, "\n[... {} more bytes of stderr not kept]", self.dropped)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_bytes_and_starts_afresh_after_each_take() {
        let mut kept = Kept::default();
        kept.keep(&vec![b'a'; STDERR_TAIL_CAP], 16);
        kept.keep(b"the end", 16);
        assert_eq!(kept.tail.len(), STDERR_TAIL_CAP);
        assert!(kept.tail.ends_with(b"aaathe end"));
        assert_eq!(kept.bytes, vec![b'a'; 16]);
        kept.tail.clear();
        kept.keep(&vec![b'b'; 3 * STDERR_TAIL_CAP], 16);
        assert_eq!(kept.tail, vec![b'b'; STDERR_TAIL_CAP]);
    }

    #[test]
    fn joined_stderr_counts_every_byte_cut_and_only_those() {
        let parts = [
            KeptStderr {
                text: "abc".into(),
                dropped: 1_000_000,
            },
            KeptStderr::default(),
            KeptStderr {
                text: "é and more".into(),
                dropped: 7,
            },
        ];
        // 4 bytes: "abc" and the separator's first byte.
        let joined = KeptStderr::joined(&parts, "\n", 4);
        assert_eq!(joined.text, "abc\n");
        assert_eq!(joined.dropped, 1_000_000 + 7 + "é and more".len() as u64);
        assert_eq!(
            joined.to_string(),
            "abc\n\n[... 1000018 more bytes of stderr not kept]"
        );
        let whole = KeptStderr::joined(&parts, "\n", 1 << 16);
        assert_eq!(whole.text, "abc\né and more");
        // A character is never cut in two.
        let cut = KeptStderr::joined(&parts[2..], "", 1);
        assert_eq!((cut.text.as_str(), cut.dropped), ("", 7 + 11));
    }

    #[test]
    fn a_tail_is_taken_whole_once_the_writer_is_gone() {
        let (read, write) = std::io::pipe().unwrap();
        let log = StderrLog::drain(OwnedFd::from(read), 1024);
        let mut write = File::from(OwnedFd::from(write));
        std::io::Write::write_all(&mut write, b"Traceback: boom\n").unwrap();
        drop(write);
        assert_eq!(log.take_tail(Duration::from_secs(30)), b"Traceback: boom\n");
        assert!(log.take_tail(Duration::ZERO).is_empty());
    }

    /// Pipes drained at once, then more pipes on the threads they left
    /// idle: each log holds its own pipe's bytes, whole.
    #[test]
    fn idle_drain_threads_take_the_next_pipes_and_keep_them_apart() {
        for round in 0..3 {
            let pipes: Vec<_> = (0..4)
                .map(|_| {
                    let (read, write) = std::io::pipe().unwrap();
                    let log = StderrLog::drain(OwnedFd::from(read), 1024);
                    (log, File::from(OwnedFd::from(write)))
                })
                .collect();
            for (index, (log, mut write)) in pipes.into_iter().enumerate() {
                let line = format!("round {round} pipe {index}\n");
                std::io::Write::write_all(&mut write, line.as_bytes()).unwrap();
                drop(write);
                assert_eq!(log.text_after_end(Duration::from_secs(30)), line);
            }
        }
    }
}
