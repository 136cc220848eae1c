//! V2 of MAPTest: `org.apache.commons.dbcp.datasources.SharedPoolDataSource` (Apache Commons
//! DBCP 1.4), an atomicity violation (Pradel & Gross, Figure 5). `setDataSourceName`
//! registers the data source in `InstanceKeyObjectFactory`'s registry, walking its keys to
//! find a free one, while `close()` unregisters it without the registry's lock; a removal
//! during the walk breaks the iteration (`ConcurrentModificationException`).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// DBCP's default `maxActive`.
pub const DEFAULT_MAX_ACTIVE: i32 = 8;

/// Java's `InstanceKeyObjectFactory.instanceMap`: instance keys and the names of the data
/// sources they stand for. Each method locks it, but a walk over its keys takes one lock
/// section per key.
#[derive(Default)]
struct InstanceKeyRegistry {
    entries: Mutex<Vec<(u32, String)>>,
}

impl InstanceKeyRegistry {
    fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }

    /// The `i`th entry, for a walk that counted [`len`](Self::len) entries.
    fn entry_at(&self, i: usize) -> (u32, String) {
        let entries = self.entries.lock().unwrap();
        let len = entries.len();
        entries.get(i).cloned().unwrap_or_else(|| {
            panic!(
                "ConcurrentModificationException: entry {i} of the registry is gone ({len} left)"
            )
        })
    }

    fn snapshot(&self) -> Vec<(u32, String)> {
        self.entries.lock().unwrap().clone()
    }

    fn insert(&self, key: u32, name: &str) {
        self.entries.lock().unwrap().push((key, name.to_string()));
    }

    /// Registers `name` under one more than the largest key, all in one lock section.
    fn register_atomically(&self, name: &str) -> u32 {
        let mut entries = self.entries.lock().unwrap();
        let key = entries.iter().map(|e| e.0).max().unwrap_or(0) + 1;
        entries.push((key, name.to_string()));
        key
    }

    fn remove(&self, key: u32) {
        self.entries.lock().unwrap().retain(|e| e.0 != key);
    }
}

/// The shared pool's connections.
#[derive(Default)]
struct Pool {
    active: Vec<u32>,
    idle: Vec<u32>,
}

/// A data source whose users share one pool of connections, after DBCP's
/// `SharedPoolDataSource`. `set_data_source_name` registers the data source under a new
/// instance key: it walks the registry's entries to find the largest key, one lock section
/// per entry, then inserts (`registered_names` walks it the same way); `close`, and a
/// renaming, remove the data source's current key without the walk's exclusion. With
/// `ds.set_data_source_name("b")` on one thread and `ds.close()` (or another
/// `set_data_source_name`) on another, the registry can shrink during the walk, and the walk
/// panics on an entry that is gone.
pub struct SharedPoolDataSource {
    data_source_name: Mutex<Option<String>>,
    instance_key: Mutex<Option<u32>>,
    registry: InstanceKeyRegistry,
    description: Mutex<String>,
    max_active: AtomicI32,
    max_wait_ms: AtomicU64,
    /// Set by the first `get_connection`: the configuration is frozen from then on.
    initialized: AtomicBool,
    pool: Mutex<Pool>,
    next_connection: AtomicU32,
}

