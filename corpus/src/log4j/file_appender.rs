//! V18 of MAPTest (Wang et al., ASE 2019, Table II): `org.apache.log4j.FileAppender`
//! (log4j 1.2.13), an atomicity violation. `do_append` checks that a writer is open
//! (`checkEntryConditions`), then takes the writer again to write the event; a `close` or a
//! `set_file` on another thread in between resets the writer to `None` (Java's
//! `NullPointerException` on the `qw` field in `subAppend`).

use std::collections::HashMap;
use std::time::Duration;

use threadsafe_rt::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use threadsafe_rt::sync::Mutex;
use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// The in-memory file system the appenders write to: file name → bytes.
type Files = HashMap<String, Vec<u8>>;

/// An open file: log4j's `QuietWriter` over a (possibly buffered) `FileOutputStream`.
struct Writer {
    file: String,
    /// Bytes written but not yet flushed to the file.
    pending: Vec<u8>,
    /// Flush when `pending` would grow past this many bytes; [`UNBUFFERED`] writes through.
    buffer_size: usize,
}

impl Writer {
    /// Opens `file`, truncating it unless `append`.
    fn open(files: &Mutex<Files>, file: &str, append: bool, buffer_size: usize) -> Writer {
        let mut files = files.lock().unwrap();
        let bytes = files.entry(file.to_string()).or_default();
        if !append {
            bytes.clear();
        }
        Writer {
            file: file.to_string(),
            pending: Vec::new(),
            buffer_size,
        }
    }

    /// Writes `line`: into the buffer (flushed first if `line` does not fit), or straight
    /// into the file when unbuffered.
    fn write(&mut self, files: &Mutex<Files>, line: &str) {
        if self.pending.len() + line.len() > self.buffer_size {
            self.flush(files);
        }
        self.pending.extend_from_slice(line.as_bytes());
        if self.buffer_size == UNBUFFERED {
            self.flush(files);
        }
    }

    /// Moves the pending bytes into the file.
    fn flush(&mut self, files: &Mutex<Files>) {
        if !self.pending.is_empty() {
            let mut files = files.lock().unwrap();
            files
                .entry(self.file.clone())
                .or_default()
                .append(&mut self.pending);
        }
    }
}

/// An appender writing events to a file, ported from log4j's `FileAppender` (with the parts
/// of `WriterAppender` and `AppenderSkeleton` it relies on). Files live in memory: the
/// appender's own map from file name to bytes, which [`contents`](Self::contents) reads.
///
/// `do_append` checks that a writer is open, then takes the writer again to write the event
/// and again to flush it, each in a lock section of its own, as log4j's `append` calls
/// `checkEntryConditions()` and then `subAppend()`, each reading the `qw` field. `set_file` and `close` first reset the writer (log4j's `reset()` sets `qw` to
/// `null`) and only then open the new one: with `a.do_append(1, "x")` on one thread and
/// `a.close()` or `a.set_file("b", true)` on another, the writer can be gone at the write.
pub struct FileAppender {
    file_name: Mutex<Option<String>>,
    file_append: AtomicBool,
    buffered_io: AtomicBool,
    buffer_size: AtomicUsize,
    immediate_flush: AtomicBool,
    threshold: AtomicU8,
    closed: AtomicBool,
    errors: AtomicUsize,
    writer: Mutex<Option<Writer>>,
    files: Mutex<Files>,
}

impl Default for FileAppender {
    fn default() -> Self {
        FileAppender::new()
    }
}

/// The buffer size of an unbuffered writer: every write goes through.
const UNBUFFERED: usize = 0;

/// log4j's default buffer size for buffered I/O.
const DEFAULT_BUFFER_SIZE: usize = 8 * 1024;

