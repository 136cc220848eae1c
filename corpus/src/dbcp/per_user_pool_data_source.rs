//! V1 of MAPTest: `org.apache.commons.dbcp.datasources.PerUserPoolDataSource` (Apache
//! Commons DBCP 1.4), a data race. The per-user pools live in two maps that must agree,
//! `managers` and `pools`, each locked on its own; `close()` empties them one after the
//! other (DBCP's runs without the monitor `getConnection` holds), so a connection request
//! that finds the user registered in `managers` can find its pool gone from `pools`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

use parking_lot::Mutex;
use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// DBCP's default `maxActive`.
pub const DEFAULT_MAX_ACTIVE: i32 = 8;

/// What DBCP's connection manager keeps per user.
#[derive(Clone)]
struct Manager {
    /// The `maxActive` the user's pool was created with.
    max_active: i32,
}

/// One user's pool of connections.
#[derive(Default)]
struct Pool {
    active: Vec<u32>,
    idle: Vec<u32>,
}

impl Pool {
    /// Lends an idle connection, or a new one numbered `fresh` while fewer than `max_active`
    /// (negative: no limit) are lent; `None` when the pool is exhausted.
    fn borrow(&mut self, max_active: i32, fresh: impl FnOnce() -> u32) -> Option<u32> {
        let limit = usize::try_from(max_active).unwrap_or(usize::MAX);
        if self.active.len() >= limit {
            return None;
        }
        let connection = self.idle.pop().unwrap_or_else(fresh);
        self.active.push(connection);
        Some(connection)
    }

    /// Takes back the most recently lent connection; returns whether one was lent.
    fn give_back(&mut self) -> bool {
        match self.active.pop() {
            Some(c) => {
                self.idle.push(c);
                true
            }
            None => false,
        }
    }
}

/// A data source that keeps a pool of connections per user, after DBCP's
/// `PerUserPoolDataSource`. A user's pool is registered in two maps, `managers` (checked to
/// decide whether the user is new) and `pools` (where connections are borrowed), each behind
/// its own lock. `close` empties `pools` and then `managers`. With
/// `ds.get_connection("a")` on one thread (for a user already registered, or registering it)
/// and `ds.close()` on another, the pool can vanish while the manager still says the user is
/// registered, and `get_connection` panics on the missing pool.
pub struct PerUserPoolDataSource {
    description: Mutex<String>,
    default_max_active: AtomicI32,
    per_user_max_active: Mutex<BTreeMap<String, i32>>,
    managers: Mutex<BTreeMap<String, Manager>>,
    pools: Mutex<BTreeMap<String, Pool>>,
    next_connection: AtomicU32,
}

