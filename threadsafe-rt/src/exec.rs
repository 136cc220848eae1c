//! Executing tests: one call, a sequential order of calls, and concurrent executions.
//!
//! The concurrent executor is built like a stress harness: persistent workers, the prefix run
//! by the first worker while the others wait, fresh argument values made before the start,
//! and a spin barrier so the suffixes really start together. `Executor::Paper` instead spawns
//! a thread per suffix and starts them with `std::sync::Barrier`, as the original tool did.

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use crate::config::{Executor, Strategy};
use crate::coverage::{Guided, Names, Tracker};
use crate::generate::Gen;
use crate::hooks;
use crate::lock::lock;
use crate::map::PatternKey;
use crate::model::{Arg, Call, Made, Out, Scope, TestCase};
use crate::panics::{self, PanicRecord};
use crate::point::Step;
use crate::sched::{self, Pct, RandomWalk, Run};
use crate::subject::{ArgSlot, Description, Frame, Output, ParamKind, Receiver, RecvSlot};
use crate::worker::{Done, Worker};

type Value = Box<dyn Any + Send + Sync>;

/// Fresh argument values of one call, by parameter.
type FreshArgs = Vec<Option<Box<dyn Any>>>;

/// The instances and output variables the prefix made.
pub(crate) struct Pool<T> {
    pub(crate) instances: Vec<Option<Arc<T>>>,
    pub(crate) vars: Vec<Option<Value>>,
}

impl<T> Pool<T> {
    fn new(test: &TestCase) -> Self {
        Pool {
            instances: (0..test.instance_count()).map(|_| None).collect(),
            vars: (0..test.var_count(Scope::Prefix)).map(|_| None).collect(),
        }
    }
}

/// What a call returned, as far as the generator cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Produced {
    Nothing,
    Instance(Made),
    Value(TypeId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CallOutcome {
    Ok(Produced),
    Unavailable,
    Panic(PanicRecord),
}

/// Fresh argument values of one call, made ahead of it.
pub(crate) fn materialize<T>(desc: &Description<T>, call: &Call) -> FreshArgs {
    let op = desc.op_at(call.op);
    call.args
        .iter()
        .zip(&op.params)
        .map(|(a, p)| match (a, &p.kind) {
            (
                Arg::Fresh(seed),
                ParamKind::Value {
                    strategy: Some(s), ..
                },
            ) => (s.make)(&mut Gen::from_seed(*seed)),
            _ => None,
        })
        .collect()
}

/// Builds the argument slots of a call; `None` if one is missing.
fn arg_slots<'a, T>(
    desc: &Description<T>,
    call: &Call,
    instances: &'a [Option<Arc<T>>],
    vars: &dyn Fn(Scope, usize) -> Option<&'a Value>,
    mut fresh: Vec<Option<Box<dyn Any>>>,
) -> Option<Vec<Option<ArgSlot<'a, T>>>> {
    let op = desc.op_at(call.op);
    call.args
        .iter()
        .zip(&op.params)
        .enumerate()
        .map(|(i, (a, p))| {
            Some(Some(match (a, &p.kind) {
                (Arg::Fresh(_), _) => ArgSlot::Value(fresh.get_mut(i)?.take()?),
                (Arg::Instance(ix), _) => ArgSlot::Instance(instances.get(*ix)?.as_ref()?),
                (
                    Arg::Var(v),
                    ParamKind::Value {
                        clone: Some(clone),
                        type_id,
                        ..
                    },
                ) => {
                    let value = vars(v.scope, v.index)?;
                    if (**value).type_id() != *type_id {
                        return None;
                    }
                    ArgSlot::Value(clone(&**value))
                }
                (Arg::Var(_), _) => return None,
            }))
        })
        .collect()
}

fn finish_call<T>(
    out: Option<Output<T>>,
    result: Result<(), crate::subject::Unavailable>,
    call: &Call,
    instances: Option<&mut Vec<Option<Arc<T>>>>,
    vars: &mut [Option<Value>],
) -> CallOutcome {
    if result.is_err() {
        return CallOutcome::Unavailable;
    }
    match out {
        None => CallOutcome::Ok(Produced::Nothing),
        Some(Output::Instance(a, made)) => {
            if let (Out::Instance(ix, _), Some(pool)) = (call.out, instances) {
                if let Some(slot) = pool.get_mut(ix) {
                    *slot = Some(a);
                }
            }
            CallOutcome::Ok(Produced::Instance(made))
        }
        Some(Output::Value(ty, v)) => {
            if let Out::Var(ix) = call.out {
                if let Some(slot) = vars.get_mut(ix) {
                    *slot = Some(v);
                }
            }
            CallOutcome::Ok(Produced::Value(ty))
        }
    }
}

