//! Lost wake-ups, found from the type. A queue whose `pop` misses a `push`'s wake-up hangs
//! where every sequential order of the same calls completes once a blocked call waits for
//! the other thread's calls (the order with `pop` first waits for the `push`, which releases
//! it), so the hang is reported as a deadlock in `pop`. The generator makes such tests: a
//! suffix may end in a call that blocks after the prefix alone, and runs first beside a
//! suffix that releases it. The same holds for a wait on a flag: an event whose `wait`
//! registers to be unparked only after it looked at the flag misses a `set` in between.

use std::time::Duration;

use threadsafe_rt::{check, Config, Failure, ScheduleMode, Subject};
use threadsafe_tests::blocking::{LostWakeEvent, LostWakeQueue};
use threadsafe_tests::expect;

/// Checks `T` under control for 10 s and asserts a deadlock in `method` that no sequential
/// order explains, with a reproducer that calls `calls`. Controlled: the statement point
/// between the look and the wait lets the scheduler run the releasing call there, with a
/// seeded schedule.
fn assert_lost_wake_up<T: Subject>(method: &str, calls: &[&str]) {
    let mut config = Config::default();
    config.schedule = ScheduleMode::Controlled;
    config.budget = Duration::from_secs(10);
    let report = check::<T>(&config);
    println!("{report}");
    let v = report.violation().expect("the lost wake-up is found");
    let Failure::Deadlock { blocked } = &v.failure else {
        panic!("a deadlock, not:\n{report}");
    };
    assert!(
        blocked
            .iter()
            .any(|b| b.contains(&format!("in `{method}`"))),
        "a thread waits in `{method}`:\n{report}"
    );
    let text = report.to_string();
    assert!(
        text.contains("sequential orders of the same calls fails this way"),
        "{text}"
    );
    expect::reproducer(&report, calls);
}

/// A `Condvar` wait that misses a `push`: found in 100 checks of 100 beside a busy process
/// (decision 0087).
#[test]
fn a_lost_wake_up_is_a_deadlock_no_order_explains() {
    assert_lost_wake_up::<LostWakeQueue>("pop", &["cut.push(", "cut.pop()"]);
}

/// A park that misses a `set`'s unpark: found in 100 checks of 100 beside a busy process
/// (decision 0089).
#[test]
fn a_lost_unpark_of_a_flag_wait_is_a_deadlock_no_order_explains() {
    assert_lost_wake_up::<LostWakeEvent>("wait", &["cut.set()", "cut.wait()"]);
}
