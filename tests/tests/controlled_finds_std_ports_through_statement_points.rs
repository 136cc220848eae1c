//! The paper's StringBuffer and ConcurrentHashMap bugs with `std::sync::Mutex`: the corpus's
//! ports written once for both lock modules, included into this file with `std::sync` (an
//! integration test, compiled with `cfg(test)`, so `#[thread_safe]` puts statement points in
//! their methods, which the corpus's own `std_locks` build has not when other crates use it):
//! under `ScheduleMode::Controlled` the statement points alone make the std code
//! controllable. Every seed of 0..20 finds the panic inside the racy method, every execution
//! stays under control (no std guard is held across a statement), and each find's token
//! replays the same failure in the same interleaving.

use std::time::Duration;

use threadsafe_rt::{check, Report, Strategy, Subject};
use threadsafe_tests::harness::{self, Finds};
use threadsafe_tests::{expect, line_of};

// What the included ports lock with, and how their twins lock two buffers.
use std::sync;
use threadsafe_corpus::contege::std_locks::lock_in_address_order;

// The sync port's source, with std locks. (The twins and constants are not all used here.)
#[allow(dead_code)]
#[path = "../../corpus/src/contege/both_locks/concurrent_hash_map.rs"]
mod concurrent_hash_map;
#[allow(dead_code)]
#[path = "../../corpus/src/contege/both_locks/string_buffer.rs"]
mod string_buffer;

use concurrent_hash_map::ConcurrentHashMap;
use string_buffer::StringBuffer;

/// Every seed of these finds the bug.
const SEEDS: std::ops::Range<u64> = 0..20;

/// Far above the longest time to bug of any seed, even with both cores taken by busy loops
/// (identical tests and schedules in every run; see decision 0081): the budget only guards
/// against a hang.
const BUDGET: Duration = Duration::from_secs(60);

/// For every seed: the controlled check finds a panic in `method` at `line` of `file` whose
/// message contains `message`; all its executions stayed under control; its interleaving is
/// made of statement points only and passes the one at `window` (the statement before the
/// race window); and its token replays it exactly.
fn finds_in_every_seed<T: Subject>(
    name: &str,
    strategy: Strategy,
    (method, file, line, message): (&str, &str, u32, &str),
    window: u32,
) {
    let mut finds = Finds::new(format!("{name} (std), {strategy:?}"));
    for seed in SEEDS {
        let mut config = harness::race_hunt(seed, strategy, BUDGET);
        // About the finds, not their shrinking (which has its own tests).
        config.shrink = false;
        let report: Report = check::<T>(&config);
        if seed == SEEDS.start {
            println!("{report}");
        }
        expect::panic_at(&report, method, file, line, message);
        assert_eq!(report.controlled_tests, report.tests, "{report}");
        assert_eq!(
            report.uncontrolled_runs, 0,
            "no std guard is held across a statement, yet control was lost:\n{report}"
        );
        harness::replay_token(&config, &report);
        let interleaving = expect::violation(&report).interleaving.as_deref().unwrap();
        assert!(
            interleaving.contains(&format!("line {window}")),
            "seed {seed}: the interleaving does not pass the statement point at line {window}:\n{report}"
        );
        assert!(
            !interleaving.contains(" at "),
            "seed {seed}: a scheduling point that is not a statement point:\n{report}"
        );
        let replay = harness::replays_exactly::<T>(&config, &report);
        finds.record(seed, &report, &replay);
    }
    eprint!("{}", finds.summary());
}

#[test]
fn string_buffer() {
    finds_in_every_seed::<StringBuffer>(
        "StringBuffer",
        Strategy::Random,
        (
            "insert",
            string_buffer::FILE,
            line_of(string_buffer::SOURCE, "self.chars.lock().unwrap()[index]"),
            "index out of bounds",
        ),
        line_of(string_buffer::SOURCE, "let end = other.len();"),
    );
}

#[test]
fn concurrent_hash_map() {
    finds_in_every_seed::<ConcurrentHashMap>(
        "ConcurrentHashMap",
        Strategy::Random,
        (
            "put_all",
            concurrent_hash_map::FILE,
            line_of(concurrent_hash_map::SOURCE, "other.get(&key).expect("),
            "a key listed by `keys` has a value",
        ),
        line_of(concurrent_hash_map::SOURCE, "let value = other.get(&key)"),
    );
}