/// Runs a prefix call, which may take `&mut self` and makes instances.
pub(crate) fn call_in_prefix<T>(
    desc: &Description<T>,
    call: &Call,
    pool: &mut Pool<T>,
) -> CallOutcome {
    let op = desc.op_at(call.op);
    let run = || {
        let fresh = materialize(desc, call);
        let Pool { instances, vars } = pool;
        let mut taken = None;
        let recv = match (op.receiver, call.receiver) {
            (Receiver::None, _) => None,
            (Receiver::Exclusive, Some(r)) => {
                taken = instances.get_mut(r).and_then(Option::take);
                None
            }
            (_, Some(r)) => Some(r),
            (_, None) => return CallOutcome::Unavailable,
        };
        let outcome = {
            let mut exclusive = taken.as_mut().and_then(Arc::get_mut);
            let recv_slot = match (op.receiver, recv) {
                (Receiver::Exclusive, _) => match exclusive.take() {
                    Some(r) => Some(RecvSlot::Exclusive(r)),
                    None => None,
                },
                (_, Some(r)) => match instances.get(r).and_then(Option::as_ref) {
                    Some(a) => Some(RecvSlot::Shared(a)),
                    None => None,
                },
                _ => None,
            };
            let needs_recv = op.receiver != Receiver::None;
            let vars_ro: &[Option<Value>] = vars;
            let lookup = |s: Scope, i: usize| match s {
                Scope::Prefix => vars_ro.get(i).and_then(Option::as_ref),
                _ => None,
            };
            match (recv_slot, arg_slots(desc, call, instances, &lookup, fresh)) {
                (r, Some(args)) if r.is_some() || !needs_recv => {
                    let mut frame = Frame::new(r, args);
                    let result = (op.call)(&mut frame);
                    Some((frame.out.take(), result))
                }
                _ => None,
            }
        };
        if let (Some(r), Some(a)) = (call.receiver, taken) {
            instances[r] = Some(a);
        }
        match outcome {
            None => CallOutcome::Unavailable,
            Some((out, result)) => finish_call(out, result, call, Some(instances), vars),
        }
    };
    panics::catch(run).unwrap_or_else(CallOutcome::Panic)
}

/// Runs a call of a suffix thread or of the post part against the shared pool.
pub(crate) fn call_shared<T>(
    desc: &Description<T>,
    call: &Call,
    pool: &Pool<T>,
    scope: Scope,
    local: &mut [Option<Value>],
    fresh: Vec<Option<Box<dyn Any>>>,
) -> CallOutcome {
    let op = desc.op_at(call.op);
    let run = || {
        let recv = match (op.receiver, call.receiver) {
            (Receiver::Shared | Receiver::Arc | Receiver::ArcRef, Some(r)) => {
                match pool.instances.get(r).and_then(Option::as_ref) {
                    Some(a) => RecvSlot::Shared(a),
                    None => return CallOutcome::Unavailable,
                }
            }
            _ => return CallOutcome::Unavailable,
        };
        let (out, result) = {
            let local_ro: &[Option<Value>] = local;
            let lookup = |s: Scope, i: usize| {
                if s == Scope::Prefix {
                    pool.vars.get(i).and_then(Option::as_ref)
                } else if s == scope {
                    local_ro.get(i).and_then(Option::as_ref)
                } else {
                    None
                }
            };
            let Some(args) = arg_slots(desc, call, &pool.instances, &lookup, fresh) else {
                return CallOutcome::Unavailable;
            };
            let mut frame = Frame::new(Some(recv), args);
            let result = (op.call)(&mut frame);
            (frame.out.take(), result)
        };
        finish_call(out, result, call, None, local)
    };
    panics::catch(run).unwrap_or_else(CallOutcome::Panic)
}

// ---------------------------------------------------------------------------------------
// Sequential runs.
// ---------------------------------------------------------------------------------------

