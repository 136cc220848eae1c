//! A controlled execution that reaches the bound on scheduling points
//! (`threadsafe_rt`'s `MAX_STEPS`, 10,000) gives up control and runs the rest free, and the
//! test's other controlled executions are skipped: a call that takes a lock per element of
//! a large collection would otherwise cost seconds per execution under control, a hundred
//! executions per test, and hold up the whole check.

// The type under test has the constructor the generator calls; `Default` would be a second.
#![allow(clippy::new_without_default)]

use std::time::Duration;

use threadsafe_rt::sync::Mutex;
use threadsafe_rt::{check, thread_safe, Config, ScheduleMode};
use threadsafe_tests::expect;

/// Counters, one lock each (correct).
pub struct Cells(Vec<Mutex<u64>>);

#[thread_safe(test = false)]
impl Cells {
    pub fn new() -> Self {
        Cells((0..6_000).map(|_| Mutex::new(0)).collect())
    }
    /// Adds one to every counter, taking each one's lock in turn: 6,000 scheduling points.
    pub fn bump(&self) {
        for c in &self.0 {
            *c.lock().unwrap() += 1;
        }
    }
    /// The first counter.
    pub fn first(&self) -> u64 {
        *self.0[0].lock().unwrap()
    }
}

#[test]
fn a_long_controlled_execution_is_cut_once_per_test_and_reports_nothing() {
    let mut c = Config::default();
    c.schedule = ScheduleMode::Controlled;
    c.budget = Duration::from_millis(1_500);
    let report = check::<Cells>(&c);
    expect::no_violation(&report);
    assert!(report.results.compared, "{report}");
    assert!(
        report.cut_runs > 0,
        "two calls of `bump` pass the bound: {report}"
    );
    assert!(
        report.cut_runs <= report.controlled_tests,
        "at most one cut execution per test: {report}"
    );
    assert!(
        report
            .to_string()
            .contains("reached 10000 scheduling points"),
        "{report}"
    );
}
