//! V19 of MAPTest (Wang et al., ASE 2019, Table II and Fig. 1):
//! `org.apache.log4j.varia.NullAppender` (log4j 1.2.13), an atomicity violation.
//! `is_as_severe_as_threshold` checks that a threshold is set, then reads it again to compare;
//! a `set_threshold(None)` (or `take_threshold`) on another thread in between leaves the
//! second read with none (Java's `NullPointerException` at line 5 of Fig. 1).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::Duration;

use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// An appender that drops every event, ported from log4j's `NullAppender` with the state of
/// its `AppenderSkeleton`: a name, a threshold level (events below it are dropped; `None`
/// lets everything through), a closed flag and a chain of deny filters.
///
/// Levels are plain numbers, higher is more severe, as log4j's `Priority` ints.
/// `is_as_severe_as_threshold` reads the threshold twice, as the Java expression `th == null
/// || priority.isGreaterOrEqual(th)` does: with `a.is_as_severe_as_threshold(2)` on one thread
/// and `a.set_threshold(None)` on another, the threshold can vanish between the two reads.
pub struct NullAppender {
    name: Mutex<Option<String>>,
    threshold: RwLock<Option<u8>>,
    closed: AtomicBool,
    filters: Mutex<Vec<String>>,
    appended: AtomicUsize,
}

