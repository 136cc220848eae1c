//! Every kind of constructor, receiver, parameter and return that `#[thread_safe]` handles
//! (with every level of result observation: owned values compared by `PartialEq`, values
//! observed by their `Debug` text, borrowed and `impl Trait` returns, types that cannot be
//! compared; `nondeterministic`; `results = false`), and every kind of method it leaves out,
//! in a crate that denies warnings: the expansion must add none. `tests/generated_code_is_warning_free.rs` compiles this file again with
//! `cfg(test)`, so that the generated `#[test]` functions are compiled (and run) too.
#![deny(warnings)]

use std::cell::{Ref, RefCell};
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use threadsafe_rt::{thread_safe, Subject};

/// A key-value registry with every shape of method.
pub struct Registry {
    map: Mutex<HashMap<String, u32>>,
    hits: AtomicU64,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

#[thread_safe(budget = "100ms", seed = 7, threads = 2)]
impl Registry {
    // Constructors.
    pub fn new() -> Self {
        Registry::with_capacity(0)
    }
    pub fn with_capacity(n: usize) -> Self {
        Registry {
            map: Mutex::new(HashMap::with_capacity(n.min(64))),
            hits: AtomicU64::new(0),
        }
    }
    pub fn try_new(n: u8) -> Option<Self> {
        (n < 100).then(Registry::new)
    }
    pub fn parse(s: &str) -> Result<Registry, String> {
        if s.is_empty() {
            Err("empty".to_string())
        } else {
            Ok(Registry::new())
        }
    }
    pub fn shared() -> Arc<Self> {
        Arc::new(Registry::new())
    }

    // `&self` with every kind of parameter.
    pub fn insert(&self, k: String, v: u32) -> Option<u32> {
        self.hits.fetch_add(1, Ordering::SeqCst);
        self.lock().insert(k, v)
    }
    pub fn get(&self, k: &str) -> Option<u32> {
        self.lock().get(k).copied()
    }
    pub fn get_many(&self, keys: &[String]) -> Vec<Option<u32>> {
        keys.iter().map(|k| self.get(k)).collect()
    }
    pub fn bump(&self, k: &str, by: &u32, total: &mut u32) {
        let mut map = self.lock();
        let v = map.entry(k.to_string()).or_insert(0);
        *v += *by;
        *total += *v;
    }
    pub fn merge(&self, other: &Registry) {
        if std::ptr::eq(self, other) {
            return;
        }
        let theirs = other.lock().clone();
        self.lock().extend(theirs);
    }
    pub fn merge_arc(&self, other: Arc<Self>) {
        self.merge(&other);
    }
    pub fn merge_arc_ref(&self, other: &Arc<Self>) {
        self.merge(other);
    }
    pub fn absorb(&self, other: Self) {
        self.merge(&other);
    }
    pub fn fork(&self) -> Self {
        let copy = Registry::new();
        copy.merge(self);
        copy
    }
    pub fn lock(&self) -> MutexGuard<'_, HashMap<String, u32>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
    pub fn keys(&self) -> impl Iterator<Item = String> + '_ {
        self.lock().keys().cloned().collect::<Vec<_>>().into_iter()
    }
    pub fn name(&self) -> &str {
        "registry"
    }
    /// Borrows its argument: observed at the `Debug` level, where `Ref` is not comparable.
    /// (No generator for `RefCell`: compiled, and left out at run time.)
    pub fn peek<'a>(&self, cell: &'a RefCell<u32>) -> Ref<'a, u32> {
        cell.borrow()
    }
    /// Owned, `PartialEq + Debug` but not `Send`: observed by its `Debug` text.
    pub fn shared_count(&self) -> Rc<u64> {
        Rc::new(self.hits.load(Ordering::SeqCst))
    }
    /// Owned, `PartialEq + Debug` but not `Clone`: observed by its `Debug` text.
    pub fn tally(&self) -> Tally {
        Tally(self.hits.load(Ordering::SeqCst))
    }
    /// Owned and not `PartialEq`: not comparable.
    pub fn counter(&self) -> Arc<Mutex<u64>> {
        Arc::new(Mutex::new(self.hits.load(Ordering::SeqCst)))
    }
    /// Depends on the clock: its results are never compared.
    #[thread_safe(nondeterministic)]
    pub fn stamp(&self) -> u128 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    }
    pub(crate) fn len(&self) -> usize {
        self.count_entries()
    }
    /// A type with no generator: compiles, and is left out at run time.
    pub fn set_callback(&self, f: Box<dyn Fn(u32) + Send + Sync>) {
        f(self.len() as u32);
    }

    // Other receivers.
    pub fn hits(self: &Arc<Self>) -> u64 {
        self.hits.load(Ordering::SeqCst)
    }
    pub fn detach(self: Arc<Self>) -> Arc<Self> {
        self
    }
    pub fn compact(&mut self) {
        self.map
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, v| *v > 0);
    }
    #[deprecated = "use `insert`"]
    pub fn put(&self, k: String, v: u32) {
        self.insert(k, v);
    }

    // Left out.
    #[thread_safe(skip)]
    pub fn debug_dump(&self) -> String {
        format!("{:?}", self.lock())
    }
    fn count_entries(&self) -> usize {
        self.lock().len()
    }
    pub fn into_map(self) -> HashMap<String, u32> {
        self.map.into_inner().unwrap_or_else(|e| e.into_inner())
    }
    /// # Safety
    /// None needed; it is only an example.
    pub unsafe fn raw(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }
    pub async fn later(&self) -> usize {
        self.len()
    }
    pub fn add<T: Into<u32>>(&self, k: String, t: T) {
        self.insert(k, t.into());
    }
    pub fn map_all(&self, f: impl Fn(u32) -> u32) {
        self.lock().values_mut().for_each(|v| *v = f(*v));
    }
    pub fn maybe_get(&self, k: Option<&str>) -> Option<u32> {
        k.and_then(|k| self.get(k))
    }
    pub fn steal(&self, other: &mut Registry) {
        let theirs = std::mem::take(other.map.get_mut().unwrap_or_else(|e| e.into_inner()));
        self.lock().extend(theirs);
    }
    pub fn default_capacity() -> usize {
        16
    }
    #[cfg(any())]
    pub fn never_compiled(&self, x: DoesNotExist) -> Nope {
        x.nope()
    }
}