/// The outcome of a sequential run: each call run, in order, with its outcome.
#[derive(Debug, Default)]
pub(crate) struct SeqRun {
    pub(crate) steps: Vec<(Scope, usize, CallOutcome)>,
    /// Scheduling points reached (sync primitives, statement points).
    pub(crate) points: u64,
    /// Per step, the operations it performed, when the run was recorded.
    pub(crate) recorded: Vec<Vec<hooks::Recorded>>,
}

impl SeqRun {
    /// True when every call ran and returned.
    pub(crate) fn all_ok(&self) -> bool {
        self.steps
            .iter()
            .all(|(_, _, o)| matches!(o, CallOutcome::Ok(_)))
    }

    pub(crate) fn panic_locations(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().filter_map(|(_, _, o)| match o {
            CallOutcome::Panic(p) => Some(p.location.as_str()),
            _ => None,
        })
    }

    pub(crate) fn last(&self) -> Option<&CallOutcome> {
        self.steps.last().map(|(_, _, o)| o)
    }
}

/// Runs the prefix, then the suffix calls in `order` (a thread id per step), then the post
/// part. As in a concurrent run, a panic ends its own thread's calls only, and the post
/// part runs only when no suffix call failed. A failing prefix ends the run.
pub(crate) fn run_sequential<T>(
    desc: &Description<T>,
    test: &TestCase,
    order: &[usize],
    post: bool,
) -> SeqRun {
    let mut run = SeqRun::default();
    let mut pool = Pool::new(test);
    for (i, call) in test.prefix.iter().enumerate() {
        let o = call_in_prefix(desc, call, &mut pool);
        let ok = matches!(o, CallOutcome::Ok(_));
        run.steps.push((Scope::Prefix, i, o));
        run.recorded.push(hooks::take_recorded());
        if !ok {
            return run;
        }
    }
    let n = test.threads.len();
    let mut next = vec![0usize; n];
    let mut dead = vec![false; n];
    let mut locals: Vec<Vec<Option<Value>>> = (0..n)
        .map(|t| {
            (0..test.var_count(Scope::Thread(t)))
                .map(|_| None)
                .collect()
        })
        .collect();
    let mut clean = true;
    for &t in order {
        let k = next[t];
        next[t] += 1;
        if dead[t] {
            continue;
        }
        let call = &test.threads[t][k];
        let scope = Scope::Thread(t);
        let o = match panics::catch(|| materialize(desc, call)) {
            Ok(fresh) => call_shared(desc, call, &pool, scope, &mut locals[t], fresh),
            Err(p) => CallOutcome::Panic(p),
        };
        if !matches!(o, CallOutcome::Ok(_)) {
            dead[t] = true;
            clean = false;
        }
        run.steps.push((scope, k, o));
        run.recorded.push(hooks::take_recorded());
    }
    if post && clean {
        let mut local: Vec<Option<Value>> =
            (0..test.var_count(Scope::Post)).map(|_| None).collect();
        for (k, call) in test.post.iter().enumerate() {
            let o = match panics::catch(|| materialize(desc, call)) {
                Ok(fresh) => call_shared(desc, call, &pool, Scope::Post, &mut local, fresh),
                Err(p) => CallOutcome::Panic(p),
            };
            let ok = matches!(o, CallOutcome::Ok(_));
            run.steps.push((Scope::Post, k, o));
            run.recorded.push(hooks::take_recorded());
            if !ok {
                break;
            }
        }
    }
    run
}

/// The order that runs each thread's calls one thread after the other.
pub(crate) fn serial_order(test: &TestCase) -> Vec<usize> {
    test.threads
        .iter()
        .enumerate()
        .flat_map(|(t, calls)| std::iter::repeat(t).take(calls.len()))
        .collect()
}

/// Runs sequential executions on a worker thread, so that one that hangs (a sequential
/// deadlock) is noticed and left behind instead of hanging the check.
pub(crate) struct SeqRunner {
    worker: Worker,
}

impl SeqRunner {
    pub(crate) fn abandoned(&self) -> usize {
        self.worker.abandoned
    }

    pub(crate) fn new() -> Self {
        SeqRunner {
            worker: Worker::spawn("threadsafe-seq"),
        }
    }

