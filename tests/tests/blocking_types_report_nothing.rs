//! Correct types whose calls block until another thread acts (a blocking queue, a countdown
//! latch, an event waited for on a flag) report nothing over 20 seeds: a hang of theirs is judged with blocking semantics,
//! and every hang is one that some order of the same calls has too.

use std::time::Duration;

use threadsafe_rt::{check, Config};
use threadsafe_tests::blocking::{BlockingQueue, Event, Latch};
use threadsafe_tests::expect;

#[test]
fn correct_blocking_types_report_nothing() {
    for seed in 0..20 {
        let mut config = Config::default();
        config.seed = seed;
        config.budget = Duration::from_millis(150);
        expect::no_violation(&check::<BlockingQueue>(&config));
        expect::no_violation(&check::<Latch>(&config));
        expect::no_violation(&check::<Event>(&config));
    }
}
