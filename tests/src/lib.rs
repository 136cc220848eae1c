//! End-to-end tests of `threadsafe`: Rust ports of the thread-safety bugs of Pradel & Gross
//! (PLDI 2012, Table 1), each with a correct twin, and correct types that fail sequentially.
//!
//! Every buggy type has `#[thread_safe(test = false)]`: its generated test would fail, so the
//! integration tests in `tests/` run the check themselves and assert on the report. Every
//! correct type has a plain `#[thread_safe]`, so its generated `#[test]` runs in `cargo test`
//! and must pass.
//!
//! | module | buggy type | failure | correct twin |
//! |---|---|---|---|
//! | [`string_buffer`] | [`StringBuffer`](string_buffer::StringBuffer) | index panic in `insert` (in `char_at`) | [`FixedStringBuffer`](string_buffer::FixedStringBuffer) |
//! | [`concurrent_hash_map`] | [`ConcurrentHashMap`](concurrent_hash_map::ConcurrentHashMap) | `expect` panic in `put_all` | [`FixedConcurrentHashMap`](concurrent_hash_map::FixedConcurrentHashMap) |
//! | [`synchronized_map`] | [`SynchronizedMap`](synchronized_map::SynchronizedMap) | lock-order deadlock in `eq` | [`FixedSynchronizedMap`](synchronized_map::FixedSynchronizedMap) |
//! | [`logger`] | [`Logger`](logger::Logger) | `expect` panic in `log` | [`FixedLogger`](logger::FixedLogger) |
//! | [`bounded_stack`] | none | panics sequentially on bad input | [`BoundedStack`](bounded_stack::BoundedStack) |
//! | [`account`] | none | deadlocks sequentially on `a.merge(&a)` | [`Account`](account::Account) |
//!
//! [`expect`] holds the assertions on reports the integration tests share, [`line_of`]
//! finds the line a panic must point at, and [`temp`] gives a test a folder of its own.

use std::sync::{Mutex, MutexGuard};

pub mod account;
pub mod bounded_stack;
pub mod concurrent_hash_map;
pub mod controlled;
pub mod expect;
pub mod logger;
pub mod string_buffer;
pub mod synchronized_map;
pub mod temp;

/// The 1-based number of the only line of `source` that contains `needle`.
///
/// The tests find the line a panic must point at by searching the module's source for the
/// panicking statement, so that editing the module above it does not break them.
///
/// # Panics
/// If no line or more than one line contains `needle`.
pub fn line_of(source: &str, needle: &str) -> u32 {
    let hits: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    match hits[..] {
        [line] => u32::try_from(line).expect("a source file has fewer than 2^32 lines"),
        [] => panic!("no line contains {needle:?}"),
        _ => panic!("lines {hits:?} all contain {needle:?}: use a longer needle"),
    }
}

/// Locks two mutexes, the one at the lower address first, and returns the guards in argument
/// order: every thread takes any two of them in the same global order, so none waits for a
/// lock held by a thread that waits for one of its own.
///
/// `a` and `b` must be different mutexes: a std `Mutex` locked twice by one thread never
/// returns. Callers check for the same instance first, or document it as a precondition.
pub(crate) fn lock_in_address_order<'a, T>(
    a: &'a Mutex<T>,
    b: &'a Mutex<T>,
) -> (MutexGuard<'a, T>, MutexGuard<'a, T>) {
    if std::ptr::from_ref(a) < std::ptr::from_ref(b) {
        let first = a.lock().unwrap();
        (first, b.lock().unwrap())
    } else {
        let first = b.lock().unwrap();
        (a.lock().unwrap(), first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_of_finds_the_only_matching_line() {
        assert_eq!(line_of("a\nbb\nc", "bb"), 2);
        assert_eq!(line_of("a", "a"), 1);
    }

    #[test]
    #[should_panic(expected = "all contain")]
    fn line_of_rejects_an_ambiguous_needle() {
        line_of("x\nx", "x");
    }

    #[test]
    fn lock_in_address_order_returns_guards_in_argument_order() {
        let (a, b) = (Mutex::new(1), Mutex::new(2));
        let (ga, gb) = lock_in_address_order(&a, &b);
        assert_eq!((*ga, *gb), (1, 2));
        drop((ga, gb));
        let (gb, ga) = lock_in_address_order(&b, &a);
        assert_eq!((*ga, *gb), (1, 2));
    }
}
