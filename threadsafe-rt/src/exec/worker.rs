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
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use crate::lock::lock;
use crate::os::{current_tid, thread_is_blocked};
use crate::panics;
use crate::wait;

type Job = Box<dyn FnOnce() + Send>;

struct Mailbox {
    /// The kernel's id of the worker thread (0 where unknown).
    tid: AtomicU64,
    job: Mutex<Option<Job>>,
    has_job: AtomicBool,
    shutdown: AtomicBool,
}

pub(crate) struct Worker {
    slot: Arc<Mailbox>,
    thread: Thread,
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

fn worker_loop(slot: &Mailbox) {
    panics::capture_on_this_thread();
    slot.tid.store(current_tid(), Ordering::Release);
    loop {
        // `start` stores the job, then unparks: a job stored before the park makes the park
        // return at once (std's parking token), so none is missed.
        let ready =
            || slot.has_job.load(Ordering::Acquire) || slot.shutdown.load(Ordering::Acquire);
        if !wait::spin(wait::WaitKind::Job, ready) {
            while !ready() {
                thread::park();
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

    /// Waits until all jobs finished (true) or no progress was seen for `timeout` twice in a
    /// row while `blocked` said the threads are blocked at both looks (false). `progress`
    /// returns a counter that moves while the jobs make progress: a run that is slow but
    /// moving is not given up on, nor is one whose threads are merely waiting for a core, nor
    /// one whose threads were caught parked for a moment at one look. After
    /// `MAX_QUIET_PERIODS` without progress it gives up regardless (a spinning livelock).
    ///
    /// The waiting thread parks (the last [`finish`](Self::finish) unparks it) and wakes on
    /// its own only to look at the clock: it never spins or yields, so on a busy machine it
    /// takes no time from the jobs.
    pub(crate) fn wait(
        &self,
        timeout: Duration,
        progress: impl Fn() -> usize,
        blocked: impl Fn() -> bool,
    ) -> bool {
        let mut last_progress = progress();
        let mut quiet_periods = 0;
        // Consecutive quiet periods at whose end `blocked` held.
        let mut blocked_periods = 0;
        let mut deadline = Instant::now() + timeout;
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
                    blocked_periods = 0;
                } else {
                    quiet_periods += 1;
                    if blocked() {
                        blocked_periods += 1;
                    } else {
                        blocked_periods = 0;
                    }
                    if blocked_periods >= 2 || quiet_periods >= MAX_QUIET_PERIODS {
                        return self.is_done();
                    }
                }
                deadline = now + timeout;
            }
            // `finish` decrements, then unparks: a finish before the park makes it return at
            // once (std's parking token).
            thread::park_timeout((deadline - Instant::now().min(deadline)).min(PARK_LIMIT));
        }
    }
}
