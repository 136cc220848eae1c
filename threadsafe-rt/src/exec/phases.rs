//! The phases of a batch's executions, as the stress workers walk through them together.
//!
//! Execution `e` goes:
//! 1. the leader (thread 0) prepares it (a fresh prefix) and [`publish`](Phases::publish)es
//!    it; the others [`wait_published`](Phases::wait_published);
//! 2. free-running threads [`start`](Phases::start) together: each arrives and waits until
//!    all `n` have (controlled threads skip this: their run starts them);
//! 3. each thread runs its calls and [`finish`](Phases::finish)es; thread 0, once all have
//!    ([`wait_finished`](Phases::wait_finished)), evaluates the execution (runs the post
//!    part, judges it) and marks it [`evaluated`](Phases::evaluated), which lets everyone
//!    into execution `e + 1`; the others [`wait_evaluated`](Phases::wait_evaluated).
//!
//! The counters only grow (`published = e + 1`, `arrived` reaches `(e + 1) * n`, ...), so
//! there is no reset between executions to race with. [`abort`](Phases::abort) (set by the
//! watchdog when a thread is stuck) releases every wait with `false`; [`stop`](Phases::stop)
//! (a failure was found, or the deadline passed) ends the batch at the next publication.
//!
//! A waiting thread spins while spinning pays off on its thread (peers on other cores of an
//! idle machine) for the batch's kind of wait ([`WaitKind`]: a free-running round's waits are
//! long beside a controlled execution's), then parks; the thread that moves a counter wakes
//! the parked ones ([`Sleepers`]). On a busy machine the waiters then leave the core to the
//! thread they wait for, instead of spinning or yielding it away. Who wakes whom, and when:
//! - the last arriver at the start wakes the others at once, and gives a parked one a moment
//!   to get going again, so that the threads still start together;
//! - free-running: the leader wakes the others as soon as it publishes (they make their
//!   arguments meanwhile), and the threads spin a little longer in every wait, to keep their
//!   cores;
//! - controlled (the threads never call [`start`](Phases::start)): the leader when it
//!   publishes and the evaluator when it is done wake the others only when they themselves
//!   wait next ([`Sleepers::wake_all_owed`]): they go on working until then, and a waiter
//!   woken at once on their core would only take it from them, to park again.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::wait::{Sleepers, WaitKind};

/// How long the last thread to arrive at the start waits for the parked ones it woke to
/// leave too (iterations of a spin: some tens of microseconds).
const RELEASE_SPINS: u32 = 2048;

/// Free-running threads spin this long (some tens of microseconds) in every wait before the
/// adaptive spin and the park: a stress run finds races only while its threads run at the
/// same time, and a thread that parks between executions leaves its core to another process
/// and often comes back on its peer's: beside a busy process, a check-then-act race then
/// took several times as many executions to show (see decision 0054).
const FREE_RUNNING_SPINS: u32 = 2048;

/// The shared counters of one batch; see the module docs.
pub(super) struct Phases {
    n: usize,
    published: AtomicUsize,
    arrived: AtomicUsize,
    /// Threads that left the start: all but the last arriver, before it leaves after waking
    /// parked ones.
    departed: AtomicUsize,
    /// Whether the threads start free-running (controlled ones never call `start`).
    free_running: AtomicBool,
    finished: AtomicUsize,
    evaluated: AtomicUsize,
    stop: AtomicBool,
    abort: AtomicBool,
    /// The threads parked in a wait.
    sleepers: Sleepers,
}

impl Phases {
    /// Phases for `n` threads, before execution 0.
    pub(super) fn new(n: usize) -> Self {
        Phases {
            n,
            published: AtomicUsize::new(0),
            arrived: AtomicUsize::new(0),
            departed: AtomicUsize::new(0),
            free_running: AtomicBool::new(false),
            finished: AtomicUsize::new(0),
            evaluated: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            abort: AtomicBool::new(false),
            sleepers: Sleepers::default(),
        }
    }

    /// Leader: execution `e` is ready (or, after [`stop`](Self::stop), the batch is over).
    pub(super) fn publish(&self, e: usize) {
        self.published.store(e + 1, Ordering::Release);
        if self.free_running.load(Ordering::Relaxed) {
            // The others are to make their arguments meanwhile, and arrive at the start
            // about when the leader does.
            self.sleepers.wake_all();
        } else {
            // Controlled: the leader goes on to its own part of the execution and soon
            // waits for its turn; the others are woken then.
            self.sleepers.wake_all_owed();
        }
    }

    /// Waits until execution `e` is published; false if the batch was aborted.
    pub(super) fn wait_published(&self, e: usize) -> bool {
        self.spin_until(|| self.published.load(Ordering::Acquire) > e)
    }

    /// Arrives at the start of execution `e` and waits until all threads have; false if
    /// the batch was aborted.
    pub(super) fn start(&self, e: usize) -> bool {
        self.free_running.store(true, Ordering::Relaxed);
        let all = (e + 1) * self.n;
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == all {
            if self.sleepers.wake_all() > 0 {
                // A parked thread needs a while to get going again (tens of microseconds on
                // another core): give it that while, so that the threads still start
                // together. On one core the woken thread usually takes the core at once, and
                // has left by the time this one looks.
                for _ in 0..RELEASE_SPINS {
                    if self.departed.load(Ordering::Acquire) + 1 >= all {
                        break;
                    }
                    std::hint::spin_loop();
                }
            }
            self.departed.fetch_add(1, Ordering::AcqRel);
            return true;
        }
        let started = self.spin_until(|| self.arrived.load(Ordering::Acquire) >= all);
        self.departed.fetch_add(1, Ordering::AcqRel);
        started
    }

