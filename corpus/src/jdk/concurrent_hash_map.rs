//! V4 of MAPTest: `java.util.concurrent.ConcurrentHashMap` (JDK 1.6.0), an atomicity
//! violation (Pradel & Gross, Figure 4). `putAll(map)` walks the entries of the map it is
//! given without its segments' locks and puts each one; `map.putAll(map)` racing
//! `map.clear()` puts back entries the clear removed, and reads the value of a key that is
//! gone: a `null` value, which `put` rejects with `NullPointerException`.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// The default number of segments (Java's `concurrencyLevel` is 16; fewer keep it small).
pub const DEFAULT_SEGMENTS: usize = 4;

/// The most segments a map may have (Java's `MAX_SEGMENTS` is 65536).
pub const MAX_SEGMENTS: usize = 64;

/// One independently locked part of the map.
type Segment = Mutex<HashMap<String, i32>>;

/// A map from strings to integers split into independently locked segments, after
/// `java.util.concurrent.ConcurrentHashMap`. `put_all` lists the other map's keys, then
/// reads each key's value in a separate lock section and puts it. With `map.put_all(&map)` on
/// one thread and `map.clear()` (or `map.remove(k)`) on another, `put_all` puts back the
/// entries it read before the clear, and a listed key can be gone when its value is read:
/// `put_all` panics on the missing value.
pub struct ConcurrentHashMap {
    segments: Vec<Segment>,
}

