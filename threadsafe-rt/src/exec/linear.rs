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
//! sequence of its own, on a set of workers of its own, and the lanes go at once. The pauses
//! are known before the runs start, so each run goes to the lane that ends soonest, longest
//! run first, with as few lanes (and so workers) as end about when the longest run does. A
//! run is still one call at a time on fresh instances; only lane 0 of runs started from the
//! first worker has the concurrent executions' workers, so a call that depends on its
//! thread gives other values in the other lanes, and is then not compared (the oracle only
//! becomes more lenient). Runs may also be [`start`]ed on the workers beside the first
//! lane's, and waited for later: paced runs then sleep while unpaced runs go.

use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::call::{call_shared, left_out, materialize, CallOutcome, Calling, Pool, Value};
use super::execution::{run_post, run_prefix};
use super::outcome::{Site, IDLE};
use super::results::Results;
use super::worker::{Done, WaitEnd, Worker};
use crate::lock::lock;
use crate::panics;
use crate::parker::Parker;
use crate::subject::Description;
use crate::testcase::{entry, Scope, TestCase};

/// What a slot does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Duty {
    /// Run `run`'s prefix (worker 0).
    Prefix(usize),
    /// Run thread `t`'s next call in `run`, or leave it out (`true`: the cancelled call,
    /// taking no effect).
    Call(usize, usize, bool),
    /// Run `run`'s post part (worker 0).
    Post(usize),
    /// End a partial `run` without its post part (worker 0).
    End(usize),
}

impl Duty {
    fn worker(self) -> usize {
        match self {
            Duty::Prefix(_) | Duty::Post(_) | Duty::End(_) => 0,
            Duty::Call(_, t, _) => t,
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

struct LinearShared<T: 'static> {
    /// The pause before each slot (none when the runs are not paced).
    pauses: Vec<Duration>,
    desc: &'static Description<T>,
    test: Arc<TestCase>,
    slots: Vec<Duty>,
    turn: AtomicUsize,
    abort: AtomicBool,
    runs: Vec<Mutex<RunState<T>>>,
    /// Each worker's parker, to wake it when its slot comes.
    threads: Vec<OnceLock<Arc<Parker>>>,
    /// LinearShared by the lanes: the wait ends when every lane's workers are through.
    done: Arc<Done>,
}

impl<T: Send + Sync + 'static> LinearShared<T> {
    /// One lane: `orders` in sequence, on the lane's `test.threads.len()` workers, with
    /// `pauses` before their slots (each run's [`run_pauses`], or none).
    fn new(
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        orders: &[&Vec<usize>],
        pauses: Vec<Duration>,
        done: Arc<Done>,
    ) -> Self {
        let n = test.threads.len();
        let calls = calls_of(test);
        let mut slots = Vec::new();
        for (r, order) in orders.iter().enumerate() {
            slots.push(Duty::Prefix(r));
            slots.extend(order.iter().map(|&e| {
                let (t, left) = entry(e, n);
                Duty::Call(r, t, left)
            }));
            // A partial order (the oracle's search) has no post part.
            if order.len() == calls {
                slots.push(Duty::Post(r));
            } else {
                slots.push(Duty::End(r));
            }
        }
        LinearShared {
            pauses,
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
        let _ = self.threads[w].set(Parker::current());
        // Either this worker's first look at the turn sees a pass made before, or the pass
        // sees the parker and unparks it (the waits have no timeout to fall back on).
        fence(Ordering::SeqCst);
        // This worker's output variables, per thread it plays (only its own), per run.
        let mut local: Vec<Option<Value>> = Vec::new();
        let mut local_run = usize::MAX;
        let mut next_call = 0;
        for (i, &step) in self.slots.iter().enumerate() {
            if step.worker() != w {
                continue;
            }
            if !self.wait_turn(i) {
                // Aborted: through, so that a cancel's wait ends.
                self.done.finish();
                return;
            }
            if let Some(&p) = self.pauses.get(i).filter(|p| !p.is_zero()) {
                std::thread::sleep(p);
            }
            match step {
                Duty::Prefix(r) => {
                    let pool = panics::catch(|| run_prefix(self.desc, &self.test))
                        .ok()
                        .flatten()
                        .map(Arc::new);
                    let mut st = lock(&self.runs[r]);
                    st.valid = pool.is_some();
                    st.pool = pool;
                }
                Duty::Call(r, t, left) => {
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
                            Ok(_) if left => left_out(),
                            Ok(fresh) => call_shared(
                                self.desc,
                                call,
                                &pool,
                                scope,
                                &mut local,
                                fresh,
                                Calling::whole(true),
                            ),
                            Err(p) => CallOutcome::Panic(p),
                        };
                        let mut st = lock(&self.runs[r]);
                        st.dead[t] = !matches!(o, CallOutcome::Ok(..));
                        st.outcomes.push((Site::thread(t, k), o));
                    }
                }
                Duty::Post(r) => {
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
                Duty::End(r) => lock(&self.runs[r]).pool = None,
            }
            self.pass_turn(i);
        }
        self.done.finish();
    }

    /// Waits until slot `i` has the turn; false if the runs were aborted.
    fn wait_turn(&self, i: usize) -> bool {
        let mut spins = 0u32;
        let mut parker = None;
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
                // `pass_turn` and an abort unpark this worker. No timeout: a worker waiting in
                // a timed park does not sleep for good, and a call blocked for good in the
                // code under test is then known only after the hang timeouts, not at once.
                parker.get_or_insert_with(Parker::current).park();
            }
        }
    }

    /// Ends the runs: every worker sees it at its next look at the turn, a parked one once
    /// unparked (the fence pairs with the one after a worker's registration).
    fn abort_all(&self) {
        self.abort.store(true, Ordering::Release);
        fence(Ordering::SeqCst);
        for th in self.threads.iter().filter_map(OnceLock::get) {
            th.unpark();
        }
    }

    /// Slot `i` is done: the next slot's worker may go.
    fn pass_turn(&self, i: usize) {
        self.turn.store(i + 1, Ordering::Release);
        fence(Ordering::SeqCst);
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
    /// Seeds the pauses (each run's derive from it and the run's number).
    pub(crate) seed: u64,
    /// Lanes the runs are spread over, at most.
    pub(crate) lanes: usize,
}

