//! A byte buffer that grows without a lock, and keeps its allocation tight: two `write`s at
//! once may both reallocate the same block, which the allocator detects (an abort) or which
//! corrupts the heap (an abort or a segfault later). Its bytes are read only once the
//! buffer is taken (`into_bytes`), so no result shows the writes it loses: the crash is the
//! only symptom.

use std::cell::UnsafeCell;
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// An append-only byte buffer, written through `&self` without synchronisation.
pub struct Buffer {
    bytes: UnsafeCell<Vec<u8>>,
}

// SAFETY: none. This is the bug: `write` mutates the `Vec` through a shared reference, and
// two threads may do so at once.
unsafe impl Sync for Buffer {}

impl Default for Buffer {
    fn default() -> Self {
        Buffer::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl Buffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Buffer {
            bytes: UnsafeCell::new(Vec::new()),
        }
    }

    /// Appends `data`, keeping the allocation tight: the block grows for the new bytes and
    /// gives back what it does not use.
    pub fn write(&self, data: Vec<u8>) {
        // BUG: two writers at once both reallocate the same block.
        let bytes = unsafe { &mut *self.bytes.get() };
        bytes.extend_from_slice(&data);
        bytes.shrink_to_fit();
    }

    /// The bytes written (taking the buffer: no write can be under way).
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes.into_inner()
    }
}

/// [`Buffer`] behind a lock.
#[derive(Default)]
pub struct FixedBuffer {
    bytes: Mutex<Vec<u8>>,
}

#[thread_safe]
impl FixedBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        FixedBuffer::default()
    }

    /// Appends `data`, keeping the allocation tight.
    pub fn write(&self, data: Vec<u8>) {
        let mut bytes = self.bytes.lock().unwrap();
        bytes.extend_from_slice(&data);
        bytes.shrink_to_fit();
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes.into_inner().unwrap()
    }
}
