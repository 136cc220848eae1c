//! A batch: the executions of one test, run back to back on the persistent workers.
//!
//! The workers walk through the executions together ([`Phases`]): the leader (thread 0)
//! runs a fresh prefix, every thread makes its argument values, free-running threads start
//! at a spin barrier (with a seeded delay, and noise at statement points), controlled ones
//! when their run's scheduler lets them, and once all are done the leader runs the post part
//! and judges the execution; with results observed, it keeps the distinct ones. The coordinator only watches a heartbeat: a batch whose threads make no
//! progress while the operating system says every thread of the process sleeps for good is a
//! deadlock at once; one whose blocked threads make none for the timeout, twice, is taken for
//! one ([`Done::wait`]). The blocked workers are left behind (in the generated test's child
//! process, which dies with them).
//!
//! **Cores.** Free-running threads whose rounds start on one core (a busy machine) are
//! pinned apart for their calls ([`Cores`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::call::{CallOutcome, FreshArgs, Pool};
use super::control::Control;
use super::cores::Cores;
use super::execution::{materialize_all, run_post, run_prefix, run_suffix};
use super::offsets::{noise_stalls, noise_window, start_delay, window};
use super::outcome::{blocked_at, calls_in_progress, evaluate, Blocked, ExecOutcome, Site, IDLE};
use super::padded::Padded;
use super::phases::Phases;
use super::results::{Distinct, Results};
use super::worker::{Done, WaitEnd, Worker};
use super::BatchOutcome;
use crate::hooks;
use crate::lock::lock;
use crate::panics;
use crate::point::Step;
use crate::sched::Run;
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

/// Most fresh instances a free-running round holds: a round's barrier, hand-overs and
/// wake-ups are paid once for all of them (jcstress's strides).
pub const MAX_STRIDE: usize = 32;

/// How long the instances of one round may take in all, judged by one sequential run of
/// the test: a round is the unit the leader evaluates and a stop waits for.
const ROUND_TIME: Duration = Duration::from_millis(2);

/// How many executions a free-running round runs, for a test whose sequential run took
/// `seq_time`: enough to pay the round's synchronization once for many, few enough that a
/// round stays short.
pub(crate) fn stride(seq_time: Duration) -> usize {
    let per = seq_time.as_nanos().max(1);
    usize::try_from(ROUND_TIME.as_nanos() / per)
        .unwrap_or(MAX_STRIDE)
        .clamp(1, MAX_STRIDE)
}

/// How many times a thread checks whether its peers are done with the previous instance of
/// its round before it runs the next one anyway (some microseconds: a peer that takes
/// longer was descheduled, and waiting for it would keep its core from it).
const ALIGN_SPINS: u32 = 1 << 13;

/// One round: fresh prefixes, an execution each, and the controlled run of a round of one.
struct Round<T> {
    /// The batch's index of the round's first execution.
    first: usize,
    pools: Vec<Pool<T>>,
    run: Option<Arc<Run>>,
}

/// Per execution of a round, what one thread's calls came to (and when each returned).
type Outcomes = Vec<Vec<(Site, CallOutcome)>>;

/// The state of a batch, shared by the workers.
struct Batch<T: 'static> {
    desc: &'static Description<T>,
    test: Arc<TestCase>,
    n: usize,
    count: usize,
    /// Executions per free-running round.
    stride: usize,
    deadline: Instant,
    phases: Phases,
    /// The current round.
    current: Mutex<Option<Arc<Round<T>>>>,
    /// Executions the leader has prepared (leader only).
    prepared: AtomicUsize,
    /// Controlled executions: how their schedulers are made.
    control: Option<Control>,
    /// Seeds the start delays and the noise of free-running threads.
    jitter_seed: u64,
    /// The longest start delay, in pauses (see `offsets.rs`).
    window: u32,
    /// The longest stall of the noise at a statement point, in pauses (see `offsets.rs`).
    noise_window: u32,
    /// The most stalls of the noise on one thread in one execution (see `offsets.rs`).
    noise_stalls: u32,
    /// Whether calls' return values are observed, and the distinct results kept.
    observe: bool,
    distinct: Mutex<Distinct>,
    /// Per thread, then the post part: the call in progress.
    at: Vec<Padded<AtomicUsize>>,
    /// Per thread: executions of the batch it is done with (free-running rounds).
    progress: Vec<Padded<AtomicUsize>>,
    /// Grows with every round: with `at` and `progress`, the watchdog's sign of life.
    heartbeat: AtomicUsize,
    /// Per thread, the outcomes of its calls in the current round.
    results: Vec<Mutex<Outcomes>>,
    /// Per thread and execution of the round, when each of its calls returned (results
    /// observed only).
    ends: Vec<Mutex<Vec<Vec<Instant>>>>,
    executions: AtomicUsize,
    outcome: Mutex<Option<ExecOutcome>>,
    /// The schedule of the failing controlled execution.
    trace: Mutex<Option<Vec<Step>>>,
    /// Controlled executions that lost control (blocked outside the scheduler).
    uncontrolled: AtomicUsize,
    /// Controlled executions cut at `MAX_STEPS`: after the first, the batch prepares no
    /// more (each would take as long, and run free past the same point).
    cut: AtomicUsize,
    done: Done,
    /// Free-running: the cores the threads' calls run on.
    cores: Option<Cores>,
}

