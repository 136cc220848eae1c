//! V8 of MAPTest: `java.util.Collections.SynchronizedMap` (JDK 1.4.2), a lock-order
//! deadlock. `equals` and `putAll` hold the map's own lock while they read the other map,
//! which takes the other map's lock: `m1.equals(m2)` on one thread and `m2.equals(m1)` (or
//! `m2.putAll(m1)`) on another each hold one lock and wait for the other.

use std::collections::BTreeMap;

use threadsafe_rt::sync::{Mutex, MutexGuard};
use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// The entries of a map.
type Entries = BTreeMap<String, i32>;

/// A map from strings to integers behind one lock, after `Collections.synchronizedMap`.
/// The methods that take a second map (`eq`, `put_all`, `contains_all`, `remove_all`,
/// `retain_all`) hold `self`'s lock while they read `other` through its own locking methods
/// (`len`, `get`, `keys`, `entries`), as the JDK's wrapper runs `m.equals(o)` and
/// `m.putAll(map)` inside `synchronized (mutex)`. With `a.eq(&b)` on one thread and
/// `b.eq(&a)` (or `b.put_all(&a)`) on another, each thread can take its own map's lock and
/// wait forever for the other's. A map given itself is read under its one lock, as Java's
/// reentrant monitor allows.
pub struct SynchronizedMap {
    entries: Mutex<Entries>,
}

impl Default for SynchronizedMap {
    fn default() -> Self {
        SynchronizedMap::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl SynchronizedMap {
    /// An empty map.
    pub fn new() -> Self {
        SynchronizedMap::from_entries(Vec::new())
    }

    /// A map holding `entries` (a later entry replaces an earlier one with the same key).
    pub fn from_entries(entries: Vec<(String, i32)>) -> Self {
        SynchronizedMap {
            entries: Mutex::new(entries.into_iter().collect()),
        }
    }

    /// A map holding `key` mapped to `value`.
    pub fn singleton(key: String, value: i32) -> Self {
        SynchronizedMap::from_entries(vec![(key, value)])
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        self.lock().insert(key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.lock().get(key).copied()
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        self.lock().remove(key)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.lock().contains_key(key)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether the map has no entry.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Removes every entry.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// The entries, sorted by key.
    pub fn entries(&self) -> Vec<(String, i32)> {
        self.lock().iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    /// Copies every entry of `other` into this map; `other` may be `self`.
    pub fn put_all(&self, other: &SynchronizedMap) {
        if std::ptr::eq(self, other) {
            return; // Putting a map's own entries changes nothing.
        }
        let mut mine = self.lock();
        // BUG: `other.entries()` locks `other` while this thread holds `self`.
        for (key, value) in other.entries() {
            mine.insert(key, value);
        }
    }

    /// Whether every entry of `other` is in this map; `other` may be `self`.
    pub fn contains_all(&self, other: &SynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        let mine = self.lock();
        // BUG: as in `put_all`.
        let theirs = other.entries();
        theirs.iter().all(|(k, v)| mine.get(k) == Some(v))
    }

    /// Removes the keys of `other` (Java's `keySet().removeAll(other.keySet())`); returns
    /// whether any was removed. `other` may be `self`.
    pub fn remove_all(&self, other: &SynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return retain_keys(&mut self.lock(), &[], true);
        }
        let mut mine = self.lock();
        // BUG: as in `put_all`.
        let theirs = other.keys();
        retain_keys(&mut mine, &theirs, false)
    }

    /// Keeps only the keys of `other` (Java's `keySet().retainAll(other.keySet())`); returns
    /// whether any was removed. `other` may be `self`.
    pub fn retain_all(&self, other: &SynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return false;
        }
        let mut mine = self.lock();
        // BUG: as in `put_all`.
        let theirs = other.keys();
        retain_keys(&mut mine, &theirs, true)
    }

    /// Whether both maps hold the same entries (Java's `AbstractMap.equals`); `other` may be
    /// `self`.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(&self, other: &SynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        let mine = self.lock();
        // BUG: `other.len()` and `other.get(k)` lock `other` while this thread holds `self`;
        // a thread running `other.eq(self)` holds `other` and waits for `self`.
        if mine.len() != other.len() {
            return false;
        }
        mine.iter().all(|(k, v)| other.get(k) == Some(*v))
    }
}

impl SynchronizedMap {
    /// Locks the entries; a thread that waits here is reported at the caller's line.
    #[track_caller]
    fn lock(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap()
    }
}

/// Keeps the entries whose key's membership in `keys` is `keep`; returns whether any was
/// removed.
fn retain_keys(entries: &mut Entries, keys: &[String], keep: bool) -> bool {
    let before = entries.len();
    entries.retain(|k, _| keys.contains(k) == keep);
    entries.len() != before
}

/// Locks two different maps, the one at the lower address first, and returns the guards in
/// argument order: every thread takes any two of them in the same order.
fn lock_both<'a>(
    a: &'a SynchronizedMap,
    b: &'a SynchronizedMap,
) -> (MutexGuard<'a, Entries>, MutexGuard<'a, Entries>) {
    if std::ptr::from_ref(a) < std::ptr::from_ref(b) {
        let first = a.lock();
        (first, b.lock())
    } else {
        let first = b.lock();
        (a.lock(), first)
    }
}

/// [`SynchronizedMap`] with the two-map methods fixed: they lock both maps in address order
/// (a map given itself takes its one lock), so `a.eq(&b)` and `b.eq(&a)` take the same lock
/// first and cannot deadlock.
#[derive(Default)]
pub struct FixedSynchronizedMap(SynchronizedMap);

#[thread_safe(test = false, statement_points = "always")]
impl FixedSynchronizedMap {
    /// An empty map.
    pub fn new() -> Self {
        FixedSynchronizedMap(SynchronizedMap::new())
    }

