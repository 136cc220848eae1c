use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use super::{here, id, Held, Origin};
use crate::hooks;
use crate::point::PointKind;

/// A mutual exclusion lock: [`std::sync::Mutex`], visible to the controlled scheduler.
///
/// Outside a controlled run this is std's mutex. Inside one, `lock` is a scheduling point
/// and a thread that finds the mutex held waits in the scheduler, so a lock-order deadlock
/// is detected exactly. Poisoning is std's: a panic while a guard is held poisons the mutex,
/// and `lock` then returns a [`PoisonError`] that carries the guard.
///
/// # Examples
///
/// ```
/// use std::thread;
/// use threadsafe_rt::sync::{Arc, Mutex};
///
/// let total = Arc::new(Mutex::new(0));
/// let handles: Vec<_> = (0..4)
///     .map(|_| {
///         let total = Arc::clone(&total);
///         thread::spawn(move || *total.lock().unwrap() += 1)
///     })
///     .collect();
/// for h in handles {
///     h.join().unwrap();
/// }
/// assert_eq!(*total.lock().unwrap(), 4);
///
/// // A panic while the guard is held poisons the mutex; the data stays reachable.
/// let t = Arc::clone(&total);
/// let _ = thread::spawn(move || {
///     let _guard = t.lock().unwrap();
///     panic!("poison it");
/// })
/// .join();
/// assert!(total.is_poisoned());
/// assert_eq!(*total.lock().unwrap_err().into_inner(), 4);
/// ```
pub struct Mutex<T: ?Sized> {
    pub(super) origin: Origin,
    pub(super) inner: std::sync::Mutex<T>,
}

/// The guard of a locked [`Mutex`]: [`std::sync::MutexGuard`]'s counterpart. The lock is
/// released when the guard is dropped.
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    pub(super) lock: &'a Mutex<T>,
    pub(super) guard: std::sync::MutexGuard<'a, T>,
    // Last: released in the scheduler after the std guard is dropped.
    pub(super) held: Held<true>,
}

// SAFETY: as std's `MutexGuard`: a shared reference to the guard gives out only `&T`.
// The `&Mutex<T>` it keeps (which alone would require `T: Send`) is private and used only
// by the guard's owner, when the guard is consumed by a `Condvar` wait.
unsafe impl<T: ?Sized + Sync> Sync for MutexGuard<'_, T> {}

impl<T> Mutex<T> {
    /// Creates a new mutex in an unlocked state, ready for use; `const`, for statics.
    ///
    /// ```
    /// use threadsafe_rt::sync::Mutex;
    ///
    /// static NAMES: Mutex<Vec<&str>> = Mutex::new(Vec::new());
    /// NAMES.lock().unwrap().push("a");
    /// assert_eq!(NAMES.lock().unwrap().len(), 1);
    /// ```
    #[track_caller]
    pub const fn new(t: T) -> Mutex<T> {
        Mutex {
            origin: Location::caller(),
            inner: std::sync::Mutex::new(t),
        }
    }

    /// Consumes the mutex and returns the data; an error if the mutex is poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    pub(super) fn id(&self) -> usize {
        id(self)
    }

    /// Acquires the mutex, blocking the current thread until it is able to do so, and
    /// returns a guard that releases it when dropped. An error if the mutex is poisoned
    /// (the guard is inside the error). Locking a mutex the current thread already holds
    /// deadlocks (under control: a reported deadlock).
    #[track_caller]
    #[inline]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let held = if hooks::shim_controlled(PointKind::Lock) {
            Held::acquire(self.id(), self.origin)
        } else {
            Held::NONE
        };
        self.guard(self.inner.lock(), held)
    }

    /// Re-takes the mutex after a controlled condvar wait released it.
    #[track_caller]
    pub(super) fn relock_controlled(&self) -> LockResult<MutexGuard<'_, T>> {
        let held = Held::acquire(self.id(), self.origin);
        self.guard(self.inner.lock(), held)
    }

    /// Wraps std's result with our guard.
    #[inline]
    pub(super) fn guard<'a>(
        &'a self,
        r: LockResult<std::sync::MutexGuard<'a, T>>,
        held: Held<true>,
    ) -> LockResult<MutexGuard<'a, T>> {
        match r {
            Ok(guard) => Ok(MutexGuard {
                lock: self,
                guard,
                held,
            }),
            Err(e) => Err(PoisonError::new(MutexGuard {
                lock: self,
                guard: e.into_inner(),
                held,
            })),
        }
    }

    /// Attempts to acquire the mutex without blocking: `Err(TryLockError::WouldBlock)` if
    /// it is held, `Err(TryLockError::Poisoned(..))` if it is poisoned.
    #[track_caller]
    #[inline]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let held = if hooks::shim_controlled(PointKind::Lock) {
            if !hooks::try_acquire(self.id(), Some(self.origin), true, here()) {
                return Err(TryLockError::WouldBlock);
            }
            Held(self.id())
        } else {
            Held::NONE
        };
        match self.inner.try_lock() {
            Ok(guard) => Ok(MutexGuard {
                lock: self,
                guard,
                held,
            }),
            Err(TryLockError::Poisoned(e)) => {
                Err(TryLockError::Poisoned(PoisonError::new(MutexGuard {
                    lock: self,
                    guard: e.into_inner(),
                    held,
                })))
            }
            // `held` is dropped: released in the scheduler if it was taken there.
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
        }
    }

    /// True if a thread panicked while holding the mutex. Another thread may poison it
    /// right after this returns.
    #[inline]
    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    /// Clears the poisoned state, for a caller that has restored the data's invariants.
    #[inline]
    pub fn clear_poison(&self) {
        self.inner.clear_poison()
    }

    /// A mutable reference to the data: no locking needed, the borrow is exclusive. An
    /// error if the mutex is poisoned.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

impl<T> From<T> for Mutex<T> {
    /// A new mutex in an unlocked state, as [`Mutex::new`].
    #[track_caller]
    fn from(t: T) -> Self {
        Mutex::new(t)
    }
}

impl<T: Default> Default for Mutex<T> {
    /// A new mutex holding `T::default()`.
    #[track_caller]
    fn default() -> Self {
        Mutex::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}
