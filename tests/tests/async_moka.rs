//! moka 0.6.2's `future::Cache` (corpus subject `A8`): a `get_or_insert_with` cancelled
//! while its load waits breaks the key for good (moka #59); and the same type over moka
//! 0.7.2, its twin.
//!
//! A file of its own: moka keeps housekeeping threads for the rest of the process, which
//! wait with timeouts. A thread outside a controlled run that is not asleep for good may
//! still call a waker, so every later check in the process would wait a second before it
//! calls a lost wake-up a deadlock (`docs/src/async.md`).

use std::time::Duration;

use threadsafe_corpus::asynchronous::moka_load;
use threadsafe_rt::{check, Config, Failure, Strategy};
use threadsafe_tests::{expect, harness};

/// A controlled check of seed `seed`, random schedules, 10 s at most.
fn controlled(seed: u64) -> Config {
    harness::controlled(seed, Strategy::Random, Duration::from_secs(10))
}

/// A `get_or_insert_with` cancelled while its load waits
/// leaves the key loading for good, and the next call for it panics inside moka. No order
/// panics with the cancelled call made whole or left out.
#[test]
fn a_load_cancelled_while_it_waits_breaks_moka_0_6_s_key_for_good() {
    for seed in 0..3 {
        let report = check::<moka_load::Profiles>(&controlled(seed));
        println!("{report}");
        let v = expect::violation(&report);
        let Failure::Panic { location, .. } = &v.failure else {
            panic!("a panic, not:\n{report}");
        };
        assert!(location.contains(moka_load::PANICS_IN), "{location}");
        assert!(
            v.reproducer.contains("::threadsafe_rt::cancel_at(cut.get("),
            "{}",
            v.reproducer
        );
    }
}

/// The twin, over moka 0.7.2: quiet over 100 controlled tests in seeds 0–2.
#[test]
fn moka_0_7_s_cache_reports_nothing() {
    harness::quiet_under_control::<moka_load::FixedProfiles>();
}
