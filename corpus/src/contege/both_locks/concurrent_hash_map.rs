//! Bug 2 of Pradel & Gross, Table 1: `java.util.concurrent.ConcurrentHashMap` (JDK 1.6 and
//! 1.7), whose `putAll(map)` reads the entries of the map it is given with no lock, so that
//! `map.putAll(map)` undoes a concurrent `clear()`. Written once against the including
//! module's `sync`: `std_locks` and `sync_locks` include this file, and so does a std test.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::sync::{Mutex, MutexGuard};
use threadsafe_rt::thread_safe;

/// This file, as panic locations name it.
pub const FILE: &str = file!();
/// The text of this file, to find the line of a statement with `line_of`.
pub const SOURCE: &str = include_str!("concurrent_hash_map.rs");

/// How many independently locked segments a map has.
const SEGMENTS: usize = 4;

/// A map from strings to integers split into independently locked segments, ported from
/// `java.util.concurrent.ConcurrentHashMap` (bug 2 of Pradel & Gross). `put_all` lists the
/// other map's keys, then reads each key's value in a separate lock section. With
/// `map.put_all(&map)` on one thread and `map.clear()` on another, a listed key can be gone
/// when its value is read, and `put_all` panics on the missing entry.
pub struct ConcurrentHashMap {
    segments: [Mutex<HashMap<String, i32>>; SEGMENTS],
}

impl Default for ConcurrentHashMap {
    fn default() -> Self {
        ConcurrentHashMap::new()
    }
}

#[thread_safe(test = false)]
impl ConcurrentHashMap {
    /// An empty map.
    pub fn new() -> Self {
        ConcurrentHashMap {
            segments: std::array::from_fn(|_| Mutex::new(HashMap::new())),
        }
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        self.segment(&key).lock().unwrap().insert(key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.segment(key).lock().unwrap().get(key).copied()
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        self.segment(key).lock().unwrap().remove(key)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.segment(key).lock().unwrap().contains_key(key)
    }

    /// The number of entries, segment by segment (not a snapshot under writers).
    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.lock().unwrap().len()).sum()
    }

    /// Whether every segment is empty.
    pub fn is_empty(&self) -> bool {
        self.segments.iter().all(|s| s.lock().unwrap().is_empty())
    }

    /// Removes every entry, one segment at a time.
    pub fn clear(&self) {
        for segment in &self.segments {
            segment.lock().unwrap().clear();
        }
    }

    /// The keys, segment by segment, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .segments
            .iter()
            .flat_map(|s| s.lock().unwrap().keys().cloned().collect::<Vec<_>>())
            .collect();
        keys.sort();
        keys
    }

    /// Copies every entry of `other` into this map; `other` may be `self`.
    pub fn put_all(&self, other: &ConcurrentHashMap) {
        for key in other.keys() {
            // BUG: the entry can be removed between `keys` and `get`.
            let value = other.get(&key).expect("a key listed by `keys` has a value");
            self.put(key, value);
        }
    }
}

impl ConcurrentHashMap {
    /// The segment that holds `key`.
    fn segment(&self, key: &str) -> &Mutex<HashMap<String, i32>> {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        &self.segments[(h.finish() % SEGMENTS as u64) as usize]
    }
}

/// [`ConcurrentHashMap`] with `put_all` fixed, and linearizable as a whole: the operations on
/// one key lock its segment; the whole-map ones (`len`, `is_empty`, `clear`, `keys`,
/// `put_all`) hold every segment's lock at once, taken in segment order, and `put_all` of two
/// maps takes the lower-addressed map's segments first. The original reads segment by
/// segment, which the JDK documents as weakly consistent: `len` beside two `put`s, or
/// `put_all(&map)` beside `clear`, can give results that no sequential order gives, which
/// the result oracle rightly reports.
#[derive(Default)]
pub struct FixedConcurrentHashMap(ConcurrentHashMap);

#[thread_safe]
impl FixedConcurrentHashMap {
    /// An empty map.
    pub fn new() -> Self {
        FixedConcurrentHashMap(ConcurrentHashMap::new())
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        self.0.put(key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.0.get(key)
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        self.0.remove(key)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.lock_all().iter().map(|s| s.len()).sum()
    }

    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.lock_all().iter().all(|s| s.is_empty())
    }

    /// Removes every entry.
    pub fn clear(&self) {
        for mut segment in self.lock_all() {
            segment.clear();
        }
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .lock_all()
            .iter()
            .flat_map(|s| s.keys().cloned().collect::<Vec<_>>())
            .collect();
        keys.sort();
        keys
    }

    /// Copies every entry of `other` into this map; `other` may be `self` (then nothing
    /// changes).
    pub fn put_all(&self, other: &FixedConcurrentHashMap) {
        if std::ptr::eq(self, other) {
            return;
        }
        let (mut mine, theirs) = if std::ptr::from_ref(self) < std::ptr::from_ref(other) {
            let mine = self.lock_all();
            (mine, other.lock_all())
        } else {
            let theirs = other.lock_all();
            (self.lock_all(), theirs)
        };
        // Both maps hash a key to the same segment index.
        for (to, from) in mine.iter_mut().zip(&theirs) {
            to.extend(from.iter().map(|(k, v)| (k.clone(), *v)));
        }
    }
}

impl FixedConcurrentHashMap {
    /// Every segment's guard, taken in segment order.
    fn lock_all(&self) -> Vec<MutexGuard<'_, HashMap<String, i32>>> {
        self.0.segments.iter().map(|s| s.lock().unwrap()).collect()
    }
}
