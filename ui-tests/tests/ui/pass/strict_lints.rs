//! The expansion stays quiet under the strict lints crates often deny, beyond `warnings`.
#![deny(
    warnings,
    missing_docs,
    unused_qualifications,
    unused_results,
    rust_2018_idioms
)]
#![deny(trivial_casts, trivial_numeric_casts, unused_import_braces)]
#![deny(clippy::all, clippy::pedantic)]

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use threadsafe_rt::thread_safe;

/// A counter.
#[derive(Debug, Default)]
pub struct Counter {
    n: AtomicI64,
}

#[thread_safe(budget = "50ms", deadlock_timeout = "1s", executor = "paper")]
impl Counter {
    /// A counter at zero.
    #[must_use]
    pub fn new() -> Self {
        Counter::default()
    }
    /// Adds `by`; returns the previous value.
    pub fn add(&self, by: i64) -> i64 {
        self.n.fetch_add(by, Ordering::SeqCst)
    }
    /// The value.
    #[must_use]
    pub fn get(&self) -> i64 {
        self.n.load(Ordering::SeqCst)
    }
    /// Adds the other counter's value.
    pub fn absorb(&self, other: &Arc<Self>) {
        let _previous = self.add(other.get());
    }
    /// Sets the value.
    pub fn set(&mut self, v: i64) {
        *self.n.get_mut() = v;
    }
    /// The value as text.
    #[must_use]
    pub fn label(&self, prefix: &str) -> String {
        format!("{prefix}{}", self.get())
    }
}

/// Uses the methods.
pub fn main() {
    let c = Arc::new(Counter::new());
    c.absorb(&Arc::new(Counter::new()));
    let mut d = Counter::new();
    d.set(c.add(1));
    assert_eq!(d.label("n="), "n=0");
}
