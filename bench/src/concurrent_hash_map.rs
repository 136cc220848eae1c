//! A segmented `ConcurrentHashMap` whose `put_all(&other)` lists `other`'s keys, then gets
//! each with `expect` (bug 2 of Pradel & Gross, `java.util.concurrent.ConcurrentHashMap`),
//! and its correct twin. Both use [`threadsafe_rt::sync::Mutex`].

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use threadsafe_rt::sync::Mutex;
use threadsafe_rt::thread_safe;

/// The message of the buggy `put_all`'s panic.
pub const PUT_ALL_PANIC: &str = "a listed key has a value";

/// How many independently locked segments a map has.
const SEGMENTS: usize = 4;

type Segment = Mutex<HashMap<String, i32>>;

/// A map from strings to integers in independently locked segments. `put_all(&other)` lists
/// `other`'s keys, then reads each key's value in a separate lock section: with
/// `map.put_all(&map)` on one thread and `map.clear()` on another, a listed key can be gone
/// when its value is read, and the `expect` panics.
pub struct ConcurrentHashMap {
    segments: [Segment; SEGMENTS],
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
            let value = other.get(&key).expect(PUT_ALL_PANIC);
            self.put(key, value);
        }
    }
}

impl ConcurrentHashMap {
    /// The segment that holds `key`.
    fn segment(&self, key: &str) -> &Segment {
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

/// [`ConcurrentHashMap`] with `put_all` fixed: each segment of `other` is read once, keys and
/// values together under its lock, then the pairs are put; no key is looked up twice.
#[derive(Default)]
pub struct FixedConcurrentHashMap(ConcurrentHashMap);

#[thread_safe(test = false)]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_all_copies_and_tolerates_itself() {
        let (a, b) = (ConcurrentHashMap::new(), ConcurrentHashMap::new());
        a.put("x".into(), 1);
        a.put("y".into(), 2);
        b.put_all(&a);
        b.put_all(&b);
        assert_eq!(b.keys(), ["x", "y"]);
        assert_eq!(b.get("y"), Some(2));

        let (c, d) = (FixedConcurrentHashMap::new(), FixedConcurrentHashMap::new());
        c.put("x".into(), 1);
        d.put_all(&c);
        d.put_all(&d);
        assert_eq!((d.len(), d.get("x")), (1, Some(1)));
        d.clear();
        assert!(d.is_empty());
    }
}
