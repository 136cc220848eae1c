use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(strategy = "pct", depth = 0)]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

pub struct Cache;

#[thread_safe(depth = 2)]
impl Cache {
    pub fn new() -> Self {
        Cache
    }
}

pub struct Queue;

#[thread_safe(strategy = "random", depth = 2)]
impl Queue {
    pub fn new() -> Self {
        Queue
    }
}

pub struct Stack;

#[thread_safe(depth = "deep", strategy = "pct")]
impl Stack {
    pub fn new() -> Self {
        Stack
    }
}

pub struct Heap;

#[thread_safe(strategy = "pct4", depth = 2)]
impl Heap {
    pub fn new() -> Self {
        Heap
    }
}

pub struct Pool;

#[thread_safe(strategy = "dfs3", depth = 2)]
impl Pool {
    pub fn new() -> Self {
        Pool
    }
}

fn main() {}
