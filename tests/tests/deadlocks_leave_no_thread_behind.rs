//! A lock-order deadlock on std locks, checked as the generated test checks it: in a child
//! process of the test binary. The deadlock is reported (both threads named, in the methods
//! that take the locks in opposite orders) and the threads it blocked die with the child:
//! this process has as many threads after the check as before. The same check run in this
//! process leaves its blocked threads here, which is what the child spares the user's other
//! tests. One test in this binary, so that no other test's threads change the count.

use std::time::Duration;

use threadsafe_rt::{Config, Failure};
use threadsafe_tests::expect;
use threadsafe_tests::temp::TempDir;
use threadsafe_tests::two_accounts::TwoAccounts;

/// The threads of this process now.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task lists this process's threads")
        .count()
}

/// A budget that found the deadlock in 100 checks out of 100 here, beside a busy process
/// (decision 0085).
const BUDGET: Duration = Duration::from_secs(10);

#[test]
#[cfg(target_os = "linux")]
fn thread_safe_two_accounts_deadlock_is_reported_and_leaves_no_thread_here() {
    let dir = TempDir::new("deadlock");
    let mut config = Config::default();
    config.budget = BUDGET;
    config.regressions = Some(dir.path().to_path_buf());
    let before = threads();
    let text = expect::failed_generated_test::<TwoAccounts>(config.clone());
    assert!(text.contains("deadlock: thread 1 in `to_"), "{text}");
    assert!(text.contains("thread 2 in `to_"), "{text}");
    assert!(text.contains("cut.to_a("), "the reproducer:\n{text}");
    assert!(text.contains("cut.to_b("), "the reproducer:\n{text}");
    assert_eq!(
        threads(),
        before,
        "threads left in this process by:\n{text}"
    );

    // In this process, the same check leaves its blocked threads here.
    let report = threadsafe_rt::check::<TwoAccounts>(&config);
    assert!(
        matches!(
            report.violation().map(|v| &v.failure),
            Some(Failure::Deadlock { .. })
        ),
        "{report}"
    );
    assert!(report.abandoned_threads > 0, "{report}");
    assert!(threads() > before, "{report}");
}
