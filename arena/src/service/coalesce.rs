//! The public port's connections send an answer's message and its trailers
//! in one write.
//!
//! h2 sends a DATA frame of 256 bytes or more from the caller's own buffer
//! rather than copying it, so it flushes that frame before it writes the
//! next one: every gRPC answer with a message that long went out in two
//! writes, headers and message first, then the trailers (`grpc-status`),
//! each a TCP segment the caller woke up for. [`Coalesced`] keeps what h2
//! writes, and when h2 flushes right after a DATA frame that leaves its
//! stream open, it holds the bytes until the next flush: in the same turn
//! of the connection's task once h2 has written the trailers, or at the
//! latest in the next turn, which it asks for at once. Every other flush
//! goes out as it comes: each answer is one write and one wake-up of its
//! reader (figures in docs/performance.md, "Coalesced answers").
//!
//! Which frame came last is read from the bytes h2 writes (HTTP/2 frame
//! headers: a 24-bit length, a type, flags). Bytes that are not HTTP/2 only
//! make a flush wait one turn, or not at all; nothing written is ever lost
//! or reordered.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use prost::bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Past this many bytes held, a write first sends what is held.
const MAX_HELD_BYTES: usize = 64 * 1024;

/// HTTP/2's frame header: length (3 bytes), type, flags, stream id (4).
const FRAME_HEADER_BYTES: usize = 9;
const DATA_FRAME: u8 = 0x0;
const END_STREAM: u8 = 0x1;

/// A connection whose writes are held until a flush that ends a response.
#[derive(Debug)]
pub(crate) struct Coalesced<T> {
    io: T,
    held: BytesMut,
    frames: Frames,
    /// A flush was held; the next one sends whatever is held.
    holding: bool,
    /// Holds nothing: every write goes straight through
    /// (`ServeOptions::plain_reads`).
    plain: bool,
}

impl<T> Coalesced<T> {
    pub(crate) fn new(io: T, plain: bool) -> Coalesced<T> {
        Coalesced {
            io,
            held: BytesMut::new(),
            frames: Frames::default(),
            holding: false,
            plain,
        }
    }
}

impl<T: AsyncWrite + Unpin> Coalesced<T> {
    /// Sends everything held.
    fn poll_send_held(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.held.is_empty() {
            let sent = ready!(Pin::new(&mut self.io).poll_write(context, &self.held))?;
            if sent == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.held.advance(sent);
        }
        self.holding = false;
        Poll::Ready(Ok(()))
    }
}

impl Connected for Coalesced<TcpStream> {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.io.connect_info()
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Coalesced<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(context, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Coalesced<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored(context, &[io::IoSlice::new(bytes)])
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        slices: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.plain {
            return Pin::new(&mut self.io).poll_write_vectored(context, slices);
        }
        let incoming = slices.iter().map(|slice| slice.len()).sum();
        if self.held.len() + incoming > MAX_HELD_BYTES {
            ready!(self.poll_send_held(context))?;
        }
        for slice in slices {
            self.frames.saw(slice);
            self.held.extend_from_slice(slice);
        }
        Poll::Ready(Ok(incoming))
    }

    fn is_write_vectored(&self) -> bool {
        !self.plain || self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.held.is_empty() && !self.holding && self.frames.after_open_data() {
            // The trailers come next: in this turn, or the one asked for.
            self.holding = true;
            context.waker().wake_by_ref();
            return Poll::Ready(Ok(()));
        }
        ready!(self.poll_send_held(context))?;
        Pin::new(&mut self.io).poll_flush(context)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_send_held(context))?;
        Pin::new(&mut self.io).poll_shutdown(context)
    }
}

/// Where the bytes written so far stand in HTTP/2's frames.
#[derive(Debug, Default)]
struct Frames {
    /// The next frame header's bytes seen so far.
    header: [u8; FRAME_HEADER_BYTES],
    header_bytes: usize,
    /// The current frame's payload bytes still to come.
    payload_left: usize,
    /// Whether the last whole frame was DATA without END_STREAM.
    open_data: bool,
}

