//! Bug 2 of Pradel & Gross: `map.put_all(&map)` lists the map's keys, then reads each value
//! in a separate lock section; a concurrent `map.clear()` (or `remove`) in between leaves a
//! listed key without a value, and `put_all` panics. The check finds the panic, points at
//! the lookup and prints a reproducer; the fixed twin passes the same check.

use std::time::Duration;

use threadsafe_corpus::contege::std_locks::concurrent_hash_map::{
    ConcurrentHashMap, FixedConcurrentHashMap, FILE, SOURCE,
};
use threadsafe_rt::{check, Config};
use threadsafe_tests::expect;
use threadsafe_tests::line_of;

/// Several times the longest time to bug of many runs with seed 0 on a quiet machine (see
/// decision 0081); beside one busy process the test passed 100 times in 100 (decision 0084).
const BUDGET: Duration = Duration::from_secs(10);
/// The budget of the check of the fixed twin: longer than the median time to bug.
const TWIN_BUDGET: Duration = Duration::from_secs(1);

fn config(budget: Duration) -> Config {
    let mut config = Config::default();
    config.budget = budget;
    config
}

#[test]
fn finds_the_put_all_race_and_prints_a_reproducer() {
    // The same race has a second symptom, a wrong result: `put_all(&map)` puts back a key
    // a concurrent `clear()` removed, and a free-running execution under load may show
    // that first (seen in CI). This test is about the panic, so it uses the paper's oracle;
    // the twin below is held to the default one.
    let mut config = config(BUDGET);
    config.results = false;
    let report = check::<ConcurrentHashMap>(&config);
    println!("{report}");
    let line = line_of(SOURCE, "let value = other.get(&key).expect(");
    expect::panic_at(
        &report,
        "put_all",
        FILE,
        line,
        "a key listed by `keys` has a value",
    );
    expect::reproducer(&report, &[".put_all(&cut"]);
    let text = report.to_string();
    assert!(
        text.contains(".clear()") || text.contains(".remove("),
        "the reproducer has no call that removes entries:\n{text}"
    );
}

#[test]
fn the_fixed_twin_passes() {
    expect::no_violation(&check::<FixedConcurrentHashMap>(&config(TWIN_BUDGET)));
}
