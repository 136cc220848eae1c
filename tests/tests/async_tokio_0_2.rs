//! tokio 0.2.2's `sync::Mutex` (corpus subject `A7`): a `lock` cancelled while it waits
//! leaves the mutex locked for good (tokio #1898); and the same type over tokio 1's `Mutex`,
//! its twin.
//!
//! A file of its own: the threads its deadlocks leave behind stay busy in tokio 0.2's code
//! for the rest of the process, and would slow every later check in it.

use std::time::Duration;

use threadsafe_corpus::asynchronous::tokio_mutex;
use threadsafe_rt::{check, Config, Failure, Strategy};
use threadsafe_tests::{expect, harness};

/// A controlled check of seed `seed`, random schedules, 10 s at most.
fn controlled(seed: u64) -> Config {
    harness::controlled(seed, Strategy::Random, Duration::from_secs(10))
}

/// tokio 0.2.2's `Mutex`: a `lock` dropped while it waits keeps its place, so the unlock
/// hands the mutex to nobody; the next call waits for good. No linearization hangs: the
/// cancelled `lock` made whole or left out. Deterministic: the same find in every run of a
/// seed.
#[test]
fn a_lock_dropped_while_it_waits_leaves_tokio_0_2_s_mutex_locked_for_good() {
    for seed in 0..3 {
        let report = check::<tokio_mutex::Counter>(&controlled(seed));
        println!("{report}");
        let v = expect::violation(&report);
        assert!(
            matches!(v.failure, Failure::Deadlock { .. }),
            "a deadlock, not:\n{report}"
        );
        // Under control, the deadlock names the future that waits; an execution that gave
        // up control (seed 1: a thread blocked where the scheduler does not see, and the
        // execution finished free-running) says less.
        let text = report.to_string();
        if text.contains("by a controlled execution") {
            let at = "its future pending, waiting for a wake-up at corpus/src/asynchronous/tokio_mutex.rs:";
            assert!(text.contains(at), "{at}:\n{text}");
        }
        assert!(
            v.reproducer.contains("::threadsafe_rt::cancel_at(cut."),
            "{}",
            v.reproducer
        );
    }
}

/// The twin, over tokio 1's `Mutex`: quiet over 100 controlled tests in seeds 0–2.
#[test]
fn tokio_1_s_mutex_reports_nothing() {
    harness::quiet_under_control::<tokio_mutex::FixedCounter>();
}
