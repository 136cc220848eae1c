//! Sequential runs on the batch's workers, for the oracle's results: a test's calls one at a
//! time in a given order (a linearization), each call on the worker of the thread that makes
//! it in the concurrent executions, and the prefix and the post part on worker 0, as there.
//! A call that depends on the thread it runs on (a thread-local, a shard chosen by
//! `ThreadId`) then sees the same thread in both, so that only a real bug tells them apart.
//!
//! The calls of all the runs asked for form one sequence of slots (a run's prefix, its
//! calls in order, its post part); a shared counter says whose slot it is, and the worker
//! that finishes a slot wakes the worker of the next one.
//!
//! Paced runs, which mostly sleep, may be spread over several lanes: each lane is such a
//! sequence of its own, on a set of workers of its own, and the lanes go at once. A run is
//! still one call at a time on fresh instances; only lane 0 has the concurrent executions'
//! workers, so a call that depends on its thread gives other values in the other lanes, and
//! is then not compared (the oracle only becomes more lenient).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;
use std::time::Duration;

use super::call::{call_shared, materialize, CallOutcome, Pool, Value};
use super::execution::{run_post, run_prefix};
use super::outcome::{Site, IDLE};
use super::results::Results;
use super::worker::{Done, Worker};
use crate::lock::lock;
use crate::panics;
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

/// What a slot does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Run `run`'s prefix (worker 0).
    Prefix(usize),
    /// Run thread `t`'s next call in `run`.
    Call(usize, usize),
    /// Run `run`'s post part (worker 0).
    Post(usize),
    /// End a partial `run` without its post part (worker 0).
    End(usize),
}

impl Step {
    fn worker(self) -> usize {
        match self {
            Step::Prefix(_) | Step::Post(_) | Step::End(_) => 0,
            Step::Call(_, t) => t,
        }
    }
}

/// The state of one run.
struct RunState<T> {
    /// The run's instances, from its prefix to its post part.
    pool: Option<Arc<Pool<T>>>,
    /// The prefix ran through.
    valid: bool,
    outcomes: Vec<(Site, CallOutcome)>,
    /// Threads whose call failed: their later calls do not run.
    dead: Vec<bool>,
}

struct Shared<T: 'static> {
    /// Seeds the pauses before each call, when the runs are paced.
    pace: Option<u64>,
    desc: &'static Description<T>,
    test: Arc<TestCase>,
    slots: Vec<Step>,
    turn: AtomicUsize,
    abort: AtomicBool,
    runs: Vec<Mutex<RunState<T>>>,
    /// Each worker's thread, to wake it when its slot comes.
    threads: Vec<OnceLock<Thread>>,
    /// Shared by the lanes: the wait ends when every lane's workers are through.
    done: Arc<Done>,
}

