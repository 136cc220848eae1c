//! A hit counter whose `hit` reads the count and writes it back plus one in two atomic
//! operations: two concurrent hits can both read 0 and both return 1, and one hit is lost
//! (the count after them is 1). Nothing panics; only the results show it — the classic lost
//! update that lincheck's tutorials start with.

use std::sync::atomic::{AtomicU64, Ordering};

use threadsafe_rt::thread_safe;

/// Counts hits. `hit` is a load then a store, so concurrent hits lose updates.
pub struct HitCounter {
    count: AtomicU64,
}

#[thread_safe(test = false, statement_points = "always")]
impl HitCounter {
    /// A counter at zero.
    pub fn new() -> Self {
        HitCounter::starting_at(0)
    }

    /// A counter at `start`.
    pub fn starting_at(start: u32) -> Self {
        HitCounter {
            count: AtomicU64::new(u64::from(start)),
        }
    }

    /// Counts one hit; the count after it.
    pub fn hit(&self) -> u64 {
        let seen = self.count.load(Ordering::SeqCst);
        self.count.store(seen + 1, Ordering::SeqCst);
        seen + 1
    }

    /// Counts `n` hits at once; the count after them.
    pub fn hits(&self, n: u8) -> u64 {
        self.count.fetch_add(u64::from(n), Ordering::SeqCst) + u64::from(n)
    }

    /// The count.
    pub fn get(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Whether nothing was counted.
    pub fn is_zero(&self) -> bool {
        self.get() == 0
    }

    /// Starts over from zero.
    pub fn reset(&mut self) {
        *self.count.get_mut() = 0;
    }
}

/// The correct twin: `hit` is one `fetch_add`.
pub struct FixedHitCounter {
    count: AtomicU64,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedHitCounter {
    /// A counter at zero.
    pub fn new() -> Self {
        FixedHitCounter::starting_at(0)
    }

    /// A counter at `start`.
    pub fn starting_at(start: u32) -> Self {
        FixedHitCounter {
            count: AtomicU64::new(u64::from(start)),
        }
    }

    /// Counts one hit; the count after it.
    pub fn hit(&self) -> u64 {
        self.count.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Counts `n` hits at once; the count after them.
    pub fn hits(&self, n: u8) -> u64 {
        self.count.fetch_add(u64::from(n), Ordering::SeqCst) + u64::from(n)
    }

    /// The count.
    pub fn get(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Whether nothing was counted.
    pub fn is_zero(&self) -> bool {
        self.get() == 0
    }

    /// Starts over from zero.
    pub fn reset(&mut self) {
        *self.count.get_mut() = 0;
    }
}
