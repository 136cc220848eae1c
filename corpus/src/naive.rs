//! The naive baseline: what a developer writes by hand to stress a pair of calls, two threads
//! calling them in loops on a shared instance, with no tool.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the calls may make no progress before the stress test calls it a deadlock.
pub const STUCK_AFTER: Duration = Duration::from_secs(1);

/// Runs `a` on one thread and `b` on another, `iters` times each, on a fresh instance from
/// `fresh` per round, round after round until one of the calls panics, the calls stop making
/// progress for [`STUCK_AFTER`] (a deadlock), or `budget` is spent.
///
/// Returns the time to the failure (for a deadlock, when it was declared), or `None`. The
/// threads of a deadlocked round are left behind, as a hand-written test would leave them.
/// Panic messages are not printed while it runs.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
///
/// // A counter whose increment is a load then a store: two threads lose updates, but
/// // nothing panics, so the naive test never fails.
/// let found = threadsafe_corpus::naive::race(
///     Duration::from_millis(50),
///     100,
///     || AtomicU32::new(0),
///     |c| { c.store(c.load(Ordering::SeqCst) + 1, Ordering::SeqCst); },
///     |c| { c.store(c.load(Ordering::SeqCst) + 1, Ordering::SeqCst); },
/// );
/// assert_eq!(found, None);
/// ```
pub fn race<S, F, A, B>(budget: Duration, iters: usize, fresh: F, a: A, b: B) -> Option<Duration>
where
    S: Send + Sync + 'static,
    F: Fn() -> S,
    A: Fn(&S) + Send + Sync + 'static,
    B: Fn(&S) + Send + Sync + 'static,
{
    race_checked(budget, iters, fresh, a, b, |_| true)
}

/// [`race`] for a bug whose symptom is a wrong result: after each round, once both threads
/// are done, `holds` looks at the instance (and whatever the calls recorded in it), and a
/// round where it is false fails the test, as an `assert!` after the threads join would.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
///
/// // A correct counter, looked at after each round: two increments make 2, every round.
/// let found = threadsafe_corpus::naive::race_checked(
///     Duration::from_millis(50),
///     1,
///     || AtomicU32::new(0),
///     |c| { c.fetch_add(1, Ordering::SeqCst); },
///     |c| { c.fetch_add(1, Ordering::SeqCst); },
///     |c| c.load(Ordering::SeqCst) == 2,
/// );
/// assert_eq!(found, None);
/// ```
pub fn race_checked<S, F, A, B, H>(
    budget: Duration,
    iters: usize,
    fresh: F,
    a: A,
    b: B,
    holds: H,
) -> Option<Duration>
where
    S: Send + Sync + 'static,
    F: Fn() -> S,
    A: Fn(&S) + Send + Sync + 'static,
    B: Fn(&S) + Send + Sync + 'static,
    H: Fn(&S) -> bool,
{
    let shared = Arc::new(Shared {
        state: Mutex::new(None),
        round: AtomicUsize::new(0),
        finished: AtomicUsize::new(0),
        progress: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
        stop: AtomicBool::new(false),
    });
    let _quiet = quiet();
    let calls: [Call<S>; 2] = [Arc::new(a), Arc::new(b)];
    let workers: Vec<_> = calls
        .into_iter()
        .map(|call| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || shared.work(iters, &*call))
        })
        .collect();
    let start = Instant::now();
    let mut outcome = None;
    'rounds: for round in 1.. {
        *shared.state.lock().unwrap() = Some(Arc::new(fresh()));
        shared.round.store(round, Ordering::SeqCst);
        let (mut seen, mut since) = (shared.progress.load(Ordering::SeqCst), Instant::now());
        while shared.finished.load(Ordering::SeqCst) < 2 * round {
            std::thread::yield_now();
            let now = shared.progress.load(Ordering::SeqCst);
            if now != seen {
                (seen, since) = (now, Instant::now());
            } else if since.elapsed() >= STUCK_AFTER {
                shared.stop.store(true, Ordering::SeqCst);
                // The stuck threads stay behind; do not join them.
                return Some(start.elapsed());
            }
        }
        let state = shared.state.lock().unwrap().clone();
        if shared.failed.load(Ordering::SeqCst) || !state.is_some_and(|s| holds(&s)) {
            outcome = Some(start.elapsed());
            break 'rounds;
        }
        if start.elapsed() >= budget {
            break 'rounds;
        }
    }
    shared.stop.store(true, Ordering::SeqCst);
    for w in workers {
        let _ = w.join();
    }
    outcome
}

