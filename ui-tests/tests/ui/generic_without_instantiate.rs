use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use threadsafe_rt::thread_safe;

pub struct Cache<K, V> {
    map: Mutex<HashMap<K, V>>,
}

#[thread_safe]
impl<K: Eq + Hash, V: Clone> Cache<K, V> {
    pub fn new() -> Self {
        Cache { map: Mutex::new(HashMap::new()) }
    }
    pub fn get(&self, k: &K) -> Option<V> {
        self.map.lock().unwrap().get(k).cloned()
    }
}

fn main() {}
