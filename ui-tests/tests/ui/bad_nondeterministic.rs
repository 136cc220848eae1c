use std::sync::atomic::{AtomicU64, Ordering};
use threadsafe_rt::thread_safe;

pub struct Clock {
    ticks: AtomicU64,
}

#[thread_safe]
impl Clock {
    #[thread_safe(nondeterministic)]
    pub fn new() -> Self {
        Clock { ticks: AtomicU64::new(0) }
    }
    #[thread_safe(nondeterministic)]
    pub fn now(&self) -> u64 {
        self.ticks.fetch_add(1, Ordering::SeqCst)
    }
    #[thread_safe(nondeterministic = true)]
    pub fn peek(&self) -> u64 {
        self.ticks.load(Ordering::SeqCst)
    }
    #[thread_safe(nondeterministic)]
    pub fn reset(&self) {
        self.ticks.store(0, Ordering::SeqCst)
    }
    #[thread_safe(nondeterministic)]
    pub fn halt(&self) -> ! {
        panic!("halted")
    }
    #[thread_safe(nondeterministic)]
    pub fn fork(&self) -> Self {
        Clock { ticks: AtomicU64::new(self.now()) }
    }
    #[thread_safe(skip, nondeterministic)]
    pub fn debug(&self) -> String {
        format!("{}", self.peek())
    }
    #[thread_safe(nondeterministic)]
    fn raw(&self) -> u64 {
        self.peek()
    }
}

fn main() {}
