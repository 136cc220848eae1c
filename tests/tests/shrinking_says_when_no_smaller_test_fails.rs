//! Shrinking always says what it did. A find that is already as small as a test can be (the
//! constructor, one call on each of two threads, nothing after) keeps its test, and the
//! violation still carries `shrunk`: `smaller: false`, the same number of calls before and
//! after, the candidates it tried; the report says "no smaller test fails the same way" and
//! prints no "test as first found" (it is the reproducer above).
//!
//! Deterministic: the type's only scheduling points are `threadsafe_rt::sync` atomics, the
//! check is controlled with a fixed seed, and no smaller test has two threads in `enter`.

use std::time::Duration;

use threadsafe_rt::sync::atomic::{AtomicBool, Ordering};
use threadsafe_rt::{check, thread_safe, Config, ScheduleMode};
use threadsafe_tests::expect;

/// A room for one: `enter` panics when another thread is inside.
pub struct Room {
    inside: AtomicBool,
}

#[thread_safe(test = false)]
impl Room {
    pub fn new() -> Self {
        Room {
            inside: AtomicBool::new(false),
        }
    }

    pub fn enter(&self) {
        // BUG: two threads can be inside at once; each alone never panics.
        assert!(!self.inside.swap(true, Ordering::SeqCst), "two inside");
        self.inside.store(false, Ordering::SeqCst);
    }
}

impl Default for Room {
    fn default() -> Self {
        Room::new()
    }
}

/// The smallest tests the generator makes: no call added to the prefix, one call per thread,
/// no post part.
fn smallest_tests(seed: u64) -> Config {
    let mut config = Config::default();
    config.seed = seed;
    config.budget = Duration::from_secs(20);
    config.schedule = ScheduleMode::Controlled;
    config.state_changer_tries = 0;
    config.cut_call_tries = 1;
    config.post_calls = 0;
    config
}

#[test]
fn a_find_that_is_already_smallest_says_so() {
    for seed in 0..3 {
        let report = check::<Room>(&smallest_tests(seed));
        let v = expect::violation(&report);
        let text = report.to_string();
        assert!(text.contains("two inside"), "seed {seed}:\n{text}");
        let shrunk = v.shrunk.as_ref().unwrap_or_else(|| {
            panic!("seed {seed}: shrinking is on, `shrunk` says what it did:\n{text}")
        });
        assert!(!shrunk.smaller, "seed {seed}:\n{text}");
        assert_eq!(
            shrunk.from_calls, 3,
            "seed {seed}: new, enter, enter:\n{text}"
        );
        assert_eq!(shrunk.to_calls, shrunk.from_calls, "seed {seed}:\n{text}");
        assert_eq!(shrunk.original, v.reproducer, "seed {seed}");
        assert!(
            text.contains("  shrunk:  no smaller test fails the same way (3 calls; "),
            "seed {seed}:\n{text}"
        );
        assert!(
            !text.contains("The test as first found"),
            "seed {seed}: nothing to show twice:\n{text}"
        );
        assert!(
            text.contains("re-runs exactly this execution"),
            "seed {seed}: the token replays the reproducer's own execution:\n{text}"
        );
    }
}

#[test]
fn with_shrinking_off_there_is_no_shrunk() {
    let mut config = smallest_tests(0);
    config.shrink = false;
    let report = check::<Room>(&config);
    let v = expect::violation(&report);
    assert!(v.shrunk.is_none(), "{report}");
    assert!(!report.to_string().contains("shrunk:"), "{report}");
}
