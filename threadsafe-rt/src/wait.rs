//! Waiting for another thread of the runtime without taking the core it needs.
//!
//! The runtime's threads wait for each other all the time: a controlled run hands the turn
//! from thread to thread, and a batch's threads wait for the prefix, for each other at the
//! start, and for the evaluation. On an idle machine with a core per thread the wait is
//! over in a microsecond or two, and spinning through it is fastest. On a busy machine the
//! thread being waited for is often queued behind the waiter on the same core, and every
//! spin (worse: every `yield_now`, which hands the core to whatever else is runnable, for a
//! whole time slice) delays it.
//!
//! So a waiter spins only while spinning has been paying off on its thread, for its kind of
//! wait ([`spin`]: an adaptive budget per thread and [`WaitKind`], halved when a spin ends
//! without the condition and doubled when it ends with it, with a full-length probe now and
//! then so that a machine that became idle again is noticed), then parks (on the thread's
//! [`Parker`], never with std's token, which belongs to the code under test), without a timeout
//! (on a virtual machine a timer costs about as much again as the wake-up itself); whoever
//! ends the wait unparks it. [`Sleepers`] is that hand-shake for conditions that several
//! threads wait for; a thread that will soon wait itself may owe the wake-ups until then
//! ([`Sleepers::wake_all_owed`]), and pays them at its next wait, or when its job is done.
//!
//! The probe is what gets two threads out of a state where both park at every hand-off. Each
//! thread's budget is its own, and once both are at the least, every hand-off wakes a parked
//! thread (and where the kernel has put the two on one core meanwhile, which was not checked
//! here, neither can run while the other spins). A wait then always takes longer than a
//! short spin, so a short probe never pays off, and the state lasts: even on an idle
//! machine, controlled batches then ran many times slower for tens of tests at a time, most
//! hand-offs parked (see decision 0061). A probe as long as the longest spin outlasts the
//! peer's wake-up (and while it spins, the two threads are both runnable, which lets the
//! kernel move one of two sharing a core to the idle one). A probe that pays off gives back
//! the whole budget, not twice the few iterations its peer, now spinning too, took to answer:
//! that left the budget at the least again after the next longer step. Probing every 128
//! waits rather than every 64 cuts what the probes cost beside a busy process, where they
//! fail (decision 0061 has the figures).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::lock::lock;
use crate::parker::Parker;

/// The least spin budget (iterations): a few hundred nanoseconds, cheap even when it fails.
const MIN_SPINS: u32 = 16;

/// The most: some tens of microseconds, far longer than a hand-off between two cores.
const MAX_SPINS: u32 = 1 << 11;

/// With the budget at its least, every this many waits spin `PROBE_SPINS` once, to notice
/// that spinning pays off again: as long as the longest spin, to outlast a parked peer's
/// wake-up (see the module's documentation).
const PROBE_EVERY: u32 = 128;
const PROBE_SPINS: u32 = MAX_SPINS;

/// A spin of `i` iterations that took longer than `i` times this, plus `SPIN_SLACK`, lost its
/// core meanwhile (an iteration takes some tens of nanoseconds).
const SPIN_ITERATION_LIMIT: Duration = Duration::from_nanos(100);
const SPIN_SLACK: Duration = Duration::from_micros(20);

/// What a thread waits for: each kind of wait learns its own spin budget.
///
/// The kinds take very different times. A turn of a controlled run, or the next execution
/// of a controlled batch (one fresh instance a round), comes in a microsecond or two on an
/// idle machine; a free-running round waits for the leader to make up to `MAX_STRIDE` fresh
/// instances and to judge their executions (tens to hundreds of microseconds); a worker
/// waits for its next job while the check generates and judges tests (milliseconds). One
/// budget for all of them learned from the long waits, which spinning does not pay: under
/// `auto` a test's controlled batch runs after free-running batches on the same workers,
/// and its hand-offs began with the least budget and parked at every turn until a probe
/// brought the budget back, so that the same controlled batches took several times as long
/// under `auto` as under `controlled`. With a budget per kind they take about as long, and a
/// check runs several times as many of them (see decision 0071).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitKind {
    /// A controlled run's turn, or a phase of a controlled batch (one execution a round).
    Controlled,
    /// A phase of a free-running batch: a round published, started, finished or evaluated.
    Free,
    /// A worker's next job.
    Job,
}

impl WaitKind {
    fn index(self) -> usize {
        match self {
            WaitKind::Controlled => 0,
            WaitKind::Free => 1,
            WaitKind::Job => 2,
        }
    }
}

/// The per-thread state of one kind of wait.
struct Learned {
    /// The spin budget, in iterations.
    budget: Cell<u32>,
    /// Waits since the last probe.
    since_probe: Cell<u32>,
}

impl Learned {
    const fn new() -> Self {
        Learned {
            budget: Cell::new(MAX_SPINS),
            since_probe: Cell::new(0),
        }
    }
}

