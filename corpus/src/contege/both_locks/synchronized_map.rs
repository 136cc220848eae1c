//! Bug 9 of Pradel & Gross, Table 1: `java.util.Collections.SynchronizedMap` (JDK 1.4.2),
//! whose `equals` holds its own lock while it reads the other map, which takes the other
//! map's lock: `a.eq(&b)` on one thread and `b.eq(&a)` on another each hold one lock and wait
//! for the other. With `threadsafe_rt::sync` the deadlock is exact under the controlled
//! scheduler (both threads wait in the scheduler, which reports where, and unwinds them);
//! with std locks the stress executor's watchdog reports it. Written once against the
//! including module's `sync`: `std_locks` and `sync_locks` include this file.

use std::collections::BTreeMap;

use super::sync::Mutex;
use threadsafe_rt::thread_safe;

use super::lock_in_address_order;

/// This file, as deadlock reports name it.
pub const FILE: &str = file!();
/// The text of this file, to find the line of a statement with `line_of`.
pub const SOURCE: &str = include_str!("synchronized_map.rs");

/// A map from strings to integers behind one lock, ported from `Collections.synchronizedMap`
/// (bug 9 of Pradel & Gross). `eq` holds `self`'s lock while it locks `other`: with
/// `a.eq(&b)` on one thread and `b.eq(&a)` on another, each thread can take its own map's
/// lock and wait forever for the other's. As in the JDK, a map is equal to itself without
/// locking (`if (this == o) return true;`), so `a.eq(&a)` does not deadlock sequentially.
pub struct SynchronizedMap {
    entries: Mutex<BTreeMap<String, i32>>,
}

impl Default for SynchronizedMap {
    fn default() -> Self {
        SynchronizedMap::new()
    }
}

#[thread_safe(test = false)]
impl SynchronizedMap {
    /// An empty map.
    pub fn new() -> Self {
        SynchronizedMap {
            entries: Mutex::new(BTreeMap::new()),
        }
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn insert(&self, key: String, value: i32) -> Option<i32> {
        self.entries.lock().unwrap().insert(key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.entries.lock().unwrap().get(key).copied()
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        self.entries.lock().unwrap().remove(key)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }

    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.lock().unwrap().is_empty()
    }

    /// Removes every entry.
    pub fn clear(&self) {
        self.entries.lock().unwrap().clear();
    }

    /// Copies every entry of `other` into this map; `other` may be `self`. Takes a snapshot
    /// of `other` first, so it never holds both locks.
    pub fn extend_from(&self, other: &SynchronizedMap) {
        let snapshot = other.entries.lock().unwrap().clone();
        self.entries.lock().unwrap().extend(snapshot);
    }

    /// Whether both maps hold the same entries.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(&self, other: &SynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        let mine = self.entries.lock().unwrap();
        // BUG: `other` is locked while this thread holds `self`; a thread running
        // `other.eq(self)` holds `other` and waits for `self`.
        let theirs = other.entries.lock().unwrap();
        *mine == *theirs
    }
}

/// [`SynchronizedMap`] with `eq` fixed: two maps are locked in address order, so `a.eq(&b)`
/// and `b.eq(&a)` take the same lock first and cannot deadlock. `extend_from` holds both
/// locks the same way, so that it is one step for the result oracle too (the original's
/// snapshot-then-extend lets a concurrent `remove` of a copied key be undone).
#[derive(Default)]
pub struct FixedSynchronizedMap(SynchronizedMap);

#[thread_safe]
impl FixedSynchronizedMap {
    /// An empty map.
    pub fn new() -> Self {
        FixedSynchronizedMap(SynchronizedMap::new())
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn insert(&self, key: String, value: i32) -> Option<i32> {
        self.0.insert(key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.0.get(key)
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        self.0.remove(key)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// Copies every entry of `other` into this map; `other` may be `self` (then nothing
    /// changes). Holds both locks, taken in address order, so the copy is one step.
    pub fn extend_from(&self, other: &FixedSynchronizedMap) {
        if std::ptr::eq(self, other) {
            return;
        }
        let (mut mine, theirs) = lock_in_address_order(&self.0.entries, &other.0.entries);
        mine.extend(theirs.iter().map(|(k, v)| (k.clone(), *v)));
    }

    /// Whether both maps hold the same entries.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(&self, other: &FixedSynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        let (mine, theirs) = lock_in_address_order(&self.0.entries, &other.0.entries);
        *mine == *theirs
    }
}
