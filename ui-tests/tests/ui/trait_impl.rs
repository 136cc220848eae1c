use std::fmt;
use threadsafe_rt::thread_safe;

pub struct Registry;

#[thread_safe]
impl fmt::Display for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("registry")
    }
}

fn main() {}
