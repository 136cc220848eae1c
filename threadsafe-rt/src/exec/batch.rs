//! A batch: the executions of one test, run back to back on the persistent workers.
//!
//! The workers walk through the executions together ([`Phases`]): the leader (thread 0)
//! runs a fresh prefix, every thread makes its argument values, free-running threads start
//! at a spin barrier (with a seeded delay, and noise at statement points), controlled ones
//! when their run's scheduler lets them, and once all are done the leader runs the post part
//! and judges the execution; with results observed, it keeps the distinct ones. The coordinator only watches a heartbeat: a batch whose threads make no
//! progress for the timeout while the operating system says they are blocked is a
//! deadlock, and the blocked workers are left behind.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::call::{CallOutcome, FreshArgs, Pool};
use super::control::Control;
use super::execution::{materialize_all, run_post, run_prefix, run_suffix};
use super::outcome::{blocked_at, calls_in_progress, evaluate, Blocked, ExecOutcome, Site, IDLE};
use super::phases::Phases;
use super::results::{Distinct, Results};
use super::worker::{Done, Worker};
use super::BatchOutcome;
use crate::hooks;
use crate::lock::lock;
use crate::panics;
use crate::point::Step;
use crate::sched::Run;
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

/// One execution's prefix state, and its controlled run if any.
type Execution<T> = (Arc<Pool<T>>, Option<Arc<Run>>);

/// The state of a batch, shared by the workers.
struct Batch<T: 'static> {
    desc: &'static Description<T>,
    test: Arc<TestCase>,
    n: usize,
    count: usize,
    deadline: Instant,
    phases: Phases,
    /// The prefix's pool of the current execution, and its controlled run if any.
    current: Mutex<Option<Execution<T>>>,
    /// Controlled executions: how their schedulers are made.
    control: Option<Control>,
    /// Seeds the start delays and the noise of free-running threads.
    jitter_seed: u64,
    /// Whether calls' return values are observed, and the distinct results kept.
    observe: bool,
    distinct: Mutex<Distinct>,
    /// Per thread, then the post part: the call in progress.
    at: Vec<AtomicUsize>,
    /// Grows with every call and execution: the watchdog's sign of life.
    heartbeat: AtomicUsize,
    results: Vec<Mutex<Vec<(Site, CallOutcome)>>>,
    /// Per thread, when each of its calls returned (results observed only).
    ends: Vec<Mutex<Vec<Instant>>>,
    executions: AtomicUsize,
    outcome: Mutex<Option<ExecOutcome>>,
    /// The schedule of the failing controlled execution.
    trace: Mutex<Option<Vec<Step>>>,
    /// Controlled executions that lost control (blocked outside the scheduler).
    uncontrolled: AtomicUsize,
    done: Done,
}

