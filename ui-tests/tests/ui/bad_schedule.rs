use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(schedule = "controled")]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

pub struct Cache;

#[thread_safe(schedule = controlled, statement_points = "off")]
impl Cache {
    pub fn new() -> Self {
        Cache
    }
}

fn main() {}
