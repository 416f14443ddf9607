//! Two executions joined by their standard streams: each one's stdout is the other's
//! stdin. The `code` environment's assert harness uses it to keep the program and the
//! tests in separate interpreters that exchange plain data only.
//!
//! Both directions are in-memory buffers under one lock, so the host sees the whole
//! state of the link and can end a deadlock deterministically: when one side blocks on
//! a read while the other is already blocked on a read with nothing left for it, the
//! *peer's* read ends as end-of-file (a program that reads stdin out of turn sees an
//! empty stdin). A side's writes never block (each direction is capped at its writer's
//! stdout limit), so no other wait can form. When an execution ends, its direction is
//! closed and the other side's reads reach end-of-file.

use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use wasmtime_wasi::cli::{IsTerminal, StdinStream, StdoutStream};
use wasmtime_wasi::p2::{InputStream, OutputStream, Pollable, StreamError, StreamResult};

/// One end of a link: the driver (trusted, it decides when the conversation ends) or
/// the peer (whose out-of-turn reads are the ones ended on a deadlock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Driver,
    Peer,
}

impl Side {
    fn index(self) -> usize {
        match self {
            Side::Driver => 0,
            Side::Peer => 1,
        }
    }

    fn other(self) -> Side {
        match self {
            Side::Driver => Side::Peer,
            Side::Peer => Side::Driver,
        }
    }
}

#[derive(Default)]
struct State {
    /// Bytes written for side `i` to read, and how far side `i` has read them.
    pending: [Vec<u8>; 2],
    read_at: [usize; 2],
    /// The other side of `i` will write no more (its execution ended).
    closed_for: [bool; 2],
    /// Side `i` is blocked in a read.
    waiting: [bool; 2],
    /// Side `i`'s blocked read must end as end-of-file (deadlock broken).
    starved: [bool; 2],
}

impl State {
    fn unread(&self, side: Side) -> usize {
        let i = side.index();
        self.pending[i].len() - self.read_at[i]
    }

    fn take(&mut self, side: Side, max: usize) -> Bytes {
        let i = side.index();
        let n = self.unread(side).min(max);
        let out = Bytes::copy_from_slice(&self.pending[i][self.read_at[i]..self.read_at[i] + n]);
        self.read_at[i] += n;
        if self.read_at[i] == self.pending[i].len() {
            self.pending[i].clear();
            self.read_at[i] = 0;
        }
        out
    }
}

/// The shared state of one link.
#[derive(Clone, Default)]
pub struct Link {
    inner: Arc<(Mutex<State>, Condvar)>,
}

/// What a blocking read ends with.
enum ReadOutcome {
    Data(Bytes),
    EndOfFile,
}

impl Link {
    /// A link whose driver first reads `driver_input`, and its peer `peer_input`, before
    /// what the other side writes. (Set here, before either side starts, so that no
    /// early write can be lost.)
    pub fn new(driver_input: Vec<u8>, peer_input: Vec<u8>) -> Self {
        let link = Self::default();
        link.lock().pending = [driver_input, peer_input];
        link
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a guest thread panicked; the buffers are still whole.
        self.inner.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `side` stops writing: the other side's reads reach end-of-file once drained.
    pub fn close(&self, side: Side) {
        self.lock().closed_for[side.other().index()] = true;
        self.inner.1.notify_all();
    }

    /// The stream `side` reads as stdin.
    pub fn reader(&self, side: Side) -> LinkReader {
        LinkReader {
            link: self.clone(),
            side,
        }
    }

    /// The stream `side` writes as stdout, holding at most `capacity` unread bytes.
    pub fn writer(&self, side: Side, capacity: usize) -> LinkWriter {
        LinkWriter {
            link: self.clone(),
            side,
            capacity,
        }
    }

    fn read_blocking(&self, side: Side, max: usize) -> ReadOutcome {
        let (i, o) = (side.index(), side.other().index());
        let mut state = self.lock();
        loop {
            if state.unread(side) > 0 {
                return ReadOutcome::Data(state.take(side, max));
            }
            if state.closed_for[i] || std::mem::take(&mut state.starved[i]) {
                return ReadOutcome::EndOfFile;
            }
            // The other side waits too, with nothing left to read: nobody would write.
            if state.waiting[o] && !state.starved[o] && state.unread(side.other()) == 0 {
                match side {
                    Side::Peer => return ReadOutcome::EndOfFile,
                    Side::Driver => {
                        state.starved[o] = true;
                        self.inner.1.notify_all();
                    }
                }
            }
            state.waiting[i] = true;
            state = self.inner.1.wait(state).unwrap_or_else(|e| e.into_inner());
            state.waiting[i] = false;
        }
    }

    fn read_now(&self, side: Side, max: usize) -> StreamResult<Bytes> {
        let mut state = self.lock();
        if state.unread(side) == 0 && state.closed_for[side.index()] {
            return Err(StreamError::Closed);
        }
        Ok(state.take(side, max))
    }

    fn write(&self, side: Side, bytes: &[u8], capacity: usize) -> StreamResult<()> {
        let target = side.other();
        let mut state = self.lock();
        if state.unread(target) + bytes.len() > capacity {
            // The wording `classify` maps to an output-limit status.
            return Err(StreamError::Trap(wasmtime::format_err!(
                "write beyond capacity of the link"
            )));
        }
        state.pending[target.index()].extend_from_slice(bytes);
        drop(state);
        self.inner.1.notify_all();
        Ok(())
    }
}

/// A side's stdin.
pub struct LinkReader {
    link: Link,
    side: Side,
}

/// A side's stdout.
pub struct LinkWriter {
    link: Link,
    side: Side,
    capacity: usize,
}

impl Clone for LinkReader {
    fn clone(&self) -> Self {
        Self {
            link: self.link.clone(),
            side: self.side,
        }
    }
}

impl Clone for LinkWriter {
    fn clone(&self) -> Self {
        Self {
            link: self.link.clone(),
            side: self.side,
            capacity: self.capacity,
        }
    }
}

impl IsTerminal for LinkReader {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl IsTerminal for LinkWriter {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for LinkReader {
    fn p2_stream(&self) -> Box<dyn InputStream> {
        Box::new(self.clone())
    }
    fn async_stream(&self) -> Box<dyn AsyncRead + Send + Sync> {
        Box::new(self.clone())
    }
}

impl StdoutStream for LinkWriter {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl InputStream for LinkReader {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        self.link.read_now(self.side, size)
    }