thread_local! {
    /// Threads this thread owes a wake-up ([`Sleepers::wake_all_owed`]).
    static OWED: RefCell<Vec<Arc<Parker>>> = const { RefCell::new(Vec::new()) };
    /// This thread's spin budgets, one per [`WaitKind`].
    static LEARNED: [Learned; 3] = const { [Learned::new(), Learned::new(), Learned::new()] };
}

/// Spins until `done` holds, for at most this thread's budget for waits of `kind`; whether
/// it holds. The budget learns from the outcome: doubled when the spin ended the wait (from
/// the probe's length, when it was a probe), halved when it did not, or when it ended only
/// because this thread lost its core meanwhile (the thread it waited for then ran on this
/// core: spinning did not help, parking would have done as well).
///
/// Every wait starts here, and first pays the wake-ups this thread owes ([`pay_owed`]).
#[inline]
pub(crate) fn spin(kind: WaitKind, done: impl Fn() -> bool) -> bool {
    pay_owed();
    if done() {
        return true;
    }
    LEARNED.with(|learned| spin_learning(&learned[kind.index()], done))
}

/// [`spin`] with the budget and probe count of one kind of wait.
fn spin_learning(learned: &Learned, done: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    let budget = learned.budget.get();
    let limit = if budget > MIN_SPINS {
        budget
    } else {
        let n = learned.since_probe.get() + 1;
        learned.since_probe.set(n);
        if n >= PROBE_EVERY {
            learned.since_probe.set(0);
            PROBE_SPINS
        } else {
            MIN_SPINS
        }
    };
    for i in 0..limit {
        std::hint::spin_loop();
        if done() {
            let next = if start.elapsed() > SPIN_SLACK + SPIN_ITERATION_LIMIT * i {
                // Descheduled while spinning.
                budget / 2
            } else {
                // Paid off: twice the limit that paid off (a probe's, when it was one), and
                // at least twice what it took.
                limit.saturating_mul(2).max(i.saturating_mul(2))
            };
            learned.budget.set(next.clamp(MIN_SPINS, MAX_SPINS));
            return true;
        }
    }
    learned.budget.set((budget / 2).max(MIN_SPINS));
    false
}

/// Wakes the threads this thread owes a wake-up ([`Sleepers::wake_all_owed`]). Every wait
/// calls it first ([`spin`]); a thread that stops waiting for good calls it too.
#[inline]
pub(crate) fn pay_owed() {
    let _ = OWED.try_with(|o| {
        if let Ok(mut o) = o.try_borrow_mut() {
            for t in o.drain(..) {
                t.unpark();
            }
        }
    });
}

/// This thread's spin budget for waits of `kind` now (for tests).
#[cfg(test)]
pub(crate) fn budget(kind: WaitKind) -> u32 {
    LEARNED.with(|learned| learned[kind.index()].budget.get())
}

/// Threads parked until a condition holds, and the hand-shake that wakes them: a waiter
/// registers, then checks the condition, then parks; whoever makes the condition true
/// stores it, then looks for registered waiters and unparks them.
///
/// No wake-up is lost: the waiter's registration and the waker's store are each followed by
/// a sequentially consistent fence before the other side's load, so either the waker sees
/// the registration (and unparks the waiter, whose `park` then returns at once if it comes
/// after the unpark: the parker keeps it) or the waiter sees the condition and does not park.
#[derive(Default)]
pub(crate) struct Sleepers {
    registered: AtomicUsize,
    threads: Mutex<Vec<Arc<Parker>>>,
}

impl Sleepers {
    /// Waits until `done` holds (true) or `cancelled` does (false): spins while spinning waits
    /// of `kind` pay off on this thread, then parks until [`wake_all`](Self::wake_all). The
    /// conditions must be made true before the `wake_all` that announces them. The park has
    /// no timeout (a timer costs about as much again as the wake-up itself on a virtual
    /// machine): every change of a condition comes with a wake-up.
    pub(crate) fn wait(
        &self,
        kind: WaitKind,
        done: impl Fn() -> bool,
        cancelled: impl Fn() -> bool,
    ) -> bool {
        if spin(kind, || done() || cancelled()) {
            return done();
        }
        let me = Parker::current();
        {
            let mut threads = lock(&self.threads);
            threads.push(me.clone());
            self.registered.fetch_add(1, Ordering::SeqCst);
        }
        fence(Ordering::SeqCst);
        let result = loop {
            if done() {
                break true;
            }
            if cancelled() {
                break false;
            }
            me.park();
        };
        let mut threads = lock(&self.threads);
        if let Some(i) = threads.iter().position(|t| Arc::ptr_eq(t, &me)) {
            threads.swap_remove(i);
        }
        self.registered.fetch_sub(1, Ordering::SeqCst);
        result
    }

