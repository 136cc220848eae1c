use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(thread = 3, budget = "1s", verbose = true)]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

fn main() {}
