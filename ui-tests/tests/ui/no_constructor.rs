use std::sync::atomic::{AtomicU32, Ordering};
use threadsafe_rt::thread_safe;

pub struct Counter {
    n: AtomicU32,
}

impl Counter {
    pub fn new() -> Self {
        Counter { n: AtomicU32::new(0) }
    }
}

#[thread_safe]
impl Counter {
    pub fn bump(&self) -> u32 {
        self.n.fetch_add(1, Ordering::SeqCst)
    }
}

pub struct Gauge {
    n: AtomicU32,
}

#[thread_safe]
impl Gauge {
    fn new() -> Self {
        Gauge { n: AtomicU32::new(0) }
    }
    #[thread_safe(skip)]
    pub fn zero() -> Option<Gauge> {
        Some(Gauge::new())
    }
    pub fn read(&self) -> u32 {
        self.n.load(Ordering::SeqCst)
    }
}

fn main() {}