/// A lane may end this much after the longest paced run: [`spread`] takes the fewest lanes
/// that do, so that no more workers are spawned than the pauses need.
const LANE_SLACK: Duration = Duration::from_millis(1);

/// A pause of a millisecond or more: one per paced run at most.
const LONG_PAUSE: Duration = Duration::from_millis(1);

/// The calls of `test`'s threads, all together.
fn calls_of(test: &TestCase) -> usize {
    test.threads.iter().map(Vec::len).sum()
}

/// The pauses before the slots of paced run `run` (`order`, of a test with `calls` calls):
/// none before its prefix, or the end of a partial run (nothing of the run exists before
/// the one, nothing is observed after the other, so a pause there changes no result); before
/// each call and the post part, nothing half the time, else up to a few milliseconds
/// (seeded), so that runs of one order differ in timing and a result that depends on the
/// time taken shows it. At most one pause of a run is [`LONG_PAUSE`] or longer (a later
/// one is cut to 300 µs), so that no run sleeps much longer than the longest pause, and
/// the lanes, which end with their slowest run, end soon.
fn run_pauses(seed: u64, run: usize, order: &[usize], calls: usize) -> Vec<Duration> {
    let seed = seed ^ (run as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    let timed = order.len() + usize::from(order.len() == calls);
    let mut long_taken = false;
    let mut pauses = vec![Duration::ZERO];
    for i in 1..=timed {
        let mut p = pause(seed, i);
        if p >= LONG_PAUSE {
            if long_taken {
                p = Duration::from_micros(300);
            }
            long_taken = true;
        }
        pauses.push(p);
    }
    if order.len() != calls {
        pauses.push(Duration::ZERO);
    }
    pauses
}

/// A seeded pause: nothing half the time, else 50 µs to 3 ms.
fn pause(seed: u64, i: usize) -> Duration {
    let mut z = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^= z >> 29;
    Duration::from_micros([0, 0, 0, 0, 50, 300, 1_200, 3_000][(z % 8) as usize])
}

/// Spreads runs that sleep `totals` over at most `max_lanes` lanes: each run, longest first,
/// to the lane that ends soonest so far, with the fewest lanes that end within
/// [`LANE_SLACK`] of the longest run (no lane can end sooner than that run). The runs of
/// each lane, in their order.
fn spread(totals: &[Duration], max_lanes: usize) -> Vec<Vec<usize>> {
    let mut longest_first: Vec<usize> = (0..totals.len()).collect();
    longest_first.sort_by_key(|&r| std::cmp::Reverse(totals[r]));
    let longest = totals.iter().copied().max().unwrap_or_default();
    let sum: Duration = totals.iter().sum();
    let max_lanes = max_lanes.clamp(1, totals.len().max(1));
    let assign = |lanes: usize| {
        let mut ends = vec![Duration::ZERO; lanes];
        let mut runs = vec![Vec::new(); lanes];
        for &r in &longest_first {
            let soonest = (0..lanes).min_by_key(|&l| ends[l]).unwrap_or(0);
            ends[soonest] += totals[r];
            runs[soonest].push(r);
        }
        for lane in &mut runs {
            lane.sort_unstable();
        }
        (ends.into_iter().max().unwrap_or_default(), runs)
    };
    // Fewer lanes than the pauses' sum over the bound cannot end within it.
    let bound = longest + LANE_SLACK;
    let fewest = (sum.as_nanos().div_ceil(bound.as_nanos().max(1)) as usize).clamp(1, max_lanes);
    (fewest..max_lanes)
        .map(assign)
        .find(|(end, _)| *end <= bound)
        .unwrap_or_else(|| assign(max_lanes))
        .1
}

/// Runs `test` once per order of `orders` (each a thread id per step: a linearization of
/// the threads' calls, or the start of one, which runs without the post part), each on a
/// fresh prefix, on `workers`; with `pace`, each call after a seeded pause, the runs spread
/// over up to `pace.lanes` lanes that go at once ([`spread`]; lane `l` on workers
/// `l * threads ..`). The results of each run, or `None` for a run whose prefix failed
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
    start(workers, 0, desc, test, orders, pace).finish(workers, timeout)
}