    /// A map holding `entries` (a later entry replaces an earlier one with the same key).
    pub fn from_entries(entries: Vec<(String, i32)>) -> Self {
        FixedSynchronizedMap(SynchronizedMap::from_entries(entries))
    }

    /// A map holding `key` mapped to `value`.
    pub fn singleton(key: String, value: i32) -> Self {
        FixedSynchronizedMap(SynchronizedMap::singleton(key, value))
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

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.0.keys()
    }

    /// The entries, sorted by key.
    pub fn entries(&self) -> Vec<(String, i32)> {
        self.0.entries()
    }

    /// Copies every entry of `other` into this map; `other` may be `self`.
    pub fn put_all(&self, other: &FixedSynchronizedMap) {
        if std::ptr::eq(self, other) {
            return;
        }
        let (mut mine, theirs) = lock_both(&self.0, &other.0);
        mine.extend(theirs.iter().map(|(k, v)| (k.clone(), *v)));
    }

    /// Whether every entry of `other` is in this map; `other` may be `self`.
    pub fn contains_all(&self, other: &FixedSynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        let (mine, theirs) = lock_both(&self.0, &other.0);
        theirs.iter().all(|(k, v)| mine.get(k) == Some(v))
    }

    /// Removes the keys of `other` (Java's `keySet().removeAll(other.keySet())`); returns
    /// whether any was removed. `other` may be `self`.
    pub fn remove_all(&self, other: &FixedSynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return retain_keys(&mut self.0.lock(), &[], true);
        }
        let (mut mine, theirs) = lock_both(&self.0, &other.0);
        let keys: Vec<String> = theirs.keys().cloned().collect();
        retain_keys(&mut mine, &keys, false)
    }

    /// Keeps only the keys of `other` (Java's `keySet().retainAll(other.keySet())`); returns
    /// whether any was removed. `other` may be `self`.
    pub fn retain_all(&self, other: &FixedSynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return false;
        }
        let (mut mine, theirs) = lock_both(&self.0, &other.0);
        let keys: Vec<String> = theirs.keys().cloned().collect();
        retain_keys(&mut mine, &keys, true)
    }

    /// Whether both maps hold the same entries (Java's `AbstractMap.equals`); `other` may be
    /// `self`.
    #[allow(clippy::should_implement_trait)]
    pub fn eq(&self, other: &FixedSynchronizedMap) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        let (mine, theirs) = lock_both(&self.0, &other.0);
        *mine == *theirs
    }
}

/// Two maps that threads compare from both sides.
struct TwoMaps(SynchronizedMap, SynchronizedMap);

/// The V8 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V8",
        name: "synchronized_map",
        original: "java.util.Collections$SynchronizedMap (JDK 1.4.2)",
        bug: BugKind::Deadlock,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<SynchronizedMap>(c),
        check_twin: |c| threadsafe_rt::check::<FixedSynchronizedMap>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                || {
                    TwoMaps(
                        SynchronizedMap::singleton("a".to_string(), 1),
                        SynchronizedMap::singleton("a".to_string(), 1),
                    )
                },
                |s| {
                    s.0.eq(&s.1);
                },
                |s| {
                    s.1.eq(&s.0);
                },
            )
        },
    }
}
