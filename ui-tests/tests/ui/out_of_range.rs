use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(prefixes = 0, threads = 5, conc_execs = 0)]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

fn main() {}
