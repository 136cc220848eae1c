//! Async calls, driven to completion on the calling thread: [`block_on`], the tool's own
//! driver of futures.
//!
//! A generated test calls an `async fn` as it calls any method: its thread drives the
//! call's future until it is ready, then makes its next call. Nothing needs a runtime: the
//! primitives of `tokio::sync`, `async-lock` or `futures` only need a waker, and this is one.
//!
//! Under control, a poll that returns `Pending` is a scheduling point, and the thread then
//! waits in the scheduler until the future's waker is called, as a thread waits there for a
//! lock; so a future that nothing is left to wake (a lost wake-up, a permit that never comes)
//! is a deadlock, found at once and replayable. Outside a controlled run the thread parks
//! until the waker is called.

use std::future::Future;
use std::panic::Location;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use crate::hooks::{self, WakeTarget};
use crate::parker::Parker;
use crate::point::Where;

/// Drives `future` to completion on the calling thread and returns its output.
///
/// This is what a generated test does with each call of an `async fn`, and what its
/// reproducers write, so that they run as the check did. It needs no runtime: a future that
/// needs one (a timer, `tokio::spawn`, I/O) panics as it would outside one.
///
/// Inside a controlled execution, each `Pending` is a scheduling point, and a future whose
/// waker is never called is reported as a deadlock. Elsewhere, the thread sleeps until the
/// future's waker is called.
///
/// # Examples
///
/// ```
/// use threadsafe_rt::block_on;
///
/// async fn answer() -> u32 {
///     42
/// }
///
/// assert_eq!(block_on(answer()), 42);
/// ```
#[track_caller]
pub fn block_on<F: Future>(future: F) -> F::Output {
    let at = Where::Code(Location::caller());
    let task = Arc::new(Task {
        woken: AtomicBool::new(false),
        parker: Parker::current(),
        target: hooks::wake_target(),
    });
    let obj = task.id();
    let waker = Waker::from(Arc::clone(&task));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        task.woken.store(false, Ordering::Release);
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        if !hooks::pending(obj, &task.woken, at) {
            while !task.woken.load(Ordering::Acquire) {
                task.parker.park();
            }
        }
    }
}

/// The waker of one [`block_on`].
struct Task {
    /// Set when the waker was called since the last poll.
    woken: AtomicBool,
    /// The driving thread's parker, for waits outside a controlled run.
    parker: Arc<Parker>,
    /// The controlled run the driving thread belongs to, if any.
    target: Option<WakeTarget>,
}

impl Task {
    /// The waker's identity in the scheduler's books: the task's address.
    fn id(&self) -> usize {
        self as *const Task as usize
    }
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let told = self
            .target
            .as_ref()
            .is_some_and(|t| t.wake(self.id(), &self.woken));
        if !told {
            self.woken.store(true, Ordering::Release);
        }
        self.parker.unpark();
    }
}

#[cfg(test)]
mod tests;