    /// [`run`](Self::run) with the operations of each call recorded (MAP-coverage's
    /// sequential runs of the methods).
    pub(crate) fn run_recorded<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: Arc<TestCase>,
        timeout: Duration,
    ) -> Option<SeqRun> {
        self.worker.run(timeout, move || {
            hooks::record(true);
            let order = serial_order(&test);
            let r = run_sequential(desc, &test, &order, false);
            hooks::record(false);
            r
        })
    }

    /// `None` if the run did not finish within the timeout.
    pub(crate) fn run<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: Arc<TestCase>,
        order: Vec<usize>,
        post: bool,
        timeout: Duration,
    ) -> Option<(SeqRun, Duration)> {
        self.worker.run(timeout, move || {
            let start = std::time::Instant::now();
            let points = hooks::points_seen();
            let mut r = run_sequential(desc, &test, &order, post);
            r.points = hooks::points_seen() - points;
            (r, start.elapsed())
        })
    }
}

// ---------------------------------------------------------------------------------------
// Concurrent executions.
// ---------------------------------------------------------------------------------------

/// Where a failure happened: a suffix thread's call, or a post call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    pub(crate) scope: Scope,
    pub(crate) call: usize,
}

#[derive(Clone, Debug)]
pub(crate) enum ExecOutcome {
    /// Every call returned.
    Passed,
    /// The run did not get going (the prefix or an argument failed): not a finding.
    Invalid,
    /// Calls panicked: all panics, the first one first.
    Panicked(Vec<(Site, PanicRecord)>),
    /// Threads blocked for good: where each one was, and (under control) what it waited for.
    Deadlock(Vec<Blocked>),
}

/// A thread of a deadlocked execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Blocked {
    pub(crate) site: Site,
    /// What it waited for and where, when the scheduler knows (`a lock at src/x.rs:3:9`).
    pub(crate) waiting: Option<String>,
}

fn blocked_at(sites: Vec<Site>) -> Vec<Blocked> {
    sites
        .into_iter()
        .map(|site| Blocked {
            site,
            waiting: None,
        })
        .collect()
}

/// Per thread: 0 before its first call, `k + 1` inside call `k`, `IDLE` otherwise.
const IDLE: usize = usize::MAX;

/// The call each suffix thread is in, from its progress counter.
fn calls_in_progress(at: &[AtomicUsize]) -> Vec<Site> {
    at.iter()
        .enumerate()
        .filter_map(|(t, a)| match a.load(Ordering::Acquire) {
            IDLE | 0 => None,
            k => Some(Site {
                scope: Scope::Thread(t),
                call: k - 1,
            }),
        })
        .collect()
}

fn run_prefix<T>(desc: &Description<T>, test: &TestCase) -> Option<Pool<T>> {
    let mut pool = Pool::new(test);
    test.prefix
        .iter()
        .all(|c| matches!(call_in_prefix(desc, c, &mut pool), CallOutcome::Ok(_)))
        .then_some(pool)
}

/// Runs thread `t`'s calls until one fails; `at` is told the call about to run.
fn run_suffix<T>(
    desc: &Description<T>,
    test: &TestCase,
    t: usize,
    pool: &Pool<T>,
    fresh: Vec<FreshArgs>,
    at: &AtomicUsize,
) -> Vec<(Site, CallOutcome)> {
    let scope = Scope::Thread(t);
    let mut local: Vec<Option<Value>> = (0..test.var_count(scope)).map(|_| None).collect();
    let mut results = Vec::new();
    for (k, (call, f)) in test.threads[t].iter().zip(fresh).enumerate() {
        at.store(k + 1, Ordering::Release);
        sched::set_call(k);
        let o = call_shared(desc, call, pool, scope, &mut local, f);
        let stop = !matches!(o, CallOutcome::Ok(_));
        results.push((Site { scope, call: k }, o));
        if stop {
            break;
        }
    }
    at.store(IDLE, Ordering::Release);
    results
}

