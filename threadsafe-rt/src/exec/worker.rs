//! Persistent worker threads.
//!
//! A worker runs one job at a time. Between jobs it spins while spinning pays off on its
//! thread (back-to-back jobs on an idle machine start without a futex wake-up), then parks
//! until [`Worker::start`] unparks it; it never yields, which on a busy machine would hand
//! its core to another process for a whole time slice. A worker whose job never returns (a deadlock in the code under test) is
//! abandoned: std locks cannot be broken, so the thread stays blocked and the caller gets a
//! fresh worker in its place.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::lock::lock;
use crate::os::{asleep_for_good, current_tid, own_thread, thread_is_blocked};
use crate::panics;
use crate::parker::Parker;
use crate::sched::quiet_watchdog;
use crate::wait;

type Job = Box<dyn FnOnce() + Send>;

struct Mailbox {
    /// The kernel's id of the worker thread (0 where unknown).
    tid: AtomicU64,
    job: Mutex<Option<Job>>,
    has_job: AtomicBool,
    shutdown: AtomicBool,
    /// Where the worker parks between jobs (the runtime's, not std's token: see
    /// `crate::parker`).
    parker: Arc<Parker>,
}

pub(crate) struct Worker {
    slot: Arc<Mailbox>,
    /// The worker thread, for its name.
    thread: thread::Thread,
    /// Threads this worker's slot has left blocked (for the report).
    pub(crate) abandoned: usize,
}

impl Worker {
    pub(crate) fn spawn(name: &str) -> Worker {
        let slot = Arc::new(Mailbox {
            tid: AtomicU64::new(0),
            job: Mutex::new(None),
            has_job: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            parker: Arc::new(Parker::default()),
        });
        let s = slot.clone();
        let handle = thread::Builder::new()
            .name(name.to_string())
            .spawn(move || worker_loop(&s))
            .expect("spawn a threadsafe worker thread");
        Worker {
            slot,
            thread: handle.thread().clone(),
            abandoned: 0,
        }
    }

    /// Hands `job` to the worker; it starts as soon as the worker sees it.
    pub(crate) fn start(&self, job: Job) {
        *lock(&self.slot.job) = Some(job);
        self.slot.has_job.store(true, Ordering::Release);
        self.slot.parker.unpark();
    }

    /// Runs `f` on the worker and waits at most `timeout` for its result; `None` if it
    /// did not return in time, in which case this worker is abandoned and replaced.
    pub(crate) fn run<R: Send + 'static>(
        &mut self,
        timeout: Duration,
        f: impl FnOnce() -> R + Send + 'static,
    ) -> Option<R> {
        let done = Arc::new(Done::new(1));
        let result = Arc::new(Mutex::new(None));
        let (d, r) = (done.clone(), result.clone());
        self.start(Box::new(move || {
            let v = f();
            *lock(&r) = Some(v);
            d.finish();
        }));
        if done.wait(timeout, || 0, || self.is_blocked()) == WaitEnd::Finished {
            let v = lock(&result).take();
            v
        } else {
            self.abandon();
            None
        }
    }

    /// True unless the operating system says the thread is runnable: a thread blocked on a
    /// lock sleeps, a thread that only lost its core on a busy machine does not.
    pub(crate) fn is_blocked(&self) -> bool {
        thread_is_blocked(self.slot.tid.load(Ordering::Acquire))
    }

    /// Gives up on the current job: the thread is left to its fate, a new one takes over.
    pub(crate) fn abandon(&mut self) {
        let name = self
            .thread
            .name()
            .unwrap_or("threadsafe-worker")
            .to_string();
        self.slot.shutdown.store(true, Ordering::Release);
        let abandoned = self.abandoned + 1;
        *self = Worker::spawn(&name);
        self.abandoned = abandoned;
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.slot.shutdown.store(true, Ordering::Release);
        self.slot.parker.unpark();
    }
}

