//! A pool of slots over tokio's `Semaphore` that checks whether a permit is left, then
//! awaits one: with one permit left, two callers both see it, one takes it, and the other
//! waits forever for a permit that is never given back. Sequentially the second caller is
//! told there is none.

use threadsafe_rt::thread_safe;
use tokio::sync::Semaphore;

/// The buggy type's file, for the harness.
pub const FILE: &str = file!();

/// The pools' slots.
const SLOTS: usize = 1;

/// One slot; a reserved slot is kept for good.
pub struct Slots {
    permits: Semaphore,
}

#[thread_safe(test = false, statement_points = "always")]
impl Slots {
    /// A pool with one slot.
    pub fn new() -> Self {
        Slots {
            permits: Semaphore::new(SLOTS),
        }
    }

    /// Reserves a slot for good; false if none is left.
    pub async fn reserve(&self) -> bool {
        if self.permits.available_permits() == 0 {
            return false;
        }
        let permit = self.permits.acquire().await.expect("never closed");
        permit.forget();
        true
    }

    /// How many slots were reserved.
    pub fn reserved(&self) -> usize {
        SLOTS - self.permits.available_permits()
    }
}

/// The correct twin: `try_acquire` checks and takes the permit at once.
pub struct FixedSlots {
    permits: Semaphore,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedSlots {
    /// A pool with one slot.
    pub fn new() -> Self {
        FixedSlots {
            permits: Semaphore::new(SLOTS),
        }
    }

    /// Reserves a slot for good; false if none is left.
    pub async fn reserve(&self) -> bool {
        let Ok(permit) = self.permits.try_acquire() else {
            return false;
        };
        permit.forget();
        true
    }

    /// How many slots were reserved.
    pub fn reserved(&self) -> usize {
        SLOTS - self.permits.available_permits()
    }
}
