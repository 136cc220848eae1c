//! The main job: a registry with a real thread-safety bug, found and reported.
//!
//! ```text
//! cargo run --release -p threadsafe-rt --example registry
//! ```
//!
//! `Registry::merge` copies another registry's entries: it lists the keys, then reads each
//! value in its own lock section. A `remove` on the other registry between the two is not
//! expected, and `merge` panics. Every method is fine on its own and in any sequential
//! order; only a concurrent `merge` and `remove` fail, which is what the oracle checks
//! before it reports. Exits 0 when the bug is found, 1 when it is not.

use std::collections::HashMap;
use std::sync::Mutex;

use threadsafe_rt::{check, thread_safe, Config};

/// A name → value registry shared between threads.
pub struct Registry {
    entries: Mutex<HashMap<String, u32>>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

#[thread_safe(test = false)]
impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry {
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// An empty registry with room for `n` entries.
    pub fn with_capacity(n: u8) -> Self {
        Registry {
            entries: Mutex::new(HashMap::with_capacity(usize::from(n))),
        }
    }

    /// Sets `key` to `value`, returning the previous value.
    pub fn insert(&self, key: String, value: u32) -> Option<u32> {
        self.entries.lock().unwrap().insert(key, value)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<u32> {
        self.entries.lock().unwrap().get(key).copied()
    }

    /// Removes `key`, returning its value.
    pub fn remove(&self, key: &str) -> Option<u32> {
        self.entries.lock().unwrap().remove(key)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.lock().unwrap().is_empty()
    }

    /// The keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.entries.lock().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    }

    /// Copies every entry of `other` into `self`.
    pub fn merge(&self, other: &Registry) {
        for key in other.keys() {
            // BUG: `other` may have lost `key` since `keys()` released the lock.
            let value = other
                .get(&key)
                .expect("merge: key listed by keys() is present");
            self.insert(key, value);
        }
    }

    /// Removes every entry.
    pub fn clear(&self) {
        self.entries.lock().unwrap().clear();
    }

    /// Frees unused capacity; needs exclusive access.
    pub fn compact(&mut self) {
        self.entries.get_mut().unwrap().shrink_to_fit();
    }

    /// Prints the entries; not meant to be called concurrently.
    #[thread_safe(skip)]
    pub fn debug_dump(&self) {
        println!("{:?}", self.entries.lock().unwrap());
    }
}

fn main() {
    let mut config = Config::default();
    config.budget = std::time::Duration::from_secs(30);
    let config = config.with_env().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let report = check::<Registry>(&config);
    println!("{report}");
    std::process::exit(if report.violation().is_some() { 0 } else { 1 });
}
