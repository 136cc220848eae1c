//! The scenario of the `throughput` benchmark as a type for `threadsafe`: each call of
//! [`Counter::step`] locks a mutex, increments, unlocks, and `fetch_add`s an atomic. Two
//! threads each calling `step` once is one execution.

use threadsafe_rt::sync::atomic::{AtomicUsize, Ordering};
use threadsafe_rt::sync::Mutex;
use threadsafe_rt::thread_safe;

/// A correct counter: a mutex-protected count and an atomic hit counter.
#[derive(Default)]
pub struct Counter {
    count: Mutex<u64>,
    hits: AtomicUsize,
}

#[thread_safe(test = false)]
impl Counter {
    /// A counter at zero.
    pub fn new() -> Self {
        Counter::default()
    }

    /// Lock, increment, unlock; then `fetch_add` the hits. Two scheduling points.
    pub fn step(&self) {
        *self.count.lock().unwrap() += 1;
        self.hits.fetch_add(1, Ordering::SeqCst);
    }
}

impl Counter {
    /// The count and the hits (not a method the check calls: the generated test is then
    /// exactly `new()`, then `step()` on each thread).
    pub fn totals(&self) -> (u64, usize) {
        (
            *self.count.lock().unwrap(),
            self.hits.load(Ordering::SeqCst),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_count() {
        let c = Counter::new();
        c.step();
        c.step();
        assert_eq!(c.totals(), (2, 2));
    }
}
