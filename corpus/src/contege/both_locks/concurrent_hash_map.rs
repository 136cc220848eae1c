//! Bug 2 of Pradel & Gross, Table 1: `java.util.concurrent.ConcurrentHashMap` (JDK 1.6 and
//! 1.7), whose `putAll(map)` reads the entries of the map it is given with no lock, so that
//! `map.putAll(map)` undoes a concurrent `clear()`. Written once against the including
//! module's `sync`: `std_locks` and `sync_locks` include this file, and so does a std test.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::sync::Mutex;
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

    /// Every entry, each segment's keys and values read together under its lock.
    fn entries(&self) -> Vec<(String, i32)> {
        self.segments
            .iter()
            .flat_map(|s| {
                let segment = s.lock().unwrap();
                segment
                    .iter()
                    .map(|(k, v)| (k.clone(), *v))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// [`ConcurrentHashMap`] with `put_all` fixed: it reads each segment of `other` once, keys and
/// values together under the segment's lock, then puts the pairs. `map.put_all(&map)` racing
/// `map.clear()` now copies the entries some segment held at some moment, as the JDK
/// documents for its weakly consistent iterators, and never looks up a key that is gone.
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

    /// The number of entries, segment by segment (not a snapshot under writers).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether every segment is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes every entry, one segment at a time.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// The keys, segment by segment, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.0.keys()
    }

    /// Copies every entry of `other` into this map; `other` may be `self`.
    pub fn put_all(&self, other: &FixedConcurrentHashMap) {
        for (key, value) in other.0.entries() {
            self.0.put(key, value);
        }
    }
}
