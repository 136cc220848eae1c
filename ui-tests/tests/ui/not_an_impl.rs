use threadsafe_rt::thread_safe;

#[thread_safe]
pub struct Registry {
    pub hits: u32,
}

fn main() {}
