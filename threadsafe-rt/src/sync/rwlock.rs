use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use super::{here, id, Held, Origin};
use crate::hooks;
use crate::point::PointKind;

/// A reader-writer lock: [`std::sync::RwLock`], visible to the controlled scheduler.
///
/// Any number of readers, or one writer. Outside a controlled run this is std's lock.
/// Inside one, `read` and `write` are scheduling points, and a thread that must wait does
/// so in the scheduler: several threads may hold read guards at once, and a deadlock
/// between readers and writers is detected exactly. Poisoning is std's (a panic while a
/// write guard is held poisons the lock).
///
/// # Examples
///
/// ```
/// use threadsafe_rt::sync::RwLock;
///
/// let lock = RwLock::new(5);
/// {
///     let r1 = lock.read().unwrap();
///     let r2 = lock.read().unwrap(); // many readers at once
///     assert_eq!(*r1 + *r2, 10);
///     assert!(lock.try_write().is_err()); // but no writer meanwhile
/// }
/// *lock.write().unwrap() += 1;
/// assert_eq!(*lock.read().unwrap(), 6);
/// ```
pub struct RwLock<T: ?Sized> {
    origin: Origin,
    inner: std::sync::RwLock<T>,
}

/// Shared access to a [`RwLock`]'s data, released when dropped:
/// [`std::sync::RwLockReadGuard`]'s counterpart.
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    guard: std::sync::RwLockReadGuard<'a, T>,
    // Last: released in the scheduler after the std guard is dropped.
    _held: Held<false>,
}

/// Exclusive access to a [`RwLock`]'s data, released when dropped:
/// [`std::sync::RwLockWriteGuard`]'s counterpart.
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    guard: std::sync::RwLockWriteGuard<'a, T>,
    // Last: released in the scheduler after the std guard is dropped.
    _held: Held<true>,
}

impl<T> RwLock<T> {
    /// Creates a new, unlocked lock; `const`, for statics.
    #[track_caller]
    pub const fn new(t: T) -> RwLock<T> {
        RwLock {
            origin: Location::caller(),
            inner: std::sync::RwLock::new(t),
        }
    }

    /// Consumes the lock and returns the data; an error if the lock is poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

/// Wraps a std lock result with a guard built by `wrap`.
fn map_result<G, W>(r: LockResult<G>, wrap: impl FnOnce(G) -> W) -> LockResult<W> {
    match r {
        Ok(g) => Ok(wrap(g)),
        Err(e) => Err(PoisonError::new(wrap(e.into_inner()))),
    }
}

/// Wraps a std try-lock result with a guard built by `wrap`.
fn map_try_result<G, W>(r: TryLockResult<G>, wrap: impl FnOnce(G) -> W) -> TryLockResult<W> {
    match r {
        Ok(g) => Ok(wrap(g)),
        Err(TryLockError::Poisoned(e)) => Err(TryLockError::Poisoned(PoisonError::new(wrap(
            e.into_inner(),
        )))),
        Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
    }
}

impl<T: ?Sized> RwLock<T> {
    #[track_caller]
    #[inline]
    fn take<const EXCLUSIVE: bool>(&self) -> Held<EXCLUSIVE> {
        if hooks::shim_controlled(if EXCLUSIVE {
            PointKind::Lock
        } else {
            PointKind::ReadLock
        }) {
            Held::acquire(id(self), self.origin)
        } else {
            Held::NONE
        }
    }

    /// `None` if the scheduler says the lock is not available.
    #[track_caller]
    #[inline]
    fn try_take<const EXCLUSIVE: bool>(&self) -> Option<Held<EXCLUSIVE>> {
        if hooks::shim_controlled(if EXCLUSIVE {
            PointKind::Lock
        } else {
            PointKind::ReadLock
        }) {
            let id = id(self);
            // Not `then_some`: a `Held` built eagerly would release on drop.
            hooks::try_acquire(id, Some(self.origin), EXCLUSIVE, here()).then(|| Held(id))
        } else {
            Some(Held::NONE)
        }
    }

    /// Locks for shared read access, blocking the current thread while a writer holds the
    /// lock. An error (carrying the guard) if the lock is poisoned.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let held = self.take();
        map_result(self.inner.read(), |guard| RwLockReadGuard {
            guard,
            _held: held,
        })
    }

    /// Attempts to lock for shared read access without blocking.
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let Some(held) = self.try_take() else {
            return Err(TryLockError::WouldBlock);
        };
        map_try_result(self.inner.try_read(), |guard| RwLockReadGuard {
            guard,
            _held: held,
        })
    }

    /// Locks for exclusive write access, blocking the current thread while readers or a
    /// writer hold the lock. An error (carrying the guard) if the lock is poisoned.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let held = self.take();
        map_result(self.inner.write(), |guard| RwLockWriteGuard {
            guard,
            _held: held,
        })
    }

    /// Attempts to lock for exclusive write access without blocking.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let Some(held) = self.try_take() else {
            return Err(TryLockError::WouldBlock);
        };
        map_try_result(self.inner.try_write(), |guard| RwLockWriteGuard {
            guard,
            _held: held,
        })
    }

    /// True if a thread panicked while holding a write guard.
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
    /// error if the lock is poisoned.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

impl<T: Default> Default for RwLock<T> {
    /// A new, unlocked lock holding `T::default()`.
    #[track_caller]
    fn default() -> Self {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    /// A new, unlocked lock, as [`RwLock::new`].
    #[track_caller]
    fn from(t: T) -> Self {
        RwLock::new(t)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}
