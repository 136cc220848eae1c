//! A concurrent set whose `insert` checks for the key in one lock section and inserts it in
//! another: two threads inserting one key can both be told they inserted it first (both get
//! `true`), which no sequential order gives — the check-then-act that Java's
//! `Collections.synchronizedSet` invites when `contains` and `add` are called apart.

use std::collections::HashSet;
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// A set of strings. `insert` is a `contains` then an `insert` under two locks.
pub struct ConcurrentSet {
    items: Mutex<HashSet<String>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl ConcurrentSet {
    /// An empty set.
    pub fn new() -> Self {
        ConcurrentSet {
            items: Mutex::new(HashSet::new()),
        }
    }

    /// A set holding `item`.
    pub fn of(item: &str) -> Self {
        let set = ConcurrentSet::new();
        set.items.lock().unwrap().insert(item.to_string());
        set
    }

    /// Adds `item`; true if it was not there.
    pub fn insert(&self, item: &str) -> bool {
        if self.items.lock().unwrap().contains(item) {
            return false;
        }
        self.items.lock().unwrap().insert(item.to_string());
        true
    }

    /// Removes `item`; true if it was there.
    pub fn remove(&self, item: &str) -> bool {
        self.items.lock().unwrap().remove(item)
    }

    /// Whether `item` is in the set.
    pub fn contains(&self, item: &str) -> bool {
        self.items.lock().unwrap().contains(item)
    }

    /// How many items the set holds.
    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The correct twin: `insert` is one `HashSet::insert` under one lock.
pub struct FixedConcurrentSet {
    items: Mutex<HashSet<String>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedConcurrentSet {
    /// An empty set.
    pub fn new() -> Self {
        FixedConcurrentSet {
            items: Mutex::new(HashSet::new()),
        }
    }

    /// A set holding `item`.
    pub fn of(item: &str) -> Self {
        let set = FixedConcurrentSet::new();
        set.items.lock().unwrap().insert(item.to_string());
        set
    }

    /// Adds `item`; true if it was not there.
    pub fn insert(&self, item: &str) -> bool {
        self.items.lock().unwrap().insert(item.to_string())
    }

    /// Removes `item`; true if it was there.
    pub fn remove(&self, item: &str) -> bool {
        self.items.lock().unwrap().remove(item)
    }

    /// Whether `item` is in the set.
    pub fn contains(&self, item: &str) -> bool {
        self.items.lock().unwrap().contains(item)
    }

    /// How many items the set holds.
    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