/// Starts the runs of [`run`] on the workers from `first` on (lane `l` on workers
/// `first + l * threads ..`), spawning those that do not exist yet, and returns without
/// waiting for them: the workers before `first` stay free for other runs meanwhile.
pub(super) fn start<T: Send + Sync + 'static>(
    workers: &mut Vec<Worker>,
    first: usize,
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    orders: &[Vec<usize>],
    pace: Option<Pace>,
) -> Started<T> {
    let n = test.threads.len();
    let calls = calls_of(test);
    let pauses: Vec<Vec<Duration>> = match pace {
        Some(p) => (0..orders.len())
            .map(|r| run_pauses(p.seed, r, &orders[r], calls))
            .collect(),
        None => vec![Vec::new(); orders.len()],
    };
    let runs_of_lane = match pace {
        Some(p) => {
            let totals: Vec<Duration> = pauses.iter().map(|p| p.iter().sum()).collect();
            spread(&totals, p.lanes)
        }
        None => vec![(0..orders.len()).collect()],
    };
    let lanes = runs_of_lane.len();
    let done = Arc::new(Done::new(n * lanes));
    let mut placement = vec![(0, 0); orders.len()];
    let shared: Vec<Arc<LinearShared<T>>> = runs_of_lane
        .iter()
        .enumerate()
        .map(|(l, runs)| {
            for (k, &r) in runs.iter().enumerate() {
                placement[r] = (l, k);
            }
            let mine: Vec<&Vec<usize>> = runs.iter().map(|&r| &orders[r]).collect();
            let paused = runs
                .iter()
                .flat_map(|&r| pauses[r].iter().copied())
                .collect();
            Arc::new(LinearShared::new(desc, test, &mine, paused, done.clone()))
        })
        .collect();
    while workers.len() < first + n * lanes {
        let name = format!("threadsafe-suffix-{}", workers.len());
        workers.push(Worker::spawn(&name));
    }
    for (l, lane) in shared.iter().enumerate() {
        for t in 0..n {
            let s = lane.clone();
            workers[first + l * n + t].start(Box::new(move || s.worker_body(t)));
        }
    }
    Started {
        shared,
        done,
        first,
        threads: n,
        placement,
    }
}

