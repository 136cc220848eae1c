use std::cell::Cell;
use threadsafe_rt::thread_safe;

pub struct Counter {
    n: Cell<u32>,
}

#[thread_safe]
impl Counter {
    pub fn new() -> Self {
        Counter { n: Cell::new(0) }
    }
    pub fn bump(&self) -> u32 {
        self.n.set(self.n.get() + 1);
        self.n.get()
    }
}

fn main() {}