    // WASI p1 runs this synchronously on the guest's own thread (the sandbox links
    // WASI with `add_to_linker_sync`), so waiting on the condition variable is fine.
    async fn blocking_read(&mut self, size: usize) -> StreamResult<Bytes> {
        match self.link.read_blocking(self.side, size.max(1)) {
            ReadOutcome::Data(bytes) => Ok(bytes),
            ReadOutcome::EndOfFile => Err(StreamError::Closed),
        }
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for LinkReader {
    // Readiness is decided by `blocking_read`; a poll never waits (the guest then
    // reads and blocks there, under the deadlock rule).
    async fn ready(&mut self) {}
}

impl OutputStream for LinkWriter {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.link.write(self.side, &bytes, self.capacity)
    }
    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(self.capacity.max(1))
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for LinkWriter {
    async fn ready(&mut self) {}
}

// The tokio adapters are required by the stream traits; WASI p1 uses the p2 streams
// above. Reads here never block: no data yet is reported as ready-with-nothing only
// after the other side closed, else as pending without a waker (never polled in p1).
impl AsyncRead for LinkReader {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.link.read_now(self.side, buf.remaining()) {
            Ok(bytes) if bytes.is_empty() => Poll::Pending,
            Ok(bytes) => {
                buf.put_slice(&bytes);
                Poll::Ready(Ok(()))
            }
            Err(_) => Poll::Ready(Ok(())),
        }
    }
}

impl AsyncWrite for LinkWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(
            self.link
                .write(self.side, buf, self.capacity)
                .map(|()| buf.len())
                .map_err(|e| std::io::Error::other(e.to_string())),
        )
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(link: &Link, side: Side) -> Option<Vec<u8>> {
        match link.read_blocking(side, 1 << 20) {
            ReadOutcome::Data(b) => Some(b.to_vec()),
            ReadOutcome::EndOfFile => None,
        }
    }

    #[test]
    fn bytes_cross_in_order_then_end_of_file() {
        let link = Link::new(Vec::new(), b"pre".to_vec());
        link.write(Side::Driver, b"fix", 100).unwrap();
        assert_eq!(read(&link, Side::Peer).as_deref(), Some(&b"prefix"[..]));
        link.close(Side::Driver);
        assert_eq!(read(&link, Side::Peer), None);
    }

    #[test]
    fn writes_past_capacity_fail() {
        let link = Link::default();
        assert!(link.write(Side::Peer, &[0; 10], 8).is_err());
        assert!(link.write(Side::Peer, &[0; 8], 8).is_ok());
    }

    #[test]
    fn a_peer_reading_out_of_turn_gets_end_of_file() {
        // The driver waits for an answer; the peer, instead of answering, reads.
        let link = Link::default();
        let driver = {
            let link = link.clone();
            std::thread::spawn(move || read(&link, Side::Driver))
        };
        while !link.lock().waiting[0] {
            std::thread::yield_now();
        }
        assert_eq!(read(&link, Side::Peer), None);
        link.write(Side::Peer, b"late", 100).unwrap();
        assert_eq!(driver.join().unwrap().as_deref(), Some(&b"late"[..]));
    }

    #[test]
    fn a_driver_reading_while_the_peer_waits_starves_the_peer() {
        let link = Link::default();
        let peer = {
            let link = link.clone();
            std::thread::spawn(move || {
                let first = read(&link, Side::Peer);
                link.write(Side::Peer, b"done", 100).unwrap();
                first
            })
        };
        while !link.lock().waiting[1] {
            std::thread::yield_now();
        }
        assert_eq!(read(&link, Side::Driver).as_deref(), Some(&b"done"[..]));
        assert_eq!(peer.join().unwrap(), None);
    }
}
