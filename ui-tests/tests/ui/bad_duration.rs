use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(budget = "5", deadlock_timeout = "3h")]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

pub struct Cache;

#[thread_safe(budget = "fast", deadlock_timeout = "0ms")]
impl Cache {
    pub fn new() -> Self {
        Cache
    }
}

fn main() {}