impl Default for ConcurrentHashMap {
    fn default() -> Self {
        ConcurrentHashMap::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl ConcurrentHashMap {
    /// An empty map with [`DEFAULT_SEGMENTS`] segments.
    pub fn new() -> Self {
        ConcurrentHashMap::with_concurrency_level(DEFAULT_SEGMENTS)
    }

    /// An empty map with room for about `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        let map = ConcurrentHashMap::new();
        let per_segment = (capacity / DEFAULT_SEGMENTS).min(1 << 12);
        for segment in &map.segments {
            segment.lock().unwrap().reserve(per_segment);
        }
        map
    }

    /// An empty map with `level` segments (at most [`MAX_SEGMENTS`]).
    ///
    /// # Panics
    /// If `level` is 0 (Java's `IllegalArgumentException`).
    pub fn with_concurrency_level(level: usize) -> Self {
        assert!(level > 0, "IllegalArgumentException: concurrency level 0");
        ConcurrentHashMap {
            segments: (0..level.min(MAX_SEGMENTS))
                .map(|_| Mutex::new(HashMap::new()))
                .collect(),
        }
    }

    /// A map holding `entries` (a later entry replaces an earlier one with the same key).
    pub fn from_entries(entries: Vec<(String, i32)>) -> Self {
        let map = ConcurrentHashMap::new();
        for (key, value) in entries {
            map.put(key, value);
        }
        map
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        self.segment(&key).lock().unwrap().insert(key, value)
    }

    /// Maps `key` to `value` unless it has a value; returns the value it has.
    pub fn put_if_absent(&self, key: String, value: i32) -> Option<i32> {
        put_if_absent(&mut self.segment(&key).lock().unwrap(), key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.segment(key).lock().unwrap().get(key).copied()
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        self.segment(key).lock().unwrap().remove(key)
    }

    /// Removes `key` if it maps to `value`; returns whether it did.
    pub fn remove_if_equals(&self, key: &str, value: i32) -> bool {
        remove_if_equals(&mut self.segment(key).lock().unwrap(), key, value)
    }

    /// Maps `key` to `value` only if it has a value; returns the value it replaced.
    pub fn replace(&self, key: String, value: i32) -> Option<i32> {
        self.segment(&key)
            .lock()
            .unwrap()
            .get_mut(&key)
            .map(|v| std::mem::replace(v, value))
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.segment(key).lock().unwrap().contains_key(key)
    }

    /// Whether some key maps to `value`, segment by segment.
    pub fn contains_value(&self, value: i32) -> bool {
        self.segments
            .iter()
            .any(|s| s.lock().unwrap().values().any(|v| *v == value))
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

    /// The values, sorted.
    pub fn values(&self) -> Vec<i32> {
        let mut values: Vec<i32> = self.entries().into_iter().map(|(_, v)| v).collect();
        values.sort_unstable();
        values
    }

    /// The entries, sorted by key, read segment by segment.
    pub fn entries(&self) -> Vec<(String, i32)> {
        self.entries_by_segment()
    }

    /// Copies every entry of `other` into this map; `other` may be `self`.
    pub fn put_all(&self, other: &ConcurrentHashMap) {
        for key in other.keys() {
            // BUG: the entry can be removed between `keys` and `get`; Java's `put` then gets
            // a `null` value.
            let value = other.get(&key);
            let value = value.expect("NullPointerException: a listed key has no value");
            self.put(key, value);
        }
    }
}

impl ConcurrentHashMap {
    /// The segment that holds `key`.
    fn segment(&self, key: &str) -> &Segment {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        &self.segments[(h.finish() % self.segments.len() as u64) as usize]
    }

    /// Every entry, each segment read under its lock, sorted by key.
    fn entries_by_segment(&self) -> Vec<(String, i32)> {
        let mut entries = self.segment_entries();
        entries.sort();
        entries
    }

    /// Every entry, each segment read under its lock.
    fn segment_entries(&self) -> Vec<(String, i32)> {
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

/// `segment.putIfAbsent(key, value)`, under the segment's lock.
fn put_if_absent(segment: &mut HashMap<String, i32>, key: String, value: i32) -> Option<i32> {
    match segment.get(&key) {
        Some(v) => Some(*v),
        None => segment.insert(key, value),
    }
}

/// `segment.remove(key, value)`, under the segment's lock.
fn remove_if_equals(segment: &mut HashMap<String, i32>, key: &str, value: i32) -> bool {
    let equal = segment.get(key) == Some(&value);
    if equal {
        segment.remove(key);
    }
    equal
}

/// [`ConcurrentHashMap`] with `put_all` fixed: it reads `other` with `entries`, each segment
/// once, keys and values together under the segment's lock, so it never looks up a key that
/// is gone; and `map.put_all(&map)` does nothing (a map's own entries are already in it), so
/// it cannot put back what a concurrent `map.clear()` removed.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedConcurrentHashMap(ConcurrentHashMap, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedConcurrentHashMap {
    /// An empty map with [`DEFAULT_SEGMENTS`] segments.
    pub fn new() -> Self {
        FixedConcurrentHashMap(ConcurrentHashMap::new(), Whole::default())
    }

    /// An empty map with room for about `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        FixedConcurrentHashMap(ConcurrentHashMap::with_capacity(capacity), Whole::default())
    }

    /// An empty map with `level` segments (at most [`MAX_SEGMENTS`]).
    ///
    /// # Panics
    /// If `level` is 0 (Java's `IllegalArgumentException`).
    pub fn with_concurrency_level(level: usize) -> Self {
        FixedConcurrentHashMap(
            ConcurrentHashMap::with_concurrency_level(level),
            Whole::default(),
        )
    }

    /// A map holding `entries` (a later entry replaces an earlier one with the same key).
    pub fn from_entries(entries: Vec<(String, i32)>) -> Self {
        FixedConcurrentHashMap(ConcurrentHashMap::from_entries(entries), Whole::default())
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        let _whole = self.1.hold();
        self.0.put(key, value)
    }

    /// Maps `key` to `value` unless it has a value; returns the value it has.
    pub fn put_if_absent(&self, key: String, value: i32) -> Option<i32> {
        let _whole = self.1.hold();
        self.0.put_if_absent(key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        let _whole = self.1.hold();
        self.0.get(key)
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        let _whole = self.1.hold();
        self.0.remove(key)
    }

    /// Removes `key` if it maps to `value`; returns whether it did.
    pub fn remove_if_equals(&self, key: &str, value: i32) -> bool {
        let _whole = self.1.hold();
        self.0.remove_if_equals(key, value)
    }

    /// Maps `key` to `value` only if it has a value; returns the value it replaced.
    pub fn replace(&self, key: String, value: i32) -> Option<i32> {
        let _whole = self.1.hold();
        self.0.replace(key, value)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        let _whole = self.1.hold();
        self.0.contains_key(key)
    }

    /// Whether some key maps to `value`, segment by segment.
    pub fn contains_value(&self, value: i32) -> bool {
        let _whole = self.1.hold();
        self.0.contains_value(value)
    }

    /// The number of entries, segment by segment (not a snapshot under writers).
    pub fn len(&self) -> usize {
        let _whole = self.1.hold();
        self.0.len()
    }

    /// Whether every segment is empty.
    pub fn is_empty(&self) -> bool {
        let _whole = self.1.hold();
        self.0.is_empty()
    }

    /// Removes every entry, one segment at a time.
    pub fn clear(&self) {
        let _whole = self.1.hold();
        self.0.clear();
    }

    /// The keys, segment by segment, sorted.
    pub fn keys(&self) -> Vec<String> {
        let _whole = self.1.hold();
        self.0.keys()
    }

    /// The values, sorted.
    pub fn values(&self) -> Vec<i32> {
        let _whole = self.1.hold();
        self.0.values()
    }

    /// The entries, sorted by key, read segment by segment.
    pub fn entries(&self) -> Vec<(String, i32)> {
        let _whole = self.1.hold();
        self.0.entries()
    }

    /// Copies every entry of `other` into this map; `other` may be `self`.
    pub fn put_all(&self, other: &FixedConcurrentHashMap) {
        let _whole = self.1.hold_both(&other.1);
        if std::ptr::eq(self, other) {
            return; // A map's own entries are already in it: nothing to undo a clear with.
        }
        for (key, value) in other.entries() {
            self.0.put(key, value);
        }
    }
}

/// The V4 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V4",
        name: "concurrent_hash_map",
        original: "java.util.concurrent.ConcurrentHashMap (JDK 1.6.0)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<ConcurrentHashMap>(c),
        check_twin: |c| threadsafe_rt::check::<FixedConcurrentHashMap>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                || ConcurrentHashMap::from_entries(vec![("a".to_string(), 1)]),
                |m| m.put_all(m),
                |m| {
                    m.clear();
                    m.put("a".to_string(), 1);
                },
            )
        },
    }
}
