//! V6 of MAPTest: `java.util.logging.Logger` (JDK 1.4.1), an atomicity violation. `log`
//! counts the handlers, formats the record, then publishes it to handler 0, 1, ... in
//! separate lock sections; a handler removed by another thread in between leaves the loop
//! holding an index past the end, and the publish dereferences a handler that is gone.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// Java's `Level.FINE`.
pub const FINE: i32 = 500;
/// Java's `Level.INFO`, a new logger's level.
pub const INFO: i32 = 800;
/// Java's `Level.WARNING`.
pub const WARNING: i32 = 900;
/// Java's `Level.SEVERE`.
pub const SEVERE: i32 = 1000;

/// Where a logger publishes its records.
struct Handler {
    name: String,
    records: Vec<String>,
}

/// A named logger with a level, an optional filter and a list of handlers, after
/// `java.util.logging.Logger`. `log` reads how many handlers there are, formats the record,
/// and publishes it to each index in its own lock section. With `logger.info("a")` on one
/// thread and `logger.remove_handler("h")` on another, the list can shrink between the count
/// and the publish, and `log` panics on the handler that is gone.
pub struct Logger {
    name: String,
    level: AtomicI32,
    filter: Mutex<Option<String>>,
    handlers: Mutex<Vec<Handler>>,
    sequence: AtomicU64,
}

#[thread_safe(test = false, statement_points = "always")]
impl Logger {
    /// A logger named `name` at level [`INFO`], with no handler.
    pub fn new(name: &str) -> Self {
        Logger {
            name: name.to_string(),
            level: AtomicI32::new(INFO),
            filter: Mutex::new(None),
            handlers: Mutex::new(Vec::new()),
            sequence: AtomicU64::new(0),
        }
    }

    /// An anonymous logger (Java's `getAnonymousLogger()`).
    pub fn anonymous() -> Self {
        Logger::new("")
    }

    /// A logger named `name` with one handler named `handler`.
    pub fn with_handler(name: &str, handler: &str) -> Self {
        let logger = Logger::new(name);
        logger.add_handler(handler);
        logger
    }

    /// The logger's name.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// Records below `level` are dropped.
    pub fn set_level(&self, level: i32) {
        self.level.store(level, Ordering::SeqCst);
    }

    /// The lowest level logged.
    pub fn level(&self) -> i32 {
        self.level.load(Ordering::SeqCst)
    }

    /// Whether a record at `level` would be logged.
    pub fn is_loggable(&self, level: i32) -> bool {
        level >= self.level()
    }

    /// Only messages that contain `filter` are logged; `None` logs every message.
    pub fn set_filter(&self, filter: Option<String>) {
        *self.filter.lock().unwrap() = filter;
    }

    /// The filter.
    pub fn filter(&self) -> Option<String> {
        self.filter.lock().unwrap().clone()
    }

    /// Adds a handler named `name` (names need not be unique).
    pub fn add_handler(&self, name: &str) {
        self.handlers.lock().unwrap().push(Handler {
            name: name.to_string(),
            records: Vec::new(),
        });
    }

    /// Removes the first handler named `name`; returns whether there was one.
    pub fn remove_handler(&self, name: &str) -> bool {
        remove_named(&mut self.handlers.lock().unwrap(), name)
    }

    /// Removes every handler; returns how many there were.
    pub fn remove_all_handlers(&self) -> usize {
        self.handlers.lock().unwrap().drain(..).count()
    }

    /// The handlers' names, in order.
    pub fn handler_names(&self) -> Vec<String> {
        self.handlers
            .lock()
            .unwrap()
            .iter()
            .map(|h| h.name.clone())
            .collect()
    }

    /// The number of handlers.
    pub fn handler_count(&self) -> usize {
        self.handlers.lock().unwrap().len()
    }

    /// Publishes `message` at `level` to every handler if the level and the filter let it
    /// through; returns how many handlers it was published to.
    pub fn log(&self, level: i32, message: &str) -> usize {
        if !self.is_loggable(level) || !self.passes_filter(message) {
            return 0;
        }
        let targets = self.handler_count();
        if targets == 0 {
            return 0;
        }
        let sequence = self.sequence.fetch_add(1, Ordering::SeqCst);
        let record = format!("#{sequence} [{}] {level}: {message}", self.name);
        for i in 0..targets {
            // BUG: the handler list can shrink between `handler_count` and here.
            self.publish(i, &record);
        }
        targets
    }

    /// Logs `message` at [`FINE`].
    pub fn fine(&self, message: &str) -> usize {
        self.log(FINE, message)
    }

    /// Logs `message` at [`INFO`].
    pub fn info(&self, message: &str) -> usize {
        self.log(INFO, message)
    }

    /// Logs `message` at [`WARNING`].
    pub fn warning(&self, message: &str) -> usize {
        self.log(WARNING, message)
    }

    /// Logs `message` at [`SEVERE`].
    pub fn severe(&self, message: &str) -> usize {
        self.log(SEVERE, message)
    }

    /// The number of records the current handlers hold.
    pub fn published(&self) -> usize {
        self.handlers
            .lock()
            .unwrap()
            .iter()
            .map(|h| h.records.len())
            .sum()
    }
}

impl Logger {
    /// Whether the filter lets `message` through.
    fn passes_filter(&self, message: &str) -> bool {
        self.filter
            .lock()
            .unwrap()
            .as_deref()
            .map_or(true, |f| message.contains(f))
    }