/// How long thread `t` waits after the start of execution `e` before its first call.
///
/// The leader arrives at the start barrier last (it ran the prefix), so without a delay the
/// threads' relative offset hardly varies and a race window that needs another offset is
/// never hit. Half the executions start at once; the others delay one thread or both by
/// 2^k spins (k < 13, up to some microseconds), drawn from the seed.
fn start_jitter(seed: u64, e: usize, t: usize) -> u32 {
    let mut z = seed
        ^ (e as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9)
        ^ (t as u64).wrapping_mul(0x94D0_49BB_1331_11EB);
    z = (z ^ (z >> 31)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z ^= z >> 32;
    if z & 1 == 0 {
        0
    } else {
        1 << ((z >> 1) % 13)
    }
}

impl<T: Send + Sync + 'static> Batch<T> {
    fn thread_body(&self, t: usize) {
        for e in 0..self.count {
            if t == 0 {
                let current = if self.phases.stopped() || Instant::now() >= self.deadline {
                    None
                } else {
                    run_prefix(self.desc, &self.test).map(|pool| {
                        (
                            Arc::new(pool),
                            self.control.as_ref().map(|c| c.run(self.n, e)),
                        )
                    })
                };
                if current.is_none() {
                    self.phases.stop();
                }
                *lock(&self.current) = current;
                self.phases.publish(e);
            } else if !self.phases.wait_published(e) {
                return;
            }
            if self.phases.stopped() {
                break;
            }
            let current = lock(&self.current).clone();
            let Some((pool, run)) = current else { break };
            let fresh = materialize_all(self.desc, &self.test.threads[t]);
            let mut ends = Vec::new();
            let mut suffix = |fresh: Option<Vec<FreshArgs>>| match fresh {
                Some(f) => run_suffix(
                    self.desc,
                    &self.test,
                    t,
                    &pool,
                    f,
                    &self.at[t],
                    self.observe.then_some(&mut ends),
                ),
                None => vec![(Site::thread(t, 0), CallOutcome::Unavailable)],
            };
            let results = match &run {
                // The run's scheduler starts the threads once all have entered.
                Some(run) => match panics::catch(|| run.enter(t, || suffix(fresh))) {
                    Ok(r) => r,
                    Err(p) => vec![(Site::thread(t, 0), CallOutcome::Panic(p))],
                },
                None => {
                    if !self.phases.start(e) {
                        return;
                    }
                    for _ in 0..start_jitter(self.jitter_seed, e, t) {
                        std::hint::spin_loop();
                    }
                    hooks::set_noise(self.jitter_seed ^ ((e as u64) << 8) ^ (t as u64) | 1);
                    let r = suffix(fresh);
                    hooks::set_noise(0);
                    r
                }
            };
            self.heartbeat.fetch_add(1, Ordering::Relaxed);
            lock(&self.results[t]).extend(results);
            if self.observe {
                *lock(&self.ends[t]) = ends;
            }
            // Thread 0 runs the post part, as it ran the prefix: a call that depends on the
            // thread it runs on sees the same thread in every execution and in the oracle's
            // sequential runs.
            let last = self.phases.finish(e);
            if t == 0 {
                if !last && !self.phases.wait_finished(e) {
                    return;
                }
                self.evaluate(e, &pool, run.as_ref());
                self.phases.evaluated(e);
            } else if !self.phases.wait_evaluated(e) {
                return;
            }
            drop(pool);
        }
        self.done.finish();
    }

    /// Runs the post part (unless the run deadlocked) and judges execution `e`; a failure
    /// stops the batch. Keeps its results when they are observed.
    fn evaluate(&self, e: usize, pool: &Pool<T>, run: Option<&Arc<Run>>) {
        let mut all = Vec::new();
        for r in &self.results {
            all.append(&mut lock(r));
        }
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
            if let Some(results) = Results::of(self.n, &all) {
                let ends: Vec<Vec<Instant>> = self
                    .ends
                    .iter()
                    .map(|e| std::mem::take(&mut *lock(e)))
                    .collect();
                let results = results.returned_at(&ends);
                lock(&self.distinct).add(results, e, || run.map(|r| r.trace()));
            }
        }
        if let (Some(run), Some(c)) = (run, &self.control) {
            if run.lost_control() {
                self.uncontrolled.fetch_add(1, Ordering::Relaxed);
            }
            c.ended(run);
        }
        if !matches!(outcome, ExecOutcome::Passed) {
            self.phases.stop();
            if let Some(run) = run {
                *lock(&self.trace) = Some(run.trace());
            }
            *lock(&self.outcome) = Some(outcome);
        }
    }

    /// The calls the threads are stuck in (or the post call, if no thread is).
    fn stuck(&self) -> Vec<Site> {
        let mut stuck = calls_in_progress(&self.at[..self.n]);
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
pub(super) struct Plan<'w, T: 'static> {
    pub(super) desc: &'static Description<T>,
    pub(super) test: &'w Arc<TestCase>,
    pub(super) count: usize,
    pub(super) timeout: Duration,
    pub(super) deadline: Instant,
    pub(super) control: Option<Control>,
    pub(super) jitter_seed: u64,
    pub(super) observe: bool,
}

/// Runs a batch on `workers` (spawning as many as the test has threads).
pub(super) fn run<T: Send + Sync + 'static>(
    workers: &mut Vec<Worker>,
    plan: Plan<'_, T>,
) -> BatchOutcome {
    let n = plan.test.threads.len();
    let batch = Arc::new(Batch {
        desc: plan.desc,
        test: plan.test.clone(),
        n,
        count: plan.count,
        deadline: plan.deadline,
        phases: Phases::new(n),
        current: Mutex::new(None),
        control: plan.control,
        jitter_seed: plan.jitter_seed,
        observe: plan.observe,
        distinct: Mutex::new(Distinct::default()),
        at: (0..=n).map(|_| AtomicUsize::new(IDLE)).collect(),
        heartbeat: AtomicUsize::new(0),
        results: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
        ends: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
        executions: AtomicUsize::new(0),
        outcome: Mutex::new(None),
        trace: Mutex::new(None),
        uncontrolled: AtomicUsize::new(0),
        done: Done::new(n),
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
                .map(|a| a.load(Ordering::Acquire))
                .fold(0, usize::wrapping_add)
    };
    // A batch is long; what must not pass quietly is `timeout` without any progress.
    let blocked =
        || (0..n).all(|t| batch.at[t].load(Ordering::Acquire) == IDLE || workers[t].is_blocked());
    let finished = batch.done.wait(plan.timeout, progress, blocked);
    let executions = batch.executions.load(Ordering::Acquire);
    let uncontrolled = batch.uncontrolled.load(Ordering::Acquire);
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
        results,
    }
}
