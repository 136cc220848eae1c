use std::fmt;

use super::{here, id};
use crate::hooks;
use crate::point::PointKind;

/// A barrier for a fixed number of threads: [`std::sync::Barrier`], visible to the
/// controlled scheduler.
///
/// Outside a controlled run this is std's barrier. Inside one, threads wait at it in the
/// scheduler; a barrier that too few threads can reach is reported as a deadlock.
///
/// # Examples
///
/// ```
/// use std::thread;
/// use threadsafe_rt::sync::{Arc, Barrier};
///
/// let barrier = Arc::new(Barrier::new(3));
/// let handles: Vec<_> = (0..3)
///     .map(|_| {
///         let b = Arc::clone(&barrier);
///         thread::spawn(move || b.wait().is_leader())
///     })
///     .collect();
/// let leaders = handles.into_iter().map(|h| h.join().unwrap());
/// assert_eq!(leaders.filter(|&l| l).count(), 1);
/// ```
pub struct Barrier {
    inner: std::sync::Barrier,
    n: usize,
}

/// What [`Barrier::wait`] returns: [`std::sync::BarrierWaitResult`]'s counterpart.
pub struct BarrierWaitResult(bool);

impl Barrier {
    /// Creates a barrier that releases the threads waiting at it when `n` of them have
    /// arrived (`n` of 0 or 1: every `wait` returns at once). `const`, for statics.
    #[must_use]
    pub const fn new(n: usize) -> Barrier {
        Barrier {
            inner: std::sync::Barrier::new(n),
            n,
        }
    }

    /// Blocks until `n` threads have called `wait`, then releases them all; exactly one
    /// of them gets a result whose [`is_leader`](BarrierWaitResult::is_leader) is true.
    /// The barrier can be reused afterwards.
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        if hooks::shim_controlled(PointKind::Barrier) {
            if let Some(leader) = hooks::barrier(id(self), self.n, here()) {
                return BarrierWaitResult(leader);
            }
        }
        BarrierWaitResult(self.inner.wait().is_leader())
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl BarrierWaitResult {
    /// True for exactly one of the threads a barrier released.
    #[must_use]
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl fmt::Debug for BarrierWaitResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierWaitResult")
            .field("is_leader", &self.0)
            .finish()
    }
}