impl<T: Send + Sync + 'static> Batch<T> {
    fn thread_body(&self, t: usize) {
        for r in 0.. {
            if t == 0 {
                let round = self.prepare();
                if round.is_none() {
                    self.phases.stop();
                }
                *lock(&self.current) = round.map(Arc::new);
                self.phases.publish(r);
            } else if !self.phases.wait_published(r) {
                return;
            }
            if self.phases.stopped() {
                break;
            }
            let current = lock(&self.current).clone();
            let Some(round) = current else { break };
            let ran = match &round.run {
                Some(run) => self.controlled(t, &round.pools[0], run),
                None => self.free_running(t, r, &round),
            };
            let Some((outcomes, ends)) = ran else { return };
            self.heartbeat.fetch_add(1, Ordering::Relaxed);
            *lock(&self.results[t]) = outcomes;
            if self.observe {
                *lock(&self.ends[t]) = ends;
            }
            // Thread 0 runs the post part, as it ran the prefix: a call that depends on the
            // thread it runs on sees the same thread in every execution and in the oracle's
            // sequential runs.
            let last = self.phases.finish(r);
            if t == 0 {
                if !last && !self.phases.wait_finished(r) {
                    return;
                }
                if let (None, Some(cores)) = (&round.run, &self.cores) {
                    cores.shared();
                }
                self.evaluate_round(&round);
                self.phases.evaluated(r);
            } else if !self.phases.wait_evaluated(r) {
                return;
            }
            drop(round);
        }
        self.done.finish();
    }

    /// Leader: the next round's fresh prefixes (a stride of them free-running, one under
    /// control), or `None` when the batch is over: stopped, past its deadline, all its
    /// executions prepared, a controlled execution cut, or a prefix failed.
    fn prepare(&self) -> Option<Round<T>> {
        if self.phases.stopped()
            || Instant::now() >= self.deadline
            || self.cut.load(Ordering::Relaxed) > 0
        {
            return None;
        }
        let first = self.prepared.load(Ordering::Relaxed);
        let size = match self.control {
            Some(_) => 1,
            None => self.stride,
        }
        .min(self.count.saturating_sub(first));
        if size == 0 {
            return None;
        }
        // The schedule before the prefix: with none left, the batch is over.
        let run = match &self.control {
            Some(c) => Some(c.run(self.n, first)?),
            None => None,
        };
        let pools: Vec<Pool<T>> = (0..size)
            .map_while(|_| run_prefix(self.desc, &self.test))
            .collect();
        if pools.is_empty() {
            return None;
        }
        if let Some(cores) = &self.cores {
            cores.aim();
        }
        self.prepared.store(first + pools.len(), Ordering::Relaxed);
        Some(Round { first, pools, run })
    }

    /// Thread `t`'s calls of a fresh argument set (`None`: making one panicked).
    fn suffix(
        &self,
        t: usize,
        pool: &Pool<T>,
        fresh: Option<Vec<FreshArgs>>,
        ends: &mut Vec<Instant>,
    ) -> Vec<(Site, CallOutcome)> {
        match fresh {
            Some(f) => run_suffix(
                self.desc,
                &self.test,
                t,
                pool,
                f,
                &self.at[t],
                self.observe.then_some(ends),
            ),
            None => vec![(Site::thread(t, 0), CallOutcome::Unavailable)],
        }
    }

    /// Thread `t`'s part of a controlled execution: the run's scheduler starts the threads
    /// once all have entered.
    fn controlled(
        &self,
        t: usize,
        pool: &Pool<T>,
        run: &Arc<Run>,
    ) -> Option<(Outcomes, Vec<Vec<Instant>>)> {
        let fresh = materialize_all(self.desc, &self.test.threads[t]);
        let mut ends = Vec::new();
        let outcomes =
            match panics::catch(|| run.enter(t, || self.suffix(t, pool, fresh, &mut ends))) {
                Ok(r) => r,
                Err(p) => vec![(Site::thread(t, 0), CallOutcome::Panic(p))],
            };
        Some((vec![outcomes], vec![ends]))
    }

    /// Thread `t`'s part of free-running round `r`: its argument values for every
    /// execution made before the start barrier, then the executions one after the other,
    /// each begun when the peers are done with the one before (for a bounded while; a
    /// descheduled peer is not waited for again in this round), after a seeded delay.
    /// `None` if the batch was aborted.
    fn free_running(
        &self,
        t: usize,
        r: usize,
        round: &Round<T>,
    ) -> Option<(Outcomes, Vec<Vec<Instant>>)> {
        let fresh: Vec<_> = (0..round.pools.len())
            .map(|_| materialize_all(self.desc, &self.test.threads[t]))
            .collect();
        let mut outcomes = Vec::with_capacity(fresh.len());
        let mut all_ends = Vec::with_capacity(fresh.len());
        // Pinned for the calls only (dropped on return): see `cores.rs`.
        let _pinned = self.cores.as_ref().and_then(|c| c.pin(t));
        if !self.phases.start(r) {
            return None;
        }
        if let Some(cores) = &self.cores {
            cores.note_start(t);
        }
        hooks::set_noise_bounds(self.noise_window, self.noise_stalls);
        // Pinned apart, a thread shares its core with another process: no yields in the
        // noise (see `hooks.rs`).
        hooks::set_noise_yields(!self.cores.as_ref().is_some_and(Cores::apart));
        let mut aligned = true;
        for (i, (pool, fresh)) in round.pools.iter().zip(fresh).enumerate() {
            let e = round.first + i;
            if i > 0 && aligned {
                aligned = self.align(t, e);
            }
            for _ in 0..start_delay(self.jitter_seed, e, t, self.n, self.window) {
                std::hint::spin_loop();
            }
            hooks::set_noise(self.jitter_seed ^ ((e as u64) << 8) ^ (t as u64) | 1);
            let mut ends = Vec::new();
            outcomes.push(self.suffix(t, pool, fresh, &mut ends));
            hooks::set_noise(0);
            self.progress[t].store(e + 1, Ordering::Release);
            all_ends.push(ends);
        }
        Some((outcomes, all_ends))
    }

    /// Waits until every other thread is done with the executions before `e`; false if
    /// one takes longer than `ALIGN_SPINS` checks.
    fn align(&self, t: usize, e: usize) -> bool {
        for (u, p) in self.progress.iter().enumerate() {
            if u == t {
                continue;
            }
            let mut spins = 0;
            while p.load(Ordering::Acquire) < e {
                spins += 1;
                if spins > ALIGN_SPINS {
                    return false;
                }
                std::hint::spin_loop();
            }
        }
        true
    }

    /// Evaluates the executions of a round in order, stopping at the first that fails.
    fn evaluate_round(&self, round: &Round<T>) {
        let mut outcomes: Vec<std::vec::IntoIter<Vec<(Site, CallOutcome)>>> = self
            .results
            .iter()
            .map(|r| std::mem::take(&mut *lock(r)).into_iter())
            .collect();
        let mut ends: Vec<std::vec::IntoIter<Vec<Instant>>> = self
            .ends
            .iter()
            .map(|e| std::mem::take(&mut *lock(e)).into_iter())
            .collect();
        for (i, pool) in round.pools.iter().enumerate() {
            let mut all = Vec::new();
            for o in &mut outcomes {
                all.extend(o.next().unwrap_or_default());
            }
            let ends: Vec<Vec<Instant>> = ends
                .iter_mut()
                .map(|e| e.next().unwrap_or_default())
                .collect();
            if !self.evaluate(round.first + i, pool, round.run.as_ref(), all, &ends) {
                break;
            }
            // `at[n]` takes the same values in every execution's post part: the watchdog
            // sees a round's evaluations go by only through this.
            self.heartbeat.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Runs the post part (unless the run deadlocked) and judges execution `e`; a failure
    /// stops the batch (false). Keeps its results when they are observed.
    fn evaluate(
        &self,
        e: usize,
        pool: &Pool<T>,
        run: Option<&Arc<Run>>,
        mut all: Vec<(Site, CallOutcome)>,
        ends: &[Vec<Instant>],
    ) -> bool {
        let deadlock = run.and_then(|r| r.deadlock());
        if deadlock.is_none() {
            run_post(
                self.desc,
                &self.test,
                pool,
                &mut all,
                &self.at[self.n],
                self.observe,
            );
        }
        self.executions.fetch_add(1, Ordering::Relaxed);
        let outcome = match deadlock {
            Some(blocked) => ExecOutcome::Deadlock(
                blocked
                    .iter()
                    .map(|(t, why, at)| Blocked {
                        site: all
                            .iter()
                            .find(|(s, o)| {
                                s.scope == Scope::Thread(*t)
                                    && matches!(o, CallOutcome::Panic(p) if p.aborted)
                            })
                            .map_or(Site::thread(*t, 0), |(s, _)| *s),
                        waiting: Some(format!("{} at {at}", why.describe())),
                    })
                    .collect(),
            ),
            None => evaluate(&all),
        };
        if self.observe && !matches!(outcome, ExecOutcome::Deadlock(_)) {
            let mut distinct = lock(&self.distinct);
            if !distinct.count_if_seen(&all) {
                if let Some(results) = Results::of(self.n, &all) {
                    let results = results.returned_at(ends);
                    distinct.add(results, e, || run.map(|r| r.trace()));
                }
            }
        }
        if let (Some(run), Some(c)) = (run, &self.control) {
            if run.cut() {
                self.cut.fetch_add(1, Ordering::Relaxed);
            } else if run.lost_control() {
                self.uncontrolled.fetch_add(1, Ordering::Relaxed);
            }
            c.ended(run);
        }
        if matches!(outcome, ExecOutcome::Passed) {
            return true;
        }
        self.phases.stop();
        if let Some(run) = run {
            *lock(&self.trace) = Some(run.trace());
        }
        *lock(&self.outcome) = Some(outcome);
        false
    }

    /// The calls the threads are stuck in (or the post call, if no thread is).
    fn stuck(&self) -> Vec<Site> {
        let mut stuck = calls_in_progress(self.at[..self.n].iter().map(|a| &a.0));
        if stuck.is_empty() {
            if let k @ 1.. = self.at[self.n].load(Ordering::Acquire) {
                if k != IDLE {
                    stuck.push(Site {
                        scope: Scope::Post,
                        call: k - 1,
                    });
                }
            }
        }
        stuck
    }
}

/// What a batch runs: its test's executions up to `count`, until `deadline`, each given
/// `timeout` without progress before it counts as hung.
pub(super) struct BatchPlan<'w, T: 'static> {
    pub(super) desc: &'static Description<T>,
    pub(super) test: &'w Arc<TestCase>,
    pub(super) count: usize,
    pub(super) timeout: Duration,
    pub(super) deadline: Instant,
    pub(super) control: Option<Control>,
    pub(super) jitter_seed: u64,
    pub(super) observe: bool,
    /// Executions per free-running round (see [`stride`]).
    pub(super) stride: usize,
    /// How long the test's calls take one after the other: bounds the start delays.
    pub(super) seq_time: Duration,
    /// How many scheduling points that run reached: bounds the noise's stalls, in length
    /// and in number.
    pub(super) points: u64,
}

/// Runs a batch on `workers` (spawning as many as the test has threads).
pub(super) fn run<T: Send + Sync + 'static>(
    workers: &mut Vec<Worker>,
    plan: BatchPlan<'_, T>,
) -> BatchOutcome {
    let n = plan.test.threads.len();
    let cores = plan
        .control
        .is_none()
        .then(|| Cores::new(n, plan.jitter_seed));
    let batch = Arc::new(Batch {
        desc: plan.desc,
        test: plan.test.clone(),
        n,
        count: plan.count,
        stride: plan.stride.max(1),
        deadline: plan.deadline,
        phases: Phases::new(n),
        current: Mutex::new(None),
        prepared: AtomicUsize::new(0),
        control: plan.control,
        jitter_seed: plan.jitter_seed,
        window: window(plan.seq_time),
        noise_window: noise_window(plan.seq_time, plan.points),
        noise_stalls: noise_stalls(plan.points),
        observe: plan.observe,
        distinct: Mutex::new(Distinct::default()),
        at: (0..=n).map(|_| Padded(AtomicUsize::new(IDLE))).collect(),
        progress: (0..n).map(|_| Padded(AtomicUsize::new(0))).collect(),
        heartbeat: AtomicUsize::new(0),
        results: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
        ends: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
        executions: AtomicUsize::new(0),
        outcome: Mutex::new(None),
        trace: Mutex::new(None),
        uncontrolled: AtomicUsize::new(0),
        cut: AtomicUsize::new(0),
        done: Done::new(n),
        cores,
    });
    while workers.len() < n {
        let name = format!("threadsafe-suffix-{}", workers.len());
        workers.push(Worker::spawn(&name));
    }
    for (t, w) in workers[..n].iter().enumerate() {
        let b = batch.clone();
        w.start(Box::new(move || b.thread_body(t)));
    }
    let progress = || {
        batch.heartbeat.load(Ordering::Acquire)
            ^ batch
                .at
                .iter()
                .chain(&batch.progress)
                .map(|a| a.load(Ordering::Acquire))
                .fold(0, usize::wrapping_add)
    };
    // A batch is long; what must not pass quietly is `timeout` without any progress.
    // A thread between calls is not stuck in the code under test, so it counts as blocked;
    // thread 0 never is between calls as far as this is concerned: it also makes the
    // prefixes and runs the post part (`at[n]`), and when it only lost its core on a busy
    // machine there it must not count as blocked, or a starved post call would be reported
    // as a deadlock after two quiet periods.
    let blocked = || {
        workers[0].is_blocked()
            && (1..n)
                .all(|t| batch.at[t].load(Ordering::Acquire) == IDLE || workers[t].is_blocked())
    };
    let finished = batch.done.wait(plan.timeout, progress, blocked) == WaitEnd::Finished;
    if let Some(cores) = &batch.cores {
        cores.finish();
    }
    let executions = batch.executions.load(Ordering::Acquire);
    let uncontrolled = batch.uncontrolled.load(Ordering::Acquire);
    let cut = batch.cut.load(Ordering::Acquire);
    if !finished {
        batch.phases.abort();
        let stuck = batch.stuck();
        for (t, w) in workers[..n].iter_mut().enumerate() {
            // A blocked worker cannot be freed: leave it and start a new one. The others
            // see the abort and return. Thread 0 runs the post part.
            let in_post = stuck.iter().any(|s| s.scope == Scope::Post) && t == 0;
            if in_post || batch.at[t].load(Ordering::Acquire) != IDLE {
                w.abandon();
            }
        }
        let outcome = if stuck.is_empty() {
            ExecOutcome::Invalid
        } else {
            ExecOutcome::Deadlock(blocked_at(stuck))
        };
        let results = std::mem::take(&mut *lock(&batch.distinct));
        return BatchOutcome {
            executions: executions + 1,
            outcome,
            trace: None,
            uncontrolled: uncontrolled + 1,
            cut,
            results,
        };
    }
    let outcome = lock(&batch.outcome).take().unwrap_or(ExecOutcome::Passed);
    let trace = lock(&batch.trace).take();
    let results = std::mem::take(&mut *lock(&batch.distinct));
    BatchOutcome {
        executions,
        outcome,
        trace,
        uncontrolled,
        cut,
        results,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    use std::thread::ThreadId;
    use std::time::{Duration, Instant};

    use super::{run, BatchPlan};
    use crate::exec::control::Control;
    use crate::exec::outcome::ExecOutcome;
    use crate::exec::worker::Worker;
    use crate::os::{allowed_cpus, current_cpu, pin_current_thread, Pinned};
    use crate::strategy::RandomWalk;
    use crate::subject::description;
    use crate::testcase::TestCase;

    /// Per call of `Spots::visit`: the thread, the core it ran on, and how many cores it
    /// was allowed.
    static VISITS: Mutex<Vec<(ThreadId, Option<usize>, usize)>> = Mutex::new(Vec::new());

    /// Records where each of its calls runs.
    pub struct Spots;

    #[crate::thread_safe(test = false)]
    impl Spots {
        pub fn new() -> Self {
            Spots
        }
        pub fn visit(&self) {
            let seen = (
                std::thread::current().id(),
                current_cpu(),
                allowed_cpus().len(),
            );
            VISITS.lock().unwrap().push(seen);
        }
    }

    /// `new()`, then one `visit` on each of two threads: the visits by thread.
    fn visits(
        workers: &mut Vec<Worker>,
        control: Option<Control>,
    ) -> Vec<Vec<(Option<usize>, usize)>> {
        let desc = description::<Spots>();
        let test = Arc::new(TestCase::one_call_per_thread(2));
        VISITS.lock().unwrap().clear();
        let outcome = run(
            workers,
            BatchPlan {
                desc,
                test: &test,
                count: 300,
                timeout: Duration::from_secs(10),
                deadline: Instant::now() + Duration::from_secs(60),
                control,
                jitter_seed: 1,
                observe: false,
                stride: 8,
                seq_time: Duration::from_micros(1),
                points: 2,
            },
        );
        assert!(matches!(outcome.outcome, ExecOutcome::Passed));
        assert_eq!(outcome.executions, 300);
        let mut by_thread: HashMap<ThreadId, Vec<(Option<usize>, usize)>> = HashMap::new();
        for (thread, cpu, allowed) in VISITS.lock().unwrap().drain(..) {
            by_thread.entry(thread).or_default().push((cpu, allowed));
        }
        assert_eq!(by_thread.len(), 2, "two workers ran the visits");
        by_thread.into_values().collect()
    }

    thread_local! {
        /// A pin the test put on a worker, held across its jobs.
        static HELD: std::cell::RefCell<Option<Pinned>> = const { std::cell::RefCell::new(None) };
    }

    /// Runs `f` on each worker.
    fn on_workers<R: Send + 'static>(
        workers: &mut [Worker],
        f: impl Fn() -> R + Send + Sync + Copy + 'static,
    ) -> Vec<R> {
        workers
            .iter_mut()
            .map(|w| w.run(Duration::from_secs(10), f).expect("the job ran"))
            .collect()
    }

    #[test]
    fn threads_that_start_on_one_core_are_pinned_apart_for_their_calls_and_controlled_ones_never() {
        let allowed = allowed_cpus();
        if allowed.len() < 2 {
            return;
        }
        let one = allowed[0];
        let mut workers: Vec<Worker> = (0..2).map(|t| Worker::spawn(&format!("w{t}"))).collect();
        // Both workers on one core, as a busy machine leaves them.
        on_workers(&mut workers, move || {
            HELD.with(|h| *h.borrow_mut() = pin_current_thread(one));
        });
        let free = visits(&mut workers, None);
        // Stride 8: a thread's first 8 calls are round 0, where the threads may still share
        // the core (unless an earlier batch of this process marked the machine busy); from
        // round 1 on each runs on a core of its own, pinned there for its calls.
        let mut cores = Vec::new();
        for calls in &free {
            assert!(calls.iter().all(|&(_, n)| n == 1), "{calls:?}");
            let (cpu, _) = calls[8];
            assert!(calls[8..].iter().all(|&(c, _)| c == cpu), "{calls:?}");
            cores.push(cpu.expect("known"));
        }
        assert_ne!(cores[0], cores[1], "pinned apart");
        // Between rounds, and after the batch, each worker has its own mask back.
        assert_eq!(on_workers(&mut workers, allowed_cpus), vec![vec![one]; 2]);
        on_workers(&mut workers, || {
            HELD.with(|h| h.borrow_mut().take()).is_some()
        });
        assert_eq!(
            on_workers(&mut workers, allowed_cpus),
            vec![allowed.clone(); 2]
        );
        // Controlled threads run one at a time: never pinned.
        let control = Control::new(Box::new(|slot| {
            Some(Box::new(RandomWalk::new(slot.execution as u64)))
        }));
        for calls in visits(&mut workers, Some(control)) {
            assert!(calls.iter().all(|&(_, n)| n == allowed.len()), "{calls:?}");
        }
    }
}
