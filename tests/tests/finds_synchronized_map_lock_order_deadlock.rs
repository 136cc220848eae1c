//! Bug 9 of Pradel & Gross, with std locks: `a.eq(&b)` holds `a`'s lock while it locks `b`,
//! and `b.eq(&a)` holds `b`'s while it locks `a`: each thread can hold one lock and wait
//! forever for the other. The check reports a deadlock of both threads in `eq` and prints a
//! reproducer; the fixed twin passes the same check.

use std::time::Duration;

use threadsafe_corpus::contege::std_locks::synchronized_map::{
    FixedSynchronizedMap, SynchronizedMap,
};
use threadsafe_rt::{check, generated_tests, Config};
use threadsafe_tests::expect;

/// With `SEED` and `conc_execs` below, the deadlock comes in the second test, in every one of
/// many runs, and well within the budget (most of the time is the watchdog's two quiet
/// periods). The test failed once in CI: the second test's executions gave no deadlock, and
/// the check ended at another bug; the likely cause, rounds of a free-running batch that lose
/// their alignment while the twin's check shares the cores, is not traced. Decision 0027 has
/// the measurements and that miss; beside one busy process the test passed 100 times in 100
/// (decision 0084).
const BUDGET: Duration = Duration::from_secs(10);
/// The budget of the check of the fixed twin: longer than the median time to bug.
const TWIN_BUDGET: Duration = Duration::from_secs(2);

/// A seed whose tests include `a.eq(&b)` and `b.eq(&a)`, each the first call of its thread,
/// early: seed 179 makes it the second test. (The generator rarely pairs calls that cross two
/// instances in opposite directions, and few seeds do it early.) Generation is
/// deterministic, the schedule is not: such a test deadlocks in few of its executions, and
/// with the default 100 a seed's deadlocking test was often missed, hence `conc_execs =
/// 1000` (see decisions 0027 and 0081).
const SEED: u64 = 179;
/// The test with the opposite `eq` calls comes among the first this many.
const FIRST_TESTS: usize = 5;

fn config(budget: Duration) -> Config {
    let mut config = Config::default();
    config.budget = budget;
    config.seed = SEED;
    config.conc_execs = 1000;
    config
}

/// Whether `test` runs `a.eq(&b)` first on one thread and `b.eq(&a)` first on the other.
fn compares_from_both_sides(test: &str) -> bool {
    let threads: Vec<&str> = test
        .split("s.spawn(|| {")
        .skip(1)
        .map(str::trim_start)
        .collect();
    let first = |t: &str, call: &str| t.starts_with(&format!("let _ = {call};"));
    threads.len() == 2
        && (first(threads[0], "cut.eq(&cut1)") && first(threads[1], "cut1.eq(&cut)")
            || first(threads[0], "cut1.eq(&cut)") && first(threads[1], "cut.eq(&cut1)"))
}

#[test]
fn the_seed_generates_the_deadlocking_test_early() {
    let tests = generated_tests::<SynchronizedMap>(&config(BUDGET), FIRST_TESTS);
    assert!(
        tests.iter().any(|t| compares_from_both_sides(t)),
        "the generator changed: seed {SEED} no longer makes `a.eq(&b) || b.eq(&a)` among its \
         first {FIRST_TESTS} tests; pick another seed that does"
    );
}

#[test]
fn finds_the_lock_order_deadlock_and_prints_a_reproducer() {
    let report = check::<SynchronizedMap>(&config(BUDGET));
    println!("{report}");
    expect::deadlock_in(&report, "eq");
    expect::reproducer(
        &report,
        &[
            "let cut1 = SynchronizedMap::",
            "cut.eq(&cut1)",
            "cut1.eq(&cut)",
        ],
    );
}

#[test]
fn the_fixed_twin_passes() {
    expect::no_violation(&check::<FixedSynchronizedMap>(&config(TWIN_BUDGET)));
}