fn worker_loop(slot: &Mailbox) {
    panics::capture_on_this_thread();
    slot.tid.store(current_tid(), Ordering::Release);
    loop {
        // `start` stores the job, then unparks: a job stored before the park makes the park
        // return at once (the parker keeps the unpark), so none is missed.
        let ready =
            || slot.has_job.load(Ordering::Acquire) || slot.shutdown.load(Ordering::Acquire);
        if !wait::spin(wait::WaitKind::Job, ready) {
            while !ready() {
                slot.parker.park();
            }
        }
        if !slot.has_job.load(Ordering::Acquire) {
            wait::pay_owed();
            return;
        }
        slot.has_job.store(false, Ordering::Release);
        let job = lock(&slot.job).take();
        if let Some(job) = job {
            job();
        }
        if slot.shutdown.load(Ordering::Acquire) {
            return;
        }
    }
}

/// Periods without progress after which a run counts as hung even if a thread is runnable.
const MAX_QUIET_PERIODS: u32 = 8;

/// The longest the waiting thread parks before it looks at the clock again.
const PARK_LIMIT: Duration = Duration::from_millis(5);

/// How long the jobs must make no progress before the waiting thread first asks whether the
/// process's threads sleep for good; while they go on sleeping otherwise, it asks again after
/// twice as long each time, up to `MAX_ASK_GAP`.
const FIRST_ASK_GAP: Duration = Duration::from_millis(2);
const MAX_ASK_GAP: Duration = Duration::from_millis(64);

/// How a [`Done::wait`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitEnd {
    /// Every job finished.
    Finished,
    /// No progress, and every other thread of the process sleeps for good
    /// ([`asleep_for_good`]): certainly hung, known as soon as it happened.
    AsleepForGood,
    /// No progress for the timeout, twice, while the threads were blocked, or for
    /// `MAX_QUIET_PERIODS` timeouts: taken for hung.
    NoProgress,
}

/// Counts down finished jobs and wakes the waiting thread when all are done.
pub(crate) struct Done {
    remaining: AtomicUsize,
    /// The parker of the thread that made this and waits on it.
    waiter: Arc<Parker>,
}

impl Done {
    pub(crate) fn new(n: usize) -> Self {
        Done {
            remaining: AtomicUsize::new(n),
            waiter: Parker::current(),
        }
    }

    /// Marks one job finished; true for the last one. A finished job first pays the
    /// wake-ups its thread owes ([`wait::pay_owed`]).
    pub(crate) fn finish(&self) -> bool {
        wait::pay_owed();
        let last = self.remaining.fetch_sub(1, Ordering::AcqRel) == 1;
        if last {
            self.waiter.unpark();
        }
        last
    }

    pub(crate) fn is_done(&self) -> bool {
        self.remaining.load(Ordering::Acquire) == 0
    }

