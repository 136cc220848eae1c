//! A one-value slot without a lock: two `take`s at once may both move the value out of the
//! `Option` and drop it, freeing one `String` twice, which the allocator detects (an abort);
//! two `put`s at once may both drop the old value the same way.

use std::cell::UnsafeCell;
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// A slot that holds at most one `String`, handed between threads without a lock.
pub struct Slot {
    value: UnsafeCell<Option<String>>,
}

// SAFETY: none. This is the bug: `take` and `put` move values in and out through a shared
// reference, and two threads may do so at once.
unsafe impl Sync for Slot {}

impl Default for Slot {
    fn default() -> Self {
        Slot::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl Slot {
    /// An empty slot.
    pub fn new() -> Self {
        Slot {
            value: UnsafeCell::new(None),
        }
    }

    /// Puts `value` in the slot, dropping what it held.
    pub fn put(&self, value: String) {
        // BUG: two `put`s at once may both drop the old value.
        unsafe { *self.value.get() = Some(value) }
    }

    /// Takes the value out, if there is one.
    pub fn take(&self) -> Option<String> {
        // BUG: two `take`s at once may both move the value out.
        unsafe { (*self.value.get()).take() }
    }
}

/// [`Slot`] behind a lock.
#[derive(Default)]
pub struct FixedSlot {
    value: Mutex<Option<String>>,
}

#[thread_safe]
impl FixedSlot {
    /// An empty slot.
    pub fn new() -> Self {
        FixedSlot::default()
    }

    /// Puts `value` in the slot, dropping what it held.
    pub fn put(&self, value: String) {
        *self.value.lock().unwrap() = Some(value);
    }

    /// Takes the value out, if there is one.
    pub fn take(&self) -> Option<String> {
        self.value.lock().unwrap().take()
    }
}