impl Default for NullAppender {
    fn default() -> Self {
        NullAppender::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl NullAppender {
    /// An unnamed appender with no threshold and no filter.
    pub fn new() -> Self {
        NullAppender {
            name: Mutex::new(None),
            threshold: RwLock::new(None),
            closed: AtomicBool::new(false),
            filters: Mutex::new(Vec::new()),
            appended: AtomicUsize::new(0),
        }
    }

    /// An appender named `name`, dropping events below `level`.
    pub fn with_name(name: &str, level: u8) -> Self {
        let appender = NullAppender::with_threshold(level);
        *appender.name.lock().unwrap() = Some(name.to_string());
        appender
    }

    /// An unnamed appender that drops events below `level`.
    pub fn with_threshold(level: u8) -> Self {
        let appender = NullAppender::new();
        *appender.threshold.write().unwrap() = Some(level);
        appender
    }

    /// The appender's name, if it has one.
    pub fn name(&self) -> Option<String> {
        self.name.lock().unwrap().clone()
    }

    /// Names the appender.
    pub fn set_name(&self, name: &str) {
        *self.name.lock().unwrap() = Some(name.to_string());
    }

    /// The threshold: events below it are dropped; `None` lets every event through.
    pub fn threshold(&self) -> Option<u8> {
        *self.threshold.read().unwrap()
    }

    /// Sets the threshold; `None` removes it.
    pub fn set_threshold(&self, level: Option<u8>) {
        *self.threshold.write().unwrap() = level;
    }

    /// Removes the threshold and returns it.
    pub fn take_threshold(&self) -> Option<u8> {
        self.threshold.write().unwrap().take()
    }

    /// Whether an event of `level` passes the threshold.
    pub fn is_as_severe_as_threshold(&self, level: u8) -> bool {
        if self.threshold.read().unwrap().is_none() {
            return true;
        }
        // BUG: the threshold is read again; another thread may have removed it since.
        let threshold = self
            .threshold
            .read()
            .unwrap()
            .expect("the threshold is set");
        level >= threshold
    }

    /// Adds a filter that denies events whose message contains `word` (an empty word denies
    /// nothing).
    pub fn add_filter(&self, word: &str) {
        self.filters.lock().unwrap().push(word.to_string());
    }

    /// Removes every filter.
    pub fn clear_filters(&self) {
        self.filters.lock().unwrap().clear();
    }

    /// Appends an event, as log4j's `doAppend`: refused once closed, dropped below the
    /// threshold or by a filter; a `NullAppender` then does nothing with it. Returns whether
    /// the event was appended.
    pub fn do_append(&self, level: u8, message: &str) -> bool {
        if self.closed.load(Ordering::SeqCst) || !self.is_as_severe_as_threshold(level) {
            return false;
        }
        let denied = self
            .filters
            .lock()
            .unwrap()
            .iter()
            .any(|w| !w.is_empty() && message.contains(w.as_str()));
        if denied {
            return false;
        }
        self.appended.fetch_add(1, Ordering::SeqCst);
        true
    }

    /// The number of events appended so far.
    pub fn appended(&self) -> usize {
        self.appended.load(Ordering::SeqCst)
    }

    /// Closes the appender: later events are refused.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }
}

/// [`NullAppender`] with `is_as_severe_as_threshold` fixed: it reads the threshold once, so a
/// concurrent `set_threshold(None)` makes it compare with the old threshold or let the event
/// through, never find a threshold missing.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedNullAppender(NullAppender, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedNullAppender {
    /// An unnamed appender with no threshold and no filter.
    pub fn new() -> Self {
        FixedNullAppender(NullAppender::new(), Whole::default())
    }

    /// An appender named `name`, dropping events below `level`.
    pub fn with_name(name: &str, level: u8) -> Self {
        FixedNullAppender(NullAppender::with_name(name, level), Whole::default())
    }

    /// An unnamed appender that drops events below `level`.
    pub fn with_threshold(level: u8) -> Self {
        FixedNullAppender(NullAppender::with_threshold(level), Whole::default())
    }

    /// The appender's name, if it has one.
    pub fn name(&self) -> Option<String> {
        let _whole = self.1.hold();
        self.0.name()
    }

    /// Names the appender.
    pub fn set_name(&self, name: &str) {
        let _whole = self.1.hold();
        self.0.set_name(name);
    }

    /// The threshold: events below it are dropped; `None` lets every event through.
    pub fn threshold(&self) -> Option<u8> {
        let _whole = self.1.hold();
        self.0.threshold()
    }

    /// Sets the threshold; `None` removes it.
    pub fn set_threshold(&self, level: Option<u8>) {
        let _whole = self.1.hold();
        self.0.set_threshold(level);
    }

    /// Removes the threshold and returns it.
    pub fn take_threshold(&self) -> Option<u8> {
        let _whole = self.1.hold();
        self.0.take_threshold()
    }

    /// Whether an event of `level` passes the threshold.
    pub fn is_as_severe_as_threshold(&self, level: u8) -> bool {
        let _whole = self.1.hold();
        as_severe_as(self.0.threshold(), level)
    }

    /// Adds a filter that denies events whose message contains `word` (an empty word denies
    /// nothing).
    pub fn add_filter(&self, word: &str) {
        let _whole = self.1.hold();
        self.0.add_filter(word);
    }

    /// Removes every filter.
    pub fn clear_filters(&self) {
        let _whole = self.1.hold();
        self.0.clear_filters();
    }

    /// Appends an event, as log4j's `doAppend`: refused once closed, dropped below the
    /// threshold or by a filter; a `NullAppender` then does nothing with it. Returns whether
    /// the event was appended.
    pub fn do_append(&self, level: u8, message: &str) -> bool {
        let _whole = self.1.hold();
        if self.0.closed.load(Ordering::SeqCst) || !as_severe_as(self.0.threshold(), level) {
            return false;
        }
        let denied = self
            .0
            .filters
            .lock()
            .unwrap()
            .iter()
            .any(|w| !w.is_empty() && message.contains(w.as_str()));
        if denied {
            return false;
        }
        self.0.appended.fetch_add(1, Ordering::SeqCst);
        true
    }

    /// The number of events appended so far.
    pub fn appended(&self) -> usize {
        let _whole = self.1.hold();
        self.0.appended()
    }

    /// Closes the appender: later events are refused.
    pub fn close(&self) {
        let _whole = self.1.hold();
        self.0.close();
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        let _whole = self.1.hold();
        self.0.is_closed()
    }
}

/// Whether an event of `level` passes `threshold`, read once.
fn as_severe_as(threshold: Option<u8>, level: u8) -> bool {
    match threshold {
        None => true,
        Some(threshold) => level >= threshold,
    }
}

/// The subject: [`NullAppender`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V19",
        name: "null_appender",
        original: "org.apache.log4j.varia.NullAppender (log4j 1.2.13)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<NullAppender>(c),
        check_twin: |c| threadsafe_rt::check::<FixedNullAppender>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                || NullAppender::with_threshold(1),
                |a| {
                    a.is_as_severe_as_threshold(2);
                },
                |a| a.set_threshold(None),
            )
        },
    }
}
