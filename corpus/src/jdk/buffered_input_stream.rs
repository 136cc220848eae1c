//! V3 of MAPTest: `java.io.BufferedInputStream` (JDK 1.1), an atomicity violation. The
//! synchronized `read`, `skip` and `available` check that the stream is open (`in != null`)
//! and then use `in`, but `close()` is not synchronized: it sets `in = null` between the
//! check and the use, and the reader throws `NullPointerException`.

use threadsafe_rt::sync::Mutex;
use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 100;

/// The default buffer size (small, so that reads refill often).
pub const DEFAULT_SIZE: usize = 8;

/// The largest buffer size accepted (Java would throw `OutOfMemoryError` sooner or later).
pub const MAX_SIZE: usize = 1 << 16;

/// What an I/O operation on a closed stream, or an invalid `reset`, returns (Java's
/// `IOException`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoError(pub &'static str);

/// The underlying stream: the bytes of a byte array, read once.
struct Source {
    data: Vec<u8>,
    pos: usize,
}

impl Source {
    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Takes up to `n` bytes.
    fn take(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.remaining());
        self.pos += n;
        &self.data[self.pos - n..self.pos]
    }
}

/// The buffer and its cursor: Java's `buf`, `pos`, `count` (`data.len()`), `markpos` and
/// `marklimit`.
struct Buffer {
    size: usize,
    data: Vec<u8>,
    pos: usize,
    mark: Option<usize>,
    mark_limit: usize,
}

impl Buffer {
    fn new(size: usize) -> Self {
        Buffer {
            size,
            data: Vec::with_capacity(size),
            pos: 0,
            mark: None,
            mark_limit: 0,
        }
    }

    fn buffered(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Java's `fill()`: drops what is before the mark (or everything, with no valid mark),
    /// then reads into the free space.
    fn fill(&mut self, source: &mut Source) {
        match self.mark {
            Some(m) if self.pos - m < self.mark_limit => {
                self.data.drain(..m);
                self.pos -= m;
                self.mark = Some(0);
            }
            _ => {
                self.mark = None;
                self.data.clear();
                self.pos = 0;
            }
        }
        let room = self.size.saturating_sub(self.data.len()).max(1);
        let bytes = source.take(room);
        self.data.extend_from_slice(bytes);
    }

    /// Up to `n` buffered bytes, consumed.
    fn take(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.buffered());
        self.pos += n;
        self.data[self.pos - n..self.pos].to_vec()
    }
}

/// A buffered reader over a byte array that threads share, after JDK 1.1's
/// `java.io.BufferedInputStream`. The reading methods hold the stream's monitor (the buffer's
/// lock), check that the stream is open, and later take the source to refill; `close` does
/// not take the monitor: it takes the source away, then clears the buffer. With
/// `stream.read()` on one thread (at the end of the buffer) and `stream.close()` on another,
/// the source can be gone after the check, and the refill panics on the `None`.
pub struct BufferedInputStream {
    /// The monitor of the synchronized methods, and the buffer it guards.
    state: Mutex<Buffer>,
    /// Java's `in`: `None` once closed.
    source: Mutex<Option<Source>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl BufferedInputStream {
    /// A stream over `data` with a buffer of [`DEFAULT_SIZE`] bytes.
    pub fn new(data: Vec<u8>) -> Self {
        BufferedInputStream::with_size(data, DEFAULT_SIZE)
    }

    /// A stream over `data` with a buffer of `size` bytes.
    ///
    /// # Panics
    /// If `size` is 0 or greater than [`MAX_SIZE`] (Java's `IllegalArgumentException`).
    pub fn with_size(data: Vec<u8>, size: usize) -> Self {
        assert!(
            size > 0 && size <= MAX_SIZE,
            "IllegalArgumentException: buffer size {size}"
        );
        BufferedInputStream {
            state: Mutex::new(Buffer::new(size)),
            source: Mutex::new(Some(Source { data, pos: 0 })),
        }
    }

    /// A stream over the UTF-8 bytes of `text`.
    pub fn from_text(text: &str) -> Self {
        BufferedInputStream::new(text.as_bytes().to_vec())
    }

    /// The next byte, `None` at the end of the stream.
    pub fn read(&self) -> Result<Option<u8>, IoError> {
        let mut buf = self.state.lock().unwrap();
        self.ensure_open()?;
        if buf.buffered() == 0 {
            // BUG: `close` does not take the monitor: the source can be gone by now.
            self.refill(&mut buf);
        }
        Ok(buf.take(1).first().copied())
    }

    /// Up to `len` bytes: what is buffered, or one refill's worth when nothing is; empty
    /// at the end of the stream.
    pub fn read_bytes(&self, len: usize) -> Result<Vec<u8>, IoError> {
        let mut buf = self.state.lock().unwrap();
        self.ensure_open()?;
        if len == 0 {
            return Ok(Vec::new());
        }
        if buf.buffered() == 0 {
            self.refill(&mut buf);
        }
        Ok(buf.take(len))
    }

    /// Skips up to `n` bytes; returns how many were skipped. Skips in the buffer when it
    /// holds bytes (or a mark), else in the source directly.
    pub fn skip(&self, n: u64) -> Result<u64, IoError> {
        let mut buf = self.state.lock().unwrap();
        self.ensure_open()?;
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if buf.buffered() == 0 && buf.mark.is_none() {
            let skipped = self.open_source(|s| s.take(n).len());
            return Ok(skipped as u64);
        }
        if buf.buffered() == 0 {
            self.refill(&mut buf);
        }
        Ok(buf.take(n).len() as u64)
    }

    /// How many bytes can be read without blocking: the buffered ones and the source's.
    pub fn available(&self) -> Result<usize, IoError> {
        let buf = self.state.lock().unwrap();
        self.ensure_open()?;
        let buffered = buf.buffered();
        Ok(buffered + self.open_source(|s| s.remaining()))
    }

    /// Marks the current position; `reset` returns to it while at most `read_limit` bytes
    /// have been read since.
    pub fn mark(&self, read_limit: usize) {
        let mut buf = self.state.lock().unwrap();
        buf.mark_limit = read_limit;
        buf.mark = Some(buf.pos);
    }

    /// Returns to the mark.
    pub fn reset(&self) -> Result<(), IoError> {
        let mut buf = self.state.lock().unwrap();
        self.ensure_open()?;
        let mark = buf.mark.ok_or(IoError("Resetting to invalid mark"))?;
        buf.pos = mark;
        Ok(())
    }

    /// Whether `mark` and `reset` are supported (they are).
    pub fn mark_supported(&self) -> bool {
        true
    }

    /// Closes the stream: later reads return an error. Closing twice does nothing.
    pub fn close(&self) {
        // BUG: not synchronized: a reader holding the monitor may have checked that the
        // stream is open and not yet used the source.
        let source = self.source.lock().unwrap().take();
        if source.is_some() {
            *self.state.lock().unwrap() = Buffer::new(1);
        }
    }

    /// Whether the stream was closed.
    pub fn is_closed(&self) -> bool {
        self.source.lock().unwrap().is_none()
    }
}

impl BufferedInputStream {
    /// Java's `ensureOpen()`.
    fn ensure_open(&self) -> Result<(), IoError> {
        match *self.source.lock().unwrap() {
            Some(_) => Ok(()),
            None => Err(IoError("Stream closed")),
        }
    }