impl Default for SharedPoolDataSource {
    fn default() -> Self {
        SharedPoolDataSource::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl SharedPoolDataSource {
    /// An unnamed data source lending up to [`DEFAULT_MAX_ACTIVE`] connections.
    pub fn new() -> Self {
        SharedPoolDataSource::with_max_active(DEFAULT_MAX_ACTIVE)
    }

    /// An unnamed data source lending up to `max_active` connections (negative: no limit).
    pub fn with_max_active(max_active: i32) -> Self {
        SharedPoolDataSource {
            data_source_name: Mutex::new(None),
            instance_key: Mutex::new(None),
            registry: InstanceKeyRegistry::default(),
            description: Mutex::new(String::new()),
            max_active: AtomicI32::new(max_active),
            max_wait_ms: AtomicU64::new(0),
            initialized: AtomicBool::new(false),
            pool: Mutex::new(Pool::default()),
            next_connection: AtomicU32::new(1),
        }
    }

    /// A data source named (and registered as) `name`.
    pub fn with_name(name: &str) -> Self {
        let ds = SharedPoolDataSource::new();
        ds.set_data_source_name(name);
        ds
    }

    /// Names the data source and registers it under a new instance key, unregistering the
    /// key of its previous name; returns `false` (Java's `IllegalStateException`) once a
    /// connection has been requested.
    pub fn set_data_source_name(&self, name: &str) -> bool {
        if self.initialized.load(Ordering::SeqCst) {
            return false;
        }
        *self.data_source_name.lock().unwrap() = Some(name.to_string());
        self.unregister();
        let key = self.register_new_instance(name);
        *self.instance_key.lock().unwrap() = Some(key);
        true
    }

    /// The data source's name.
    pub fn data_source_name(&self) -> Option<String> {
        self.data_source_name.lock().unwrap().clone()
    }

    /// The key the data source was last registered under.
    pub fn instance_key(&self) -> Option<u32> {
        *self.instance_key.lock().unwrap()
    }

    /// How many instance keys are registered.
    pub fn registered_instances(&self) -> usize {
        self.registry.len()
    }

    /// The names registered, in the order of their keys.
    pub fn registered_names(&self) -> Vec<String> {
        self.instances().into_iter().map(|(_, name)| name).collect()
    }

    /// The description.
    pub fn description(&self) -> String {
        self.description.lock().unwrap().clone()
    }

    /// Sets the description.
    pub fn set_description(&self, description: &str) {
        *self.description.lock().unwrap() = description.to_string();
    }

    /// The most connections lent at once (negative: no limit).
    pub fn max_active(&self) -> i32 {
        self.max_active.load(Ordering::SeqCst)
    }

    /// Sets the most connections lent at once (negative: no limit).
    pub fn set_max_active(&self, max_active: i32) {
        self.max_active.store(max_active, Ordering::SeqCst);
    }

    /// How long a request would wait for a connection (it never waits here).
    pub fn max_wait(&self) -> Duration {
        Duration::from_millis(self.max_wait_ms.load(Ordering::SeqCst))
    }

    /// Sets how long a request would wait for a connection.
    pub fn set_max_wait(&self, max_wait: Duration) {
        let ms = u64::try_from(max_wait.as_millis()).unwrap_or(u64::MAX);
        self.max_wait_ms.store(ms, Ordering::SeqCst);
    }

    /// Lends a connection; `None` when `max_active` are lent.
    pub fn get_connection(&self) -> Option<u32> {
        self.initialized.store(true, Ordering::SeqCst);
        let max_active = self.max_active();
        borrow(&mut self.pool.lock().unwrap(), max_active, || {
            self.next_connection.fetch_add(1, Ordering::SeqCst)
        })
    }

    /// Returns the last connection borrowed; returns whether there was one.
    pub fn release_connection(&self) -> bool {
        give_back(&mut self.pool.lock().unwrap())
    }

    /// The connections lent.
    pub fn num_active(&self) -> usize {
        self.pool.lock().unwrap().active.len()
    }

    /// The idle connections.
    pub fn num_idle(&self) -> usize {
        self.pool.lock().unwrap().idle.len()
    }

    /// Closes the pool and unregisters the data source's instance key.
    pub fn close(&self) {
        self.unregister();
        self.pool.lock().unwrap().idle.clear();
    }

    /// `InstanceKeyObjectFactory.removeInstance` of the data source's key.
    fn unregister(&self) {
        let key = self.instance_key.lock().unwrap().take();
        if let Some(key) = key {
            // BUG: removes without the registration's exclusion: a concurrent
            // `register_new_instance` may be walking the keys.
            self.registry.remove(key);
        }
    }

    /// `InstanceKeyObjectFactory.registerNewInstance`: one more than the largest key.
    fn register_new_instance(&self, name: &str) -> u32 {
        let max = self.instances().iter().map(|e| e.0).max().unwrap_or(0);
        let key = max + 1;
        self.registry.insert(key, name);
        key
    }

    /// The registry's entries, walked as Java iterates `instanceMap`.
    fn instances(&self) -> Vec<(u32, String)> {
        let count = self.registry.len();
        let mut entries = Vec::with_capacity(count);
        for i in 0..count {
            // BUG: the registry can shrink during the walk.
            let entry = self.registry.entry_at(i);
            entries.push(entry);
        }
        entries
    }
}

/// Lends an idle connection, or a new one, while fewer than `max_active` are lent.
fn borrow(pool: &mut Pool, max_active: i32, fresh: impl FnOnce() -> u32) -> Option<u32> {
    let limit = usize::try_from(max_active).unwrap_or(usize::MAX);
    if pool.active.len() >= limit {
        return None;
    }
    let connection = pool.idle.pop().unwrap_or_else(fresh);
    pool.active.push(connection);
    Some(connection)
}

/// Takes back the last connection lent.
fn give_back(pool: &mut Pool) -> bool {
    let returned = pool.active.pop();
    returned.map(|c| pool.idle.push(c)).is_some()
}

/// [`SharedPoolDataSource`] with the registry walks fixed: finding the largest key and
/// inserting the new one happen in one lock section of the registry, which `close`'s
/// removal also takes (as does `registered_names`' copy), so a removal comes before or after
/// a walk, never during it.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedSharedPoolDataSource(SharedPoolDataSource, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedSharedPoolDataSource {
    /// An unnamed data source lending up to [`DEFAULT_MAX_ACTIVE`] connections.
    pub fn new() -> Self {
        FixedSharedPoolDataSource(SharedPoolDataSource::new(), Whole::default())
    }

    /// An unnamed data source lending up to `max_active` connections (negative: no limit).
    pub fn with_max_active(max_active: i32) -> Self {
        FixedSharedPoolDataSource(
            SharedPoolDataSource::with_max_active(max_active),
            Whole::default(),
        )
    }

    /// A data source named (and registered as) `name`.
    pub fn with_name(name: &str) -> Self {
        let ds = FixedSharedPoolDataSource::new();
        ds.set_data_source_name(name);
        ds
    }

    /// Names the data source and registers it under a new instance key, unregistering the
    /// key of its previous name; returns `false` (Java's `IllegalStateException`) once a
    /// connection has been requested.
    pub fn set_data_source_name(&self, name: &str) -> bool {
        let _whole = self.1.hold();
        let ds = &self.0;
        if ds.initialized.load(Ordering::SeqCst) {
            return false;
        }
        *ds.data_source_name.lock().unwrap() = Some(name.to_string());
        ds.unregister();
        let key = ds.registry.register_atomically(name);
        *ds.instance_key.lock().unwrap() = Some(key);
        true
    }

    /// The data source's name.
    pub fn data_source_name(&self) -> Option<String> {
        let _whole = self.1.hold();
        self.0.data_source_name()
    }

    /// The key the data source was last registered under.
    pub fn instance_key(&self) -> Option<u32> {
        let _whole = self.1.hold();
        self.0.instance_key()
    }

    /// How many instance keys are registered.
    pub fn registered_instances(&self) -> usize {
        let _whole = self.1.hold();
        self.0.registered_instances()
    }

    /// The names registered, in the order of their keys.
    pub fn registered_names(&self) -> Vec<String> {
        let _whole = self.1.hold();
        let entries = self.0.registry.snapshot();
        entries.into_iter().map(|(_, name)| name).collect()
    }

    /// The description.
    pub fn description(&self) -> String {
        let _whole = self.1.hold();
        self.0.description()
    }

    /// Sets the description.
    pub fn set_description(&self, description: &str) {
        let _whole = self.1.hold();
        self.0.set_description(description);
    }

    /// The most connections lent at once (negative: no limit).
    pub fn max_active(&self) -> i32 {
        let _whole = self.1.hold();
        self.0.max_active()
    }

    /// Sets the most connections lent at once (negative: no limit).
    pub fn set_max_active(&self, max_active: i32) {
        let _whole = self.1.hold();
        self.0.set_max_active(max_active);
    }

    /// How long a request would wait for a connection (it never waits here).
    pub fn max_wait(&self) -> Duration {
        let _whole = self.1.hold();
        self.0.max_wait()
    }

    /// Sets how long a request would wait for a connection.
    pub fn set_max_wait(&self, max_wait: Duration) {
        let _whole = self.1.hold();
        self.0.set_max_wait(max_wait);
    }

    /// Lends a connection; `None` when `max_active` are lent.
    pub fn get_connection(&self) -> Option<u32> {
        let _whole = self.1.hold();
        self.0.get_connection()
    }

    /// Returns the last connection borrowed; returns whether there was one.
    pub fn release_connection(&self) -> bool {
        let _whole = self.1.hold();
        self.0.release_connection()
    }

    /// The connections lent.
    pub fn num_active(&self) -> usize {
        let _whole = self.1.hold();
        self.0.num_active()
    }

    /// The idle connections.
    pub fn num_idle(&self) -> usize {
        let _whole = self.1.hold();
        self.0.num_idle()
    }

    /// Closes the pool and unregisters the data source's instance key.
    pub fn close(&self) {
        let _whole = self.1.hold();
        self.0.close();
    }
}

/// The V2 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V2",
        name: "shared_pool_data_source",
        original: "org.apache.commons.dbcp.datasources.SharedPoolDataSource (DBCP 1.4)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<SharedPoolDataSource>(c),
        check_twin: |c| threadsafe_rt::check::<FixedSharedPoolDataSource>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                || SharedPoolDataSource::with_name("a"),
                |ds| {
                    ds.set_data_source_name("b");
                },
                |ds| {
                    ds.close();
                    ds.set_data_source_name("a");
                },
            )
        },
    }
}
