//! The lock-order deadlock of bug 9 with `parking_lot` locks: the threads wait in
//! `parking_lot`'s own futex code, which the check neither controls nor sees, as they would
//! in a dependency built on it. The port is the same file as the std one's
//! (`both_locks/synchronized_map.rs`), against [`sync`], which gives `parking_lot::Mutex`
//! std's shape (a `lock` that returns a `Result`, never an error).

/// `parking_lot`'s mutex in the shape of `std::sync::Mutex`, so that the ports written for
/// std locks compile against it unchanged.
pub mod sync {
    pub use parking_lot::MutexGuard;

    /// A `parking_lot::Mutex` whose `lock` returns a `Result` as std's does (`parking_lot`
    /// has no poisoning: it is always `Ok`).
    #[derive(Default)]
    pub struct Mutex<T>(parking_lot::Mutex<T>);

    impl<T> Mutex<T> {
        /// A mutex holding `value`.
        pub const fn new(value: T) -> Self {
            Mutex(parking_lot::Mutex::new(value))
        }

        /// Blocks until the lock is taken, in `parking_lot`'s code.
        pub fn lock(&self) -> Result<MutexGuard<'_, T>, std::convert::Infallible> {
            Ok(self.0.lock())
        }
    }
}

#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/lock_order.rs"]
mod lock_order;
#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/synchronized_map.rs"]
pub mod synchronized_map;

pub use lock_order::lock_in_address_order;