    /// Runs `f` on the source, which the caller saw open.
    fn open_source<R>(&self, f: impl FnOnce(&mut Source) -> R) -> R {
        let mut source = self.source.lock().unwrap();
        let source = source
            .as_mut()
            .expect("NullPointerException: `in` was set to null after ensureOpen()");
        f(source)
    }

    /// Refills `buf` from the source, which the caller saw open.
    fn refill(&self, buf: &mut Buffer) {
        self.open_source(|s| buf.fill(s));
    }
}

/// [`BufferedInputStream`] with `close` fixed: it takes the monitor first, as a
/// `synchronized` method would, so it waits for a reader that has checked the stream to
/// finish, and a reader that comes after it sees the stream closed.
pub struct FixedBufferedInputStream(BufferedInputStream);

#[thread_safe(test = false, statement_points = "always")]
impl FixedBufferedInputStream {
    /// A stream over `data` with a buffer of [`DEFAULT_SIZE`] bytes.
    pub fn new(data: Vec<u8>) -> Self {
        FixedBufferedInputStream(BufferedInputStream::new(data))
    }

    /// A stream over `data` with a buffer of `size` bytes.
    ///
    /// # Panics
    /// If `size` is 0 or greater than [`MAX_SIZE`] (Java's `IllegalArgumentException`).
    pub fn with_size(data: Vec<u8>, size: usize) -> Self {
        FixedBufferedInputStream(BufferedInputStream::with_size(data, size))
    }

    /// A stream over the UTF-8 bytes of `text`.
    pub fn from_text(text: &str) -> Self {
        FixedBufferedInputStream(BufferedInputStream::from_text(text))
    }

    /// The next byte, `None` at the end of the stream.
    pub fn read(&self) -> Result<Option<u8>, IoError> {
        self.0.read()
    }

    /// Up to `len` bytes: what is buffered, or one refill's worth when nothing is; empty
    /// at the end of the stream.
    pub fn read_bytes(&self, len: usize) -> Result<Vec<u8>, IoError> {
        self.0.read_bytes(len)
    }

    /// Skips up to `n` bytes; returns how many were skipped.
    pub fn skip(&self, n: u64) -> Result<u64, IoError> {
        self.0.skip(n)
    }

    /// How many bytes can be read without blocking: the buffered ones and the source's.
    pub fn available(&self) -> Result<usize, IoError> {
        self.0.available()
    }

    /// Marks the current position; `reset` returns to it while at most `read_limit` bytes
    /// have been read since.
    pub fn mark(&self, read_limit: usize) {
        self.0.mark(read_limit);
    }

    /// Returns to the mark.
    pub fn reset(&self) -> Result<(), IoError> {
        self.0.reset()
    }

    /// Whether `mark` and `reset` are supported (they are).
    pub fn mark_supported(&self) -> bool {
        self.0.mark_supported()
    }

    /// Closes the stream: later reads return an error. Closing twice does nothing.
    pub fn close(&self) {
        let mut buf = self.0.state.lock().unwrap();
        let source = self.0.source.lock().unwrap().take();
        if source.is_some() {
            *buf = Buffer::new(1);
        }
    }

    /// Whether the stream was closed.
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

/// The V3 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V3",
        name: "buffered_input_stream",
        original: "java.io.BufferedInputStream (JDK 1.1)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<BufferedInputStream>(c),
        check_twin: |c| threadsafe_rt::check::<FixedBufferedInputStream>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                || BufferedInputStream::new(vec![1, 2, 3]),
                |s| {
                    let _ = s.read();
                },
                |s| s.close(),
            )
        },
    }
}
