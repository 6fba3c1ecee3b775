//! The `:authority` that gRPC clients send over a unix socket, made one
//! the HTTP/2 layer accepts. grpcio (Python, since 1.57), grpc-java,
//! grpcurl and grpc-swift send the socket path (`/run/cuzk.sock`, or
//! %-encoded) as the authority; h2, under tonic, refuses any authority that
//! is not `host[:port]` and resets the stream with PROTOCOL_ERROR
//! (hyperium/h2#487 leaves it so), while grpc-go, Curio's client, sends
//! `localhost`. The daemon reads no authority, so on its unix listeners each
//! connection's bytes from the client pass through [`AuthorityFix`], which
//! decodes every header block, replaces an authority h2 would refuse with
//! `localhost`, and encodes the block again; every other frame passes
//! unchanged. TCP listeners are served as they are.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use fluke_hpack::encoder::encode_integer_into;
use fluke_hpack::Decoder;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The client connection preface (RFC 9113 §3.4).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// The frame payload every HTTP/2 peer accepts (SETTINGS_MAX_FRAME_SIZE's
/// least value): rewritten header blocks are cut to it.
const MAX_PAYLOAD: usize = 16_384;
/// The authority an unacceptable one becomes: what grpc-go sends.
const LOCALHOST: &[u8] = b"localhost";

/// An IO whose reads are the client's HTTP/2 bytes with each unacceptable
/// `:authority` replaced (see the module docs); writes pass through.
pub struct AuthorityFix<S> {
    inner: S,
    rewrite: Rewriter,
    out: Vec<u8>,
    sent: usize,
    eof: bool,
}

impl<S> AuthorityFix<S> {
    /// Wraps one accepted connection.
    pub fn new(inner: S) -> Self {
        AuthorityFix { inner, rewrite: Rewriter::default(), out: Vec::new(), sent: 0, eof: false }
    }
}