/// Runs [`start`]ed and not yet waited for.
pub(crate) struct Started<T: 'static> {
    shared: Vec<Arc<LinearShared<T>>>,
    done: Arc<Done>,
    /// The worker of lane 0's thread 0.
    first: usize,
    /// The test's threads: workers per lane.
    threads: usize,
    /// Each run's lane, and its place there.
    placement: Vec<(usize, usize)>,
}

impl<T: Send + Sync + 'static> Started<T> {
    /// Whether every lane's workers are through (waiting for them would not wait).
    pub(crate) fn is_through(&self) -> bool {
        self.done.is_done()
    }

    /// Waits for the runs; the results of each, as [`run`] gives them.
    pub(super) fn finish(self, workers: &mut [Worker], timeout: Duration) -> Vec<Option<Results>> {
        let completed = self.wait(workers, timeout);
        let n = self.threads;
        self.placement
            .iter()
            .map(|&(l, k)| {
                let st = lock(&self.shared[l].runs[k]);
                (k < completed[l] && st.valid)
                    .then(|| Results::of(n, &st.outcomes))
                    .flatten()
            })
            .collect()
    }

    /// Stops the runs at their next call (a call under way, and its pause, end first) and
    /// waits for the workers, whose results nobody wants.
    pub(super) fn cancel(self, workers: &mut [Worker], timeout: Duration) {
        for s in &self.shared {
            s.abort_all();
        }
        self.wait(workers, timeout);
    }

    /// Waits until every lane's workers are through, or no lane moves for `timeout` (the
    /// stuck workers are abandoned); the runs each lane completed.
    fn wait(&self, workers: &mut [Worker], timeout: Duration) -> Vec<usize> {
        let (n, first, shared) = (self.threads, self.first, &self.shared);
        let progress = || shared.iter().map(|s| s.turn.load(Ordering::Acquire)).sum();
        let blocked = || {
            shared.iter().enumerate().all(|(l, s)| {
                let turn = s.turn.load(Ordering::Acquire);
                s.slots
                    .get(turn)
                    .map_or(true, |st| workers[first + l * n + st.worker()].is_blocked())
            })
        };
        let finished = self.done.wait(timeout, progress, blocked) == WaitEnd::Finished;
        shared
            .iter()
            .enumerate()
            .map(|(l, s)| {
                let turn = s.turn.load(Ordering::Acquire);
                let aborted = s.abort.load(Ordering::Acquire);
                if (finished && !aborted) || turn >= s.slots.len() {
                    return s.runs.len();
                }
                if !finished {
                    s.abort_all();
                    workers[first + l * n + s.slots[turn].worker()].abandon();
                }
                // The runs whose post part passed.
                s.slots[..turn]
                    .iter()
                    .filter(|st| matches!(st, Duty::Post(_) | Duty::End(_)))
                    .count()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use super::{run, run_pauses, spread, start, Pace, LONG_PAUSE};
    use crate::exec::worker::Worker;
    use crate::subject::description;
    use crate::testcase::TestCase;

    /// Tickets in the order they are taken: each order of the calls gives its own results.
    pub struct Tickets(AtomicU64);

    /// Tickets taken, by every test of this module.
    static TAKES: AtomicU64 = AtomicU64::new(0);

    #[crate::thread_safe(test = false)]
    impl Tickets {
        pub fn new() -> Self {
            Tickets(AtomicU64::new(0))
        }
        pub fn take(&self) -> u64 {
            TAKES.fetch_add(1, Ordering::SeqCst);
            self.0.fetch_add(1, Ordering::SeqCst) + 1
        }
    }

    /// A fresh instance, then one `take` on each of two threads.
    fn two_takes() -> Arc<TestCase> {
        Arc::new(TestCase::one_call_per_thread(2))
    }

    /// `runs` orders of a two-thread test: thread 0 first in runs 0, 2, 4, …, thread 1 in
    /// the others.
    fn alternating(runs: usize) -> Vec<Vec<usize>> {
        (0..runs).map(|r| vec![r % 2, 1 - r % 2]).collect()
    }

    /// How long a run may make no progress in these tests.
    const TIMEOUT: Duration = Duration::from_secs(10);

    #[test]
    fn paced_runs_spread_over_lanes_give_each_order_its_own_results() {
        let desc = description::<Tickets>();
        let test = two_takes();
        // Runs 0, 2, 4, … take thread 0 first; runs 1, 3, 5, … thread 1.
        let orders = alternating(10);
        let mut workers: Vec<Worker> = Vec::new();
        let pace = |lanes| Some(Pace { seed: 7, lanes });
        let one_lane = run(&mut workers, desc, &test, &orders, pace(1), TIMEOUT);
        assert_eq!(workers.len(), 2, "one lane: one worker per thread");
        // Three lanes: each has runs of both orders (lane 0 has runs 0, 3, 6 and 9).
        let lanes = run(&mut workers, desc, &test, &orders, pace(3), TIMEOUT);
        // The pauses of these ten runs (seed 7) need all three lanes to end within a
        // millisecond of the longest run.
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
        let unpaced = run(&mut fresh, desc, &test, &orders, None, TIMEOUT);
        assert_eq!(fresh.len(), 2, "unpaced runs take one lane");
        for (a, b) in one_lane.iter().zip(&unpaced) {
            assert!(b.as_ref().expect("finished").identical(a.as_ref().unwrap()));
        }
    }

    #[test]
    fn runs_started_beside_go_on_while_the_first_lane_runs_and_cancel_frees_their_workers() {
        let desc = description::<Tickets>();
        let test = two_takes();
        let orders = alternating(10);
        let mut workers: Vec<Worker> = Vec::new();
        let expected = run(&mut workers, desc, &test, &orders, None, TIMEOUT);
        let pace = Some(Pace { seed: 7, lanes: 3 });
        // Three lanes beside the first lane's two workers.
        let beside = start(&mut workers, 2, desc, &test, &orders, pace);
        assert_eq!(workers.len(), 8, "two workers, then three lanes of two");
        let meanwhile = run(&mut workers, desc, &test, &orders, None, TIMEOUT);
        let paced = beside.finish(&mut workers, TIMEOUT);
        for (r, e) in expected.iter().enumerate() {
            let e = e.as_ref().expect("finished");
            assert!(
                meanwhile[r].as_ref().expect("finished").identical(e),
                "run {r}"
            );
            assert!(
                paced[r].as_ref().expect("finished").identical(e),
                "paced run {r}"
            );
        }
        // A cancel stops the runs and waits for their workers, which then take new runs.
        // 4,000 paced runs take about 1.5 s; those before the cancel take one pause each.
        let many = alternating(4_000);
        let before = TAKES.load(Ordering::SeqCst);
        start(&mut workers, 2, desc, &test, &many, pace).cancel(&mut workers, TIMEOUT);
        let taken = TAKES.load(Ordering::SeqCst) - before;
        assert!(
            taken < 4_000,
            "{taken} of 8,000 calls ran: the cancel did not stop the runs"
        );
        assert!(
            workers.iter().all(|w| w.abandoned == 0),
            "cancelled workers end their jobs"
        );
        let again =
            start(&mut workers, 2, desc, &test, &orders, pace).finish(&mut workers, TIMEOUT);
        for (r, e) in expected.iter().enumerate() {
            let e = e.as_ref().expect("finished");
            assert!(
                again[r].as_ref().expect("finished").identical(e),
                "run {r} after the cancel"
            );
        }
    }

    /// Whether `Held::pass` may return.
    static PASS: AtomicBool = AtomicBool::new(false);

    /// A call that waits until [`PASS`] is set.
    pub struct Held;

    #[crate::thread_safe(test = false)]
    impl Held {
        pub fn new() -> Self {
            Held
        }
        pub fn pass(&self) -> u64 {
            while !PASS.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(1));
            }
            1
        }
    }

    #[test]
    fn runs_started_beside_are_through_only_once_every_run_has_ended() {
        let desc = description::<Held>();
        // A fresh instance, then one `pass` on each of two threads.
        let test = Arc::new(TestCase::one_call_per_thread(2));
        let orders = alternating(4);
        let mut workers: Vec<Worker> = Vec::new();
        let started = start(
            &mut workers,
            2,
            desc,
            &test,
            &orders,
            Some(Pace { seed: 7, lanes: 2 }),
        );
        // Every run's first call waits for PASS: none can end before it is set.
        std::thread::sleep(Duration::from_millis(20));
        assert!(!started.is_through(), "through while every run waits");
        PASS.store(true, Ordering::Release);
        let until = Instant::now() + TIMEOUT;
        while !started.is_through() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(
            started.is_through(),
            "not through 10 s after the runs could end"
        );
        let results = started.finish(&mut workers, TIMEOUT);
        assert!(
            results.iter().all(Option::is_some),
            "every run ended: {results:?}"
        );
    }

    #[test]
    fn spread_takes_the_fewest_lanes_that_end_within_a_millisecond_of_the_longest_run() {
        let ms = Duration::from_millis;
        let totals = [ms(3), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1)];
        let lanes = spread(&totals, 8);
        // Two lanes would end at 4.5 ms at best; three end at 3 ms each.
        assert_eq!(lanes, vec![vec![0], vec![1, 3, 5], vec![2, 4, 6]]);
        // Runs that do not sleep stay in one lane.
        assert_eq!(spread(&[Duration::ZERO; 5], 8), vec![vec![0, 1, 2, 3, 4]]);
        // No more lanes than allowed, every run in one of them.
        let lanes = spread(&[ms(3); 10], 4);
        assert_eq!(lanes.len(), 4);
        let mut all: Vec<usize> = lanes.concat();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn a_paced_run_sleeps_before_its_calls_and_post_part_with_one_long_pause_at_most() {
        let mut longest = Duration::ZERO;
        let mut long_runs = 0;
        for seed in 0..50 {
            for r in 0..20 {
                let complete = run_pauses(seed, r, &[0, 1, 0, 1], 4);
                assert_eq!(complete.len(), 6, "prefix, four calls, post part");
                assert_eq!(complete[0], Duration::ZERO, "no pause before the prefix");
                let long = complete.iter().filter(|&&p| p >= LONG_PAUSE).count();
                assert!(long <= 1, "seed {seed} run {r}: {complete:?}");
                long_runs += long;
                longest = longest.max(complete.iter().copied().max().unwrap_or_default());
                let partial = run_pauses(seed, r, &[0, 1], 4);
                assert_eq!(partial.len(), 4, "prefix, two calls, end");
                assert_eq!(partial[3], Duration::ZERO, "no pause before the end");
            }
        }
        assert_eq!(
            longest,
            Duration::from_millis(3),
            "the longest pause is still drawn"
        );
        // A run of five pauses has a long one with a chance of 1 - (3/4)^5, about 0.76.
        assert!(
            long_runs > 500,
            "{long_runs} of 1,000 runs have a long pause"
        );
    }
}
