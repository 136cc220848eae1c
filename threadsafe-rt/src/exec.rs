//! Executing tests: one call, a sequential order of calls, and concurrent executions.
//!
//! The concurrent executor is built like a stress harness: persistent workers, the prefix run
//! by the first worker while the others wait, fresh argument values made before the start,
//! and a spin barrier so the suffixes really start together. `Executor::Paper` instead spawns
//! a thread per suffix and starts them with `std::sync::Barrier`, as the original tool did.

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, OnceLock};
use std::time::Duration;

use crate::config::Executor;
use crate::generate::Gen;
use crate::model::{Arg, Call, Made, Out, Scope, TestCase};
use crate::panics::{self, PanicRecord};
use crate::subject::{ArgSlot, Description, Frame, Output, ParamKind, RecvSlot, Receiver};
use crate::worker::{Done, Worker};

type Value = Box<dyn Any + Send + Sync>;

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
pub(crate) fn materialize<T>(desc: &Description<T>, call: &Call) -> Vec<Option<Box<dyn Any>>> {
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
pub(crate) fn call_in_prefix<T>(desc: &Description<T>, call: &Call, pool: &mut Pool<T>) -> CallOutcome {
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
}

impl SeqRun {
    /// True when every call ran and returned.
    pub(crate) fn all_ok(&self) -> bool {
        self.steps.iter().all(|(_, _, o)| matches!(o, CallOutcome::Ok(_)))
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
pub(crate) fn run_sequential<T>(desc: &Description<T>, test: &TestCase, order: &[usize], post: bool) -> SeqRun {
    let mut run = SeqRun::default();
    let mut pool = Pool::new(test);
    for (i, call) in test.prefix.iter().enumerate() {
        let o = call_in_prefix(desc, call, &mut pool);
        let ok = matches!(o, CallOutcome::Ok(_));
        run.steps.push((Scope::Prefix, i, o));
        if !ok {
            return run;
        }
    }
    let n = test.threads.len();
    let mut next = vec![0usize; n];
    let mut dead = vec![false; n];
    let mut locals: Vec<Vec<Option<Value>>> = (0..n)
        .map(|t| (0..test.var_count(Scope::Thread(t))).map(|_| None).collect())
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
    }
    if post && clean {
        let mut local: Vec<Option<Value>> = (0..test.var_count(Scope::Post)).map(|_| None).collect();
        for (k, call) in test.post.iter().enumerate() {
            let o = match panics::catch(|| materialize(desc, call)) {
                Ok(fresh) => call_shared(desc, call, &pool, Scope::Post, &mut local, fresh),
                Err(p) => CallOutcome::Panic(p),
            };
            let ok = matches!(o, CallOutcome::Ok(_));
            run.steps.push((Scope::Post, k, o));
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
            let r = run_sequential(desc, &test, &order, post);
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
    /// A call panicked; the first panic, and all panics in order.
    Panicked(Vec<(Site, PanicRecord)>),
    /// Some threads made no progress for the timeout, twice: where each one was.
    Deadlock(Vec<Site>),
}

const DONE: usize = usize::MAX;

struct RunShared<T: 'static> {
    desc: &'static Description<T>,
    test: Arc<TestCase>,
    pool: OnceLock<Pool<T>>,
    prefix_failed: AtomicBool,
    start: Start,
    /// Per thread: 0 before its first call, `k + 1` inside call `k`, `DONE` after.
    progress: Vec<AtomicUsize>,
    post_progress: AtomicUsize,
    results: Mutex<Vec<(Site, CallOutcome)>>,
    remaining: AtomicUsize,
    done: Done,
}

enum Start {
    Spin(AtomicUsize),
    Std(Barrier),
}

impl<T: Send + Sync + 'static> RunShared<T> {
    fn wait_for_prefix(&self) -> Option<&Pool<T>> {
        let mut spins = 0u32;
        loop {
            if let Some(p) = self.pool.get() {
                return Some(p);
            }
            if self.prefix_failed.load(Ordering::Acquire) {
                return None;
            }
            spins += 1;
            if spins < 1_000 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    fn run_prefix(&self) {
        let mut pool = Pool::new(&self.test);
        let ok = self
            .test
            .prefix
            .iter()
            .all(|c| matches!(call_in_prefix(self.desc, c, &mut pool), CallOutcome::Ok(_)));
        if ok {
            let _ = self.pool.set(pool);
        } else {
            self.prefix_failed.store(true, Ordering::Release);
        }
    }

    fn arrive(&self) {
        match &self.start {
            Start::Spin(arrived) => {
                let n = self.test.threads.len();
                arrived.fetch_add(1, Ordering::AcqRel);
                let mut spins = 0u32;
                while arrived.load(Ordering::Acquire) < n {
                    spins += 1;
                    if spins < 20_000 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                }
            }
            Start::Std(b) => {
                b.wait();
            }
        }
    }

    /// The body of suffix thread `t`.
    fn thread_body(&self, t: usize) {
        if t == 0 && self.pool.get().is_none() && !self.prefix_failed.load(Ordering::Acquire) {
            self.run_prefix();
        }
        let pool = self.wait_for_prefix();
        let calls = &self.test.threads[t];
        let fresh: Option<Vec<_>> = pool.and_then(|_| {
            panics::catch(|| calls.iter().map(|c| materialize(self.desc, c)).collect()).ok()
        });
        self.arrive();
        let mut results = Vec::new();
        if let (Some(pool), Some(fresh)) = (pool, fresh) {
            let scope = Scope::Thread(t);
            let mut local: Vec<Option<Value>> = (0..self.test.var_count(scope)).map(|_| None).collect();
            for (k, (call, f)) in calls.iter().zip(fresh).enumerate() {
                self.progress[t].store(k + 1, Ordering::Release);
                let o = call_shared(self.desc, call, pool, scope, &mut local, f);
                let stop = !matches!(o, CallOutcome::Ok(_));
                results.push((Site { scope, call: k }, o));
                if stop {
                    break;
                }
            }
        }
        self.progress[t].store(DONE, Ordering::Release);
        self.results.lock().unwrap_or_else(|e| e.into_inner()).extend(results);
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.run_post();
            self.done.finish();
        }
    }

    fn run_post(&self) {
        let Some(pool) = self.pool.get() else { return };
        let clean = self
            .results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .all(|(_, o)| matches!(o, CallOutcome::Ok(_)));
        if !clean {
            return;
        }
        let mut local: Vec<Option<Value>> = (0..self.test.var_count(Scope::Post)).map(|_| None).collect();
        for (k, call) in self.test.post.iter().enumerate() {
            self.post_progress.store(k + 1, Ordering::Release);
            let o = match panics::catch(|| materialize(self.desc, call)) {
                Ok(fresh) => call_shared(self.desc, call, pool, Scope::Post, &mut local, fresh),
                Err(p) => CallOutcome::Panic(p),
            };
            let stop = !matches!(o, CallOutcome::Ok(_));
            self.results
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((Site { scope: Scope::Post, call: k }, o));
            if stop {
                break;
            }
        }
        self.post_progress.store(DONE, Ordering::Release);
    }

    fn progress_sum(&self) -> usize {
        self.progress
            .iter()
            .chain(std::iter::once(&self.post_progress))
            .map(|p| p.load(Ordering::Acquire))
            .fold(0usize, usize::wrapping_add)
    }

    fn outcome(&self, finished: bool) -> ExecOutcome {
        if !finished {
            let mut stuck = Vec::new();
            for (t, p) in self.progress.iter().enumerate() {
                let p = p.load(Ordering::Acquire);
                if p != DONE && p > 0 {
                    stuck.push(Site {
                        scope: Scope::Thread(t),
                        call: p - 1,
                    });
                }
            }
            let pp = self.post_progress.load(Ordering::Acquire);
            if stuck.is_empty() && pp != DONE && pp > 0 {
                stuck.push(Site {
                    scope: Scope::Post,
                    call: pp - 1,
                });
            }
            return if stuck.is_empty() {
                ExecOutcome::Invalid
            } else {
                ExecOutcome::Deadlock(stuck)
            };
        }
        if self.pool.get().is_none() {
            return ExecOutcome::Invalid;
        }
        let results = self.results.lock().unwrap_or_else(|e| e.into_inner());
        let mut panics: Vec<(Site, PanicRecord)> = results
            .iter()
            .filter_map(|(s, o)| match o {
                CallOutcome::Panic(p) => Some((*s, p.clone())),
                _ => None,
            })
            .collect();
        if !panics.is_empty() {
            panics.sort_by_key(|(_, p)| p.order);
            return ExecOutcome::Panicked(panics);
        }
        if results.iter().any(|(_, o)| matches!(o, CallOutcome::Unavailable)) {
            return ExecOutcome::Invalid;
        }
        ExecOutcome::Passed
    }
}

/// Runs tests concurrently, many times each.
pub(crate) struct ConcRunner {
    executor: Executor,
    workers: Vec<Worker>,
}

impl ConcRunner {
    pub(crate) fn abandoned(&self) -> usize {
        self.workers.iter().map(|w| w.abandoned).sum()
    }

    pub(crate) fn new(executor: Executor) -> Self {
        ConcRunner {
            executor,
            workers: Vec::new(),
        }
    }

    /// One execution of `test`: a fresh prefix, then the suffixes at once, then the post part.
    pub(crate) fn execute<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        timeout: Duration,
    ) -> ExecOutcome {
        let n = test.threads.len();
        let shared = Arc::new(RunShared {
            desc,
            test: test.clone(),
            pool: OnceLock::new(),
            prefix_failed: AtomicBool::new(false),
            start: match self.executor {
                Executor::Paper => Start::Std(Barrier::new(n)),
                _ => Start::Spin(AtomicUsize::new(0)),
            },
            progress: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            post_progress: AtomicUsize::new(0),
            results: Mutex::new(Vec::new()),
            remaining: AtomicUsize::new(n),
            done: Done::new(1),
        });
        match self.executor {
            Executor::Paper => {
                shared.run_prefix();
                for t in 0..n {
                    let s = shared.clone();
                    std::thread::Builder::new()
                        .name(format!("threadsafe-paper-{t}"))
                        .spawn(move || {
                            panics::capture_on_this_thread();
                            s.thread_body(t)
                        })
                        .expect("spawn a suffix thread");
                }
            }
            _ => {
                while self.workers.len() < n {
                    let name = format!("threadsafe-suffix-{}", self.workers.len());
                    self.workers.push(Worker::spawn(&name));
                }
                for t in 0..n {
                    let s = shared.clone();
                    self.workers[t].start(Box::new(move || s.thread_body(t)));
                }
            }
        }
        let finished = shared.done.wait(timeout, || shared.progress_sum());
        let outcome = shared.outcome(finished);
        if !finished && self.executor != Executor::Paper {
            // A blocked worker cannot be freed: leave it and start a new one. A hang in the
            // post part is on whichever worker finished last, so all are replaced then.
            let post_hung = matches!(&outcome, ExecOutcome::Deadlock(s) if s.iter().any(|s| s.scope == Scope::Post));
            for (t, w) in self.workers[..n].iter_mut().enumerate() {
                if post_hung || shared.progress[t].load(Ordering::Acquire) != DONE {
                    w.abandon();
                }
            }
        }
        outcome
    }
}
