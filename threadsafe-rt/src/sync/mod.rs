//! Drop-in counterparts of `std::sync` that the controlled scheduler can see.
//!
//! [`Mutex`], [`RwLock`], [`Condvar`], [`Once`], [`OnceLock`], [`LazyLock`], [`Barrier`] and
//! the [`atomic`] types have std's names, methods, signatures, trait impls, auto traits and
//! poisoning. Outside a controlled run (in production, in your own tests, in the stress
//! executor) they *are* std: each operation makes one thread-local check and then calls the
//! std primitive it wraps.
//!
//! Inside a controlled run (the executor that runs the suffix threads one at a time), every
//! operation is a *scheduling point*: the place where the strategy may hand the turn to
//! another thread. Blocking happens in the scheduler, not in the operating system: a thread
//! that would wait for a lock, a notification or a barrier is taken off the runnable set,
//! so a deadlock is found exactly (every live thread blocked on one of these primitives),
//! reported with the line of each blocked operation, and the blocked threads are unwound.
//! The same seed replays the same interleaving.
//!
//! # Using them
//!
//! Code that uses `std::sync` directly still gets the free-running stress executor; switch
//! the imports to get controlled schedules. The usual pattern (as with loom and shuttle)
//! keeps production builds on std:
//!
//! ```
//! #[cfg(test)]
//! use threadsafe_rt::sync::{atomic::AtomicUsize, Mutex};
//! #[cfg(not(test))]
//! use std::sync::{atomic::AtomicUsize, Mutex};
//!
//! use std::sync::atomic::Ordering;
//!
//! pub struct Counter {
//!     hits: AtomicUsize,
//!     log: Mutex<Vec<usize>>,
//! }
//!
//! impl Counter {
//!     pub fn hit(&self) {
//!         let n = self.hits.fetch_add(1, Ordering::SeqCst);
//!         self.log.lock().unwrap().push(n);
//!     }
//! }
//!
//! let c = Counter { hits: AtomicUsize::new(0), log: Mutex::new(Vec::new()) };
//! c.hit();
//! c.hit();
//! assert_eq!(*c.log.lock().unwrap(), [0, 1]);
//! ```
//!
//! Using `threadsafe_rt::sync` unconditionally is fine too: outside a run the cost is one
//! thread-local read per operation. [`Arc`], [`Weak`], [`LockResult`], [`PoisonError`],
//! [`TryLockError`], [`TryLockResult`], [`OnceState`] and [`atomic::Ordering`] are std's own,
//! re-exported so that one `use` line switches a whole module. [`crate::thread::yield_now`]
//! is the counterpart of `std::thread::yield_now`.
//!
//! # What a controlled run models, and what it does not
//!
//! - One thread runs at a time, so every atomic operation behaves as `SeqCst`: weak memory
//!   orderings are not explored (no reordering bugs of `Relaxed` loads are found).
//! - `Condvar::wait_timeout` and `wait_timeout_while` never sleep: the caller releases the
//!   mutex, reaches a scheduling point (other threads may run and change the state), takes
//!   the mutex back and is told the wait timed out. Every such outcome can happen with real
//!   time, and a wait with a timeout can never be reported as a deadlock; what is not
//!   explored is a notification waking a timed waiter.
//! - `wait` may return without a notification only if control was given up (see below);
//!   std allows such spurious wake-ups too.
//! - Each primitive also remembers where it was created (its constructor's caller): that is
//!   its name as a shared variable in MAP-coverage, so it must be created by `new`,
//!   `default` or `from` at a line of its own (a helper function that creates every lock
//!   makes them one variable).
//! - Objects are identified by their address (and size: a `Mutex` stored at the start of a
//!   `OnceLock` is not mistaken for the cell). Threads spawned inside a controlled run are
//!   not controlled: their operations are plain std.
//! - A thread that blocks outside the scheduler (on a `std::sync` lock, I/O, a sleep) makes
//!   the run give up control after a short while; the run then completes free-running, with
//!   these types behaving as std, and is reported as not fully controlled.

use std::panic::Location;

use crate::hooks;
use crate::point::Where;

pub mod atomic;
mod barrier;
mod condvar;
mod lazy;
mod mutex;
mod once;
mod rwlock;

#[cfg(test)]
mod tests;

pub use barrier::{Barrier, BarrierWaitResult};
pub use condvar::{Condvar, WaitTimeoutResult};
pub use lazy::LazyLock;
pub use mutex::{Mutex, MutexGuard};
pub use once::{Once, OnceLock};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use std::sync::{Arc, LockResult, OnceState, PoisonError, TryLockError, TryLockResult, Weak};

/// The caller of the public operation this is called from (every one is `#[track_caller]`).
#[track_caller]
#[inline]
fn here() -> Where {
    Where::Code(Location::caller())
}

/// The scheduler's name for a primitive: its address, with its size in the high bits.
///
/// The address alone is not unique: a primitive can sit at the start of another one's data
/// (rustc lays a `OnceLock<Mutex<u64>>`'s value out at its start), and the two must not be
/// taken for one lock. The outer one is strictly larger, though, so (address, size) is
/// unique among live objects; sizes below 64 KiB keep it exact on 64-bit targets.
fn id<T: ?Sized>(obj: &T) -> usize {
    let addr = obj as *const T as *const () as usize;
    #[cfg(target_pointer_width = "64")]
    {
        addr ^ (std::mem::size_of_val(obj) << 48)
    }
    #[cfg(not(target_pointer_width = "64"))]
    {
        addr
    }
}

/// Where a primitive was created (the caller of its constructor): its identity as a shared
/// variable in MAP-coverage, the same in every execution, unlike its address.
type Origin = &'static Location<'static>;

/// A lock taken in the scheduler, released there when dropped: `Held(id)` if it was taken
/// under control (even if control was given up since: the scheduler then ignores the
/// release), `Held(0)` if not. One word, so that guards stay small and cheap to move.
///
/// Guards keep it as their last field, so that the std guard is dropped first: by the time
/// the scheduler lets another thread take the lock, the std lock is free.
struct Held<const EXCLUSIVE: bool>(usize);

impl<const EXCLUSIVE: bool> Held<EXCLUSIVE> {
    /// Not taken in the scheduler: nothing to release.
    const NONE: Self = Held(0);

    /// Takes lock `id`, created at `origin`, in the scheduler (a scheduling point; blocks
    /// there while it is held).
    #[track_caller]
    fn acquire(id: usize, origin: Origin) -> Self {
        hooks::acquire(id, Some(origin), EXCLUSIVE, here());
        Held(id)
    }

    /// True if the lock was taken in the scheduler.
    fn controlled(&self) -> bool {
        self.0 != 0
    }
}

impl<const EXCLUSIVE: bool> Drop for Held<EXCLUSIVE> {
    #[inline]
    fn drop(&mut self) {
        if self.0 != 0 {
            hooks::release(self.0, EXCLUSIVE);
        }
    }
}