/// A count, comparable and printable but not `Clone`.
#[derive(Debug, PartialEq)]
pub struct Tally(pub u64);

/// A generic cache, checked as `Cache<String, u32>`.
pub struct Cache<K, V> {
    map: Mutex<HashMap<K, V>>,
}

#[thread_safe(
    instantiate = "Cache<String, u32>",
    budget = "100ms",
    seed = "random",
    strategy = "pct2",
    results = false
)]
impl<K: Eq + Hash + Clone, V: Clone> Cache<K, V> {
    pub fn new() -> Self {
        Cache {
            map: Mutex::new(HashMap::new()),
        }
    }
    pub fn put(&self, k: K, v: V) -> Option<V> {
        self.map.lock().unwrap().insert(k, v)
    }
    pub fn get(&self, k: &K) -> Option<V> {
        self.map.lock().unwrap().get(k).cloned()
    }
    pub fn put_all(&self, other: &Cache<K, V>) {
        if std::ptr::eq(self, other) {
            return;
        }
        let theirs: Vec<(K, V)> = other
            .map
            .lock()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.map.lock().unwrap().extend(theirs);
    }
    pub fn keys(&self, out: &mut Vec<K>) {
        out.extend(self.map.lock().unwrap().keys().cloned());
    }
}

impl<K: Eq + Hash + Clone, V: Clone> Default for Cache<K, V> {
    fn default() -> Self {
        Cache::new()
    }
}

fn skipped(d: &threadsafe_rt::Description<impl Sized>, method: &str) -> String {
    d.skipped()
        .iter()
        .find(|s| s.method == method)
        .map(|s| s.reason.clone())
        .unwrap_or_else(|| panic!("`{method}` is not skipped: {:?}", d.skipped()))
}

pub fn main() {
    let d = Registry::describe();
    assert_eq!(d.name(), "Registry");
    assert_eq!(
        d.constructor_names(),
        ["new", "with_capacity", "try_new", "parse", "shared"]
    );
    assert_eq!(
        d.method_names(),
        [
            "insert",
            "get",
            "get_many",
            "bump",
            "merge",
            "merge_arc",
            "merge_arc_ref",
            "absorb",
            "fork",
            "lock",
            "keys",
            "name",
            "shared_count",
            "tally",
            "counter",
            "stamp",
            "len",
            "hits",
            "detach",
            "compact",
            "put",
            "later",
        ]
    );
    assert!(skipped(&d, "set_callback")
        .contains("no generator for argument `f: Box<dyn Fn(u32) + Send + Sync>`"));
    assert_eq!(
        skipped(&d, "debug_dump"),
        "excluded with #[thread_safe(skip)]"
    );
    assert_eq!(skipped(&d, "count_entries"), "not public");
    assert_eq!(skipped(&d, "into_map"), "takes `self` by value");
    assert!(skipped(&d, "raw").starts_with("`unsafe fn`"));
    assert_eq!(skipped(&d, "add"), "generic method (type parameter `T`)");
    assert!(skipped(&d, "map_all").starts_with("generic method (`impl Trait` argument"));
    assert_eq!(
        skipped(&d, "maybe_get"),
        "argument `k: Option<&str>` borrows"
    );
    assert!(skipped(&d, "steal")
        .starts_with("argument `other: &mut Registry` borrows an instance mutably"));
    assert_eq!(
        skipped(&d, "default_capacity"),
        "associated function that does not return `Self` (not a constructor)"
    );
    assert!(skipped(&d, "peek").contains("no generator for argument `cell: &'a RefCell<u32>`"));
    assert_eq!(d.skipped().len(), 11, "{:?}", d.skipped());

    let c = Cache::<String, u32>::describe();
    assert_eq!(c.name(), "Cache<String, u32>");
    assert_eq!(c.constructor_names(), ["new"]);
    assert_eq!(c.method_names(), ["put", "get", "put_all", "keys"]);

    // Use what the check leaves out, as a binary must to deny dead code.
    let r = Arc::new(Registry::default());
    let _ = (
        r.debug_dump(),
        Registry::default_capacity(),
        Cache::<u8, u8>::default().get(&0),
    );
    let _ = (r.maybe_get(None), r.keys().count(), r.name(), unsafe {
        r.raw()
    });
    let _ = (
        *r.peek(&RefCell::new(1)),
        r.shared_count(),
        r.tally(),
        r.counter(),
        r.stamp(),
    );
    r.add("a".to_string(), 1u8);
    r.map_all(|v| v + 1);
    r.steal(&mut Registry::new());
    drop(r.later());
    let _ = Arc::try_unwrap(r).map(Registry::into_map);
}
