use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(strategy = "bfs")]
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

pub struct Pool;

#[thread_safe(strategy = "dfs1001")]
impl Pool {
    pub fn new() -> Self {
        Pool
    }
}

fn main() {}
