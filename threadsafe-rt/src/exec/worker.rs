//! Persistent worker threads.
//!
//! A worker runs one job at a time. Between jobs it spins briefly, then yields, then parks,
//! so that back-to-back executions start without a thread spawn or a futex wake-up on the
//! hot path. A worker whose job never returns (a deadlock in the code under test) is
//! abandoned: std locks cannot be broken, so the thread stays blocked and the caller gets a
//! fresh worker in its place.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use crate::lock::lock;
use crate::os::{current_tid, thread_is_blocked};
use crate::panics;

type Job = Box<dyn FnOnce() + Send>;

struct Slot {
    /// The kernel's id of the worker thread (0 where unknown).
    tid: AtomicU64,
    job: Mutex<Option<Job>>,
    has_job: AtomicBool,
    shutdown: AtomicBool,
}

pub(crate) struct Worker {
    slot: Arc<Slot>,
    thread: Thread,
    /// Threads this worker's slot has left blocked (for the report).
    pub(crate) abandoned: usize,
}

impl Worker {
    pub(crate) fn spawn(name: &str) -> Worker {
        let slot = Arc::new(Slot {
            tid: AtomicU64::new(0),
            job: Mutex::new(None),
            has_job: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
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
        self.thread.unpark();
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
        if done.wait(timeout, || 0, || self.is_blocked()) {
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
        self.thread.unpark();
    }
}

fn worker_loop(slot: &Slot) {
    panics::capture_on_this_thread();
    slot.tid.store(current_tid(), Ordering::Release);
    loop {
        let mut spins = 0u32;
        while !slot.has_job.load(Ordering::Acquire) {
            if slot.shutdown.load(Ordering::Acquire) {
                return;
            }
            spins += 1;
            if spins < 2_000 {
                std::hint::spin_loop();
            } else if spins < 2_200 {
                thread::yield_now();
            } else {
                thread::park_timeout(Duration::from_millis(50));
            }
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

/// How often the waiting thread yields before it parks. With two cores and two workers,
/// a waiter that keeps yielding competes with them.
const YIELDS_BEFORE_PARK: u32 = 8;

/// Counts down finished jobs and wakes the waiting thread when all are done.
pub(crate) struct Done {
    remaining: AtomicUsize,
    waiter: Thread,
}

impl Done {
    pub(crate) fn new(n: usize) -> Self {
        Done {
            remaining: AtomicUsize::new(n),
            waiter: thread::current(),
        }
    }

    /// Marks one job finished; true for the last one.
    pub(crate) fn finish(&self) -> bool {
        let last = self.remaining.fetch_sub(1, Ordering::AcqRel) == 1;
        if last {
            self.waiter.unpark();
        }
        last
    }

    pub(crate) fn is_done(&self) -> bool {
        self.remaining.load(Ordering::Acquire) == 0
    }

    /// Waits until all jobs finished (true) or no progress was seen for `timeout` twice in a
    /// row while `blocked` says the threads are blocked (false). `progress` returns a counter
    /// that moves while the jobs make progress: a run that is slow but moving is not given
    /// up on, nor is one whose threads are merely waiting for a core. After
    /// `MAX_QUIET_PERIODS` without progress it gives up regardless (a spinning livelock).
    pub(crate) fn wait(
        &self,
        timeout: Duration,
        progress: impl Fn() -> usize,
        blocked: impl Fn() -> bool,
    ) -> bool {
        let mut last_progress = progress();
        let mut quiet_periods = 0;
        let mut deadline = Instant::now() + timeout;
        let mut spins = 0u32;
        loop {
            if self.is_done() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                let p = progress();
                if p != last_progress {
                    last_progress = p;
                    quiet_periods = 0;
                } else {
                    quiet_periods += 1;
                    if (quiet_periods >= 2 && blocked()) || quiet_periods >= MAX_QUIET_PERIODS {
                        return self.is_done();
                    }
                }
                deadline = now + timeout;
            }
            spins += 1;
            if spins < YIELDS_BEFORE_PARK {
                thread::yield_now();
            } else {
                thread::park_timeout(
                    (deadline - Instant::now().min(deadline)).min(Duration::from_millis(5)),
                );
            }
        }
    }
}
