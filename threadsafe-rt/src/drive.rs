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
//!
//! A call may be *cancelled*: [`cancel_at`] drops its future at its `n`-th suspension, as a
//! `select!` that lost or a timeout would. A suspension is an `.await` of the method's own
//! body reached (the attribute wraps each in [`awaited`] in test builds), or a `Pending`
//! returned by the call's future: whichever comes `n`-th.

use std::cell::RefCell;
use std::future::{Future, IntoFuture};
use std::panic::Location;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use crate::hooks::{self, WakeTarget};
use crate::parker::Parker;
use crate::point::Where;
use crate::subject::{Frame, Unavailable};

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
    match drive(future, None, Location::caller()) {
        Ok(out) => out,
        Err(_) => unreachable!("a call with no cancellation point is never cancelled"),
    }
}

/// Drives `future` as [`block_on`] does, but drops it at its `n`-th suspension (counted from
/// 1): `None` when it was dropped there, its output when it completed first.
///
/// A suspension is an `.await` of an annotated async method's body reached (in test builds,
/// where `#[thread_safe]` marks them), or a poll of `future` that returned `Pending`,
/// whichever comes `n`-th. This is how a generated test cancels a call, and what its
/// reproducers write: the future is dropped where a `select!` that lost or a timeout would
/// drop it, leaving whatever the call had done so far.
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use threadsafe_rt::cancel_at;
///
/// async fn tick() {}
///
/// async fn twice(n: &AtomicU32) {
///     n.fetch_add(1, Ordering::SeqCst);
///     std::future::pending::<()>().await;
///     n.fetch_add(1, Ordering::SeqCst);
/// }
///
/// let n = AtomicU32::new(0);
/// // The first `Pending` is where the call is dropped: half of it happened.
/// assert_eq!(cancel_at(twice(&n), 1), None);
/// assert_eq!(n.load(Ordering::SeqCst), 1);
/// // A future that completes before its `n`-th suspension gives its output.
/// assert_eq!(cancel_at(tick(), 1), Some(()));
/// ```
#[track_caller]
pub fn cancel_at<F: Future>(future: F, n: u32) -> Option<F::Output> {
    drive(future, Some(n.max(1)), Location::caller()).ok()
}

/// A call's future dropped at its cancellation point: where, as the report says it.
struct Cancelled(String);

/// The cancellation point of the call being driven on this thread: the suspension to drop
/// it at, those seen so far, and where it was dropped once it was.
struct Plan {
    at: u32,
    seen: u32,
    dropped: Option<String>,
}

thread_local! {
    /// The plan of the call this thread drives, if it may be cancelled.
    static PLAN: RefCell<Option<Plan>> = const { RefCell::new(None) };
}

/// Counts a suspension of the call this thread drives; true when it is the one to drop the
/// call at (`place` says where, for the report).
fn suspended(place: impl FnOnce(u32) -> String) -> bool {
    PLAN.with_borrow_mut(|plan| match plan {
        Some(p) if p.dropped.is_none() => {
            p.seen += 1;
            if p.seen == p.at {
                p.dropped = Some(place(p.seen));
            }
            p.dropped.is_some()
        }
        _ => false,
    })
}

/// `n` as an ordinal: 1st, 2nd, 3rd, 4th.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// What an annotated async method's `.await` becomes in test builds: a suspension of the
/// call, where the call is dropped when it is its cancellation point; otherwise the awaited
/// future as it was. `file` and `line` are the `.await`'s.
#[doc(hidden)]
pub async fn awaited<F: IntoFuture>(future: F, file: &'static str, line: u32) -> F::Output {
    let place = |n| {
        format!(
            "its {} suspension, the `.await` at {file}:{line}",
            ordinal(n)
        )
    };
    if suspended(place) {
        // Pending for good: the driver drops the call here, before `future` is polled.
        std::future::pending::<()>().await;
    }
    future.await
}

/// Drives an async call's future as a generated test makes the call: to completion, or to
/// the frame's cancellation point, where the frame records where it was dropped.
#[doc(hidden)]
#[track_caller]
pub fn drive_call<T, F: Future>(
    frame: &mut Frame<'_, T>,
    future: F,
) -> Result<F::Output, Unavailable> {
    drive(future, frame.cancel, Location::caller()).map_err(|Cancelled(place)| {
        frame.cancelled = Some(place);
        Unavailable::Cancelled
    })
}

/// Drives `future` to completion, or to its `cancel`-th suspension.
fn drive<F: Future>(
    future: F,
    cancel: Option<u32>,
    caller: &'static Location<'static>,
) -> Result<F::Output, Cancelled> {
    let plan = cancel.map(|at| Plan {
        at,
        seen: 0,
        dropped: None,
    });
    // A `block_on` inside a driven call neither counts for nor disturbs the outer plan; the
    // outer plan comes back however the call ends, a panic included.
    let _outer = Restore(PLAN.replace(plan));
    poll_to_end(future, caller)
}

/// Puts back the plan of the call that was being driven before, when dropped.
struct Restore(Option<Plan>);

impl Drop for Restore {
    fn drop(&mut self) {
        PLAN.set(self.0.take());
    }
}

fn poll_to_end<F: Future>(
    future: F,
    caller: &'static Location<'static>,
) -> Result<F::Output, Cancelled> {
    let at = Where::Code(caller);
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
            return Ok(out);
        }
        let dropped = PLAN.with_borrow(|p| p.as_ref().and_then(|p| p.dropped.clone()));
        if let Some(place) = dropped {
            return Err(Cancelled(place));
        }
        if suspended(|n| format!("its {} suspension, a `Pending`", ordinal(n))) {
            // Dropped after others had their turn, as a `select!` drops its losing branch
            // once another one is ready: the wake-ups and permits sent to the future in
            // between are what its drop must hand on.
            hooks::cancel(at);
            let place = PLAN.with_borrow(|p| p.as_ref().and_then(|p| p.dropped.clone()));
            return Err(Cancelled(place.unwrap_or_default()));
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
