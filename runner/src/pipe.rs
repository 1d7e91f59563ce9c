//! Line I/O on a bot's pipes with deadlines and a line-length cap, driven
//! from the match loop's own thread (non-blocking descriptors and poll(2)):
//! no helper threads on the hot path, a bot that stops reading cannot block
//! the referee, and a bot that prints a 100 MiB line costs us at most the cap.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::time::{Duration, Instant};

/// What went wrong on a pipe.
#[derive(Debug, thiserror::Error)]
pub enum PipeError {
    #[error("the pipe is closed")]
    Closed,
    #[error("a line longer than {0} bytes")]
    LineTooLong(usize),
    #[error("the deadline passed")]
    TimedOut,
    #[error("pipe i/o failed: {0}")]
    Io(#[from] std::io::Error),
}

fn set_nonblocking(fd: &OwnedFd) -> std::io::Result<()> {
    let flags = OFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(())
}

/// Waits up to `wait` for `events` on `fd`; true when it is ready (or
/// hung up / in error, which the next read or write reports).
fn poll_ready(fd: &File, events: PollFlags, wait: Duration) -> std::io::Result<bool> {
    // Round up so a short wait never spins; zero polls without waiting.
    let millis = wait.as_micros().div_ceil(1000);
    let timeout = PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX);
    let mut entries = [PollFd::new(fd.as_fd(), events)];
    match poll(&mut entries, timeout) {
        Ok(n) => Ok(n > 0),
        Err(Errno::EINTR) => Ok(false),
        Err(error) => Err(error.into()),
    }
}

