//! A bounded queue whose `offer` checks the length against the capacity, then pushes, in
//! two lock sections: two offers into the last free slot both succeed, and the queue holds
//! more than its capacity. Nothing panics; `offer`'s `true` twice and a `len()` above the
//! capacity are results no sequential order gives (Java's `ArrayBlockingQueue.offer` does
//! the check and the insertion under one lock).

use std::collections::VecDeque;
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// A FIFO queue of at most `capacity` numbers.
pub struct BoundedQueue {
    items: Mutex<VecDeque<u32>>,
    capacity: usize,
}

#[thread_safe(test = false, statement_points = "always")]
impl BoundedQueue {
    /// An empty queue of capacity 1.
    pub fn new() -> Self {
        BoundedQueue::with_capacity(1)
    }

    /// An empty queue of capacity `capacity` (at least 1).
    pub fn with_capacity(capacity: u8) -> Self {
        BoundedQueue {
            items: Mutex::new(VecDeque::new()),
            capacity: usize::from(capacity.max(1)),
        }
    }

    /// Appends `item` if there is room; whether it was appended.
    pub fn offer(&self, item: u32) -> bool {
        if self.items.lock().unwrap().len() >= self.capacity {
            return false;
        }
        self.items.lock().unwrap().push_back(item);
        true
    }

    /// Takes the oldest item.
    pub fn poll(&self) -> Option<u32> {
        self.items.lock().unwrap().pop_front()
    }

    /// How many items the queue holds.
    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The correct twin: `offer` checks and appends under one lock.
pub struct FixedBoundedQueue {
    items: Mutex<VecDeque<u32>>,
    capacity: usize,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedBoundedQueue {
    /// An empty queue of capacity 1.
    pub fn new() -> Self {
        FixedBoundedQueue::with_capacity(1)
    }

    /// An empty queue of capacity `capacity` (at least 1).
    pub fn with_capacity(capacity: u8) -> Self {
        FixedBoundedQueue {
            items: Mutex::new(VecDeque::new()),
            capacity: usize::from(capacity.max(1)),
        }
    }

    /// Appends `item` if there is room; whether it was appended.
    pub fn offer(&self, item: u32) -> bool {
        let mut items = self.items.lock().unwrap();
        if items.len() >= self.capacity {
            return false;
        }
        items.push_back(item);
        true
    }

    /// Takes the oldest item.
    pub fn poll(&self) -> Option<u32> {
        self.items.lock().unwrap().pop_front()
    }

    /// How many items the queue holds.
    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