/// Runs the post part, if every suffix call returned.
fn run_post<T>(
    desc: &Description<T>,
    test: &TestCase,
    pool: &Pool<T>,
    results: &mut Vec<(Site, CallOutcome)>,
    at: &AtomicUsize,
) {
    if !results.iter().all(|(_, o)| matches!(o, CallOutcome::Ok(_))) {
        return;
    }
    let mut local: Vec<Option<Value>> = (0..test.var_count(Scope::Post)).map(|_| None).collect();
    for (k, call) in test.post.iter().enumerate() {
        at.store(k + 1, Ordering::Release);
        let o = match panics::catch(|| materialize(desc, call)) {
            Ok(fresh) => call_shared(desc, call, pool, Scope::Post, &mut local, fresh),
            Err(p) => CallOutcome::Panic(p),
        };
        let stop = !matches!(o, CallOutcome::Ok(_));
        results.push((
            Site {
                scope: Scope::Post,
                call: k,
            },
            o,
        ));
        if stop {
            break;
        }
    }
    at.store(IDLE, Ordering::Release);
}

fn evaluate(results: &[(Site, CallOutcome)]) -> ExecOutcome {
    let mut panics: Vec<(Site, PanicRecord)> = results
        .iter()
        .filter_map(|(s, o)| match o {
            CallOutcome::Panic(p) if !p.aborted => Some((*s, p.clone())),
            _ => None,
        })
        .collect();
    if !panics.is_empty() {
        panics.sort_by_key(|(_, p)| p.order);
        ExecOutcome::Panicked(panics)
    } else if results
        .iter()
        .any(|(_, o)| matches!(o, CallOutcome::Unavailable))
    {
        ExecOutcome::Invalid
    } else {
        ExecOutcome::Passed
    }
}

/// Fresh values of all of a thread's calls, made before the start.
fn materialize_all<T>(desc: &Description<T>, calls: &[Call]) -> Option<Vec<FreshArgs>> {
    panics::catch(|| calls.iter().map(|c| materialize(desc, c)).collect()).ok()
}

