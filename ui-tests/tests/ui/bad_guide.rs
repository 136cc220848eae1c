use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(guide = "covcon", stop_when_covered = "yes")]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

pub struct Cache;

#[thread_safe(guide = map, stop_when_covered = 1)]
impl Cache {
    pub fn new() -> Self {
        Cache
    }
}

fn main() {}