    /// This thread is done with execution `e`: true for the last one to be, which wakes the
    /// evaluator (thread 0) if it parked in [`wait_finished`](Self::wait_finished): at once
    /// when free-running, else when this thread waits next (it soon does, for the
    /// evaluation).
    pub(super) fn finish(&self, e: usize) -> bool {
        let last = self.finished.fetch_add(1, Ordering::AcqRel) + 1 == (e + 1) * self.n;
        if last {
            if self.free_running.load(Ordering::Relaxed) {
                self.sleepers.wake_all();
            } else {
                self.sleepers.wake_all_owed();
            }
        }
        last
    }

    /// Waits until every thread has finished execution `e`; false if the batch was aborted.
    pub(super) fn wait_finished(&self, e: usize) -> bool {
        self.spin_until(|| self.finished.load(Ordering::Acquire) >= (e + 1) * self.n)
    }

    /// The evaluator is done with execution `e`: the threads may go on to `e + 1`.
    pub(super) fn evaluated(&self, e: usize) {
        self.evaluated.store(e + 1, Ordering::Release);
        // The evaluator goes on to the next execution and soon waits: woken then.
        self.sleepers.wake_all_owed();
    }

    /// Waits until execution `e` was evaluated; false if the batch was aborted.
    pub(super) fn wait_evaluated(&self, e: usize) -> bool {
        self.spin_until(|| self.evaluated.load(Ordering::Acquire) > e)
    }

    /// Ends the batch at the next publication.
    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Whether the batch was told to stop.
    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Releases every thread waiting in a phase (a peer is stuck for good).
    pub(super) fn abort(&self) {
        self.abort.store(true, Ordering::Release);
        self.sleepers.wake_all();
    }

    /// Waits until `cond` holds (true) or the batch is aborted (false): spins while waits of
    /// the batch's kind (free-running or controlled) pay off, then parks until the thread
    /// that moves the counter wakes it. Free-running threads first spin `FREE_RUNNING_SPINS`
    /// whatever the budget says.
    fn spin_until(&self, cond: impl Fn() -> bool) -> bool {
        let kind = if self.free_running.load(Ordering::Relaxed) {
            WaitKind::Free
        } else {
            WaitKind::Controlled
        };
        if kind == WaitKind::Free {
            for _ in 0..FREE_RUNNING_SPINS {
                if cond() || self.abort.load(Ordering::Relaxed) {
                    break;
                }
                std::hint::spin_loop();
            }
        }
        self.sleepers
            .wait(kind, cond, || self.abort.load(Ordering::Acquire))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Walks `n` threads through `count` executions as the batch does, logging what each
    /// phase saw; panics (in a thread) if the protocol lets a thread run ahead.
    /// `free`: the threads start together, as free-running ones do; otherwise they skip the
    /// start, as controlled ones do.
    fn walk(n: usize, count: usize, free: bool) -> Vec<usize> {
        let phases = Arc::new(Phases::new(n));
        // Per execution: how many threads ran its calls, and who evaluated it.
        let ran: Arc<Vec<AtomicUsize>> =
            Arc::new((0..count).map(|_| AtomicUsize::new(0)).collect());
        let evaluator: Arc<Vec<AtomicUsize>> =
            Arc::new((0..count).map(|_| AtomicUsize::new(usize::MAX)).collect());
        let handles: Vec<_> = (0..n)
            .map(|t| {
                let (phases, ran, evaluator) = (phases.clone(), ran.clone(), evaluator.clone());
                std::thread::spawn(move || {
                    for e in 0..count {
                        if t == 0 {
                            phases.publish(e);
                        } else {
                            assert!(phases.wait_published(e));
                        }
                        if free {
                            assert!(phases.start(e));
                        }
                        if e > 0 {
                            assert_eq!(
                                ran[e - 1].load(Ordering::SeqCst),
                                n,
                                "a thread started {e} before {} was done",
                                e - 1
                            );
                        }
                        ran[e].fetch_add(1, Ordering::SeqCst);
                        let last = phases.finish(e);
                        if t == 0 {
                            if !last {
                                assert!(phases.wait_finished(e));
                            }
                            assert_eq!(ran[e].load(Ordering::SeqCst), n, "evaluated early");
                            evaluator[e].store(t, Ordering::SeqCst);
                            phases.evaluated(e);
                        } else {
                            assert!(phases.wait_evaluated(e));
                            assert_ne!(evaluator[e].load(Ordering::SeqCst), usize::MAX);
                        }
                    }
                    // As a worker does when its job is done: the wake-ups the last
                    // evaluation owes.
                    crate::wait::pay_owed();
                })
            })
            .collect();
        for h in handles {
            h.join().expect("a thread broke the protocol");
        }
        evaluator.iter().map(|a| a.load(Ordering::SeqCst)).collect()
    }

    #[test]
    fn every_execution_is_evaluated_by_thread_0_after_all_threads_ran_it() {
        for free in [true, false] {
            for n in [1, 2, 3, 4] {
                let evaluators = walk(n, 500, free);
                assert!(evaluators.iter().all(|&t| t == 0), "{evaluators:?}");
            }
        }
    }

    #[test]
    fn abort_releases_every_wait() {
        let phases = Arc::new(Phases::new(2));
        let waiting = {
            let p = phases.clone();
            std::thread::spawn(move || (p.wait_published(0), p.start(0), p.wait_evaluated(0)))
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        phases.abort();
        assert_eq!(waiting.join().unwrap(), (false, false, false));
    }

    #[test]
    fn stop_is_seen_by_all() {
        let phases = Phases::new(2);
        assert!(!phases.stopped());
        phases.stop();
        phases.publish(0);
        assert!(phases.wait_published(0));
        assert!(phases.stopped());
    }
}