impl Default for PerUserPoolDataSource {
    fn default() -> Self {
        PerUserPoolDataSource::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl PerUserPoolDataSource {
    /// A data source with no pool yet, lending up to [`DEFAULT_MAX_ACTIVE`] connections
    /// per user.
    pub fn new() -> Self {
        PerUserPoolDataSource::with_default_max_active(DEFAULT_MAX_ACTIVE)
    }

    /// A data source lending up to `max_active` connections per user (negative: no limit).
    pub fn with_default_max_active(max_active: i32) -> Self {
        PerUserPoolDataSource {
            description: Mutex::new(String::new()),
            default_max_active: AtomicI32::new(max_active),
            per_user_max_active: Mutex::new(BTreeMap::new()),
            managers: Mutex::new(BTreeMap::new()),
            pools: Mutex::new(BTreeMap::new()),
            next_connection: AtomicU32::new(1),
        }
    }

    /// A data source described as `description`.
    pub fn with_description(description: &str) -> Self {
        let ds = PerUserPoolDataSource::new();
        ds.set_description(description);
        ds
    }

    /// The description.
    pub fn description(&self) -> String {
        self.description.lock().clone()
    }

    /// Sets the description.
    pub fn set_description(&self, description: &str) {
        *self.description.lock() = description.to_string();
    }

    /// The `maxActive` of users with no setting of their own.
    pub fn default_max_active(&self) -> i32 {
        self.default_max_active.load(Ordering::SeqCst)
    }

    /// Sets the `maxActive` of users with no setting of their own (for pools created later).
    pub fn set_default_max_active(&self, max_active: i32) {
        self.default_max_active.store(max_active, Ordering::SeqCst);
    }

    /// The `maxActive` a new pool of `user` gets.
    pub fn per_user_max_active(&self, user: &str) -> i32 {
        let own = self.per_user_max_active.lock().get(user).copied();
        own.unwrap_or_else(|| self.default_max_active())
    }

    /// Sets (or with `None` removes) the `maxActive` of `user`, for a pool created later.
    pub fn set_per_user_max_active(&self, user: &str, max_active: Option<i32>) {
        set_or_remove(&mut self.per_user_max_active.lock(), user, max_active);
    }

    /// Lends a connection of `user`'s pool, creating the pool on the first request; `None`
    /// when the pool has lent its `maxActive`.
    pub fn get_connection(&self, user: &str) -> Option<u32> {
        let registered = self.managers.lock().contains_key(user);
        if !registered {
            self.register_pool(user);
        }
        let manager = self.managers.lock().get(user).cloned();
        let max_active = manager.map_or(DEFAULT_MAX_ACTIVE, |m| m.max_active);
        // BUG: `close` can empty `pools` after the user was found registered.
        borrow_registered(&mut self.pools.lock(), user, max_active, || {
            self.next_connection.fetch_add(1, Ordering::SeqCst)
        })
    }

    /// Returns the last connection `user` borrowed to its pool; returns whether there was
    /// one.
    pub fn release_connection(&self, user: &str) -> bool {
        self.pools.lock().get_mut(user).is_some_and(Pool::give_back)
    }

    /// The connections lent, over every pool.
    pub fn num_active(&self) -> usize {
        self.pools.lock().values().map(|p| p.active.len()).sum()
    }

    /// The connections `user` has borrowed.
    pub fn num_active_for(&self, user: &str) -> usize {
        self.pools.lock().get(user).map_or(0, |p| p.active.len())
    }

    /// The idle connections, over every pool.
    pub fn num_idle(&self) -> usize {
        self.pools.lock().values().map(|p| p.idle.len()).sum()
    }

    /// The users that have a pool, sorted.
    pub fn users(&self) -> Vec<String> {
        self.managers.lock().keys().cloned().collect()
    }

    /// DBCP's `registerPool`: creates `user`'s pool, then its manager.
    fn register_pool(&self, user: &str) {
        let manager = Manager {
            max_active: self.per_user_max_active(user),
        };
        self.pools.lock().entry(user.to_string()).or_default();
        self.managers.lock().insert(user.to_string(), manager);
    }

    /// Closes every pool; later requests create new ones.
    pub fn close(&self) {
        // BUG: not under the lock `get_connection` registers under: the two maps disagree
        // between these statements.
        self.pools.lock().clear();
        self.managers.lock().clear();
    }
}

/// Borrows from the pool of `user`, whom the caller found registered.
fn borrow_registered(
    pools: &mut BTreeMap<String, Pool>,
    user: &str,
    max_active: i32,
    fresh: impl FnOnce() -> u32,
) -> Option<u32> {
    let pool = pools
        .get_mut(user)
        .expect("NullPointerException: a registered user has no pool");
    pool.borrow(max_active, fresh)
}

/// `map[key] = value`, or removes `key` for `None`.
fn set_or_remove(map: &mut BTreeMap<String, i32>, key: &str, value: Option<i32>) {
    match value {
        Some(v) => map.insert(key.to_string(), v),
        None => map.remove(key),
    };
}

/// [`PerUserPoolDataSource`] with the registry fixed: `get_connection` and `close` hold the
/// data source's registry lock (`managers`) for the whole registration, lookup and
/// clean-up, so the two maps agree whenever another thread can look.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedPerUserPoolDataSource(PerUserPoolDataSource, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedPerUserPoolDataSource {
    /// A data source with no pool yet, lending up to [`DEFAULT_MAX_ACTIVE`] connections
    /// per user.
    pub fn new() -> Self {
        FixedPerUserPoolDataSource(PerUserPoolDataSource::new(), Whole::default())
    }

    /// A data source lending up to `max_active` connections per user (negative: no limit).
    pub fn with_default_max_active(max_active: i32) -> Self {
        FixedPerUserPoolDataSource(
            PerUserPoolDataSource::with_default_max_active(max_active),
            Whole::default(),
        )
    }

    /// A data source described as `description`.
    pub fn with_description(description: &str) -> Self {
        FixedPerUserPoolDataSource(
            PerUserPoolDataSource::with_description(description),
            Whole::default(),
        )
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

    /// The `maxActive` of users with no setting of their own.
    pub fn default_max_active(&self) -> i32 {
        let _whole = self.1.hold();
        self.0.default_max_active()
    }

    /// Sets the `maxActive` of users with no setting of their own (for pools created later).
    pub fn set_default_max_active(&self, max_active: i32) {
        let _whole = self.1.hold();
        self.0.set_default_max_active(max_active);
    }

    /// The `maxActive` a new pool of `user` gets.
    pub fn per_user_max_active(&self, user: &str) -> i32 {
        let _whole = self.1.hold();
        self.0.per_user_max_active(user)
    }

    /// Sets (or with `None` removes) the `maxActive` of `user`, for a pool created later.
    pub fn set_per_user_max_active(&self, user: &str, max_active: Option<i32>) {
        let _whole = self.1.hold();
        self.0.set_per_user_max_active(user, max_active);
    }

    /// Lends a connection of `user`'s pool, creating the pool on the first request; `None`
    /// when the pool has lent its `maxActive`.
    pub fn get_connection(&self, user: &str) -> Option<u32> {
        let _whole = self.1.hold();
        let max_active = self.0.per_user_max_active(user);
        let ds = &self.0;
        fixed_get_connection(&mut ds.managers.lock(), &ds.pools, user, max_active, || {
            ds.next_connection.fetch_add(1, Ordering::SeqCst)
        })
    }

    /// Returns the last connection `user` borrowed to its pool; returns whether there was
    /// one.
    pub fn release_connection(&self, user: &str) -> bool {
        let _whole = self.1.hold();
        self.0.release_connection(user)
    }

    /// The connections lent, over every pool.
    pub fn num_active(&self) -> usize {
        let _whole = self.1.hold();
        self.0.num_active()
    }

    /// The connections `user` has borrowed.
    pub fn num_active_for(&self, user: &str) -> usize {
        let _whole = self.1.hold();
        self.0.num_active_for(user)
    }

    /// The idle connections, over every pool.
    pub fn num_idle(&self) -> usize {
        let _whole = self.1.hold();
        self.0.num_idle()
    }

    /// The users that have a pool, sorted.
    pub fn users(&self) -> Vec<String> {
        let _whole = self.1.hold();
        self.0.users()
    }

    /// Closes every pool; later requests create new ones.
    pub fn close(&self) {
        let _whole = self.1.hold();
        fixed_close(&mut self.0.managers.lock(), &self.0.pools);
    }
}

/// `get_connection` under the registry lock (`managers`).
fn fixed_get_connection(
    managers: &mut BTreeMap<String, Manager>,
    pools: &Mutex<BTreeMap<String, Pool>>,
    user: &str,
    max_active: i32,
    fresh: impl FnOnce() -> u32,
) -> Option<u32> {
    let manager = managers
        .entry(user.to_string())
        .or_insert(Manager { max_active });
    let mut pools = pools.lock();
    let pool = pools.entry(user.to_string()).or_default();
    pool.borrow(manager.max_active, fresh)
}

/// `close` under the registry lock (`managers`).
fn fixed_close(managers: &mut BTreeMap<String, Manager>, pools: &Mutex<BTreeMap<String, Pool>>) {
    pools.lock().clear();
    managers.clear();
}

/// The V1 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V1",
        name: "per_user_pool_data_source",
        original: "org.apache.commons.dbcp.datasources.PerUserPoolDataSource (DBCP 1.4)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<PerUserPoolDataSource>(c),
        check_twin: |c| threadsafe_rt::check::<FixedPerUserPoolDataSource>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                PerUserPoolDataSource::new,
                |ds| {
                    ds.get_connection("a");
                    ds.release_connection("a");
                },
                |ds| ds.close(),
            )
        },
    }
}
