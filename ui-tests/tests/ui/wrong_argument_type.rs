use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe(prefixes = "many", seed = -1, executor = 1, test = "no", budget = 5)]
impl Registry {
    pub fn new() -> Self {
        Registry
    }
}

fn main() {}
