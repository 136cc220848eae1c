use std::sync::atomic::{AtomicU32, Ordering};
use threadsafe_rt::thread_safe;

pub struct Counter {
    n: AtomicU32,
}

#[thread_safe]
impl Counter {
    #[thread_safe(not_cancel_safe)]
    pub async fn new() -> Self {
        Counter { n: AtomicU32::new(0) }
    }
    #[thread_safe(not_cancel_safe)]
    pub fn bump(&self) -> u32 {
        self.n.fetch_add(1, Ordering::SeqCst)
    }
    #[thread_safe(skip, not_cancel_safe)]
    pub async fn reset(&self) {
        self.n.store(0, Ordering::SeqCst)
    }
    #[thread_safe(not_cancel_safe)]
    pub async fn read(&self) -> u32 {
        self.n.load(Ordering::SeqCst)
    }
}

fn main() {}