impl<T: Send + Sync + 'static> Shared<T> {
    /// One lane: `orders` in sequence, on the lane's `test.threads.len()` workers.
    fn new(
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        orders: &[&Vec<usize>],
        pace: Option<u64>,
        done: Arc<Done>,
    ) -> Self {
        let n = test.threads.len();
        let calls: usize = test.threads.iter().map(Vec::len).sum();
        let mut slots = Vec::new();
        for (r, order) in orders.iter().enumerate() {
            slots.push(Step::Prefix(r));
            slots.extend(order.iter().map(|&t| Step::Call(r, t)));
            // A partial order (the oracle's search) has no post part.
            if order.len() == calls {
                slots.push(Step::Post(r));
            } else {
                slots.push(Step::End(r));
            }
        }
        Shared {
            pace,
            desc,
            test: test.clone(),
            slots,
            turn: AtomicUsize::new(0),
            abort: AtomicBool::new(false),
            runs: orders
                .iter()
                .map(|_| {
                    Mutex::new(RunState {
                        pool: None,
                        valid: false,
                        outcomes: Vec::new(),
                        dead: vec![false; n],
                    })
                })
                .collect(),
            threads: (0..n).map(|_| OnceLock::new()).collect(),
            done,
        }
    }

    fn worker_body(&self, w: usize) {
        let _ = self.threads[w].set(std::thread::current());
        // This worker's output variables, per thread it plays (only its own), per run.
        let mut local: Vec<Option<Value>> = Vec::new();
        let mut local_run = usize::MAX;
        let mut next_call = 0;
        for (i, &step) in self.slots.iter().enumerate() {
            if step.worker() != w {
                continue;
            }
            if !self.wait_turn(i) {
                return;
            }
            if let Some(seed) = self.pace {
                // Each call and post part its own pause, so that runs of one order differ in
                // timing. Not before a prefix, or the end of a partial run: nothing of the
                // run exists before the one, and nothing is observed after the other, so a
                // pause there changes no result.
                if matches!(step, Step::Call(..) | Step::Post(_)) {
                    pause(seed, i);
                }
            }
            match step {
                Step::Prefix(r) => {
                    let pool = panics::catch(|| run_prefix(self.desc, &self.test))
                        .ok()
                        .flatten()
                        .map(Arc::new);
                    let mut st = lock(&self.runs[r]);
                    st.valid = pool.is_some();
                    st.pool = pool;
                }
                Step::Call(r, t) => {
                    if local_run != r {
                        local_run = r;
                        next_call = 0;
                        local = (0..self.test.var_count(Scope::Thread(t)))
                            .map(|_| None)
                            .collect();
                    }
                    let k = next_call;
                    next_call += 1;
                    let (pool, dead) = {
                        let st = lock(&self.runs[r]);
                        (st.pool.clone(), st.dead[t])
                    };
                    if let (Some(pool), false) = (pool, dead) {
                        let call = &self.test.threads[t][k];
                        crate::sched::set_call(k);
                        let scope = Scope::Thread(t);
                        let o = match panics::catch(|| materialize(self.desc, call)) {
                            Ok(fresh) => {
                                call_shared(self.desc, call, &pool, scope, &mut local, fresh, true)
                            }
                            Err(p) => CallOutcome::Panic(p),
                        };
                        let mut st = lock(&self.runs[r]);
                        st.dead[t] = !matches!(o, CallOutcome::Ok(..));
                        st.outcomes.push((Site::thread(t, k), o));
                    }
                }
                Step::Post(r) => {
                    let (pool, mut outcomes) = {
                        let mut st = lock(&self.runs[r]);
                        (st.pool.clone(), std::mem::take(&mut st.outcomes))
                    };
                    if let Some(pool) = pool {
                        let at = AtomicUsize::new(IDLE);
                        run_post(self.desc, &self.test, &pool, &mut outcomes, &at, true);
                    }
                    let mut st = lock(&self.runs[r]);
                    st.outcomes = outcomes;
                    st.pool = None;
                }
                Step::End(r) => lock(&self.runs[r]).pool = None,
            }
            self.pass_turn(i);
        }
        self.done.finish();
    }

    /// Waits until slot `i` has the turn; false if the runs were aborted.
    fn wait_turn(&self, i: usize) -> bool {
        let mut spins = 0u32;
        loop {
            if self.abort.load(Ordering::Acquire) {
                return false;
            }
            if self.turn.load(Ordering::Acquire) == i {
                return true;
            }
            spins += 1;
            if spins < 128 {
                std::hint::spin_loop();
            } else if spins < 160 {
                std::thread::yield_now();
            } else {
                std::thread::park_timeout(Duration::from_micros(200));
            }
        }
    }

    /// Slot `i` is done: the next slot's worker may go.
    fn pass_turn(&self, i: usize) {
        self.turn.store(i + 1, Ordering::Release);
        if let Some(next) = self.slots.get(i + 1) {
            if let Some(th) = self.threads[next.worker()].get() {
                th.unpark();
            }
        }
    }
}

/// How runs are paced: a seeded pause before each call and post part, the runs spread over
/// up to `lanes` lanes that go at once (runs without pauses go in one lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pace {
    /// Seeds the pauses (lane 0's; the other lanes' derive from it).
    pub(crate) seed: u64,
    /// Lanes the runs are spread over, at most.
    pub(crate) lanes: usize,
}

/// Sleeps before slot `i` of paced runs: nothing half the time, else up to a few
/// milliseconds (seeded), so that a result that depends on the time taken shows it.
fn pause(seed: u64, i: usize) {
    let mut z = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^= z >> 29;
    let micros = [0, 0, 0, 0, 50, 300, 1_200, 3_000][(z % 8) as usize];
    if micros > 0 {
        std::thread::sleep(Duration::from_micros(micros));
    }
}

