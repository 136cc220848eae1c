//! V5 of MAPTest: `java.util.Hashtable` (JDK 1.6.0), a data race on `count`. The entry
//! table and the entry count are kept apart: `put` adds the entry and counts it in separate
//! steps, so a `clear` or `remove` between the two takes away an entry not yet counted, and
//! the count, which must cover every entry, goes below zero.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use threadsafe_rt::sync::atomic::{AtomicUsize, Ordering};
use threadsafe_rt::sync::RwLock;
use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// Java's default capacity.
pub const DEFAULT_CAPACITY: usize = 11;

/// Java's default load factor.
pub const DEFAULT_LOAD_FACTOR: f32 = 0.75;

/// The most buckets a table may have.
pub const MAX_CAPACITY: usize = 1 << 16;

/// The buckets, and when to grow them.
struct Table {
    buckets: Vec<Vec<(String, i32)>>,
    load_factor: f32,
}

impl Table {
    fn new(capacity: usize, load_factor: f32) -> Self {
        assert!(
            load_factor > 0.0 && load_factor.is_finite(),
            "IllegalArgumentException: Illegal Load: {load_factor}"
        );
        Table {
            buckets: vec![Vec::new(); capacity.clamp(1, MAX_CAPACITY)],
            load_factor,
        }
    }

    fn bucket(&self, key: &str) -> usize {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        (h.finish() % self.buckets.len() as u64) as usize
    }

    fn get(&self, key: &str) -> Option<i32> {
        self.buckets[self.bucket(key)]
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    }

    /// Inserts `key`, or replaces its value if `replace`; returns the value it had. Grows the
    /// table first when `count` entries reach the threshold, as Java's `rehash`.
    fn put(&mut self, key: String, value: i32, replace: bool, count: usize) -> Option<i32> {
        let b = self.bucket(&key);
        if let Some(slot) = self.buckets[b].iter_mut().find(|(k, _)| *k == key) {
            let old = slot.1;
            if replace {
                slot.1 = value;
            }
            return Some(old);
        }
        let threshold = (self.buckets.len() as f32 * self.load_factor) as usize;
        if count >= threshold && self.buckets.len() < MAX_CAPACITY {
            self.rehash();
        }
        let b = self.bucket(&key);
        self.buckets[b].push((key, value));
        None
    }

    fn rehash(&mut self) {
        let capacity = (self.buckets.len() * 2 + 1).min(MAX_CAPACITY);
        let old = std::mem::replace(&mut self.buckets, vec![Vec::new(); capacity]);
        for (k, v) in old.into_iter().flatten() {
            let b = self.bucket(&k);
            self.buckets[b].push((k, v));
        }
    }

    fn remove(&mut self, key: &str) -> Option<i32> {
        let b = self.bucket(key);
        let i = self.buckets[b].iter().position(|(k, _)| k == key)?;
        Some(self.buckets[b].swap_remove(i).1)
    }

    /// Removes every entry; returns how many there were.
    fn clear(&mut self) -> usize {
        self.buckets.iter_mut().map(|b| b.drain(..).count()).sum()
    }

    fn entries(&self) -> BTreeMap<String, i32> {
        self.buckets.iter().flatten().cloned().collect()
    }
}

/// Takes `n` from `count`, which must cover them.
fn uncount(count: &AtomicUsize, n: usize) {
    count
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| c.checked_sub(n))
        .unwrap_or_else(|c| {
            panic!("Hashtable count {c} does not cover the {n} entries just removed")
        });
}

/// A hash table from strings to integers that threads share, after `java.util.Hashtable`.
/// The buckets are behind a read-write lock; the entry count is an atomic beside it, so
/// that `len` and `is_empty` take no lock (Java reads `count` without the monitor). `put`
/// adds the entry under the lock and counts it after; `remove` and `clear` subtract what
/// they removed. With `table.put(k, 1)` on one thread and `table.clear()` on another, the
/// clear can remove the entry before `put` counts it, and the count underflows.
pub struct Hashtable {
    table: RwLock<Table>,
    count: AtomicUsize,
}

