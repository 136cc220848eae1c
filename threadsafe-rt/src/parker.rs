//! Each thread's own parking spot for the runtime's waits, apart from std's park token.
//!
//! The runtime's threads run the code under test, and that code may wait with
//! `std::thread::park` for an `unpark` of its own (an event's waiter, a hand-rolled lock).
//! std gives a thread one token: had the runtime parked with it too, a wait of the runtime at
//! a scheduling point between the code's look at its flag and its `park` would take the
//! code's `unpark`, and the code would then park for good: a hang of a correct type, reported
//! as its deadlock. So the runtime parks on a [`Parker`] of its own, and the code under test
//! keeps std's token to itself.
//!
//! The protocol is std's generic one (a state word, and a lock and condition variable only
//! when the thread really sleeps): an `unpark` before the `park` makes it return at once, and
//! an `unpark` of a thread that does not sleep costs one atomic swap.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

const EMPTY: u8 = 0;
const PARKED: u8 = 1;
const NOTIFIED: u8 = 2;

/// A thread's parking spot for the runtime's waits; see the module docs.
#[derive(Debug, Default)]
pub(crate) struct Parker {
    state: AtomicU8,
    lock: Mutex<()>,
    cv: Condvar,
}

thread_local! {
    static MINE: Arc<Parker> = Arc::new(Parker::default());
}

impl Parker {
    /// The calling thread's parker, for the threads that will wake it.
    pub(crate) fn current() -> Arc<Parker> {
        MINE.with(Arc::clone)
    }

    /// Parks the calling thread, which must own this parker, until an [`unpark`]
    /// (Self::unpark), or returns at once if one came since the last park.
    pub(crate) fn park(&self) {
        self.park_until(None);
    }

    /// [`park`](Self::park) for at most `timeout`.
    pub(crate) fn park_timeout(&self, timeout: Duration) {
        self.park_until(Some(Instant::now() + timeout));
    }

    fn park_until(&self, deadline: Option<Instant>) {
        if self.take_notification() {
            return;
        }
        let mut guard = self.guard();
        if let Err(NOTIFIED) =
            self.state
                .compare_exchange(EMPTY, PARKED, Ordering::Acquire, Ordering::Acquire)
        {
            self.state.store(EMPTY, Ordering::Release);
            return;
        }
        loop {
            guard = match deadline {
                None => self.cv.wait(guard).unwrap_or_else(PoisonError::into_inner),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        // Timed out: back to empty, unless an unpark came meanwhile.
                        self.state.swap(EMPTY, Ordering::Acquire);
                        return;
                    }
                    self.cv
                        .wait_timeout(guard, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
            if self.take_notification() {
                return;
            }
        }
    }

    /// Wakes the thread parked here, or makes its next park return at once.
    pub(crate) fn unpark(&self) {
        if self.state.swap(NOTIFIED, Ordering::Release) != PARKED {
            return;
        }
        // The parked thread holds the lock until it waits: taking it here makes sure the
        // notification does not come between its look at the state and its wait.
        drop(self.guard());
        self.cv.notify_one();
    }

    fn take_notification(&self) -> bool {
        self.state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    fn guard(&self) -> MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn an_unpark_before_the_park_is_kept() {
        let p = Parker::current();
        p.unpark();
        p.park();
        p.park_timeout(Duration::from_millis(1));
    }

    #[test]
    fn a_parked_thread_is_woken_and_std_s_token_is_left_alone() {
        let flag = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let f = flag.clone();
        let t = std::thread::spawn(move || {
            tx.send(Parker::current()).unwrap();
            while !f.load(Ordering::Acquire) {
                Parker::current().park();
            }
            // The std token given below is still there: this park returns at once.
            std::thread::park();
        });
        let parker = rx.recv().unwrap();
        t.thread().unpark();
        std::thread::sleep(Duration::from_millis(20));
        flag.store(true, Ordering::Release);
        parker.unpark();
        t.join().unwrap();
    }

    #[test]
    fn a_timed_park_ends_without_an_unpark() {
        let p = Parker::current();
        let start = Instant::now();
        p.park_timeout(Duration::from_millis(10));
        assert!(start.elapsed() >= Duration::from_millis(10));
    }
}
