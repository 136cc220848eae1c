//! The paper's bugs again, written with `threadsafe_rt::sync` instead of `std::sync`: every
//! lock operation is a scheduling point of the controlled scheduler, so a controlled check
//! runs their threads one at a time, finds the race or deadlock with a seeded schedule, and
//! replays that exact interleaving from a token. Each buggy type has a correct twin.
//!
//! These types get no statement points in the integration tests (the library is compiled
//! without `cfg(test)` there): the `sync` shims are their only scheduling points, which is
//! how a user's type that imports `threadsafe_rt::sync` looks to the check.
//!
//! | module | buggy type | failure | correct twin |
//! |---|---|---|---|
//! | [`string_buffer`] | [`StringBuffer`](string_buffer::StringBuffer) | index panic in `insert` (in `char_at`) | [`FixedStringBuffer`](string_buffer::FixedStringBuffer) |
//! | [`concurrent_hash_map`] | [`ConcurrentHashMap`](concurrent_hash_map::ConcurrentHashMap) | `expect` panic in `put_all` | [`FixedConcurrentHashMap`](concurrent_hash_map::FixedConcurrentHashMap) |
//! | [`synchronized_map`] | [`SynchronizedMap`](synchronized_map::SynchronizedMap) | lock-order deadlock in `eq` | [`FixedSynchronizedMap`](synchronized_map::FixedSynchronizedMap) |

use threadsafe_rt::sync::{Mutex, MutexGuard};

pub mod concurrent_hash_map;
pub mod harness;
pub mod string_buffer;
pub mod synchronized_map;

/// Locks two different mutexes, the one at the lower address first, and returns the guards
/// in argument order (the `threadsafe_rt::sync` counterpart of the crate's std helper).
///
/// `a` and `b` must be different mutexes: locking one twice never returns.
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
