//! A latch over tokio's `Notify`: `wait` looks at the flag, then listens; `open` sets the
//! flag and calls `notify_waiters`, which wakes only the listeners already registered. An
//! `open` between the look and the listening is lost, and `wait` waits forever: a lost
//! wake-up. In every sequential order, the `wait` before an `open` is woken by it.
//!
//! `wait` is async and `open` is not: one type, checked with both kinds of method.

use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};

use threadsafe_rt::thread_safe;
use tokio::sync::Notify;

/// The buggy type's file, for the harness.
pub const FILE: &str = file!();

/// Closed until opened, then open for good.
pub struct Latch {
    open: AtomicBool,
    opened: Notify,
}

#[thread_safe(test = false, statement_points = "always")]
impl Latch {
    /// A closed latch.
    pub fn new() -> Self {
        Latch {
            open: AtomicBool::new(false),
            opened: Notify::new(),
        }
    }

    /// Waits until the latch is open.
    pub async fn wait(&self) {
        if self.open.load(Ordering::SeqCst) {
            return;
        }
        self.opened.notified().await;
    }

    /// Opens the latch, waking every waiter.
    pub fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
        self.opened.notify_waiters();
    }

    /// Whether the latch is open.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::SeqCst)
    }
}

/// The correct twin: `wait` registers as a listener (`Notified::enable`) before it looks
/// at the flag, as tokio's documentation of `notify_waiters` shows.
pub struct FixedLatch {
    open: AtomicBool,
    opened: Notify,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedLatch {
    /// A closed latch.
    pub fn new() -> Self {
        FixedLatch {
            open: AtomicBool::new(false),
            opened: Notify::new(),
        }
    }

    /// Waits until the latch is open.
    pub async fn wait(&self) {
        let mut notified = pin!(self.opened.notified());
        notified.as_mut().enable();
        if self.open.load(Ordering::SeqCst) {
            return;
        }
        notified.await;
    }

    /// Opens the latch, waking every waiter.
    pub fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
        self.opened.notify_waiters();
    }

    /// Whether the latch is open.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::SeqCst)
    }
}