impl Default for Hashtable {
    fn default() -> Self {
        Hashtable::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl Hashtable {
    /// An empty table with Java's default capacity and load factor.
    pub fn new() -> Self {
        Hashtable::with_capacity(DEFAULT_CAPACITY)
    }

    /// An empty table with `capacity` buckets (1 to [`MAX_CAPACITY`]).
    pub fn with_capacity(capacity: usize) -> Self {
        Hashtable::with_capacity_and_load_factor(capacity, DEFAULT_LOAD_FACTOR)
    }

    /// An empty table with `capacity` buckets that grows when it is `load_factor` full.
    ///
    /// # Panics
    /// If `load_factor` is not positive and finite (Java's `IllegalArgumentException`).
    pub fn with_capacity_and_load_factor(capacity: usize, load_factor: f32) -> Self {
        Hashtable {
            table: RwLock::new(Table::new(capacity, load_factor)),
            count: AtomicUsize::new(0),
        }
    }

    /// A table holding `entries` (a later entry replaces an earlier one with the same key).
    pub fn from_entries(entries: Vec<(String, i32)>) -> Self {
        let table = Hashtable::new();
        for (key, value) in entries {
            table.put(key, value);
        }
        table
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        self.insert(key, value, true)
    }

    /// Maps `key` to `value` unless it has a value; returns the value it has.
    pub fn put_if_absent(&self, key: String, value: i32) -> Option<i32> {
        self.insert(key, value, false)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.table.read().unwrap().get(key)
    }

    /// The value of `key`, or `default`.
    pub fn get_or_default(&self, key: &str, default: i32) -> i32 {
        self.get(key).unwrap_or(default)
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        let removed = self.table.write().unwrap().remove(key);
        if removed.is_some() {
            uncount(&self.count, 1);
        }
        removed
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Whether some key maps to `value`.
    pub fn contains_value(&self, value: i32) -> bool {
        self.table
            .read()
            .unwrap()
            .buckets
            .iter()
            .flatten()
            .any(|(_, v)| *v == value)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Whether the table has no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every entry.
    pub fn clear(&self) {
        let removed = self.table.write().unwrap().clear();
        uncount(&self.count, removed);
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.table.read().unwrap().entries().into_keys().collect()
    }

    /// The values, sorted by key.
    pub fn values(&self) -> Vec<i32> {
        self.table.read().unwrap().entries().into_values().collect()
    }

    /// Java's `hashCode()`: the sum of the entries' hashes.
    pub fn hash_code(&self) -> i32 {
        self.table
            .read()
            .unwrap()
            .entries()
            .iter()
            .map(|(k, v)| java_hash(k) ^ v)
            .fold(0, i32::wrapping_add)
    }

    /// Java's `toString()`: `{a=1, b=2}`, sorted by key.
    pub fn render(&self) -> String {
        let entries = self.table.read().unwrap().entries();
        let parts: Vec<String> = entries.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{{{}}}", parts.join(", "))
    }
}

impl Hashtable {
    /// `put` (`replace`) or `put_if_absent`.
    fn insert(&self, key: String, value: i32, replace: bool) -> Option<i32> {
        let count = self.count.load(Ordering::SeqCst);
        let old = self.table.write().unwrap().put(key, value, replace, count);
        if old.is_none() {
            // BUG: counted after the lock is released: a `clear` or `remove` in between
            // takes away an entry the count does not cover yet.
            self.count.fetch_add(1, Ordering::SeqCst);
        }
        old
    }
}

/// Java's `String.hashCode()`.
fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// [`Hashtable`] with the count fixed: every change of the count happens under the table's
/// write lock, with the change of the buckets it counts, so the count always covers the
/// entries and `clear` racing `put` removes either no entry or a counted one.
#[derive(Default)]
pub struct FixedHashtable(Hashtable);

#[thread_safe(test = false, statement_points = "always")]
impl FixedHashtable {
    /// An empty table with Java's default capacity and load factor.
    pub fn new() -> Self {
        FixedHashtable(Hashtable::new())
    }

    /// An empty table with `capacity` buckets (1 to [`MAX_CAPACITY`]).
    pub fn with_capacity(capacity: usize) -> Self {
        FixedHashtable(Hashtable::with_capacity(capacity))
    }

    /// An empty table with `capacity` buckets that grows when it is `load_factor` full.
    ///
    /// # Panics
    /// If `load_factor` is not positive and finite (Java's `IllegalArgumentException`).
    pub fn with_capacity_and_load_factor(capacity: usize, load_factor: f32) -> Self {
        FixedHashtable(Hashtable::with_capacity_and_load_factor(
            capacity,
            load_factor,
        ))
    }

    /// A table holding `entries` (a later entry replaces an earlier one with the same key).
    pub fn from_entries(entries: Vec<(String, i32)>) -> Self {
        let table = FixedHashtable::new();
        for (key, value) in entries {
            table.put(key, value);
        }
        table
    }

    /// Maps `key` to `value`; returns the value it replaced.
    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        self.insert(key, value, true)
    }

    /// Maps `key` to `value` unless it has a value; returns the value it has.
    pub fn put_if_absent(&self, key: String, value: i32) -> Option<i32> {
        self.insert(key, value, false)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<i32> {
        self.0.get(key)
    }

    /// The value of `key`, or `default`.
    pub fn get_or_default(&self, key: &str, default: i32) -> i32 {
        self.0.get_or_default(key, default)
    }

    /// Removes `key`; returns its value.
    pub fn remove(&self, key: &str) -> Option<i32> {
        let mut table = self.0.table.write().unwrap();
        let removed = table.remove(key);
        if removed.is_some() {
            uncount(&self.0.count, 1);
        }
        removed
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// Whether some key maps to `value`.
    pub fn contains_value(&self, value: i32) -> bool {
        self.0.contains_value(value)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the table has no entry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&self) {
        let mut table = self.0.table.write().unwrap();
        let removed = table.clear();
        uncount(&self.0.count, removed);
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.0.keys()
    }

    /// The values, sorted by key.
    pub fn values(&self) -> Vec<i32> {
        self.0.values()
    }

    /// Java's `hashCode()`: the sum of the entries' hashes.
    pub fn hash_code(&self) -> i32 {
        self.0.hash_code()
    }

    /// Java's `toString()`: `{a=1, b=2}`, sorted by key.
    pub fn render(&self) -> String {
        self.0.render()
    }
}

impl FixedHashtable {
    /// `put` (`replace`) or `put_if_absent`, counted under the write lock.
    fn insert(&self, key: String, value: i32, replace: bool) -> Option<i32> {
        let mut table = self.0.table.write().unwrap();
        let count = self.0.count.load(Ordering::SeqCst);
        let old = table.put(key, value, replace, count);
        if old.is_none() {
            self.0.count.fetch_add(1, Ordering::SeqCst);
        }
        old
    }
}

/// The V5 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V5",
        name: "hashtable",
        original: "java.util.Hashtable (JDK 1.6.0)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<Hashtable>(c),
        check_twin: |c| threadsafe_rt::check::<FixedHashtable>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                Hashtable::new,
                |t| {
                    t.put("a".to_string(), 1);
                },
                |t| t.clear(),
            )
        },
    }
}