/// Spins until `cond` holds (true) or `abort` is set (false).
fn spin_until(abort: &AtomicBool, cond: impl Fn() -> bool) -> bool {
    let mut spins = 0u32;
    while !cond() {
        if abort.load(Ordering::Relaxed) {
            return false;
        }
        spins += 1;
        if spins < SPINS_BEFORE_YIELD {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    true
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

/// A few microseconds of spinning: enough for peers on other cores to arrive together,
/// short enough that a descheduled peer on a busy machine gets the core back soon.
const SPINS_BEFORE_YIELD: u32 = 512;

/// The state of a batch of executions of one test, shared by the stress workers.
///
/// Execution `e` goes: the leader (thread 0) runs a fresh prefix and publishes it
/// (`published = e + 1`); every thread makes its argument values and arrives at the start
/// barrier (`arrived` reaches `(e + 1) * n`: the counters only grow, so no reset races);
/// each runs its calls and arrives at the end (`finished`); the last one runs the post part,
/// evaluates the execution, and opens the next one (`evaluated = e + 1`).
struct Batch<T: 'static> {
    desc: &'static Description<T>,
    test: Arc<TestCase>,
    n: usize,
    count: usize,
    deadline: std::time::Instant,
    /// The prefix's pool of the current execution, and its controlled run if any.
    current: Mutex<Option<Execution<T>>>,
    /// Controlled executions: the strategy and what seeds their schedules.
    control: Option<Control>,
    published: AtomicUsize,
    arrived: AtomicUsize,
    finished: AtomicUsize,
    evaluated: AtomicUsize,
    stop: AtomicBool,
    /// Seeds the start delays of the threads.
    jitter_seed: u64,
    /// Set by the watchdog: threads waiting for a blocked peer give up.
    abort: AtomicBool,
    /// The thread that runs the post part of the current execution.
    evaluator: AtomicUsize,
    /// Per thread, then the post part: the call in progress.
    at: Vec<AtomicUsize>,
    /// Grows with every call and execution: the watchdog's sign of life.
    heartbeat: AtomicUsize,
    results: Vec<Mutex<Vec<(Site, CallOutcome)>>>,
    executions: AtomicUsize,
    outcome: Mutex<Option<ExecOutcome>>,
    /// The schedule of the failing controlled execution.
    trace: Mutex<Option<Vec<Step>>>,
    /// Controlled executions that lost control (blocked outside the scheduler).
    uncontrolled: AtomicUsize,
    done: Done,
}

/// One execution's prefix state, and its controlled run if any.
type Execution<T> = (Arc<Pool<T>>, Option<Arc<Run>>);

/// How the executions of a batch are controlled.
pub(crate) struct Control {
    pub(crate) strategy: Strategy,
    /// Execution `e` of the batch replays schedule `schedule_seed(base, first + e)`.
    pub(crate) base: u64,
    pub(crate) first: usize,
    /// Steps of the longest run so far: PCT's estimate of a run's length.
    pub(crate) max_steps: AtomicUsize,
    /// Points found futile (inside std critical sections) by earlier runs of this test.
    pub(crate) futile: Arc<sched::Futile>,
    /// Reads every execution's steps for MAP-coverage.
    pub(crate) coverage: Option<Arc<Mutex<Tracker>>>,
    /// Guide `map`: the patterns execution `e` aims at (`e` modulo their number), and the
    /// numbering of variables and sites.
    pub(crate) targets: Option<(Arc<Names>, Vec<PatternKey>)>,
}

/// The schedule seed of execution `e` of the test whose batch seed is `base`.
pub(crate) fn schedule_seed(base: u64, e: usize) -> u64 {
    crate::seed::derive(base, e as u32 ^ 0x5eed_0000)
}

impl Control {
    fn run(&self, n: usize, e: usize) -> Arc<Run> {
        let seed = schedule_seed(self.base, self.first + e);
        let strategy: Box<dyn sched::Scheduler> = match (&self.targets, self.strategy) {
            (Some((names, targets)), _) if !targets.is_empty() => {
                let target = targets[(self.first + e) % targets.len()];
                Box::new(Guided::new(seed, target, names.clone()))
            }
            (_, Strategy::Pct { depth }) => Box::new(Pct::new(
                seed,
                n,
                depth,
                self.max_steps.load(Ordering::Relaxed),
            )),
            _ => Box::new(RandomWalk::new(seed)),
        };
        Run::with_futile(n, strategy, self.futile.clone())
    }
}

impl<T: Send + Sync + 'static> Batch<T> {
    fn thread_body(&self, t: usize) {
        for e in 0..self.count {
            if t == 0 {
                let current = if self.stop.load(Ordering::Acquire)
                    || std::time::Instant::now() >= self.deadline
                {
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
                    self.stop.store(true, Ordering::Release);
                }
                *lock(&self.current) = current;
                self.published.store(e + 1, Ordering::Release);
            } else if !spin_until(&self.abort, || self.published.load(Ordering::Acquire) > e) {
                return;
            }
            if self.stop.load(Ordering::Acquire) {
                break;
            }
            let current = lock(&self.current).clone();
            let Some((pool, run)) = current else { break };
            let fresh = materialize_all(self.desc, &self.test.threads[t]);
            let suffix = |fresh: Option<Vec<FreshArgs>>| match fresh {
                Some(f) => run_suffix(self.desc, &self.test, t, &pool, f, &self.at[t]),
                None => vec![(
                    Site {
                        scope: Scope::Thread(t),
                        call: 0,
                    },
                    CallOutcome::Unavailable,
                )],
            };
            let results = match &run {
                // The run's scheduler starts the threads once all have entered.
                Some(run) => match panics::catch(|| run.enter(t, || suffix(fresh))) {
                    Ok(r) => r,
                    Err(p) => vec![(
                        Site {
                            scope: Scope::Thread(t),
                            call: 0,
                        },
                        CallOutcome::Panic(p),
                    )],
                },
                None => {
                    self.arrived.fetch_add(1, Ordering::AcqRel);
                    if !spin_until(&self.abort, || {
                        self.arrived.load(Ordering::Acquire) >= (e + 1) * self.n
                    }) {
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
            if self.finished.fetch_add(1, Ordering::AcqRel) + 1 == (e + 1) * self.n {
                self.evaluator.store(t, Ordering::Release);
                self.evaluate(&pool, run.as_ref());
                self.evaluated.store(e + 1, Ordering::Release);
            } else if !spin_until(&self.abort, || self.evaluated.load(Ordering::Acquire) > e) {
                return;
            }
            drop(pool);
        }
        self.done.finish();
    }

    fn evaluate(&self, pool: &Pool<T>, run: Option<&Arc<Run>>) {
        let mut all = Vec::new();
        for r in &self.results {
            all.append(&mut lock(&r));
        }
        let deadlock = run.and_then(|r| r.deadlock());
        if deadlock.is_none() {
            run_post(self.desc, &self.test, pool, &mut all, &self.at[self.n]);
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
                            .map(|(s, _)| *s)
                            .unwrap_or(Site {
                                scope: Scope::Thread(*t),
                                call: 0,
                            }),
                        waiting: Some(format!("{} at {at}", why.describe())),
                    })
                    .collect(),
            ),
            None => evaluate(&all),
        };
        if let (Some(run), Some(c)) = (run, &self.control) {
            if run.lost_control() {
                self.uncontrolled.fetch_add(1, Ordering::Relaxed);
            }
            c.max_steps.fetch_max(run.steps(), Ordering::Relaxed);
            if let Some(tracker) = &c.coverage {
                let trace = run.trace();
                lock(&tracker).add_trace(trace);
            }
        }
        if !matches!(outcome, ExecOutcome::Passed) {
            self.stop.store(true, Ordering::Release);
            if let Some(run) = run {
                *lock(&self.trace) = Some(run.trace());
            }
            *lock(&self.outcome) = Some(outcome);
        }
    }

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

/// What a batch of executions came to.
pub(crate) struct BatchOutcome {
    pub(crate) executions: usize,
    /// The first execution that did not pass, if any (then the batch stopped there).
    pub(crate) outcome: ExecOutcome,
    /// Its schedule, when it was controlled.
    pub(crate) trace: Option<Vec<Step>>,
    /// Controlled executions that had to give up control.
    pub(crate) uncontrolled: usize,
}

/// What to run: how many executions, how long to wait, and whether under control.
pub(crate) struct BatchSpec {
    pub(crate) count: usize,
    pub(crate) timeout: Duration,
    pub(crate) deadline: std::time::Instant,
    pub(crate) control: Option<Control>,
}

/// Runs tests concurrently, many times each.
pub(crate) struct ConcRunner {
    executor: Executor,
    workers: Vec<Worker>,
    seed: u64,
    batches: u64,
}

impl ConcRunner {
    pub(crate) fn new(executor: Executor, seed: u64) -> Self {
        ConcRunner {
            executor,
            workers: Vec::new(),
            seed,
            batches: 0,
        }
    }

    pub(crate) fn abandoned(&self) -> usize {
        self.workers.iter().map(|w| w.abandoned).sum()
    }

    /// Up to `spec.count` executions of `test`, each on a fresh prefix, stopping at the
    /// first that fails (or is invalid) or at the deadline. Controlled executions (with
    /// `spec.control`) run on the stress workers too, one thread at a time.
    pub(crate) fn run_batch<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        spec: BatchSpec,
    ) -> BatchOutcome {
        self.batches += 1;
        match self.executor {
            Executor::Paper if spec.control.is_none() => self.paper_batch(desc, test, &spec),
            _ => self.worker_batch(desc, test, spec),
        }
    }

    /// The seed that the start delays and schedule seeds of the current test derive from.
    fn batch_seed(&self) -> u64 {
        self.seed ^ self.batches.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The seed of the next batch (its test's number in the check decides it).
    pub(crate) fn next_batch_seed(&self) -> u64 {
        self.seed ^ (self.batches + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// Counts a test as run without running it (replay skips to its test).
    pub(crate) fn skip_batch(&mut self) {
        self.batches += 1;
    }

    fn worker_batch<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        spec: BatchSpec,
    ) -> BatchOutcome {
        let n = test.threads.len();
        let BatchSpec {
            count,
            timeout,
            deadline,
            control,
        } = spec;
        let batch = Arc::new(Batch {
            desc,
            test: test.clone(),
            n,
            count,
            deadline,
            current: Mutex::new(None),
            control,
            published: AtomicUsize::new(0),
            arrived: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            evaluated: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            jitter_seed: self.batch_seed(),
            abort: AtomicBool::new(false),
            evaluator: AtomicUsize::new(0),
            at: (0..=n).map(|_| AtomicUsize::new(IDLE)).collect(),
            heartbeat: AtomicUsize::new(0),
            results: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
            executions: AtomicUsize::new(0),
            outcome: Mutex::new(None),
            trace: Mutex::new(None),
            uncontrolled: AtomicUsize::new(0),
            done: Done::new(n),
        });
        while self.workers.len() < n {
            let name = format!("threadsafe-suffix-{}", self.workers.len());
            self.workers.push(Worker::spawn(&name));
        }
        for t in 0..n {
            let b = batch.clone();
            self.workers[t].start(Box::new(move || b.thread_body(t)));
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
        let blocked = || {
            (0..n).all(|t| {
                batch.at[t].load(Ordering::Acquire) == IDLE || self.workers[t].is_blocked()
            })
        };
        let finished = batch.done.wait(timeout, progress, blocked);
        let executions = batch.executions.load(Ordering::Acquire);
        let uncontrolled = batch.uncontrolled.load(Ordering::Acquire);
        if !finished {
            batch.abort.store(true, Ordering::Release);
            let stuck = batch.stuck();
            let evaluator = batch.evaluator.load(Ordering::Acquire);
            for (t, w) in self.workers[..n].iter_mut().enumerate() {
                // A blocked worker cannot be freed: leave it and start a new one. The
                // others see `abort` and return.
                let in_post = stuck.iter().any(|s| s.scope == Scope::Post) && t == evaluator;
                if in_post || batch.at[t].load(Ordering::Acquire) != IDLE {
                    w.abandon();
                }
            }
            let outcome = if stuck.is_empty() {
                ExecOutcome::Invalid
            } else {
                ExecOutcome::Deadlock(blocked_at(stuck))
            };
            return BatchOutcome {
                executions: executions + 1,
                outcome,
                trace: None,
                uncontrolled: uncontrolled + 1,
            };
        }
        let outcome = lock(&batch.outcome).take().unwrap_or(ExecOutcome::Passed);
        let trace = lock(&batch.trace).take();
        BatchOutcome {
            executions,
            outcome,
            trace,
            uncontrolled,
        }
    }

    /// The original tool's way: per execution, the prefix on this thread, then a new thread
    /// per suffix, started with `std::sync::Barrier`.
    fn paper_batch<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        spec: &BatchSpec,
    ) -> BatchOutcome {
        let n = test.threads.len();
        let mut executions = 0;
        let mut outcome = ExecOutcome::Passed;
        while executions < spec.count && std::time::Instant::now() < spec.deadline {
            executions += 1;
            outcome = self.paper_execution(desc, test, n, spec.timeout);
            if !matches!(outcome, ExecOutcome::Passed) {
                break;
            }
        }
        BatchOutcome {
            executions,
            outcome,
            trace: None,
            uncontrolled: 0,
        }
    }

    fn paper_execution<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        n: usize,
        timeout: Duration,
    ) -> ExecOutcome {
        let Some(pool) = panics::catch(|| run_prefix(desc, test)).ok().flatten() else {
            return ExecOutcome::Invalid;
        };
        struct Run<T: 'static> {
            pool: Pool<T>,
            barrier: Barrier,
            at: Vec<AtomicUsize>,
            results: Mutex<Vec<(Site, CallOutcome)>>,
            done: Done,
        }
        let run = Arc::new(Run {
            pool,
            barrier: Barrier::new(n),
            at: (0..n).map(|_| AtomicUsize::new(IDLE)).collect(),
            results: Mutex::new(Vec::new()),
            done: Done::new(n),
        });
        for t in 0..n {
            let (run, test) = (run.clone(), test.clone());
            std::thread::Builder::new()
                .name(format!("threadsafe-paper-{t}"))
                .spawn(move || {
                    panics::capture_on_this_thread();
                    let fresh = materialize_all(desc, &test.threads[t]);
                    run.barrier.wait();
                    let r = match fresh {
                        Some(f) => run_suffix(desc, &test, t, &run.pool, f, &run.at[t]),
                        None => vec![(
                            Site {
                                scope: Scope::Thread(t),
                                call: 0,
                            },
                            CallOutcome::Unavailable,
                        )],
                    };
                    lock(&run.results).extend(r);
                    run.done.finish();
                })
                .expect("spawn a suffix thread");
        }
        let progress = || {
            run.at
                .iter()
                .map(|a| a.load(Ordering::Acquire))
                .fold(0, usize::wrapping_add)
        };
        if !run.done.wait(timeout, progress, || true) {
            let stuck = blocked_at(calls_in_progress(&run.at));
            return if stuck.is_empty() {
                ExecOutcome::Invalid
            } else {
                ExecOutcome::Deadlock(stuck)
            };
        }
        let mut all = std::mem::take(&mut *lock(&run.results));
        let post_at = AtomicUsize::new(IDLE);
        run_post(desc, test, &run.pool, &mut all, &post_at);
        evaluate(&all)
    }
}
