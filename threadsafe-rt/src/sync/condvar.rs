use std::fmt;
use std::time::Duration;

use std::sync::{LockResult, PoisonError};

use super::{here, id, MutexGuard};
use crate::hooks;
use crate::point::PointKind;

/// A condition variable: [`std::sync::Condvar`], visible to the controlled scheduler.
///
/// Outside a controlled run this is std's condition variable. Inside one, a waiting thread
/// is blocked in the scheduler until another thread notifies it, so a lost wake-up (a
/// notification sent before anyone waits, and no other) is reported as a deadlock instead
/// of hanging. `wait_timeout` under control does not sleep: see
/// [`wait_timeout`](Condvar::wait_timeout).
///
/// # Examples
///
/// ```
/// use std::thread;
/// use threadsafe_rt::sync::{Arc, Condvar, Mutex};
///
/// let pair = Arc::new((Mutex::new(false), Condvar::new()));
/// let pair2 = Arc::clone(&pair);
/// thread::spawn(move || {
///     let (ready, cv) = &*pair2;
///     *ready.lock().unwrap() = true;
///     cv.notify_one();
/// });
/// let (ready, cv) = &*pair;
/// let guard = cv.wait_while(ready.lock().unwrap(), |ready| !*ready).unwrap();
/// assert!(*guard);
/// ```
#[derive(Default)]
pub struct Condvar {
    inner: std::sync::Condvar,
}

/// Whether a timed wait on a [`Condvar`] returned because its time ran out:
/// [`std::sync::WaitTimeoutResult`]'s counterpart.
#[derive(Debug, PartialEq, Eq, Copy, Clone)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// True if the wait ended because the timeout elapsed (not known to be a notification).
    #[must_use]
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

/// True if a wait with this guard goes through the scheduler: the thread runs under
/// control and took the mutex there. Otherwise std's wait (a guard taken before the run,
/// or control given up since).
#[track_caller]
fn under_control<T: ?Sized>(guard: &MutexGuard<'_, T>) -> bool {
    hooks::shim_controlled(PointKind::Wait) && guard.held.controlled()
}

/// Rebuilds a wait's result around the guard.
fn with_result<'a, T: ?Sized>(
    r: LockResult<MutexGuard<'a, T>>,
    timed_out: bool,
) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
    match r {
        Ok(g) => Ok((g, WaitTimeoutResult(timed_out))),
        Err(e) => Err(PoisonError::new((
            e.into_inner(),
            WaitTimeoutResult(timed_out),
        ))),
    }
}

impl Condvar {
    /// Creates a new condition variable, ready to be waited on; `const`, for statics.
    #[must_use]
    pub const fn new() -> Condvar {
        Condvar {
            inner: std::sync::Condvar::new(),
        }
    }

    /// Releases the guard's mutex and blocks until this condition variable is notified,
    /// then re-takes the mutex. Wake-ups may be spurious: check the condition in a loop,
    /// or use [`wait_while`](Condvar::wait_while). An error (carrying the guard) if the
    /// mutex was poisoned meanwhile.
    ///
    /// Under control the thread waits in the scheduler: a wait that no thread is left to
    /// notify is a deadlock.
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let controlled = under_control(&guard);
        let MutexGuard { lock, guard, held } = guard;
        if controlled {
            drop(guard);
            // The scheduler's wait releases the lock there and takes it back, so `held`
            // stays as it is; then the std lock, which nobody holds.
            hooks::wait(id(self), lock.id(), Some(lock.origin), here());
            lock.guard(lock.inner.lock(), held)
        } else {
            lock.guard(self.inner.wait(guard), held)
        }
    }

    /// Blocks while `condition` returns true for the guarded data, as
    /// [`std::sync::Condvar::wait_while`]; returns with the mutex held and the condition
    /// false.
    #[track_caller]
    pub fn wait_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        mut condition: F,
    ) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        if !under_control(&guard) {
            let MutexGuard { lock, guard, held } = guard;
            return lock.guard(self.inner.wait_while(guard, condition), held);
        }
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    /// Waits for a notification for at most `dur`, as [`std::sync::Condvar::wait_timeout`].
    ///
    /// Under control it does not sleep, and it is not woken by notifications: it releases
    /// the mutex, reaches a scheduling point (where other threads may run), takes the mutex
    /// back and reports a timeout. That is one of std's possible behaviours (the time may
    /// elapse before any notification), and it keeps a timed wait from ever being reported
    /// as a deadlock.
    #[track_caller]
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        let controlled = under_control(&guard);
        let MutexGuard { lock, guard, held } = guard;
        if controlled {
            drop(guard);
            drop(held); // released in the scheduler
            hooks::point(PointKind::Wait, id(self), None, here());
            return with_result(lock.relock_controlled(), true);
        }
        let (r, timed_out) = match self.inner.wait_timeout(guard, dur) {
            Ok((g, r)) => (Ok(g), r.timed_out()),
            Err(e) => {
                let (g, r) = e.into_inner();
                (Err(PoisonError::new(g)), r.timed_out())
            }
        };
        with_result(lock.guard(r, held), timed_out)
    }

    /// Waits while `condition` holds, for at most `dur` in all, as
    /// [`std::sync::Condvar::wait_timeout_while`]. The result says whether the time ran
    /// out with the condition still true.
    ///
    /// Under control, as [`wait_timeout`](Condvar::wait_timeout): if the condition holds,
    /// one wait that times out after a scheduling point, then the condition decides.
    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        dur: Duration,
        mut condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        if !under_control(&guard) {
            let MutexGuard { lock, guard, held } = guard;
            let (r, timed_out) = match self.inner.wait_timeout_while(guard, dur, condition) {
                Ok((g, r)) => (Ok(g), r.timed_out()),
                Err(e) => {
                    let (g, r) = e.into_inner();
                    (Err(PoisonError::new(g)), r.timed_out())
                }
            };
            return with_result(lock.guard(r, held), timed_out);
        }
        if !condition(&mut *guard) {
            return Ok((guard, WaitTimeoutResult(false)));
        }
        let (mut guard, _) = self.wait_timeout(guard, dur)?;
        let timed_out = condition(&mut *guard);
        Ok((guard, WaitTimeoutResult(timed_out)))
    }

    /// Wakes one thread waiting on this condition variable, if any. Under control, which
    /// one is the strategy's choice.
    #[track_caller]
    pub fn notify_one(&self) {
        if hooks::shim_controlled(PointKind::Notify) {
            hooks::notify(id(self), false, here());
        }
        // Also std's: a thread that waits outside control (after control was given up, or
        // a thread the run does not own) waits there.
        self.inner.notify_one();
    }

    /// Wakes all threads waiting on this condition variable.
    #[track_caller]
    pub fn notify_all(&self) {
        if hooks::shim_controlled(PointKind::Notify) {
            hooks::notify(id(self), true, here());
        }
        self.inner.notify_all();
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
