use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(strategy = "dfs")]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

pub struct Cache;

#[thread_safe(strategy = pct)]
impl Cache {
    pub fn new() -> Self {
        Cache
    }
}

pub struct Queue;

#[thread_safe(strategy = "pct0")]
impl Queue {
    pub fn new() -> Self {
        Queue
    }
}

fn main() {}
