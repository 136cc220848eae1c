use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(results = "no")]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

pub struct Cache;

#[thread_safe(results = 0, stop_when_covered = true)]
impl Cache {
    pub fn new() -> Self {
        Cache
    }
}

pub struct Queue;

#[thread_safe(results)]
impl Queue {
    pub fn new() -> Self {
        Queue
    }
}

fn main() {}
