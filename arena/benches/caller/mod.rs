//! The readers' side of the wire: a gRPC caller that speaks HTTP/2 by
//! hand, one call at a time on its own connection.
//!
//! A reader stands for a caller on another machine, yet here it shares
//! the arena's cores. A general client (tonic, or h2 alone) took 45-70 µs
//! of those cores per call, as much as the arena's answer itself, so the
//! load generator, not the arena, decided how the cores were shared. This
//! one does what a call needs and nothing else: its request's header
//! block is encoded once (HPACK literals, no table), and of the answer it
//! keeps the message and skips every header (an answer that is not the
//! message asked for fails the reader's row count).

use std::net::SocketAddr;

use prost::bytes::{Buf, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;

const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;

/// The largest flow-control window HTTP/2 allows.
const MAX_WINDOW: u32 = (1 << 31) - 1;
/// The connection's window is topped up once this much of it is used.
const TOP_UP_AFTER: u32 = 1 << 30;

/// One caller's connection.
pub(crate) struct Caller {
    tcp: TcpStream,
    authority: String,
    next_stream: u32,
    /// Bytes read but not yet taken as frames.
    read: BytesMut,
    /// Answer bytes received since the connection's window was topped up.
    unacknowledged: u32,
    /// The last path called and its request's header block.
    headers: Option<(&'static str, Vec<u8>)>,
}

impl Caller {
    /// Connects and opens HTTP/2: no push, and windows so large that the
    /// arena never waits for this caller to grant more.
    pub(crate) async fn connect(address: SocketAddr) -> Caller {
        let mut tcp = TcpStream::connect(address).await.expect("connect");
        tcp.set_nodelay(true).expect("nodelay");
        let mut opening = PREFACE.to_vec();
        let mut settings = Vec::new();
        for (id, value) in [(0x2_u16, 0_u32), (0x4, MAX_WINDOW)] {
            settings.extend_from_slice(&id.to_be_bytes());
            settings.extend_from_slice(&value.to_be_bytes());
        }
        frame(&mut opening, SETTINGS, 0, 0, &settings);
        frame(
            &mut opening,
            WINDOW_UPDATE,
            0,
            0,
            &(MAX_WINDOW - 65_535).to_be_bytes(),
        );
        tcp.write_all(&opening).await.expect("open HTTP/2");
        Caller {
            tcp,
            authority: address.to_string(),
            next_stream: 1,
            read: BytesMut::with_capacity(64 * 1024),
            unacknowledged: 0,
            headers: None,
        }
    }

    /// One unary call: `asked` to `path`; the answer's message, encoded.
    pub(crate) async fn call<Asked: prost::Message>(
        &mut self,
        path: &'static str,
        asked: &Asked,
    ) -> BytesMut {
        let answer = self.try_call(path, asked).await;
        answer.unwrap_or_else(|| panic!("{path}: no message in the answer"))
    }

    /// [`Caller::call`], `None` when the answer has no message (a refusal).
    pub(crate) async fn try_call<Asked: prost::Message>(
        &mut self,
        path: &'static str,
        asked: &Asked,
    ) -> Option<BytesMut> {
        let stream = self.next_stream;
        self.next_stream += 2;
        if self.headers.as_ref().is_none_or(|(last, _)| *last != path) {
            self.headers = Some((path, self.header_block(path)));
        }
        let headers = self.headers.as_ref().map_or(&[][..], |(_, block)| block);
        let mut request = Vec::with_capacity(256);
        frame(&mut request, HEADERS, END_HEADERS, stream, headers);
        let mut message = vec![0];
        message.extend_from_slice(&(asked.encoded_len() as u32).to_be_bytes());
        asked.encode(&mut message).expect("encode");
        frame(&mut request, DATA, END_STREAM, stream, &message);
        self.tcp.write_all(&request).await.expect("send");
        let mut answer = BytesMut::new();
        loop {
            let (kind, flags, on, mut payload) = self.next_frame().await;
            match kind {
                DATA if on == stream => {
                    self.unacknowledged += payload.len() as u32;
                    if flags & PADDED != 0 {
                        let padding = usize::from(payload.get_u8());
                        payload.truncate(payload.len() - padding);
                    }
                    if answer.is_empty() {
                        answer = payload;
                    } else {
                        answer.extend_from_slice(&payload);
                    }
                    if flags & END_STREAM != 0 {
                        break;
                    }
                }
                HEADERS if on == stream && flags & END_STREAM != 0 => break,
                SETTINGS if flags & ACK == 0 => self.send(SETTINGS, ACK, 0, &[]).await,
                PING if flags & ACK == 0 => self.send(PING, ACK, 0, &payload).await,
                RST_STREAM | GOAWAY => panic!("{path}: the arena ended the call ({kind})"),
                _ => {}
            }
        }
        if self.unacknowledged >= TOP_UP_AFTER {
            let grant = std::mem::take(&mut self.unacknowledged);
            self.send(WINDOW_UPDATE, 0, 0, &grant.to_be_bytes()).await;
        }
        (answer.len() >= 5).then(|| {
            answer.advance(5);
            answer
        })
    }

    /// A request's headers: POST, http, the path, the authority, gRPC's
    /// content type and `te: trailers`.
    fn header_block(&self, path: &str) -> Vec<u8> {
        // :method POST and :scheme http, from the static table.
        let mut block = vec![0x83, 0x86];
        // Literals, not indexed, named from the static table: :path (4),
        // :authority (1), content-type (31, past the 4-bit prefix).
        literal(&mut block, &[0x04], path);
        literal(&mut block, &[0x01], &self.authority);
        literal(&mut block, &[0x0f, 31 - 15], "application/grpc");
        // A literal name: te.
        block.push(0x00);
        string(&mut block, "te");
        string(&mut block, "trailers");
        block
    }

    async fn send(&mut self, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
        let mut bytes = Vec::with_capacity(9 + payload.len());
        frame(&mut bytes, kind, flags, stream, payload);
        self.tcp.write_all(&bytes).await.expect("send");
    }

    /// The next frame: its type, flags, stream and payload.
    async fn next_frame(&mut self) -> (u8, u8, u32, BytesMut) {
        loop {
            if self.read.len() >= 9 {
                let length = u32::from_be_bytes([0, self.read[0], self.read[1], self.read[2]]);
                let length = length as usize;
                if self.read.len() >= 9 + length {
                    let mut head = self.read.split_to(9);
                    let payload = self.read.split_to(length);
                    head.advance(3);
                    let (kind, flags) = (head.get_u8(), head.get_u8());
                    let stream = head.get_u32() & MAX_WINDOW;
                    return (kind, flags, stream, payload);
                }
            }
            self.read.reserve(64 * 1024);
            let n = self.tcp.read_buf(&mut self.read).await.expect("read");
            assert!(n > 0, "the arena closed the connection");
        }
    }
}

/// How many times field `field` occurs at the top level of the encoded
/// message `message`, read without decoding anything else; panics on bytes
/// that are not a message.
pub(crate) fn count_field(mut message: &[u8], field: u64) -> usize {
    let mut count = 0;
    while !message.is_empty() {
        let key = varint(&mut message);
        let skip = match key & 7 {
            0 => {
                varint(&mut message);
                0
            }
            1 => 8,
            2 => varint(&mut message) as usize,
            5 => 4,
            wire => panic!("wire type {wire} in an answer"),
        };
        assert!(skip <= message.len(), "a field past the message's end");
        message = &message[skip..];
        count += usize::from(key >> 3 == field);
    }
    count
}

fn varint(bytes: &mut &[u8]) -> u64 {
    let mut value = 0;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes
            .split_first()
            .expect("a varint past the message's end");
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return value;
        }
    }
    panic!("a varint over 10 bytes")
}

fn frame(into: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    into.extend_from_slice(&(payload.len() as u32).to_be_bytes()[1..]);
    into.extend_from_slice(&[kind, flags]);
    into.extend_from_slice(&stream.to_be_bytes());
    into.extend_from_slice(payload);
}

/// A header field, not indexed, whose name is `name` (an index's bytes).
fn literal(into: &mut Vec<u8>, name: &[u8], value: &str) {
    into.extend_from_slice(name);
    string(into, value);
}

/// An HPACK string, not Huffman-coded (lengths under 127 bytes).
fn string(into: &mut Vec<u8>, text: &str) {
    assert!(text.len() < 127, "a short header value");
    into.push(text.len() as u8);
    into.extend_from_slice(text.as_bytes());
}