#[thread_safe(test = false, statement_points = "always")]
impl FileAppender {
    /// An appender with no file set: events are refused until [`set_file`](Self::set_file).
    pub fn new() -> Self {
        FileAppender {
            file_name: Mutex::new(None),
            file_append: AtomicBool::new(true),
            buffered_io: AtomicBool::new(false),
            buffer_size: AtomicUsize::new(DEFAULT_BUFFER_SIZE),
            immediate_flush: AtomicBool::new(true),
            threshold: AtomicU8::new(0),
            closed: AtomicBool::new(false),
            errors: AtomicUsize::new(0),
            writer: Mutex::new(None),
            files: Mutex::new(HashMap::new()),
        }
    }

    /// An appender writing to `file`, appended to if `append`, else truncated; with an empty
    /// name no file is opened.
    pub fn with_file(file: &str, append: bool) -> Self {
        let appender = FileAppender::new();
        appender.set_file(file, append);
        appender
    }

    /// An appender writing to `file` through a buffer of `buffer_size` bytes.
    pub fn with_buffer(file: &str, buffer_size: usize) -> Self {
        let appender = FileAppender::new();
        appender.buffered_io.store(true, Ordering::SeqCst);
        appender.buffer_size.store(buffer_size, Ordering::SeqCst);
        appender.immediate_flush.store(false, Ordering::SeqCst);
        appender.set_file(file, true);
        appender
    }

    /// Closes the current file and opens `file`, appended to if `append`, else truncated.
    /// Returns `false`, counted as an error (log4j's `FileNotFoundException`), and changes
    /// nothing when `file` is empty.
    pub fn set_file(&self, file: &str, append: bool) -> bool {
        if file.is_empty() {
            self.errors.fetch_add(1, Ordering::SeqCst);
            return false;
        }
        // log4j's reset(): close the writer and forget it.
        self.reset();
        let buffer_size = if self.buffered_io.load(Ordering::SeqCst) {
            self.buffer_size.load(Ordering::SeqCst)
        } else {
            UNBUFFERED
        };
        let writer = Writer::open(&self.files, file, append, buffer_size);
        // BUG: between reset() and here, the writer is `None` for all to see.
        *self.writer.lock().unwrap() = Some(writer);
        *self.file_name.lock().unwrap() = Some(file.to_string());
        self.file_append.store(append, Ordering::SeqCst);
        true
    }

    /// The name of the open file, if one is open.
    pub fn file(&self) -> Option<String> {
        self.file_name.lock().unwrap().clone()
    }

    /// Buffers files opened from now on (log4j also turns immediate flush off then).
    pub fn set_buffered_io(&self, buffered: bool) {
        self.buffered_io.store(buffered, Ordering::SeqCst);
        if buffered {
            self.immediate_flush.store(false, Ordering::SeqCst);
        }
    }

    /// Sets whether every event is flushed to the file at once.
    pub fn set_immediate_flush(&self, flush: bool) {
        self.immediate_flush.store(flush, Ordering::SeqCst);
    }

    /// Events below `level` are dropped.
    pub fn set_threshold(&self, level: u8) {
        self.threshold.store(level, Ordering::SeqCst);
    }

    /// Appends an event as a line `<level> - <message>`: refused (and counted as an error)
    /// when the appender is closed or has no open file, dropped below the threshold. Returns
    /// whether it was written.
    pub fn do_append(&self, level: u8, message: &str) -> bool {
        if self.closed.load(Ordering::SeqCst) {
            self.errors.fetch_add(1, Ordering::SeqCst);
            return false;
        }
        if level < self.threshold.load(Ordering::SeqCst) {
            return false;
        }
        // checkEntryConditions()
        if self.writer.lock().unwrap().is_none() {
            self.errors.fetch_add(1, Ordering::SeqCst);
            return false;
        }
        let line = format!("{level} - {message}\n");
        // subAppend(). BUG: the writer is taken again, to write and then to flush; it may have
        // been reset since the check.
        self.writer
            .lock()
            .unwrap()
            .as_mut()
            .expect("checkEntryConditions saw an open writer")
            .write(&self.files, &line);
        if self.immediate_flush.load(Ordering::SeqCst) {
            self.writer
                .lock()
                .unwrap()
                .as_mut()
                .expect("checkEntryConditions saw an open writer")
                .flush(&self.files);
        }
        true
    }

