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
        *self.slot.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
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
            *r.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
            d.finish();
        }));
        if done.wait(timeout, || 0, || self.is_blocked()) {
            let v = result.lock().unwrap_or_else(|e| e.into_inner()).take();
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
        let job = slot.job.lock().unwrap_or_else(|e| e.into_inner()).take();
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

/// The kernel's id of the calling thread, from `/proc/thread-self/stat` (0 elsewhere).
pub(crate) fn current_tid() -> u64 {
    std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// False when `/proc` says thread `tid` of this process is runnable (`R`); true when it
/// sleeps or waits, or when that cannot be known.
pub(crate) fn thread_is_blocked(tid: u64) -> bool {
    if tid == 0 {
        return true;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")) else {
        return true;
    };
    // The state is the first field after the parenthesised thread name.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    state != Some("R")
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_blocked_on_a_lock_is_seen_blocked_and_a_spinning_one_is_not() {
        let lock = Arc::new(Mutex::new(()));
        let guard = lock.lock().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let l = lock.clone();
        let blocked = thread::spawn(move || {
            tx.send(current_tid()).unwrap();
            drop(l.lock().unwrap());
        });
        let tid = rx.recv().unwrap();
        thread::sleep(Duration::from_millis(50));
        assert!(thread_is_blocked(tid));
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let s = stop.clone();
        let spinning = thread::spawn(move || {
            tx.send(current_tid()).unwrap();
            while !s.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        let spin_tid = rx.recv().unwrap();
        if spin_tid != 0 {
            // Runnable, whether on a core or waiting for one.
            assert!(!thread_is_blocked(spin_tid));
        }
        stop.store(true, Ordering::Relaxed);
        drop(guard);
        blocked.join().unwrap();
        spinning.join().unwrap();
    }
}
