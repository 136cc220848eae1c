//! Bug 8 of Pradel & Gross, Table 1: `java.util.logging.Logger` (JDK 1.4.1), a
//! `NullPointerException` when a field that one thread checked for `null` is cleared by
//! another before the first one uses it.
//!
//! Only with std locks: no test checks it under the controlled scheduler. The corpus's V6
//! (`jdk::logger`) is MAPTest's bug of the same class, a different one: a handler list that
//! shrinks between its count and the publish.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// This file, as panic locations name it.
pub const FILE: &str = file!();
/// The text of this file, to find the line of a statement with `line_of`.
pub const SOURCE: &str = include_str!("logger.rs");

/// Where a logger publishes its records.
struct Handler {
    name: String,
    records: Vec<String>,
}

/// A named logger with a level and an optional handler, ported from
/// `java.util.logging.Logger` (bug 8 of Pradel & Gross). `log` checks that a handler is
/// installed, formats the record, then locks the handler again to publish it. With
/// `logger.log(1, "a")` on one thread and `logger.remove_handler()` on another, the handler
/// can be removed between the check and the publish, and `log` panics on the `None`.
pub struct Logger {
    name: String,
    level: AtomicU8,
    handler: Mutex<Option<Handler>>,
}

#[thread_safe(test = false)]
impl Logger {
    /// A logger named `name` at level 0 (logs everything), with no handler.
    pub fn new(name: &str) -> Self {
        Logger {
            name: name.to_string(),
            level: AtomicU8::new(0),
            handler: Mutex::new(None),
        }
    }

    /// The logger's name.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// Records below `level` are dropped.
    pub fn set_level(&self, level: u8) {
        self.level.store(level, Ordering::SeqCst);
    }

    /// The lowest level logged.
    pub fn level(&self) -> u8 {
        self.level.load(Ordering::SeqCst)
    }

    /// Installs a fresh handler named `name`; returns whether it replaced one.
    pub fn set_handler(&self, name: &str) -> bool {
        let handler = Handler {
            name: name.to_string(),
            records: Vec::new(),
        };
        self.handler.lock().unwrap().replace(handler).is_some()
    }

    /// Removes the handler; returns whether there was one.
    pub fn remove_handler(&self) -> bool {
        self.handler.lock().unwrap().take().is_some()
    }

    /// Whether a handler is installed.
    pub fn has_handler(&self) -> bool {
        self.handler.lock().unwrap().is_some()
    }

    /// The name of the handler, if one is installed.
    pub fn handler_name(&self) -> Option<String> {
        self.handler
            .lock()
            .unwrap()
            .as_ref()
            .map(|h| h.name.clone())
    }

    /// Publishes `message` to the handler if `level` is logged and a handler is installed;
    /// returns whether it did.
    pub fn log(&self, level: u8, message: &str) -> bool {
        if level < self.level() || !self.has_handler() {
            return false;
        }
        let record = format!("[{}] level {level}: {message}", self.name);
        // BUG: the handler can be removed between `has_handler` and this lock.
        let mut handler = self.handler.lock().unwrap();
        let handler = handler.as_mut().expect("has_handler() saw a handler");
        handler.records.push(record);
        true
    }

    /// The number of records the current handler has published (0 with no handler).
    pub fn published(&self) -> usize {
        self.handler
            .lock()
            .unwrap()
            .as_ref()
            .map_or(0, |h| h.records.len())
    }
}

/// [`Logger`] with `log` fixed: it reads the level, checks for the handler and publishes under
/// one lock, so a concurrent `remove_handler` or `set_level` is wholly before or after it: it
/// either publishes to the handler it saw at the level it saw or returns `false`.
pub struct FixedLogger(Logger);

#[thread_safe]
impl FixedLogger {
    /// A logger named `name` at level 0 (logs everything), with no handler.
    pub fn new(name: &str) -> Self {
        FixedLogger(Logger::new(name))
    }

    /// The logger's name.
    pub fn name(&self) -> String {
        self.0.name()
    }

    /// Records below `level` are dropped. Stored under the handler's lock, so that a `log`
    /// (which reads the level under that lock too) is wholly before or wholly after it.
    pub fn set_level(&self, level: u8) {
        let _handler = self.0.handler.lock().unwrap();
        self.0.set_level(level);
    }

    /// The lowest level logged.
    pub fn level(&self) -> u8 {
        self.0.level()
    }

    /// Installs a fresh handler named `name`; returns whether it replaced one.
    pub fn set_handler(&self, name: &str) -> bool {
        self.0.set_handler(name)
    }

    /// Removes the handler; returns whether there was one.
    pub fn remove_handler(&self) -> bool {
        self.0.remove_handler()
    }

    /// Whether a handler is installed.
    pub fn has_handler(&self) -> bool {
        self.0.has_handler()
    }

    /// The name of the handler, if one is installed.
    pub fn handler_name(&self) -> Option<String> {
        self.0.handler_name()
    }

    /// Publishes `message` to the handler if `level` is logged and a handler is installed;
    /// returns whether it did.
    pub fn log(&self, level: u8, message: &str) -> bool {
        let mut handler = self.0.handler.lock().unwrap();
        if level < self.0.level() {
            return false;
        }
        let record = format!("[{}] level {level}: {message}", self.0.name);
        match handler.as_mut() {
            Some(handler) => {
                handler.records.push(record);
                true
            }
            None => false,
        }
    }

    /// The number of records the current handler has published (0 with no handler).
    pub fn published(&self) -> usize {
        self.0.published()
    }
}
