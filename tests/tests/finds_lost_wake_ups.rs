//! Lost wake-ups, found from the type. A queue whose `pop` misses a `push`'s wake-up hangs
//! where every sequential order of the same calls completes once a blocked call waits for
//! the other thread's calls (the order with `pop` first waits for the `push`, which releases
//! it), so the hang is reported as a deadlock in `pop`. The generator makes such tests: a
//! suffix may end in a call that blocks after the prefix alone, and runs first beside a
//! suffix that releases it. The same holds for a wait on a flag: an event whose `wait`
//! registers to be unparked only after it looked at the flag misses a `set` in between.

use std::time::Duration;

use threadsafe_rt::{check, Config, Failure, ScheduleMode};
use threadsafe_tests::blocking::{LostWakeEvent, LostWakeQueue};
use threadsafe_tests::expect;

#[test]
fn a_lost_wake_up_is_a_deadlock_no_order_explains() {
    let mut config = Config::default();
    // Controlled: the statement point between `pop`'s look and its wait lets the scheduler
    // run the `push` there, with a seeded schedule. Found in 100 checks of 100 here beside a
    // busy process (decision 0087).
    config.schedule = ScheduleMode::Controlled;
    config.budget = Duration::from_secs(10);
    let report = check::<LostWakeQueue>(&config);
    println!("{report}");
    let v = report.violation().expect("the lost wake-up is found");
    let Failure::Deadlock { blocked } = &v.failure else {
        panic!("a deadlock, not:\n{report}");
    };
    assert!(
        blocked.iter().any(|b| b.contains("in `pop`")),
        "a thread waits in `pop`:\n{report}"
    );
    let text = report.to_string();
    assert!(
        text.contains("sequential orders of the same calls fails this way"),
        "{text}"
    );
    expect::reproducer(&report, &["cut.push(", "cut.pop()"]);
}

#[test]
fn a_lost_unpark_of_a_flag_wait_is_a_deadlock_no_order_explains() {
    let mut config = Config::default();
    // Controlled, as above: the statement point between `wait`'s look at the flag and its
    // registering lets the scheduler run the `set` there (decision 0089 has the runs).
    config.schedule = ScheduleMode::Controlled;
    config.budget = Duration::from_secs(10);
    let report = check::<LostWakeEvent>(&config);
    println!("{report}");
    let v = report.violation().expect("the lost wake-up is found");
    let Failure::Deadlock { blocked } = &v.failure else {
        panic!("a deadlock, not:\n{report}");
    };
    assert!(
        blocked.iter().any(|b| b.contains("in `wait`")),
        "a thread waits in `wait`:\n{report}"
    );
    let text = report.to_string();
    assert!(
        text.contains("sequential orders of the same calls fails this way"),
        "{text}"
    );
    expect::reproducer(&report, &["cut.set()", "cut.wait()"]);
}