impl Frames {
    fn saw(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.payload_left > 0 {
                let skipped = self.payload_left.min(bytes.len());
                self.payload_left -= skipped;
                bytes = &bytes[skipped..];
                continue;
            }
            let taken = (FRAME_HEADER_BYTES - self.header_bytes).min(bytes.len());
            self.header[self.header_bytes..self.header_bytes + taken]
                .copy_from_slice(&bytes[..taken]);
            self.header_bytes += taken;
            bytes = &bytes[taken..];
            if self.header_bytes == FRAME_HEADER_BYTES {
                let [a, b, c, kind, flags, ..] = self.header;
                self.payload_left = usize::from(a) << 16 | usize::from(b) << 8 | usize::from(c);
                self.open_data = kind == DATA_FRAME && flags & END_STREAM == 0;
                self.header_bytes = 0;
            }
        }
    }

    /// Whether everything seen ends with a whole DATA frame that leaves its
    /// stream open.
    fn after_open_data(&self) -> bool {
        self.open_data && self.payload_left == 0 && self.header_bytes == 0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::{Wake, Waker};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    fn frame(kind: u8, flags: u8, payload: usize) -> Vec<u8> {
        let mut frame = vec![
            (payload >> 16) as u8,
            (payload >> 8) as u8,
            payload as u8,
            kind,
            flags,
            0,
            0,
            0,
            1,
        ];
        frame.resize(FRAME_HEADER_BYTES + payload, 7);
        frame
    }

    const HEADERS: u8 = 0x1;

    /// Counts its wakes.
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Flushes once by hand; whether it was ready, and the wakes it asked for.
    fn flush_once<T: AsyncWrite + Unpin>(connection: &mut Coalesced<T>) -> (bool, usize) {
        let wakes = Arc::new(Wakes(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&wakes));
        let mut context = Context::from_waker(&waker);
        let ready = Pin::new(connection).poll_flush(&mut context).is_ready();
        (ready, wakes.0.load(Ordering::SeqCst))
    }

    /// What the other end has received so far.
    async fn received(other: &mut tokio::io::DuplexStream) -> Vec<u8> {
        let mut bytes = vec![0; 1 << 16];
        tokio::select! {
            biased;
            read = other.read(&mut bytes) => {
                bytes.truncate(read.expect("read"));
                bytes
            }
            () = std::future::ready(()) => Vec::new(),
        }
    }

    #[tokio::test]
    async fn an_answer_and_its_trailers_leave_in_one_write() {
        let (ours, mut theirs) = tokio::io::duplex(1 << 20);
        let mut connection = Coalesced::new(ours, false);
        let headers = frame(HEADERS, 0x4, 5);
        let message = frame(DATA_FRAME, 0, 4000);
        let trailers = frame(HEADERS, 0x5, 1);
        connection.write_all(&headers).await.expect("write");
        connection.write_all(&message).await.expect("write");
        assert_eq!(flush_once(&mut connection), (true, 1), "held, turn asked");
        assert!(received(&mut theirs).await.is_empty());
        connection.write_all(&trailers).await.expect("write");
        assert_eq!(flush_once(&mut connection), (true, 0));
        let expected = [headers, message, trailers].concat();
        assert_eq!(received(&mut theirs).await, expected);
    }

    #[tokio::test]
    async fn a_plain_connection_holds_nothing() {
        let (ours, mut theirs) = tokio::io::duplex(1 << 20);
        let mut connection = Coalesced::new(ours, true);
        let headers = frame(HEADERS, 0x4, 5);
        let message = frame(DATA_FRAME, 0, 4000);
        connection.write_all(&headers).await.expect("write");
        connection.write_all(&message).await.expect("write");
        assert_eq!(received(&mut theirs).await, [headers, message].concat());
        assert_eq!(flush_once(&mut connection), (true, 0), "nothing held");
    }

    #[tokio::test]
    async fn a_held_flush_goes_out_at_the_next_one_whatever_came_last() {
        let (ours, mut theirs) = tokio::io::duplex(1 << 20);
        let mut connection = Coalesced::new(ours, false);
        let message = frame(DATA_FRAME, 0, 300);
        connection.write_all(&message).await.expect("write");
        assert_eq!(flush_once(&mut connection), (true, 1));
        assert_eq!(flush_once(&mut connection), (true, 0));
        assert_eq!(received(&mut theirs).await, message);
        // And the next open DATA frame is held again, once.
        connection.write_all(&message).await.expect("write");
        assert_eq!(flush_once(&mut connection), (true, 1));
        connection.shutdown().await.expect("shutdown");
        assert_eq!(received(&mut theirs).await, message);
    }

    #[tokio::test]
    async fn other_flushes_go_out_at_once_frames_split_or_not() {
        let (ours, mut theirs) = tokio::io::duplex(1 << 20);
        let mut connection = Coalesced::new(ours, false);
        let last = frame(DATA_FRAME, END_STREAM, 600);
        let settings = frame(0x4, 0, 6);
        let stream = [settings, last].concat();
        // Split inside a frame header and inside a payload.
        for piece in [&stream[..4], &stream[4..20], &stream[20..]] {
            connection.write_all(piece).await.expect("write");
        }
        assert_eq!(flush_once(&mut connection), (true, 0));
        assert_eq!(received(&mut theirs).await, stream);
        // Half a frame: not a frame boundary, so nothing is held.
        let half = &frame(DATA_FRAME, 0, 600)[..300];
        connection.write_all(half).await.expect("write");
        assert_eq!(flush_once(&mut connection), (true, 0));
        assert_eq!(received(&mut theirs).await, half);
    }

    #[tokio::test]
    async fn bytes_that_are_not_http2_are_sent_in_order() {
        let (ours, mut theirs) = tokio::io::duplex(1 << 20);
        let mut connection = Coalesced::new(ours, false);
        let mut sent = Vec::new();
        for round in 0..50u32 {
            let bytes: Vec<u8> = (0..(round * 37 % 1000))
                .map(|i| (i * round) as u8)
                .collect();
            connection.write_all(&bytes).await.expect("write");
            connection.flush().await.expect("flush");
            sent.extend(bytes);
        }
        connection.shutdown().await.expect("shutdown");
        let mut got = Vec::new();
        theirs.read_to_end(&mut got).await.expect("read");
        assert_eq!(got, sent);
    }
}
