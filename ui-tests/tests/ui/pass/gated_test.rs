// A gated test compiles warning-free in a user's crate: `point!` in test and non-test
// builds, `schedule!` with literals and expressions, and `gates::run` with named threads.
#![deny(warnings)]
#![warn(clippy::pedantic)]

use threadsafe_rt::gates::{self, reached, wait, BarrierGate, Loc, Schedule};
use threadsafe_rt::{point, schedule};

fn work(n: &std::sync::atomic::AtomicUsize) {
    n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    point!("after_add");
}

fn main() {
    let n = std::sync::atomic::AtomicUsize::new(0);
    let line = 42;
    let ordered = schedule!("a: after_add" -> (format!("b: fn work@{line}")) -> "b: after_add");
    let both = BarrierGate::new("both", 2);
    let schedule = ordered
        .gate(wait(Loc::point("after_add")).on(&both))
        .gate(wait("main: end").until(reached("a: end")));
    let outcome = gates::run(schedule, |s| {
        s.spawn("a", || work(&n));
        s.spawn("b", || work(&n));
    });
    let _ = outcome.is_ok();
    let _ = Schedule::new();
}
