//! A correct type whose methods panic on bad input, sequentially: the oracle must not blame a
//! panic that some sequential order of the same calls also produces.

use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// This file, as panic locations name it.
pub const FILE: &str = file!();
/// The text of this file, to find the line of a statement with [`line_of`](crate::line_of).
pub const SOURCE: &str = include_str!("bounded_stack.rs");

/// A stack of integers with a fixed capacity. Every method takes the lock once, so it is
/// thread-safe, but several panic by contract: `push` on a full stack, `pop` on an empty one,
/// `get` and `swap` with an index out of range. Two threads that `pop` a one-element stack
/// make one of them panic, and so does every sequential order of the two calls: that is the
/// documented precondition failing, not a thread-safety violation.
pub struct BoundedStack {
    capacity: usize,
    items: Mutex<Vec<i32>>,
}

#[thread_safe]
impl BoundedStack {
    /// An empty stack that holds at most `capacity` items.
    pub fn new(capacity: usize) -> Self {
        BoundedStack {
            capacity,
            items: Mutex::new(Vec::new()),
        }
    }

    /// Pushes `value`.
    ///
    /// # Panics
    /// If the stack is full.
    pub fn push(&self, value: i32) {
        let mut items = self.items.lock().unwrap();
        assert!(items.len() < self.capacity, "push on a full stack");
        items.push(value);
    }

    /// Pops the top item.
    ///
    /// # Panics
    /// If the stack is empty.
    pub fn pop(&self) -> i32 {
        self.items
            .lock()
            .unwrap()
            .pop()
            .expect("pop on an empty stack")
    }

    /// The top item, if any.
    pub fn peek(&self) -> Option<i32> {
        self.items.lock().unwrap().last().copied()
    }

    /// The item at `index`, counted from the bottom.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn get(&self, index: usize) -> i32 {
        self.items.lock().unwrap()[index]
    }

    /// Swaps the items at `i` and `j`.
    ///
    /// # Panics
    /// If `i` or `j` is not less than [`len`](Self::len).
    pub fn swap(&self, i: usize, j: usize) {
        self.items.lock().unwrap().swap(i, j);
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Whether the stack holds no item.
    pub fn is_empty(&self) -> bool {
        self.items.lock().unwrap().is_empty()
    }

    /// Whether the stack holds `capacity` items.
    pub fn is_full(&self) -> bool {
        self.items.lock().unwrap().len() >= self.capacity
    }

    /// Removes every item.
    pub fn clear(&self) {
        self.items.lock().unwrap().clear();
    }
}
