//! End-to-end tests of `threadsafe`: the checks of the ports of Pradel & Gross's bugs (PLDI
//! 2012, Table 1) and of their correct twins, which live in the corpus's catalogue
//! ([`threadsafe_corpus::contege`]: `std_locks` for the stress checks, `sync_locks` for the
//! controlled ones), and of correct types that fail sequentially, which live here.
//!
//! Every buggy port has `#[thread_safe(test = false)]`: its generated test would fail, so the
//! integration tests in `tests/` run the check themselves and assert on the report. Every
//! correct twin has a plain `#[thread_safe]`, so its generated `#[test]` runs in the corpus's
//! unit tests (`cargo test -p threadsafe-corpus`, part of `cargo test --workspace`) and must
//! pass.
//!
//! | port (`std_locks`, `sync_locks`) | failure the tests expect |
//! |---|---|
//! | `string_buffer::StringBuffer` | index panic in `insert` (in `char_at`) |
//! | `concurrent_hash_map::ConcurrentHashMap` | `expect` panic in `put_all` |
//! | `synchronized_map::SynchronizedMap` | lock-order deadlock in `eq` |
//! | `logger::Logger` (std only) | `expect` panic in `log` |
//!
//! | module here | type | what it shows |
//! |---|---|---|
//! | [`bounded_stack`] | [`BoundedStack`](bounded_stack::BoundedStack) | correct; panics sequentially on bad input |
//! | [`account`] | [`Account`](account::Account) | correct; deadlocks sequentially on `a.merge(&a)` |
//! | [`blocking`] | [`LostWakeQueue`](blocking::LostWakeQueue), [`BlockingQueue`](blocking::BlockingQueue), [`Latch`](blocking::Latch) | calls that wait for another thread: a lost wake-up, and two correct types |
//! | [`asynchronous`] | [`Claim`](asynchronous::Claim), [`Mailbox`](asynchronous::Mailbox) | correct async types whose results vary with the order: a `OnceCell`'s first caller, a channel |
//! | [`nondeterministic`] | six types | correct; results differ between runs (hash order, clocks, addresses, randomness, `ThreadId`) |
//! | [`two_accounts`] | [`TwoAccounts`](two_accounts::TwoAccounts) | a lock-order deadlock on std locks, and no other bug |
//!
//! [`expect`] holds the assertions on reports the integration tests share, [`harness`] what
//! the controlled-scheduler tests share, [`line_of`] finds the line a panic must point at,
//! and [`temp`] gives a test a folder of its own.

pub mod account;
pub mod asynchronous;
pub mod blocking;
pub mod bounded_stack;
pub mod expect;
pub mod harness;
pub mod nondeterministic;
/// The README's `Stack`, line for line (`tests/tests/readme_example.rs` holds the two equal).
// Written as a user would write it, in the README: a `new` and no `Default`.
#[allow(clippy::new_without_default)]
#[rustfmt::skip]
pub mod readme_stack;
pub mod temp;
pub mod two_accounts;

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
}
