use std::fmt;
use std::panic::Location;
use std::sync::OnceState;

use super::{here, id, Held, Origin};
use crate::hooks;
use crate::point::PointKind;

/// A one-time global initialization: [`std::sync::Once`], visible to the controlled
/// scheduler.
///
/// Outside a controlled run this is std's `Once`. Inside one, initializations are
/// serialized by the scheduler: a second thread that arrives while the first is still in
/// the closure waits in the scheduler (std's `Once` would block it in the operating system,
/// which a run with one thread at a time cannot survive), and the closure may itself reach
/// scheduling points. Poisoning is std's: if the closure panics, later `call_once` calls
/// panic too, and `call_once_force` runs again.
///
/// # Examples
///
/// ```
/// use threadsafe_rt::sync::atomic::{AtomicUsize, Ordering};
/// use threadsafe_rt::sync::Once;
///
/// static INIT: Once = Once::new();
/// static CALLS: AtomicUsize = AtomicUsize::new(0);
///
/// for _ in 0..3 {
///     INIT.call_once(|| {
///         CALLS.fetch_add(1, Ordering::SeqCst);
///     });
/// }
/// assert!(INIT.is_completed());
/// assert_eq!(CALLS.load(Ordering::SeqCst), 1);
/// ```
pub struct Once {
    origin: Origin,
    inner: std::sync::Once,
}

impl Once {
    /// Creates a new `Once`; `const`, for statics.
    #[must_use]
    #[allow(clippy::new_without_default)] // std's `Once` has no `Default` either
    #[track_caller]
    pub const fn new() -> Once {
        Once {
            origin: Location::caller(),
            inner: std::sync::Once::new(),
        }
    }

    /// Runs `f` if no call of this `Once` has completed yet; when it returns, some call's
    /// closure has run to completion (this one's or another thread's). Panics if an
    /// earlier closure panicked (the `Once` is poisoned).
    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        let controlled = hooks::shim_controlled(PointKind::Load);
        if self.inner.is_completed() {
            return;
        }
        // Not `bool::then`: a closure would hide the caller's location.
        let _serialized = if controlled {
            Some(Held::<true>::acquire(id(self), self.origin))
        } else {
            None
        };
        self.inner.call_once(f);
    }

    /// As [`call_once`](Once::call_once), but runs even if the `Once` is poisoned; the
    /// closure is told by its [`OnceState`].
    #[track_caller]
    pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
        let controlled = hooks::shim_controlled(PointKind::Load);
        if self.inner.is_completed() {
            return;
        }
        // Not `bool::then`: a closure would hide the caller's location.
        let _serialized = if controlled {
            Some(Held::<true>::acquire(id(self), self.origin))
        } else {
            None
        };
        self.inner.call_once_force(f);
    }

    /// True if some `call_once` has completed (not poisoned). Under control, a scheduling
    /// point: the answer depends on the interleaving.
    #[track_caller]
    #[inline]
    pub fn is_completed(&self) -> bool {
        if hooks::shim_controlled(PointKind::Load) {
            hooks::point(PointKind::Load, id(self), Some(self.origin), here());
        }
        self.inner.is_completed()
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

/// A cell written at most once: [`std::sync::OnceLock`], visible to the controlled
/// scheduler.
///
/// Outside a controlled run this is std's `OnceLock`. Inside one, initializations
/// (`get_or_init`, `set`) are serialized by the scheduler, as for [`Once`], and `get` is a
/// scheduling point.
///
/// # Examples
///
/// ```
/// use std::thread;
/// use threadsafe_rt::sync::OnceLock;
///
/// static CONFIG: OnceLock<String> = OnceLock::new();
///
/// let handles: Vec<_> = (0..4)
///     .map(|i| thread::spawn(move || CONFIG.get_or_init(|| format!("set by {i}")).len()))
///     .collect();
/// for h in handles {
///     h.join().unwrap();
/// }
/// assert!(CONFIG.get().unwrap().starts_with("set by "));
/// assert!(CONFIG.set("again".to_string()).is_err());
/// ```
pub struct OnceLock<T> {
    origin: Origin,
    pub(super) inner: std::sync::OnceLock<T>,
}

impl<T> OnceLock<T> {
    /// Creates a new, empty cell; `const`, for statics.
    #[must_use]
    #[track_caller]
    pub const fn new() -> OnceLock<T> {
        OnceLock {
            origin: Location::caller(),
            inner: std::sync::OnceLock::new(),
        }
    }

    /// The value, if the cell is initialized; never blocks. Under control, a scheduling
    /// point: the answer depends on the interleaving.
    #[track_caller]
    #[inline]
    pub fn get(&self) -> Option<&T> {
        if hooks::shim_controlled(PointKind::Load) {
            hooks::point(PointKind::Load, id(self), Some(self.origin), here());
        }
        self.inner.get()
    }

    /// The value, mutably, if the cell is initialized; no synchronization needed.
    #[inline]
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.inner.get_mut()
    }

    /// Initializes the cell with `value`; `Err(value)` if it was initialized already.
    /// Waits if another thread is initializing it.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        let controlled = hooks::shim_controlled(PointKind::Load);
        if self.inner.get().is_some() {
            return Err(value);
        }
        // Not `bool::then`: a closure would hide the caller's location.
        let _serialized = if controlled {
            Some(Held::<true>::acquire(id(self), self.origin))
        } else {
            None
        };
        self.inner.set(value)
    }

    /// The value, initializing the cell with `f` if it is empty. Exactly one closure runs,
    /// even when several threads call this at once; the others wait for it. If `f` panics,
    /// the panic propagates and the cell stays empty. Calling it again on the same cell
    /// from inside `f` deadlocks.
    #[track_caller]
    pub fn get_or_init<F>(&self, f: F) -> &T
    where
        F: FnOnce() -> T,
    {
        let controlled = hooks::shim_controlled(PointKind::Load);
        if let Some(v) = self.inner.get() {
            return v;
        }
        // Not `bool::then`: a closure would hide the caller's location.
        let _serialized = if controlled {
            Some(Held::<true>::acquire(id(self), self.origin))
        } else {
            None
        };
        self.inner.get_or_init(f)
    }

    /// Consumes the cell, returning its value if it was initialized.
    #[inline]
    pub fn into_inner(self) -> Option<T> {
        self.inner.into_inner()
    }

    /// Takes the value out, leaving the cell empty; no synchronization needed.
    #[inline]
    pub fn take(&mut self) -> Option<T> {
        self.inner.take()
    }
}

impl<T> Default for OnceLock<T> {
    /// An empty cell, as [`OnceLock::new`].
    #[track_caller]
    fn default() -> Self {
        OnceLock::new()
    }
}

impl<T> From<T> for OnceLock<T> {
    /// A cell initialized with `value`.
    #[track_caller]
    fn from(value: T) -> Self {
        OnceLock {
            origin: Location::caller(),
            inner: std::sync::OnceLock::from(value),
        }
    }
}

impl<T: Clone> Clone for OnceLock<T> {
    fn clone(&self) -> Self {
        OnceLock {
            origin: self.origin,
            inner: self.inner.clone(),
        }
    }
}

impl<T: PartialEq> PartialEq for OnceLock<T> {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

impl<T: Eq> Eq for OnceLock<T> {}

impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
