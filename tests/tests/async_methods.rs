//! Async methods, checked like the others: each call's future is driven to completion on
//! its thread, a `Pending` is a scheduling point under control, and a future nothing is left
//! to wake is a deadlock. The async subjects of the corpus (`A1` … `A8`): atomicity broken
//! at an await and seen in results (over tokio's `RwLock`, its `Mutex` and an atomic), a
//! permit checked for and then awaited forever, a lost `notify_waiters`, a transfer that is
//! not cancel-safe; and their twins. The published crates' subjects have files of their own
//! (`async_tokio_0_2.rs`, `async_moka.rs`).
//!
//! Every check here is controlled: under control, the same seed makes the same tests and
//! the same schedules, so each find is deterministic.

use std::time::Duration;

use threadsafe_corpus::asynchronous::{bank, cache, latch, ledger, slots, tickets};
use threadsafe_rt::{check, Config, Failure, Strategy, Subject};
use threadsafe_tests::asynchronous::{Beacon, Claim, Escrow, Mailbox};
use threadsafe_tests::{expect, harness, line_of};

/// A controlled check of seed `seed`, random schedules, 10 s at most.
fn controlled(seed: u64) -> Config {
    harness::controlled(seed, Strategy::Random, Duration::from_secs(10))
}

/// Asserts a wrong result of `T` in seeds 0–2, with a reproducer that drives the calls
/// `calls` with `block_on`.
fn finds_wrong_results<T: Subject>(calls: &[&str]) {
    for seed in 0..3 {
        let report = check::<T>(&controlled(seed));
        println!("{report}");
        expect::wrong_results(&report);
        let reproducer = &expect::violation(&report).reproducer;
        for call in calls {
            assert!(reproducer.contains(call), "{call}:\n{reproducer}");
        }
    }
}

/// Asserts a deadlock of `T` in seeds 0–2 with a thread in `method` waiting for its
/// future's wake-up at the statement of `file` that contains `awaits`.
fn finds_hang<T: Subject>(method: &str, file: &str, awaits: &str) {
    let path = format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("the subject's source");
    let line = line_of(&source, awaits);
    for seed in 0..3 {
        let report = check::<T>(&controlled(seed));
        println!("{report}");
        let v = expect::violation(&report);
        let Failure::Deadlock { blocked } = &v.failure else {
            panic!("a deadlock, not:\n{report}");
        };
        let waiting = format!("in `{method}`");
        assert!(
            blocked.iter().any(|b| b.contains(&waiting)),
            "a thread waits {waiting}:\n{report}"
        );
        let text = report.to_string();
        let at = format!("its future pending, waiting for a wake-up at {file}:{line}");
        assert!(text.contains(&at), "{at}:\n{text}");
        assert!(
            v.reproducer
                .contains(&format!("::threadsafe_rt::block_on(cut.{method}(")),
            "{}",
            v.reproducer
        );
    }
}

#[test]
fn a_cache_that_loads_between_its_read_and_write_locks_returns_two_values_for_one_key() {
    finds_wrong_results::<cache::Cache>(&["::threadsafe_rt::block_on(cut.get("]);
}

#[test]
fn a_transfer_that_awaits_between_debit_and_credit_shows_money_in_flight() {
    finds_wrong_results::<bank::Bank>(&["::threadsafe_rt::block_on(cut.transfer("]);
}

#[test]
fn a_ticket_read_and_written_around_an_await_is_handed_out_twice() {
    finds_wrong_results::<tickets::Tickets>(&["::threadsafe_rt::block_on(cut.take())"]);
}

#[test]
fn a_permit_checked_for_then_awaited_hangs_as_a_deadlock() {
    finds_hang::<slots::Slots>("reserve", slots::FILE, ".acquire().await");
}

#[test]
fn a_notify_waiters_before_the_listening_is_a_lost_wake_up() {
    finds_hang::<latch::Latch>("wait", latch::FILE, ".notified().await");
}

#[test]
fn the_twins_report_nothing() {
    harness::quiet_under_control::<cache::FixedCache>();
    harness::quiet_under_control::<bank::FixedBank>();
    harness::quiet_under_control::<tickets::FixedTickets>();
    harness::quiet_under_control::<slots::FixedSlots>();
    harness::quiet_under_control::<latch::FixedLatch>();
    harness::quiet_under_control::<ledger::FixedLedger>();
}

/// A `wait` woken by a flash that started after it: every order run one call after the
/// other waits for good, and the results oracle runs those orders with blocking semantics,
/// where the `wait` returns once the flash comes. (Before, such results were judged against
/// no sequential results at all: a false report.) Quiet in seeds 0–2, 50 controlled tests
/// each.
#[test]
fn a_wait_woken_by_a_later_flash_is_explained_with_blocking_semantics() {
    for seed in 0..3 {
        let mut config = controlled(seed);
        config.tests = Some(50);
        expect::no_violation(&check::<Beacon>(&config));
    }
}

/// Correct types whose results vary with the order (which caller a `OnceCell` keeps, which
/// ticket each caller gets), and a channel whose `recv` may wait for the other thread's
/// `send` or for ever: quiet in 20 seeds, under the default schedule (controlled and
/// free-running), 50 tests each.
#[test]
fn correct_async_types_whose_results_vary_report_nothing() {
    for seed in 0..20 {
        let mut config = Config::default();
        config.seed = seed;
        config.tests = Some(50);
        config.budget = Duration::from_secs(10);
        expect::no_violation(&check::<Claim>(&config));
        expect::no_violation(&check::<Mailbox>(&config));
        expect::no_violation(&check::<tickets::FixedTickets>(&config));
    }
}

/// A method that is not cancel-safe, cancelled by the check: the debit stays, the credit
/// never comes. The results table says where the call was dropped, and the reproducer drops
/// it there with `cancel_at`; the sequential orders make the cancelled call whole or leave
/// it out.
#[test]
fn a_transfer_cancelled_between_debit_and_credit_loses_the_money() {
    for seed in 0..3 {
        let report = check::<ledger::Ledger>(&controlled(seed));
        println!("{report}");
        expect::wrong_results(&report);
        let text = report.to_string();
        assert!(text.contains("-> cancelled at its "), "{text}");
        let reproducer = &expect::violation(&report).reproducer;
        assert!(
            reproducer.contains("::threadsafe_rt::cancel_at(cut.transfer("),
            "{reproducer}"
        );
        assert!(
            reproducer.contains("'s cancelled call left out)"),
            "{reproducer}"
        );
    }
}

/// The same shape, declared: `#[thread_safe(not_cancel_safe)]` on the method, or
/// `cancel = false` for the type, and the check cancels nothing, so nothing is reported.
#[test]
fn a_method_declared_not_cancel_safe_is_never_cancelled() {
    for seed in 0..3 {
        let mut config = controlled(seed);
        config.tests = Some(100);
        expect::no_violation(&check::<Escrow>(&config));
        config.cancel = false;
        expect::no_violation(&check::<ledger::Ledger>(&config));
    }
}