/// tonic's connection info is the wrapped connection's.
impl<S: tonic::transport::server::Connected> tonic::transport::server::Connected for AuthorityFix<S> {
    type ConnectInfo = S::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.inner.connect_info()
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for AuthorityFix<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.sent < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.sent);
                buf.put_slice(&this.out[this.sent..this.sent + n]);
                this.sent += n;
                if this.sent == this.out.len() {
                    this.out.clear();
                    this.sent = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                // What never made a whole frame goes on as it came.
                this.eof = true;
                this.out.append(&mut this.rewrite.pending);
            } else {
                this.rewrite.push(read.filled(), &mut this.out)?;
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for AuthorityFix<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A header block being gathered: its HEADERS frame's stream, flags and
/// priority fields, and the fragments so far.
struct Block {
    stream: [u8; 4],
    flags: u8,
    priority: Option<[u8; 5]>,
    fragment: Vec<u8>,
}

/// The client-to-server byte stream's state: the preface, then whole
/// frames; header blocks decoded with the connection's HPACK context.
pub(crate) struct Rewriter {
    pending: Vec<u8>,
    /// Past the preface, or not HTTP/2 with prior knowledge (then every
    /// byte passes unchanged and h2 answers it).
    started: bool,
    passthrough: bool,
    block: Option<Block>,
    decoder: Decoder<'static>,
}

impl Default for Rewriter {
    fn default() -> Self {
        Rewriter { pending: Vec::new(), started: false, passthrough: false, block: None, decoder: Decoder::new() }
    }
}

impl Rewriter {
    /// Takes bytes from the client, appending to `out` what is ready to
    /// pass on. A header block HPACK cannot decode is an InvalidData error:
    /// the connection's compression context is lost with it.
    pub(crate) fn push(&mut self, data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        if self.passthrough {
            out.extend_from_slice(data);
            return Ok(());
        }
        self.pending.extend_from_slice(data);
        if !self.started {
            let seen = self.pending.len().min(PREFACE.len());
            if self.pending[..seen] != PREFACE[..seen] {
                self.passthrough = true;
                out.append(&mut self.pending);
                return Ok(());
            }
            if seen < PREFACE.len() {
                return Ok(());
            }
            out.extend_from_slice(PREFACE);
            self.pending.drain(..PREFACE.len());
            self.started = true;
        }
        // Frames are read in place (a DATA frame carries up to a 272 MiB
        // request through here: no copy of each is made on the way out).
        let pending = std::mem::take(&mut self.pending);
        let mut at = 0;
        let result = loop {
            let Some(head) = pending.get(at..at + 9) else { break Ok(()) };
            let len = (usize::from(head[0]) << 16) | (usize::from(head[1]) << 8) | usize::from(head[2]);
            let Some(frame) = pending.get(at..at + 9 + len) else { break Ok(()) };
            at += 9 + len;
            if let Err(e) = self.frame(frame, out) {
                break Err(e);
            }
        };
        self.pending = pending;
        self.pending.drain(..at);
        result
    }

    fn frame(&mut self, frame: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        let (kind, flags, payload) = (frame[3], frame[4], &frame[9..]);
        let stream: [u8; 4] = [frame[5], frame[6], frame[7], frame[8]];
        if let Some(block) = &mut self.block {
            if kind != CONTINUATION || block.stream != stream {
                return Err(invalid("a header block interrupted before END_HEADERS"));
            }
            block.fragment.extend_from_slice(payload);
            if flags & END_HEADERS != 0 {
                let block = self.block.take().expect("a block is open");
                self.finish(block, out)?;
            }
            return Ok(());
        }
        if kind != HEADERS {
            out.extend_from_slice(frame);
            return Ok(());
        }
        let pad = if flags & PADDED != 0 { usize::from(*payload.first().ok_or_else(|| invalid("empty padded HEADERS"))?) } else { 0 };
        let mut start = usize::from(flags & PADDED != 0);
        let priority = if flags & PRIORITY != 0 {
            let p: [u8; 5] = payload.get(start..start + 5).and_then(|p| p.try_into().ok()).ok_or_else(|| invalid("short HEADERS priority"))?;
            start += 5;
            Some(p)
        } else {
            None
        };
        let end = payload.len().checked_sub(pad).filter(|&e| e >= start).ok_or_else(|| invalid("HEADERS padding past its payload"))?;
        let block = Block { stream, flags, priority, fragment: payload[start..end].to_vec() };
        if flags & END_HEADERS != 0 {
            self.finish(block, out)
        } else {
            self.block = Some(block);
            Ok(())
        }
    }

    /// Decodes a whole block, fixes its authority and writes it out again
    /// as HEADERS and CONTINUATION frames.
    fn finish(&mut self, block: Block, out: &mut Vec<u8>) -> io::Result<()> {
        let headers = self.decoder.decode(&block.fragment).map_err(|e| invalid(&format!("HPACK: {e:?}")))?;
        let mut encoded = Vec::with_capacity(block.fragment.len() + 64);
        for (name, value) in &headers {
            let value: &[u8] = if name == b":authority" && !acceptable(value) { LOCALHOST } else { value };
            literal(name, value, &mut encoded);
        }
        let mut flags = block.flags & (END_STREAM | PRIORITY);
        let mut first = Vec::new();
        if let Some(p) = block.priority {
            first.extend_from_slice(&p);
        }
        let room = MAX_PAYLOAD - first.len();
        let (head, mut rest) = encoded.split_at(encoded.len().min(room));
        first.extend_from_slice(head);
        if rest.is_empty() {
            flags |= END_HEADERS;
        }
        write_frame(out, HEADERS, flags, block.stream, &first);
        while !rest.is_empty() {
            let (part, tail) = rest.split_at(rest.len().min(MAX_PAYLOAD));
            write_frame(out, CONTINUATION, if tail.is_empty() { END_HEADERS } else { 0 }, block.stream, part);
            rest = tail;
        }
        Ok(())
    }
}

/// Whether h2 accepts `value` as an authority (the `http` crate's parser,
/// which it uses).
fn acceptable(value: &[u8]) -> bool {
    ::http::uri::Authority::try_from(value).is_ok()
}

/// One header as an HPACK literal without indexing, new name, no Huffman
/// (RFC 7541 §6.2.2): the server's dynamic table is never used, so its
/// state cannot drift from the client's.
fn literal(name: &[u8], value: &[u8], out: &mut Vec<u8>) {
    out.push(0);
    for bytes in [name, value] {
        // A 7-bit length prefix, the Huffman bit clear; a Vec takes every write.
        encode_integer_into(bytes.len(), 7, 0, out).expect("writing into a Vec");
        out.extend_from_slice(bytes);
    }
}

fn write_frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: [u8; 4], payload: &[u8]) {
    let len = payload.len();
    out.extend_from_slice(&[(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags]);
    out.extend_from_slice(&stream);
    out.extend_from_slice(payload);
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("HTTP/2 from the client: {what}"))
}

#[cfg(test)]
#[path = "authority_tests.rs"]
mod tests;