    /// Flushes the buffered bytes to the file; `false` when no file is open.
    pub fn flush(&self) -> bool {
        match self.writer.lock().unwrap().as_mut() {
            Some(writer) => {
                writer.flush(&self.files);
                true
            }
            None => false,
        }
    }

    /// Opens the configured file again (log4j's `activateOptions`); `false`, counted as an
    /// error, when no file was ever set.
    pub fn activate_options(&self) -> bool {
        let name = self.file_name.lock().unwrap().clone();
        match name {
            Some(name) => self.set_file(&name, self.file_append.load(Ordering::SeqCst)),
            None => {
                self.errors.fetch_add(1, Ordering::SeqCst);
                false
            }
        }
    }

    /// Flushes and closes the file; later events are refused.
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.reset();
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// The flushed contents of the in-memory file `file` (empty if it does not exist).
    pub fn contents(&self, file: &str) -> String {
        let files = self.files.lock().unwrap();
        String::from_utf8_lossy(files.get(file).map_or(&[][..], |b| &b[..])).into_owned()
    }

    /// The number of errors: events refused, files that could not be opened.
    pub fn errors(&self) -> usize {
        self.errors.load(Ordering::SeqCst)
    }

    /// Flushes and drops the writer, and forgets the file name (log4j's `reset()`).
    fn reset(&self) {
        let writer = self.writer.lock().unwrap().take();
        if let Some(mut writer) = writer {
            writer.flush(&self.files);
        }
        *self.file_name.lock().unwrap() = None;
    }
}

