//! `strategy = "dfs"`: every schedule of each generated test with at most `k` preemptions,
//! depth first. The paper's StringBuffer and ConcurrentHashMap bugs (written with
//! `threadsafe_rt::sync`) are found in every seed tried, and each find's replay token replays
//! it exactly; a correct twin passes, and its report states how many tests were explored to
//! the end, the same in two runs.
//!
//! Nothing here is left to the operating system: the generator's tests depend on the seed
//! alone, DFS's schedules on the test alone, and every execution is controlled.

use std::time::Duration;

use threadsafe_corpus::contege::sync_locks::concurrent_hash_map::{
    ConcurrentHashMap, FixedConcurrentHashMap,
};
use threadsafe_corpus::contege::sync_locks::string_buffer::StringBuffer;
use threadsafe_rt::{check, Config, Ended, Report, Strategy, Subject};
use threadsafe_tests::{expect, harness};

const DFS: Strategy = Strategy::Dfs { preemptions: 2 };

/// Far above any seed's time to bug here: the budget only guards against a hang.
const BUDGET: Duration = Duration::from_secs(60);

const SEEDS: std::ops::Range<u64> = 0..5;

fn config(seed: u64) -> Config {
    let mut config = harness::race_hunt(seed, DFS, BUDGET);
    config.shrink = false;
    config
}

fn finds_and_replays<T: Subject>(method: &str, message: &str) {
    for seed in SEEDS {
        let config = config(seed);
        let report = check::<T>(&config);
        if seed == SEEDS.start {
            println!("{report}");
        }
        let v = expect::violation(&report);
        assert!(
            v.failure.to_string().contains(&format!("`{method}`"))
                && v.failure.to_string().contains(message),
            "seed {seed}: not the panic in `{method}`:\n{report}"
        );
        assert_eq!(report.uncontrolled_runs, 0, "{report}");
        harness::replay_token(&config, &report);
        harness::replays_exactly::<T>(&config, &report);
    }
}

#[test]
fn string_buffer_is_found_and_replayed_in_every_seed() {
    finds_and_replays::<StringBuffer>("insert", "index out of bounds");
}

#[test]
fn concurrent_hash_map_is_found_and_replayed_in_every_seed() {
    finds_and_replays::<ConcurrentHashMap>("put_all", "a key listed by `keys` has a value");
}

/// Tests per check: the check ends there, long before its budget, so that two runs explore
/// the same tests.
const TESTS: u64 = 300;

fn small(seed: u64) -> Config {
    let mut config = config(seed);
    config.tests = Some(TESTS);
    config
}

fn explored_to_the_end<T: Subject>() -> Report {
    let report = check::<T>(&small(3));
    expect::no_violation(&report);
    assert_eq!(report.ended, Ended::Exhausted, "{report}");
    assert_eq!(report.tests, TESTS, "{report}");
    let e = &report.exploration;
    assert_eq!(e.preemptions, Some(2), "{report}");
    assert!(e.exhaustive_tests > 0, "{report}");
    assert_eq!(
        e.exhaustive_tests + e.sampled_tests(),
        report.controlled_tests,
        "{report}"
    );
    assert!(
        report.to_string().contains(&format!(
            "explored exhaustively: {} tests, every schedule with at most 2 preemptions ({} schedules",
            e.exhaustive_tests, e.exhaustive_schedules
        )),
        "{report}"
    );
    report
}

/// Every test of the twin is explored to the end (it makes the same choices for the same
/// schedule: no order by address, no time), and two runs explore the same.
#[test]
fn a_twin_s_pass_states_what_was_explored_the_same_every_run() {
    let first = explored_to_the_end::<FixedConcurrentHashMap>();
    let second = explored_to_the_end::<FixedConcurrentHashMap>();
    println!("{first}");
    assert_eq!(first.exploration.exhaustive_tests, TESTS, "{first}");
    assert_eq!(first.exploration, second.exploration, "{first}\n{second}");
    assert_eq!(first.executions, second.executions, "{first}\n{second}");
}