    /// Waits until all jobs finished, or until they are hung. `progress` returns a counter
    /// that moves while the jobs make progress; `blocked` says whether the jobs' threads are
    /// blocked as far as the caller knows.
    ///
    /// Hung is recognised two ways. At once, when the jobs make no progress, `blocked` holds
    /// and every other thread of the process sleeps for good ([`asleep_for_good`]: the
    /// operating system says nothing can wake them): a deadlock on std or `parking_lot`
    /// locks ends the wait within milliseconds ([`WaitEnd::AsleepForGood`]). Otherwise by the
    /// clock: no progress for `timeout` twice in a row while `blocked` said the threads are
    /// blocked at both looks, or `MAX_QUIET_PERIODS` timeouts without progress regardless (a
    /// spinning livelock) ([`WaitEnd::NoProgress`]). A run that is slow but moving is not
    /// given up on, nor is one whose threads are merely waiting for a core, nor one whose
    /// threads were caught parked for a moment at one look.
    ///
    /// The waiting thread parks (the last [`finish`](Self::finish) unparks it) and wakes on
    /// its own only to look at the clock: it never spins or yields, so on a busy machine it
    /// takes no time from the jobs.
    pub(crate) fn wait(
        &self,
        timeout: Duration,
        progress: impl Fn() -> usize,
        blocked: impl Fn() -> bool,
    ) -> WaitEnd {
        let _own = own_thread();
        let me = current_tid();
        let start = Instant::now();
        let mut last_progress = progress();
        let mut quiet_periods = 0;
        // Consecutive quiet periods at whose end `blocked` held.
        let mut blocked_periods = 0;
        let mut deadline = start + timeout;
        // The progress when the operating system was last asked, and when to ask next.
        let mut asked_progress = last_progress;
        let mut ask_gap = FIRST_ASK_GAP;
        let mut next_ask = start + ask_gap;
        loop {
            if self.is_done() {
                return WaitEnd::Finished;
            }
            let now = Instant::now();
            if now >= next_ask {
                let p = progress();
                if p != asked_progress {
                    asked_progress = p;
                    ask_gap = FIRST_ASK_GAP;
                } else if blocked() && asleep_for_good(me, quiet_watchdog) {
                    return self.end(WaitEnd::AsleepForGood);
                } else {
                    ask_gap = (ask_gap * 2).min(MAX_ASK_GAP);
                }
                next_ask = now + ask_gap;
            }
            if now >= deadline {
                let p = progress();
                if p != last_progress {
                    last_progress = p;
                    quiet_periods = 0;
                    blocked_periods = 0;
                } else {
                    quiet_periods += 1;
                    if blocked() {
                        blocked_periods += 1;
                    } else {
                        blocked_periods = 0;
                    }
                    if blocked_periods >= 2 || quiet_periods >= MAX_QUIET_PERIODS {
                        return self.end(WaitEnd::NoProgress);
                    }
                }
                deadline = now + timeout;
            }
            // `finish` decrements, then unparks: a finish before the park makes it return at
            // once (the parker keeps the unpark).
            let wake = deadline.min(next_ask);
            self.waiter
                .park_timeout((wake - Instant::now().min(wake)).min(PARK_LIMIT));
        }
    }

    /// `hung`, unless the last job finished after all.
    fn end(&self, hung: WaitEnd) -> WaitEnd {
        if self.is_done() {
            WaitEnd::Finished
        } else {
            hung
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::in_a_child;

    /// The variable that makes a run of the test binary a child running the case of
    /// [`a_deadlock_of_std_locks_ends_the_wait_at_once`].
    const CASE: &str = "THREADSAFE_WORKER_DEADLOCK_CASE";

    /// Two workers take two std locks in opposite orders and wait for each other: the wait
    /// ends because the threads sleep for good, not after the timeout (an hour here). In a
    /// child process, where no other test's threads run.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_deadlock_of_std_locks_ends_the_wait_at_once() {
        if std::env::var(CASE).is_err() {
            return in_a_child(
                "exec::worker::tests::a_deadlock_of_std_locks_ends_the_wait_at_once",
                CASE,
                "deadlock",
            );
        }
        if crate::os::thread_runs(current_tid()).is_none() {
            return; // no /proc/<tid>/schedstat: nothing is asleep for good here
        }
        let locks = Arc::new((Mutex::new(()), Mutex::new(())));
        let both_hold = Arc::new(std::sync::Barrier::new(2));
        let done = Arc::new(Done::new(2));
        let workers: Vec<Worker> = (0..2).map(|t| Worker::spawn(&format!("w{t}"))).collect();
        for (t, w) in workers.iter().enumerate() {
            let (locks, both_hold, done) = (locks.clone(), both_hold.clone(), done.clone());
            w.start(Box::new(move || {
                let (first, second) = if t == 0 {
                    (&locks.0, &locks.1)
                } else {
                    (&locks.1, &locks.0)
                };
                let _held = lock(first);
                both_hold.wait();
                drop(lock(second));
                done.finish();
            }));
        }
        let end = done.wait(
            Duration::from_secs(3600),
            || 0,
            || workers.iter().all(Worker::is_blocked),
        );
        assert_eq!(end, WaitEnd::AsleepForGood);
    }
}