    /// Wakes every parked waiter: call it after making their condition true. Returns how
    /// many were woken.
    pub(crate) fn wake_all(&self) -> usize {
        let threads = self.parked();
        for t in &threads {
            t.unpark();
        }
        threads.len()
    }

    /// [`wake_all`](Self::wake_all), but the wake-ups are owed until this thread next waits
    /// (or calls [`pay_owed`]). For a thread that goes on working and will soon wait for the
    /// ones it wakes: woken at once, a waiter sharing its core would often take the core
    /// there and then, only to park again until this thread is done, two context switches for
    /// nothing. On an idle machine the waiters spin on cores of their own and are not parked.
    pub(crate) fn wake_all_owed(&self) {
        let threads = self.parked();
        if !threads.is_empty() {
            OWED.with(|o| o.borrow_mut().extend(threads));
        }
    }

    /// The waiters registered now (after a fence that orders the caller's store before).
    fn parked(&self) -> Vec<Arc<Parker>> {
        fence(Ordering::SeqCst);
        if self.registered.load(Ordering::SeqCst) == 0 {
            return Vec::new();
        }
        // Unparked outside the lock: a woken waiter often gets the core at once, and its
        // first move is to take the lock to leave the list.
        lock(&self.threads).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::thread;

    #[test]
    fn the_budget_shrinks_when_spinning_fails_and_grows_when_it_pays_off() {
        thread::spawn(|| {
            for _ in 0..20 {
                assert!(!spin(WaitKind::Controlled, || false));
            }
            assert_eq!(budget(WaitKind::Controlled), MIN_SPINS);
            // At the least budget a probe spins longer now and then: a condition that needs
            // two hundred iterations (more than the least budget: the other waits fail) is
            // met by the probe, and the whole budget comes back at once, not twice the two
            // hundred (unless this thread lost its core during the probe: then the budget
            // stays at the least, and the next probe tries again).
            let count = Cell::new(0u32);
            for _ in 0..PROBE_EVERY * 20 {
                count.set(0);
                spin(WaitKind::Controlled, || {
                    count.set(count.get() + 1);
                    count.get() > 200
                });
                if budget(WaitKind::Controlled) != MIN_SPINS {
                    assert_eq!(
                        budget(WaitKind::Controlled),
                        MAX_SPINS,
                        "a probe that paid off"
                    );
                    return;
                }
            }
            panic!(
                "the budget did not grow back: {}",
                budget(WaitKind::Controlled)
            );
        })
        .join()
        .unwrap();
    }

    #[test]
    fn each_kind_of_wait_learns_its_own_budget() {
        thread::spawn(|| {
            // Long waits for jobs and phases, that spinning never ends...
            for _ in 0..20 {
                assert!(!spin(WaitKind::Job, || false));
                assert!(!spin(WaitKind::Free, || false));
            }
            assert_eq!(budget(WaitKind::Job), MIN_SPINS);
            assert_eq!(budget(WaitKind::Free), MIN_SPINS);
            // ...leave the turns' budget whole: the first turn that takes a hundred
            // iterations is spun for, not parked for.
            assert_eq!(budget(WaitKind::Controlled), MAX_SPINS);
            let count = Cell::new(0u32);
            assert!(spin(WaitKind::Controlled, || {
                count.set(count.get() + 1);
                count.get() > 100
            }));
            assert_eq!(budget(WaitKind::Job), MIN_SPINS);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn no_wake_up_is_lost() {
        // Many rounds of: one thread waits for a flag, another sets it and wakes; each
        // round must end, whatever the interleaving of registration and wake-up. A lost
        // wake-up leaves the waiter parked for good.
        for round in 0..2000 {
            let s = Arc::new((Sleepers::default(), AtomicBool::new(false)));
            let s2 = s.clone();
            let waiter = thread::spawn(move || {
                // Start parked most of the time: an empty budget.
                for _ in 0..8 {
                    spin(WaitKind::Free, || false);
                }
                s2.0.wait(WaitKind::Free, || s2.1.load(Ordering::Acquire), || false)
            });
            if round % 2 == 0 {
                thread::yield_now();
            }
            s.1.store(true, Ordering::Release);
            s.0.wake_all();
            let (tx, rx) = std::sync::mpsc::channel();
            thread::spawn(move || tx.send(waiter.join().unwrap()));
            let woke = rx.recv_timeout(Duration::from_secs(60));
            assert_eq!(woke, Ok(true), "round {round}: the wake-up was lost");
        }
    }

    #[test]
    fn cancel_releases_the_wait() {
        let s = Arc::new((Sleepers::default(), AtomicBool::new(false)));
        let s2 = s.clone();
        let waiter = thread::spawn(move || {
            s2.0.wait(WaitKind::Free, || false, || s2.1.load(Ordering::Acquire))
        });
        thread::sleep(Duration::from_millis(20));
        s.1.store(true, Ordering::Release);
        s.0.wake_all();
        assert!(!waiter.join().unwrap());
    }
}
