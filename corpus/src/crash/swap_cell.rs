//! A lock-free cell whose `set` frees the old value's box at once: a `get` that loaded the
//! old pointer just before reads the freed box (no hazard pointers, no epochs), where the
//! allocator has written its own bookkeeping over the `Arc` the box held, and increments a
//! reference count at whatever address that makes: a segfault. A `get` that cloned the `Arc`
//! before the free returns a value that is still alive, so no result is ever wrong: the crash
//! is the only symptom.

use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, RwLock};

use threadsafe_rt::thread_safe;

/// A `String` that threads read and replace without a lock.
pub struct SwapCell {
    value: AtomicPtr<Arc<String>>,
}

// SAFETY: none. This is the bug: `set` frees the box a concurrent `get` may be reading.
unsafe impl Sync for SwapCell {}
unsafe impl Send for SwapCell {}

impl Default for SwapCell {
    fn default() -> Self {
        SwapCell::new()
    }
}

impl Drop for SwapCell {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` and nothing else holds it now.
        drop(unsafe { Box::from_raw(*self.value.get_mut()) });
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl SwapCell {
    /// A cell holding the empty string.
    pub fn new() -> Self {
        SwapCell {
            value: AtomicPtr::new(Box::into_raw(Box::new(Arc::new(String::new())))),
        }
    }

    /// A copy of the value.
    pub fn get(&self) -> String {
        let p = self.value.load(Ordering::Acquire);
        // BUG: a concurrent `set` may have freed the box `p` points to by now.
        let value: Arc<String> = unsafe { (*p).clone() };
        (*value).clone()
    }

    /// Replaces the value, and frees the old one's box at once.
    pub fn set(&self, value: String) {
        let new = Box::into_raw(Box::new(Arc::new(value)));
        let old = self.value.swap(new, Ordering::AcqRel);
        // BUG: a `get` that loaded `old` may still be reading it.
        drop(unsafe { Box::from_raw(old) });
    }
}

/// [`SwapCell`] with a lock.
#[derive(Default)]
pub struct FixedSwapCell {
    value: RwLock<String>,
}

#[thread_safe]
impl FixedSwapCell {
    /// A cell holding the empty string.
    pub fn new() -> Self {
        FixedSwapCell::default()
    }

    /// A copy of the value.
    pub fn get(&self) -> String {
        self.value.read().unwrap().clone()
    }

    /// Replaces the value.
    pub fn set(&self, value: String) {
        *self.value.write().unwrap() = value;
    }
}
