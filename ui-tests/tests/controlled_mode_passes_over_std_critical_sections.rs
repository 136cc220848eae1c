//! A correct type whose methods hold a `std::sync::MutexGuard` across statements. In a test
//! build `#[thread_safe]` puts scheduling points between those statements; switching threads
//! at a point inside the critical section makes the other thread block in the operating
//! system, outside the scheduler. The scheduler sets such a thread aside until it comes back,
//! and passes over that point in the test's later executions. The check must report nothing,
//! and most controlled executions must keep full control.

use std::sync::Mutex;
use std::time::Duration;

use threadsafe_rt::{check, thread_safe, Config, ScheduleMode, Verdict};

#[derive(Default)]
pub struct Counter(Mutex<u64>);

#[thread_safe(test = false)]
impl Counter {
    pub fn new() -> Self {
        Counter(Mutex::new(0))
    }

    pub fn add(&self, n: u8) -> u64 {
        let mut c = self.0.lock().unwrap();
        *c += u64::from(n);
        *c
    }

    pub fn get(&self) -> u64 {
        let c = self.0.lock().unwrap();
        *c
    }
}

#[test]
fn no_report_and_control_is_mostly_kept() {
    let mut config = Config::default();
    config.schedule = ScheduleMode::Controlled;
    config.budget = Duration::from_millis(500);
    let report = check::<Counter>(&config);
    println!("{report}");
    assert!(
        matches!(report.verdict, Verdict::NoViolationFound),
        "{report}"
    );
    assert!(report.controlled_tests > 0, "{report}");
    // Each test's first executions find the futile points (at most a few per test); after
    // that its executions are fully controlled. Before that learning, every execution that
    // switched inside the critical section lost control.
    assert!(
        report.uncontrolled_runs * 4 < report.executions,
        "{} of {} executions lost control",
        report.uncontrolled_runs,
        report.executions
    );
}
