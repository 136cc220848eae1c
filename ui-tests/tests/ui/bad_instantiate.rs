use std::sync::Mutex;
use threadsafe_rt::thread_safe;

pub struct Cache<K, V> {
    map: Mutex<Vec<(K, V)>>,
}

#[thread_safe(instantiate = "Cache<String>")]
impl<K, V> Cache<K, V> {
    pub fn new() -> Self {
        Cache { map: Mutex::new(Vec::new()) }
    }
}

pub struct Pool<T> {
    items: Mutex<Vec<T>>,
}

#[thread_safe(instantiate = "Pool<u8")]
impl<T> Pool<T> {
    pub fn new() -> Self {
        Pool { items: Mutex::new(Vec::new()) }
    }
}

pub struct Registry;

#[thread_safe(instantiate = "Registry<u8>")]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

pub struct View<'a> {
    name: &'a str,
}

#[thread_safe]
impl<'a> View<'a> {
    pub fn new() -> Self {
        View { name: "" }
    }
    pub fn name(&self) -> &str {
        self.name
    }
}

fn main() {}
