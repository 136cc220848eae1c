//! The expansion stays quiet under the strict lints crates often deny, beyond `warnings`,
//! also with the statement points in every shape of method body (compiled with `cfg(test)`
//! by `tests/generated_code_is_warning_free.rs`, where clippy lints them).
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

#[thread_safe(
    budget = "50ms",
    deadlock_timeout = "1s",
    executor = "paper",
    guide = "map",
    stop_when_covered = true
)]
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
    /// The sign of the value. A literal `0` as a block's tail once looked zero-prefixed to
    /// clippy: the statement point's `line!()` before it carried the literal's span.
    #[must_use]
    pub fn sign(&self) -> i64 {
        match self.get().cmp(&0) {
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
        }
    }

    /// The leading digit of the value, through every shape of body the statement points go
    /// into: `?`, `let .. else`, a labeled loop breaking with a value, `match` arms that are
    /// blocks, a closure, an `unsafe` block and a labeled block.
    ///
    /// # Errors
    ///
    /// When the value is negative.
    pub fn leading_digit(&self) -> Result<Option<u32>, String> {
        let value = u64::try_from(self.get()).map_err(|e| e.to_string())?;
        let text = value.to_string();
        let Some(first) = text.bytes().next() else {
            return Ok(None);
        };
        let mut bytes = text.bytes();
        let mut count = 0_usize;
        let all_digits = 'scan: loop {
            match bytes.next() {
                Some(b) if b.is_ascii_digit() => {
                    count += 1;
                }
                Some(_) => {
                    break 'scan false;
                }
                None => break count == text.len(),
            }
        };
        let digit = |b: u8| {
            let d = b.wrapping_sub(b'0');
            (d < 10).then_some(u32::from(d))
        };
        // SAFETY: the decimal text of a number is ASCII, hence UTF-8.
        let again = unsafe { core::str::from_utf8_unchecked(text.as_bytes()) };
        let checked = 'check: {
            if !all_digits {
                break 'check false;
            }
            again.len() == count
        };
        if checked {
            Ok(digit(first))
        } else {
            Err(format!("`{again}` is not a number"))
        }
    }
    /// Where the counter lives: differs between runs, so its results are never compared.
    #[must_use]
    #[thread_safe(nondeterministic)]
    pub fn address(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }
    /// The atomic: `const fn` bodies get no statement point (it would not compile).
    #[must_use]
    pub const fn inner(&self) -> &AtomicI64 {
        &self.n
    }
}

/// Uses the methods.
pub fn main() {
    let c = Arc::new(Counter::new());
    c.absorb(&Arc::new(Counter::new()));
    let mut d = Counter::new();
    d.set(c.add(1));
    assert_eq!(d.label("n="), "n=0");
    assert_eq!(c.leading_digit(), Ok(Some(1)));
    assert_eq!(Counter::new().leading_digit(), Ok(Some(0)));
    let negative = Counter::new();
    let _previous = negative.add(-5);
    assert!(negative.leading_digit().is_err());
    assert_eq!(c.inner().load(Ordering::SeqCst), 1);
    assert_ne!(c.address(), 0);
}
