//! The lock that makes a twin linearizable.
//!
//! The MAPTest twins fix the papers' bug but keep the Java class's other methods, and some
//! of those work in several lock sections (Java's `Vector.addAll` copies its argument before
//! it locks, `ConcurrentHashMap.clear` goes segment by segment): results no sequential order
//! gives, which the results oracle rightly reports. A twin is the correct type that nothing
//! may be reported on, so each such twin also holds a [`Whole`] through every call: one
//! step per call, as a `synchronized` class's. It is a [`threadsafe_rt::sync::Mutex`], so
//! the controlled scheduler sees who waits for it.

use std::sync::PoisonError;

use threadsafe_rt::sync::{Mutex, MutexGuard};

/// A twin's lock over whole calls.
#[derive(Default)]
pub(crate) struct Whole(Mutex<()>);

/// What [`Whole::hold_both`] holds: one guard, or two.
pub(crate) type Both<'a> = (MutexGuard<'a, ()>, Option<MutexGuard<'a, ()>>);

impl Whole {
    /// Holds this lock until the guard drops. A call that panicked while holding it (a
    /// method's documented panic) leaves nothing half done, so a poisoned lock is taken.
    pub(crate) fn hold(&self) -> MutexGuard<'_, ()> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds this lock and `other`'s, in address order, so that `a.m(&b)` and `b.m(&a)` at
    /// once do not deadlock; once when they are the same lock (`a.m(&a)`).
    pub(crate) fn hold_both<'a>(&'a self, other: &'a Whole) -> Both<'a> {
        if std::ptr::eq(self, other) {
            return (self.hold(), None);
        }
        if (self as *const Whole) < (other as *const Whole) {
            let first = self.hold();
            (first, Some(other.hold()))
        } else {
            let second = other.hold();
            (self.hold(), Some(second))
        }
    }
}
