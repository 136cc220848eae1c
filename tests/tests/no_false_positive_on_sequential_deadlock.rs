//! A correct type that deadlocks sequentially (`a.merge(&a)` locks one std `Mutex` twice) is
//! not blamed: the generator drops calls that hang on their own, and when a concurrent run
//! hangs (`a.sweep_into(&a)` once a racing `a.deposit(n)` has come first), the sequential
//! order deposit-then-sweep hangs too, and the oracle drops it. The watchdog leaves the hung
//! threads behind instead of hanging the test (hence a budget well above its 250 ms floor).

use std::time::Duration;

use threadsafe_rt::{check, Config};
use threadsafe_tests::account::Account;
use threadsafe_tests::expect;

#[test]
fn no_violation_in_a_type_that_deadlocks_sequentially() {
    let mut config = Config::default();
    config.budget = Duration::from_secs(4);
    let report = check::<Account>(&config);
    println!("{report}");
    expect::no_violation(&report);
    assert!(
        report.abandoned_threads > 0,
        "the check never met the sequential deadlock, so this test proves nothing:\n{report}"
    );
}

#[test]
fn merging_two_accounts_from_both_sides_does_not_deadlock() {
    let (a, b) = (Account::with_balance(5), Account::with_balance(7));
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..1000 {
                a.merge(&b);
            }
        });
        s.spawn(|| {
            for _ in 0..1000 {
                b.merge(&a);
            }
        });
    });
    assert_eq!(a.balance() + b.balance(), 12);
}