/// Runs `test` once per order of `orders` (each a thread id per step: a linearization of
/// the threads' calls, or the start of one, which runs without the post part), each on a
/// fresh prefix, on `workers`; with `pace`, each call after a seeded pause, the runs spread
/// over up to `pace.lanes` lanes that go at once (run `r` in lane `r % lanes`, on workers
/// `lane * threads ..`). The results of each run, or `None` for a run whose prefix failed
/// or that did not finish (when no lane makes progress for `timeout`, the runs are given
/// up, with the rest, and the stuck workers left behind).
pub(super) fn run<T: Send + Sync + 'static>(
    workers: &mut Vec<Worker>,
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    orders: &[Vec<usize>],
    pace: Option<Pace>,
    timeout: Duration,
) -> Vec<Option<Results>> {
    let n = test.threads.len();
    let lanes = pace.map_or(1, |p| p.lanes.clamp(1, orders.len().max(1)));
    let done = Arc::new(Done::new(n * lanes));
    let shared: Vec<Arc<Shared<T>>> = (0..lanes)
        .map(|l| {
            let mine: Vec<&Vec<usize>> = orders.iter().skip(l).step_by(lanes).collect();
            // Lane 0 keeps the seed: one lane paces as before lanes were.
            let pace = pace.map(|p| p.seed ^ (l as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
            Arc::new(Shared::new(desc, test, &mine, pace, done.clone()))
        })
        .collect();
    while workers.len() < n * lanes {
        let name = format!("threadsafe-suffix-{}", workers.len());
        workers.push(Worker::spawn(&name));
    }
    for (l, lane) in shared.iter().enumerate() {
        for t in 0..n {
            let s = lane.clone();
            workers[l * n + t].start(Box::new(move || s.worker_body(t)));
        }
    }
    let progress = || shared.iter().map(|s| s.turn.load(Ordering::Acquire)).sum();
    let blocked = || {
        shared.iter().enumerate().all(|(l, s)| {
            let turn = s.turn.load(Ordering::Acquire);
            s.slots
                .get(turn)
                .map_or(true, |st| workers[l * n + st.worker()].is_blocked())
        })
    };
    let finished = done.wait(timeout, progress, blocked);
    let completed: Vec<usize> = shared
        .iter()
        .enumerate()
        .map(|(l, s)| {
            let turn = s.turn.load(Ordering::Acquire);
            if finished || turn >= s.slots.len() {
                return s.runs.len();
            }
            s.abort.store(true, Ordering::Release);
            workers[l * n + s.slots[turn].worker()].abandon();
            // The runs whose post part passed.
            s.slots[..turn]
                .iter()
                .filter(|st| matches!(st, Step::Post(_) | Step::End(_)))
                .count()
        })
        .collect();
    (0..orders.len())
        .map(|r| {
            let (l, k) = (r % lanes, r / lanes);
            let st = lock(&shared[l].runs[k]);
            (k < completed[l] && st.valid)
                .then(|| Results::of(n, &st.outcomes))
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use super::{run, Pace};
    use crate::exec::worker::Worker;
    use crate::subject::{Description, Subject};
    use crate::testcase::{Call, Made, OpId, Out, TestCase};

    /// Tickets in the order they are taken: each order of the calls gives its own results.
    pub struct Tickets(AtomicU64);

    #[crate::thread_safe(test = false)]
    impl Tickets {
        pub fn new() -> Self {
            Tickets(AtomicU64::new(0))
        }
        pub fn take(&self) -> u64 {
            self.0.fetch_add(1, Ordering::SeqCst) + 1
        }
    }

    /// A fresh instance, then one `take` on each of two threads.
    fn two_takes() -> Arc<TestCase> {
        let take = Call {
            op: OpId::Method(0),
            receiver: Some(0),
            args: Vec::new(),
            out: Out::None,
        };
        Arc::new(TestCase {
            prefix: vec![Call {
                op: OpId::Ctor(0),
                receiver: None,
                args: Vec::new(),
                out: Out::Instance(0, Made::Value),
            }],
            threads: vec![vec![take.clone()], vec![take]],
            post: Vec::new(),
        })
    }

    #[test]
    fn paced_runs_spread_over_lanes_give_each_order_its_own_results() {
        let desc: &'static Description<Tickets> = Box::leak(Box::new(Tickets::describe()));
        let test = two_takes();
        // Runs 0, 2, 4, … take thread 0 first; runs 1, 3, 5, … thread 1.
        let orders: Vec<Vec<usize>> = (0..10).map(|r| vec![r % 2, 1 - r % 2]).collect();
        let timeout = Duration::from_secs(10);
        let mut workers: Vec<Worker> = Vec::new();
        let pace = |lanes| Some(Pace { seed: 7, lanes });
        let one_lane = run(&mut workers, desc, &test, &orders, pace(1), timeout);
        assert_eq!(workers.len(), 2, "one lane: one worker per thread");
        // Three lanes: each has runs of both orders (lane 0 has runs 0, 3, 6 and 9).
        let lanes = run(&mut workers, desc, &test, &orders, pace(3), timeout);
        assert_eq!(workers.len(), 6, "three lanes of two workers");
        let first = one_lane[0].as_ref().expect("run 0 finished");
        let second = one_lane[1].as_ref().expect("run 1 finished");
        assert!(
            !first.identical(second),
            "the two orders give different tickets"
        );
        for (r, (a, b)) in one_lane.iter().zip(&lanes).enumerate() {
            let (a, b) = (a.as_ref().expect("finished"), b.as_ref().expect("finished"));
            let expected = if r % 2 == 0 { first } else { second };
            assert!(a.identical(expected), "run {r} in one lane");
            assert!(b.identical(expected), "run {r} in three lanes");
        }
        // Without pauses the runs stay in one lane, on the concurrent executions' workers.
        let mut fresh: Vec<Worker> = Vec::new();
        let unpaced = run(&mut fresh, desc, &test, &orders, None, timeout);
        assert_eq!(fresh.len(), 2, "unpaced runs take one lane");
        for (a, b) in one_lane.iter().zip(&unpaced) {
            assert!(b.as_ref().expect("finished").identical(a.as_ref().unwrap()));
        }
    }
}