    /// Publishes `record` to handler `i`, which the caller counted.
    fn publish(&self, i: usize, record: &str) {
        let mut handlers = self.handlers.lock().unwrap();
        let count = handlers.len();
        let handler = handlers.get_mut(i).unwrap_or_else(|| {
            panic!("NullPointerException: handler {i} is gone (there are {count} handlers)")
        });
        handler.records.push(record.to_string());
    }
}

/// [`Logger`] with `log` fixed: it publishes to every handler under one lock section, so a
/// concurrent `remove_handler` makes it publish either to the old list or to the new one.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
pub struct FixedLogger(Logger, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedLogger {
    /// A logger named `name` at level [`INFO`], with no handler.
    pub fn new(name: &str) -> Self {
        FixedLogger(Logger::new(name), Whole::default())
    }

    /// An anonymous logger (Java's `getAnonymousLogger()`).
    pub fn anonymous() -> Self {
        FixedLogger(Logger::anonymous(), Whole::default())
    }

    /// A logger named `name` with one handler named `handler`.
    pub fn with_handler(name: &str, handler: &str) -> Self {
        FixedLogger(Logger::with_handler(name, handler), Whole::default())
    }

    /// The logger's name.
    pub fn name(&self) -> String {
        let _whole = self.1.hold();
        self.0.name()
    }

    /// Records below `level` are dropped.
    pub fn set_level(&self, level: i32) {
        let _whole = self.1.hold();
        self.0.set_level(level);
    }

    /// The lowest level logged.
    pub fn level(&self) -> i32 {
        let _whole = self.1.hold();
        self.0.level()
    }

    /// Whether a record at `level` would be logged.
    pub fn is_loggable(&self, level: i32) -> bool {
        let _whole = self.1.hold();
        self.0.is_loggable(level)
    }

    /// Only messages that contain `filter` are logged; `None` logs every message.
    pub fn set_filter(&self, filter: Option<String>) {
        let _whole = self.1.hold();
        self.0.set_filter(filter);
    }

    /// The filter.
    pub fn filter(&self) -> Option<String> {
        let _whole = self.1.hold();
        self.0.filter()
    }

    /// Adds a handler named `name` (names need not be unique).
    pub fn add_handler(&self, name: &str) {
        let _whole = self.1.hold();
        self.0.add_handler(name);
    }

    /// Removes the first handler named `name`; returns whether there was one.
    pub fn remove_handler(&self, name: &str) -> bool {
        let _whole = self.1.hold();
        self.0.remove_handler(name)
    }

    /// Removes every handler; returns how many there were.
    pub fn remove_all_handlers(&self) -> usize {
        let _whole = self.1.hold();
        self.0.remove_all_handlers()
    }

    /// The handlers' names, in order.
    pub fn handler_names(&self) -> Vec<String> {
        let _whole = self.1.hold();
        self.0.handler_names()
    }

    /// The number of handlers.
    pub fn handler_count(&self) -> usize {
        let _whole = self.1.hold();
        self.0.handler_count()
    }

    /// Publishes `message` at `level` to every handler if the level and the filter let it
    /// through; returns how many handlers it was published to.
    pub fn log(&self, level: i32, message: &str) -> usize {
        let _whole = self.1.hold();
        if !self.0.is_loggable(level) || !self.0.passes_filter(message) {
            return 0;
        }
        let sequence = self.0.sequence.fetch_add(1, Ordering::SeqCst);
        let record = format!("#{sequence} [{}] {level}: {message}", self.0.name);
        publish_all(&mut self.0.handlers.lock().unwrap(), &record)
    }

    /// Logs `message` at [`FINE`].
    pub fn fine(&self, message: &str) -> usize {
        self.log(FINE, message)
    }

    /// Logs `message` at [`INFO`].
    pub fn info(&self, message: &str) -> usize {
        self.log(INFO, message)
    }

    /// Logs `message` at [`WARNING`].
    pub fn warning(&self, message: &str) -> usize {
        self.log(WARNING, message)
    }

    /// Logs `message` at [`SEVERE`].
    pub fn severe(&self, message: &str) -> usize {
        self.log(SEVERE, message)
    }

    /// The number of records the current handlers hold.
    pub fn published(&self) -> usize {
        let _whole = self.1.hold();
        self.0.published()
    }
}

/// Removes the first handler named `name`; returns whether there was one.
fn remove_named(handlers: &mut Vec<Handler>, name: &str) -> bool {
    let found = handlers.iter().position(|h| h.name == name);
    found.map(|i| handlers.remove(i)).is_some()
}

/// Publishes `record` to every handler; returns how many there are.
fn publish_all(handlers: &mut [Handler], record: &str) -> usize {
    for handler in handlers.iter_mut() {
        handler.records.push(record.to_string());
    }
    handlers.len()
}

/// The V6 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V6",
        name: "logger",
        original: "java.util.logging.Logger (JDK 1.4.1)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<Logger>(c),
        check_twin: |c| threadsafe_rt::check::<FixedLogger>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                || Logger::with_handler("app", "console"),
                |l| {
                    l.info("hello");
                },
                |l| {
                    l.remove_handler("console");
                    l.add_handler("console");
                },
            )
        },
    }
}
