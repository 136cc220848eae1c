//! A cache that looks a key up under the read lock, loads the value (an await), and inserts
//! it under the write lock: two callers of one key both miss, both load, and get two
//! different values for one key, which no sequential order gives (the second caller would
//! have found the first one's value).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

use threadsafe_rt::thread_safe;
use tokio::sync::RwLock;

use super::remote;

/// The buggy type's file, for the harness.
pub const FILE: &str = file!();

/// Values by key, loaded on a miss. Each load makes a new version of the value.
pub struct Cache {
    map: RwLock<HashMap<u8, u32>>,
    loads: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl Cache {
    /// An empty cache.
    pub fn new() -> Self {
        Cache {
            map: RwLock::new(HashMap::new()),
            loads: AtomicU32::new(0),
        }
    }

    /// The value of `key`, loaded on a miss.
    pub async fn get(&self, key: u8) -> u32 {
        if let Some(v) = self.map.read().await.get(&key) {
            return *v;
        }
        let v = load(&self.loads, key).await;
        self.map.write().await.insert(key, v);
        v
    }

    /// How many loads the cache made.
    pub fn loads(&self) -> u32 {
        self.loads.load(Ordering::SeqCst)
    }
}

/// The correct twin: the miss, the load and the insert happen under the write lock, held
/// across the load's await (tokio's guard may be), so a key is loaded once.
pub struct FixedCache {
    map: RwLock<HashMap<u8, u32>>,
    loads: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedCache {
    /// An empty cache.
    pub fn new() -> Self {
        FixedCache {
            map: RwLock::new(HashMap::new()),
            loads: AtomicU32::new(0),
        }
    }

    /// The value of `key`, loaded on a miss.
    pub async fn get(&self, key: u8) -> u32 {
        if let Some(v) = self.map.read().await.get(&key) {
            return *v;
        }
        let mut map = self.map.write().await;
        if let Some(v) = map.get(&key) {
            return *v;
        }
        let v = load(&self.loads, key).await;
        map.insert(key, v);
        v
    }

    /// How many loads the cache made.
    pub fn loads(&self) -> u32 {
        self.loads.load(Ordering::SeqCst)
    }
}

/// Loads the value of `key` from afar: a new version at every load, counted in `loads`.
async fn load(loads: &AtomicU32, key: u8) -> u32 {
    let version = loads.fetch_add(1, Ordering::SeqCst);
    remote().await;
    u32::from(key) * 1000 + version
}
