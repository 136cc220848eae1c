//! Running statistics kept in two atomics, a count and a sum, that `record` updates one
//! after the other and `snapshot` reads one after the other: a snapshot taken during a
//! record can count a value whose sum it has not seen (`(1, 0)` after recording 5), a pair
//! no sequential order gives — the non-atomic aggregate reads that Violat and lincheck
//! report in Java's concurrent collections (`size()` during `putAll`, `sum()` of a
//! `LongAdder` beside an update).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// Counts values and sums them, in two atomics.
pub struct Stats {
    count: AtomicU64,
    sum: AtomicU64,
}

#[thread_safe(test = false, statement_points = "always")]
impl Stats {
    /// No value recorded.
    pub fn new() -> Self {
        Stats {
            count: AtomicU64::new(0),
            sum: AtomicU64::new(0),
        }
    }

    /// Records `value`.
    pub fn record(&self, value: u16) {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.sum.fetch_add(u64::from(value), Ordering::SeqCst);
    }

    /// How many values were recorded, and their sum.
    pub fn snapshot(&self) -> (u64, u64) {
        let count = self.count.load(Ordering::SeqCst);
        (count, self.sum.load(Ordering::SeqCst))
    }

    /// How many values were recorded.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }
}

/// The correct twin: count and sum live under one lock.
pub struct FixedStats {
    totals: Mutex<(u64, u64)>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedStats {
    /// No value recorded.
    pub fn new() -> Self {
        FixedStats {
            totals: Mutex::new((0, 0)),
        }
    }

    /// Records `value`.
    pub fn record(&self, value: u16) {
        let mut t = self.totals.lock().unwrap();
        t.0 += 1;
        t.1 += u64::from(value);
    }

    /// How many values were recorded, and their sum.
    pub fn snapshot(&self) -> (u64, u64) {
        *self.totals.lock().unwrap()
    }

    /// How many values were recorded.
    pub fn count(&self) -> u64 {
        self.totals.lock().unwrap().0
    }
}
