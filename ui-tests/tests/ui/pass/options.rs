//! The less common arguments and shapes compile without warnings: a renamed runtime crate
//! (`crate = ".."`), no generated test (`test = false`), a const-generic instantiation, every
//! knob of the check, and a method that never returns.
#![deny(warnings)]

extern crate threadsafe_rt as ts;

use std::sync::Mutex;

use ts::{thread_safe, Subject};

pub struct Buf<const N: usize> {
    slots: Mutex<[u8; N]>,
}

#[thread_safe(
    crate = "ts",
    test = false,
    instantiate = "Buf<4>",
    prefixes = 3,
    suffixes = 10,
    state_changer_tries = 0,
    cut_call_tries = 1,
    conc_execs = 5,
    threads = 4,
    post_calls = 0,
    seed = 18446744073709551615,
    budget = "0.5s",
    deadlock_timeout = "2min",
    executor = "paper",
    schedule = "stress",
    strategy = "pct",
    depth = 2,
    guide = "pairs",
    stop_when_covered = false,
    statement_points = false
)]
impl<const N: usize> Buf<N> {
    pub fn new() -> Self {
        Buf {
            slots: Mutex::new([0; N]),
        }
    }
    pub fn fill(&self, with: [u8; N]) {
        *self.slots.lock().unwrap() = with;
    }
    pub fn first(&self) -> Option<u8> {
        self.slots.lock().unwrap().first().copied()
    }
    pub fn abort(&self) -> ! {
        panic!("aborted with {:?}", self.first())
    }
}

pub fn main() {
    let d = Buf::<4>::describe();
    assert_eq!(d.name(), "Buf<4>");
    assert_eq!(d.method_names(), ["fill", "first", "abort"]);
    let b = Buf::<4>::new();
    b.fill([1, 2, 3, 4]);
    if b.first() == Some(0) {
        b.abort();
    }
}