/// Waits up to `wait` until any of `fds` is readable (or hung up), so one
/// thread can wait on several bots at once without favouring any of them.
pub fn wait_any_readable(fds: &[BorrowedFd<'_>], wait: Duration) -> std::io::Result<()> {
    let mut entries: Vec<PollFd<'_>> = fds
        .iter()
        .map(|fd| PollFd::new(*fd, PollFlags::POLLIN))
        .collect();
    let millis = wait.as_micros().div_ceil(1000);
    let timeout = PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX);
    match poll(&mut entries, timeout) {
        Ok(_) | Err(Errno::EINTR) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Reads newline-terminated lines, never holding more than `max_line` bytes
/// of an unfinished line.
#[derive(Debug)]
pub struct LineReader {
    file: File,
    buffer: Vec<u8>,
    /// Where `read` lands, allocated once: a fresh zeroed array per read
    /// would clear (and evict from the cache) 16 KiB for a 50-byte answer.
    chunk: Box<[u8]>,
    /// Bytes of `buffer` already searched for a newline.
    scanned: usize,
    max_line: usize,
}

impl LineReader {
    pub fn new(fd: OwnedFd, max_line: usize) -> std::io::Result<LineReader> {
        set_nonblocking(&fd)?;
        Ok(LineReader {
            file: File::from(fd),
            buffer: Vec::with_capacity(4096),
            chunk: vec![0; 16 * 1024].into_boxed_slice(),
            scanned: 0,
            max_line,
        })
    }

    /// The next line (without its newline), waiting at most `wait`;
    /// `Ok(None)` when `wait` passed first.
    pub fn read_line(&mut self, wait: Duration) -> Result<Option<Vec<u8>>, PipeError> {
        let deadline = Instant::now() + wait;
        // Reading first: a bot shares its match's CPU (see `placement`), so
        // the write that woke it usually let it run to its answer already,
        // and a poll first would be a system call that only says "ready".
        let mut ready = true;
        loop {
            if let Some(line) = self.take_buffered_line() {
                return Ok(Some(line));
            }
            if self.buffer.len() > self.max_line {
                return Err(PipeError::LineTooLong(self.max_line));
            }
            if !ready {
                let left = deadline.saturating_duration_since(Instant::now());
                ready = poll_ready(&self.file, PollFlags::POLLIN, left)?;
            }
            if self.fill()? {
                continue;
            }
            ready = false;
            if Instant::now() >= deadline {
                return Ok(None);
            }
        }
    }

    /// The descriptor to poll for the next line.
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }

    fn take_buffered_line(&mut self) -> Option<Vec<u8>> {
        let found = self.buffer[self.scanned..].iter().position(|&b| b == b'\n');
        match found {
            Some(offset) => {
                let end = self.scanned + offset;
                let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
                line.pop();
                self.scanned = 0;
                Some(line)
            }
            None => {
                self.scanned = self.buffer.len();
                None
            }
        }
    }

    /// Reads what is available; false when nothing was.
    fn fill(&mut self) -> Result<bool, PipeError> {
        // Never read past the cap by more than one chunk.
        let room = (self.max_line + 1)
            .saturating_sub(self.buffer.len())
            .clamp(1, self.chunk.len());
        match self.file.read(&mut self.chunk[..room]) {
            Ok(0) => Err(PipeError::Closed),
            Ok(n) => {
                self.buffer.extend_from_slice(&self.chunk[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
                Ok(false)
            }
            Err(e) => Err(PipeError::Io(e)),
        }
    }
}

/// Writes whole lines, giving up at a deadline if the reader stops reading.
#[derive(Debug)]
pub struct LineWriter {
    file: File,
}

impl LineWriter {
    pub fn new(fd: OwnedFd) -> std::io::Result<LineWriter> {
        set_nonblocking(&fd)?;
        Ok(LineWriter {
            file: File::from(fd),
        })
    }

    pub fn write_all(&mut self, mut bytes: &[u8], wait: Duration) -> Result<(), PipeError> {
        let deadline = Instant::now() + wait;
        while !bytes.is_empty() {
            match self.file.write(bytes) {
                Ok(0) => return Err(PipeError::Closed),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == ErrorKind::BrokenPipe => return Err(PipeError::Closed),
                Err(e)
                    if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted =>
                {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(PipeError::TimedOut);
                    }
                    poll_ready(&self.file, PollFlags::POLLOUT, left)?;
                }
                Err(e) => return Err(PipeError::Io(e)),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipe() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe2(OFlag::O_CLOEXEC).unwrap()
    }

    #[test]
    fn lines_split_across_writes_are_joined_and_split_at_newlines() {
        let (r, w) = pipe();
        let mut reader = LineReader::new(r, 100).unwrap();
        let mut writer = LineWriter::new(w).unwrap();
        writer
            .write_all(b"{\"a\":", Duration::from_secs(1))
            .unwrap();
        assert_eq!(reader.read_line(Duration::ZERO).unwrap(), None);
        writer
            .write_all(b"1}\nsecond\nthi", Duration::from_secs(1))
            .unwrap();
        assert_eq!(
            reader.read_line(Duration::from_secs(1)).unwrap().unwrap(),
            b"{\"a\":1}"
        );
        assert_eq!(
            reader.read_line(Duration::from_secs(1)).unwrap().unwrap(),
            b"second"
        );
        assert_eq!(reader.read_line(Duration::from_millis(1)).unwrap(), None);
        drop(writer);
        assert!(matches!(
            reader.read_line(Duration::from_secs(1)),
            Err(PipeError::Closed)
        ));
    }

    #[test]
    fn an_endless_line_stops_at_the_cap_without_growing_the_buffer() {
        let (r, w) = pipe();
        let mut reader = LineReader::new(r, 1000).unwrap();
        let mut writer = LineWriter::new(w).unwrap();
        let mut outcome = Ok(None);
        for _ in 0..10 {
            writer
                .write_all(&[b'x'; 600], Duration::from_secs(1))
                .unwrap();
            outcome = reader.read_line(Duration::ZERO);
            if outcome.is_err() {
                break;
            }
        }
        assert!(
            matches!(outcome, Err(PipeError::LineTooLong(1000))),
            "{outcome:?}"
        );
        assert!(reader.buffer.len() <= 1001);
    }

    #[test]
    fn a_writer_to_a_reader_that_never_reads_times_out() {
        let (_r, w) = pipe();
        let mut writer = LineWriter::new(w).unwrap();
        let big = vec![b'x'; 1 << 20];
        assert!(matches!(
            writer.write_all(&big, Duration::from_millis(50)),
            Err(PipeError::TimedOut)
        ));
    }
}