/// One thread's call.
type Call<S> = Arc<dyn Fn(&S) + Send + Sync>;

struct Shared<S> {
    state: Mutex<Option<Arc<S>>>,
    round: AtomicUsize,
    finished: AtomicUsize,
    progress: AtomicUsize,
    failed: AtomicBool,
    stop: AtomicBool,
}

impl<S> Shared<S> {
    fn work(&self, iters: usize, call: &(dyn Fn(&S) + Send + Sync)) {
        let mut done = 0;
        loop {
            while self.round.load(Ordering::SeqCst) == done {
                if self.stop.load(Ordering::SeqCst) {
                    return;
                }
                std::hint::spin_loop();
            }
            done += 1;
            let state = self
                .state
                .lock()
                .unwrap()
                .clone()
                .expect("set before the round");
            for _ in 0..iters {
                if catch_unwind(AssertUnwindSafe(|| call(&state))).is_err() {
                    self.failed.store(true, Ordering::SeqCst);
                    break;
                }
                self.progress.fetch_add(1, Ordering::SeqCst);
            }
            self.finished.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Runs its closure when dropped: puts the previous panic hook back.
struct Restore<H: FnOnce()>(Option<H>);

impl<H: FnOnce()> Drop for Restore<H> {
    fn drop(&mut self) {
        if let Some(restore) = self.0.take() {
            restore();
        }
    }
}

/// Silences the panic hook until the returned guard drops (the stress test's threads panic
/// on purpose).
fn quiet() -> Restore<impl FnOnce()> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    Restore(Some(move || std::panic::set_hook(previous)))
}

/// The tight stress loop a user who knows the racing pair writes by hand, the yardstick of
/// the real-crate subjects: two persistent threads, one calling `a` and one calling `b`, on a
/// fresh instance per round, released together by a spin flag (no lock, no yield between
/// them); after both calls, `holds` looks at the instance on the calling thread, as an
/// `assert!` after the pair would.
///
/// A round fails when a call panics, when `holds` is false, or when the round makes no
/// progress for [`STUCK_AFTER`] (a deadlock; its threads stay behind). Returns the time to
/// the first failure (taken by the calling thread as the round fails; for a deadlock, when it
/// is declared), or `None` when none came within `budget`. The thread that called this
/// function only watches (it sleeps between looks), so the two callers have the two cores.
/// Panic messages are not printed while it runs.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
///
/// // A counter whose increment is a load then a store loses an update when the two
/// // increments overlap; the check after the pair sees 1 instead of 2.
/// let found = threadsafe_corpus::naive::hand_loop(
///     Duration::from_secs(10),
///     || AtomicU32::new(0),
///     |c| {
///         let v = c.load(Ordering::SeqCst);
///         std::thread::yield_now();
///         c.store(v + 1, Ordering::SeqCst);
///     },
///     |c| {
///         let v = c.load(Ordering::SeqCst);
///         std::thread::yield_now();
///         c.store(v + 1, Ordering::SeqCst);
///     },
///     |c| c.load(Ordering::SeqCst) == 2,
/// );
/// assert!(found.is_some());
/// ```
pub fn hand_loop<S, F, A, B, H>(
    budget: Duration,
    fresh: F,
    a: A,
    b: B,
    holds: H,
) -> Option<Duration>
where
    S: Send + Sync + 'static,
    F: Fn() -> S + Send + 'static,
    A: Fn(&S) + Send + 'static,
    B: Fn(&S) + Send + 'static,
    H: Fn(&S) -> bool + Send + 'static,
{
    tight_loop(budget, fresh, a, b, holds).failed_at
}

/// What [`tight_loop`] did.
#[derive(Clone, Copy, Debug)]
pub struct LoopRun {
    /// Rounds started (instances made).
    pub rounds: u64,
    /// Wall-clock time, to the failure or to the end of the budget.
    pub elapsed: Duration,
    /// When a round failed, from the start; `None` when none did within the budget.
    pub failed_at: Option<Duration>,
}

impl LoopRun {
    /// Rounds per second.
    pub fn rate(&self) -> f64 {
        self.rounds as f64 / self.elapsed.as_secs_f64()
    }
}

/// [`hand_loop`], with the rounds it ran: the one hand loop of the project, the subjects'
/// naive test and the benchmarks' yardstick (rounds per second, rounds to a find).
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::time::Duration;
///
/// // A correct counter: every round's two increments make 2, so the loop runs its budget.
/// let run = threadsafe_corpus::naive::tight_loop(
///     Duration::from_millis(50),
///     || AtomicU64::new(0),
///     |c| { c.fetch_add(1, Ordering::SeqCst); },
///     |c| { c.fetch_add(1, Ordering::SeqCst); },
///     |c| c.load(Ordering::SeqCst) == 2,
/// );
/// assert!(run.failed_at.is_none() && run.rounds > 0);
/// ```
pub fn tight_loop<S, F, A, B, H>(budget: Duration, fresh: F, a: A, b: B, holds: H) -> LoopRun
where
    S: Send + Sync + 'static,
    F: Fn() -> S + Send + 'static,
    A: Fn(&S) + Send + 'static,
    B: Fn(&S) + Send + 'static,
    H: Fn(&S) -> bool + Send + 'static,
{
    let tight = Arc::new(Tight {
        instance: Mutex::new(None),
        round: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
        failed_at: Mutex::new(None),
        over: AtomicBool::new(false),
        stop: AtomicBool::new(false),
    });
    let _quiet = quiet();
    let start = Instant::now();
    let helper = {
        let tight = Arc::clone(&tight);
        std::thread::spawn(move || {
            let mut seen = 0;
            loop {
                while tight.round.load(Ordering::Acquire) == seen {
                    if tight.stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::hint::spin_loop();
                }
                seen += 1;
                let s = tight.current();
                if catch_unwind(AssertUnwindSafe(|| b(&s))).is_err() {
                    tight.failed.store(true, Ordering::SeqCst);
                }
                drop(s);
                tight.done.store(seen, Ordering::Release);
            }
        })
    };
    let caller = {
        let tight = Arc::clone(&tight);
        std::thread::spawn(move || {
            let mut round = 0;
            while start.elapsed() < budget && !tight.stop.load(Ordering::Relaxed) {
                let s = Arc::new(fresh());
                *tight.instance.lock().unwrap_or_else(|e| e.into_inner()) = Some(s.clone());
                round += 1;
                tight.round.store(round, Ordering::Release);
                let panicked = catch_unwind(AssertUnwindSafe(|| a(&s))).is_err();
                while tight.done.load(Ordering::Acquire) < round {
                    std::hint::spin_loop();
                }
                if panicked || tight.failed.load(Ordering::SeqCst) || !holds(&s) {
                    // The time of the find, not of when the watcher next looks.
                    *tight.failed_at.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(start.elapsed());
                    break;
                }
            }
            let ended = start.elapsed();
            tight.over.store(true, Ordering::SeqCst);
            ended
        })
    };
    let (mut seen, mut since) = (0, Instant::now());
    let outcome = loop {
        std::thread::sleep(Duration::from_millis(5));
        if tight.over.load(Ordering::SeqCst) {
            break *tight.failed_at.lock().unwrap_or_else(|e| e.into_inner());
        }
        let now = tight.done.load(Ordering::SeqCst);
        if now != seen {
            (seen, since) = (now, Instant::now());
        } else if since.elapsed() >= STUCK_AFTER {
            // A deadlock: the stuck threads stay behind; do not join them.
            tight.stop.store(true, Ordering::SeqCst);
            let elapsed = start.elapsed();
            return LoopRun {
                rounds: tight.round.load(Ordering::SeqCst) as u64,
                elapsed,
                failed_at: Some(elapsed),
            };
        }
    };
    tight.stop.store(true, Ordering::SeqCst);
    let ended = caller.join().unwrap_or_else(|_| start.elapsed());
    let _ = helper.join();
    LoopRun {
        rounds: tight.round.load(Ordering::SeqCst) as u64,
        elapsed: outcome.unwrap_or(ended),
        failed_at: outcome,
    }
}

/// What the two threads of [`hand_loop`] share.
struct Tight<S> {
    instance: Mutex<Option<Arc<S>>>,
    round: AtomicUsize,
    done: AtomicUsize,
    /// The helper's call panicked.
    failed: AtomicBool,
    /// When the round that failed ended, from the start.
    failed_at: Mutex<Option<Duration>>,
    over: AtomicBool,
    stop: AtomicBool,
}

impl<S> Tight<S> {
    fn current(&self) -> Arc<S> {
        self.instance
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .expect("the round's instance is set before the round starts")
    }
}