/// [`FileAppender`] fixed: `do_append` checks for the writer and writes under one lock
/// section, and `set_file` swaps the old writer for the new one under one lock section, so
/// a concurrent `close` or `set_file` makes an event go to the old file, the new one, or be
/// refused, never find the writer gone.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedFileAppender(FileAppender, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedFileAppender {
    /// An appender with no file set: events are refused until [`set_file`](Self::set_file).
    pub fn new() -> Self {
        FixedFileAppender(FileAppender::new(), Whole::default())
    }

    /// An appender writing to `file`, appended to if `append`, else truncated; with an empty
    /// name no file is opened.
    pub fn with_file(file: &str, append: bool) -> Self {
        let appender = FixedFileAppender::new();
        appender.set_file(file, append);
        appender
    }

    /// An appender writing to `file` through a buffer of `buffer_size` bytes.
    pub fn with_buffer(file: &str, buffer_size: usize) -> Self {
        let appender = FixedFileAppender::new();
        appender.0.buffered_io.store(true, Ordering::SeqCst);
        appender.0.buffer_size.store(buffer_size, Ordering::SeqCst);
        appender.0.immediate_flush.store(false, Ordering::SeqCst);
        appender.set_file(file, true);
        appender
    }

    /// Closes the current file and opens `file`, appended to if `append`, else truncated.
    /// Returns `false`, counted as an error (log4j's `FileNotFoundException`), and changes
    /// nothing when `file` is empty.
    pub fn set_file(&self, file: &str, append: bool) -> bool {
        let _whole = self.1.hold();
        self.open_file(file, append)
    }

    /// The name of the open file, if one is open.
    pub fn file(&self) -> Option<String> {
        let _whole = self.1.hold();
        self.0.file()
    }

    /// Buffers files opened from now on (log4j also turns immediate flush off then).
    pub fn set_buffered_io(&self, buffered: bool) {
        let _whole = self.1.hold();
        self.0.set_buffered_io(buffered);
    }

    /// Sets whether every event is flushed to the file at once.
    pub fn set_immediate_flush(&self, flush: bool) {
        let _whole = self.1.hold();
        self.0.set_immediate_flush(flush);
    }

    /// Events below `level` are dropped.
    pub fn set_threshold(&self, level: u8) {
        let _whole = self.1.hold();
        self.0.set_threshold(level);
    }

    /// Appends an event as a line `<level> - <message>`: refused (and counted as an error)
    /// when the appender is closed or has no open file, dropped below the threshold. Returns
    /// whether it was written.
    pub fn do_append(&self, level: u8, message: &str) -> bool {
        let _whole = self.1.hold();
        let a = &self.0;
        if a.closed.load(Ordering::SeqCst) {
            a.errors.fetch_add(1, Ordering::SeqCst);
            return false;
        }
        if level < a.threshold.load(Ordering::SeqCst) {
            return false;
        }
        let line = format!("{level} - {message}\n");
        let flush = a.immediate_flush.load(Ordering::SeqCst);
        match a.writer.lock().unwrap().as_mut() {
            Some(writer) => {
                writer.write(&a.files, &line);
                if flush {
                    writer.flush(&a.files);
                }
                true
            }
            None => {
                a.errors.fetch_add(1, Ordering::SeqCst);
                false
            }
        }
    }

    /// Flushes the buffered bytes to the file; `false` when no file is open.
    pub fn flush(&self) -> bool {
        let _whole = self.1.hold();
        self.0.flush()
    }

    /// Opens the configured file again (log4j's `activateOptions`); `false`, counted as an
    /// error, when no file was ever set.
    pub fn activate_options(&self) -> bool {
        let _whole = self.1.hold();
        let name = self.0.file_name.lock().unwrap().clone();
        match name {
            Some(name) => self.open_file(&name, self.0.file_append.load(Ordering::SeqCst)),
            None => {
                self.0.errors.fetch_add(1, Ordering::SeqCst);
                false
            }
        }
    }

    /// Flushes and closes the file; later events are refused.
    pub fn close(&self) {
        let _whole = self.1.hold();
        if self.0.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let a = &self.0;
        let mut writer = a.writer.lock().unwrap();
        if let Some(mut old) = writer.take() {
            old.flush(&a.files);
        }
        *a.file_name.lock().unwrap() = None;
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        let _whole = self.1.hold();
        self.0.is_closed()
    }

    /// The flushed contents of the in-memory file `file` (empty if it does not exist).
    pub fn contents(&self, file: &str) -> String {
        let _whole = self.1.hold();
        self.0.contents(file)
    }

    /// The number of errors: events refused, files that could not be opened.
    pub fn errors(&self) -> usize {
        let _whole = self.1.hold();
        self.0.errors()
    }
}

impl FixedFileAppender {
    /// `set_file`'s work, for a caller that holds the whole lock.
    fn open_file(&self, file: &str, append: bool) -> bool {
        let a = &self.0;
        if file.is_empty() {
            a.errors.fetch_add(1, Ordering::SeqCst);
            return false;
        }
        let mut writer = a.writer.lock().unwrap();
        if let Some(mut old) = writer.take() {
            old.flush(&a.files);
        }
        let buffer_size = if a.buffered_io.load(Ordering::SeqCst) {
            a.buffer_size.load(Ordering::SeqCst)
        } else {
            UNBUFFERED
        };
        *writer = Some(Writer::open(&a.files, file, append, buffer_size));
        *a.file_name.lock().unwrap() = Some(file.to_string());
        a.file_append.store(append, Ordering::SeqCst);
        true
    }
}

/// The subject: [`FileAppender`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V18",
        name: "file_appender",
        original: "org.apache.log4j.FileAppender (log4j 1.2.13)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<FileAppender>(c),
        check_twin: |c| threadsafe_rt::check::<FixedFileAppender>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                || FileAppender::with_file("log", true),
                |a| {
                    a.do_append(1, "event");
                },
                |a| {
                    a.set_file("log", true);
                },
            )
        },
    }
}
