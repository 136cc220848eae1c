use std::sync::Mutex;
use threadsafe_rt::thread_safe;

pub struct Stack(Mutex<Vec<u32>>);

#[thread_safe(test = false, statement_points = "always")]
impl Stack {
    pub fn new() -> Self { Stack(Mutex::new(Vec::new())) }
    pub fn push(&self, v: u32) { self.0.lock().unwrap().push(v) }
    pub fn pop_or_zero(&self) -> u32 {
        if self.0.lock().unwrap().is_empty() { return 0; }
        self.0.lock().unwrap().pop().expect("checked non-empty") // races with another pop
    }
}
