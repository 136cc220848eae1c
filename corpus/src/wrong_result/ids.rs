//! An id table (an interner) whose `id` looks the name up under a read lock and, when it
//! is missing, draws a new id and inserts it under a write lock without looking again: two
//! threads asking for one new name can get two different ids for it, and the table keeps
//! the last — the race that string interners guard against with a second lookup.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::RwLock;

use threadsafe_rt::thread_safe;

/// Gives each name a number, the same every time it is asked for.
pub struct IdTable {
    ids: RwLock<HashMap<String, u32>>,
    next: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl IdTable {
    /// An empty table.
    pub fn new() -> Self {
        IdTable {
            ids: RwLock::new(HashMap::new()),
            next: AtomicU32::new(0),
        }
    }

    /// The id of `name`, given a new one if it has none.
    pub fn id(&self, name: &str) -> u32 {
        if let Some(&id) = self.ids.read().unwrap().get(name) {
            return id;
        }
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        self.ids.write().unwrap().insert(name.to_string(), id);
        id
    }

    /// The id of `name`, if it has one.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.read().unwrap().get(name).copied()
    }

    /// How many names have ids.
    pub fn len(&self) -> usize {
        self.ids.read().unwrap().len()
    }

    /// Whether no name has an id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The correct twin: a missing name is looked up again under the write lock.
pub struct FixedIdTable {
    ids: RwLock<HashMap<String, u32>>,
    next: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedIdTable {
    /// An empty table.
    pub fn new() -> Self {
        FixedIdTable {
            ids: RwLock::new(HashMap::new()),
            next: AtomicU32::new(0),
        }
    }

    /// The id of `name`, given a new one if it has none.
    pub fn id(&self, name: &str) -> u32 {
        if let Some(&id) = self.ids.read().unwrap().get(name) {
            return id;
        }
        let mut ids = self.ids.write().unwrap();
        *ids.entry(name.to_string())
            .or_insert_with(|| self.next.fetch_add(1, Ordering::SeqCst))
    }

    /// The id of `name`, if it has one.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.read().unwrap().get(name).copied()
    }

    /// How many names have ids.
    pub fn len(&self) -> usize {
        self.ids.read().unwrap().len()
    }

    /// Whether no name has an id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
