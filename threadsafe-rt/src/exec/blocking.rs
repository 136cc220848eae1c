//! A linearization with blocking semantics, for the oracle's judgement of a hang: the
//! test's calls run one at a time in the order, each on a thread of its own logical thread,
//! but a call that blocks (its thread waits in the kernel for another thread) stays pending
//! while the later calls of the other threads run, and completes when one of them releases
//! it: a `pop` ordered before the `push` that feeds it waits for it, as lincheck treats a
//! suspended operation. The order *completes* when every call has returned, and *hangs*
//! when the calls left are all blocked and nothing can release them.
//!
//! Without this, a blocking queue's concurrent hang would always be "explained" by the order
//! that puts `pop` first (it hangs when run strictly one call after the other), and a lost
//! wake-up would never be reported.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::call::{call_shared, left_out, materialize, CallOutcome, Calling, Value};
use super::execution::{run_post, run_prefix};
use super::outcome::{Site, IDLE};
use super::results::Results;
use super::sequential::SeqRunner;
use super::worker::Worker;
use crate::hooks;
use crate::lock::lock;
use crate::os::{asleep_for_good, can_tell_waits, current_tid, waits_for_another};
use crate::panics;
use crate::sched::quiet_watchdog;
use crate::subject::Description;
use crate::testcase::{entry, Scope, TestCase};

/// How a linearization with blocking semantics ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocking {
    /// Every call returned (or failed, ending its thread's calls), and the post part ran.
    Completed,
    /// Calls were left blocked with nothing to release them, or nothing moved for the
    /// timeout.
    Hung,
}

/// What [`run_blocking`] came to, with what the generator needs of a test's run.
pub(crate) struct BlockingRun {
    pub(crate) ended: Blocking,
    /// From the prefix to the end.
    pub(crate) elapsed: Duration,
    /// Scheduling points the threads' calls reached.
    pub(crate) points: u64,
    /// The most one call reached.
    pub(crate) call_points: u64,
    /// What the calls returned (observed), when the order completed: the results the
    /// results oracle compares, for an order that hangs when run strictly one call after
    /// the other (a `wait` before the `notify_waiters` that wakes it).
    pub(crate) results: Option<Results>,
}

/// One logical thread's progress, as its runner and the coordinator share it.
struct Lane {
    /// Calls the coordinator let this thread start.
    allowed: AtomicUsize,
    /// Calls the thread started.
    started: AtomicUsize,
    /// Calls that returned (or failed).
    done: AtomicUsize,
    /// A call failed: the thread's later calls do not run.
    dead: AtomicBool,
    /// The kernel's id of the runner thread.
    tid: AtomicUsize,
    /// Scheduling points this thread's calls reached, and the most one call reached.
    points: AtomicU64,
    call_points: AtomicU64,
    /// What this thread's calls came to, in order.
    outcomes: Mutex<Vec<(Site, CallOutcome)>>,
}

struct Shared {
    lanes: Vec<Lane>,
    abort: AtomicBool,
    /// Runners wait here for their next call to be allowed.
    gate: (Mutex<()>, Condvar),
}

/// Runs `test` in `order` with blocking semantics, its prefix and post part on `seq`'s
/// watched worker; `None` where this system cannot tell a blocked thread from a slow one
/// (the caller then runs the order strictly one call after the other), or when the prefix
/// does not run.
pub(crate) fn run_blocking<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    order: &[usize],
    timeout: Duration,
    seq: &mut SeqRunner,
) -> Option<BlockingRun> {
    if !can_tell_waits() {
        return None;
    }
    let start = Instant::now();
    let ended = run_lanes(desc, test, order, timeout, seq.worker())?;
    let (points, call_points) = ended.1.lanes.iter().fold((0, 0), |(p, c), l| {
        (
            p + l.points.load(Ordering::Acquire),
            c.max(l.call_points.load(Ordering::Acquire)),
        )
    });
    Some(BlockingRun {
        ended: ended.0,
        elapsed: start.elapsed(),
        points,
        call_points,
        results: ended.2,
    })
}

/// [`run_blocking`]'s runs, with the lanes' shared state for their counts.
fn run_lanes<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    order: &[usize],
    timeout: Duration,
    worker: &mut Worker,
) -> Option<(Blocking, Arc<Shared>, Option<Results>)> {
    let t = test.clone();
    let Some(Some(pool)) = worker.run(timeout, move || run_prefix(desc, &t)) else {
        return None;
    };
    let pool = Arc::new(pool);
    let n = test.threads.len();
    // The order's threads, and the call it leaves out (the cancelled call), if it does.
    let left = order
        .iter()
        .any(|&e| entry(e, n).1)
        .then(|| test.cancelled())
        .flatten();
    let order: Vec<usize> = order.iter().map(|&e| entry(e, n).0).collect();
    let shared = Arc::new(Shared {
        lanes: (0..n)
            .map(|_| Lane {
                allowed: AtomicUsize::new(0),
                started: AtomicUsize::new(0),
                done: AtomicUsize::new(0),
                dead: AtomicBool::new(false),
                tid: AtomicUsize::new(0),
                points: AtomicU64::new(0),
                call_points: AtomicU64::new(0),
                outcomes: Mutex::new(Vec::new()),
            })
            .collect(),
        abort: AtomicBool::new(false),
        gate: (Mutex::new(()), Condvar::new()),
    });
    let mut runners = Vec::with_capacity(n);
    for t in 0..n {
        let (lane, test, pool) = (shared.clone(), test.clone(), pool.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("threadsafe-blocking-{t}"))
            .spawn(move || {
                lane.lanes[t]
                    .tid
                    .store(current_tid() as usize, Ordering::Release);
                let leave = left.filter(|&(lt, _)| lt == t).map(|(_, k)| k);
                lane_body(desc, &test, t, leave, &pool, &lane);
            });
        match spawned {
            Ok(handle) => runners.push(handle),
            Err(_) => {
                shared.abort.store(true, Ordering::Release);
                shared.gate.1.notify_all();
                return None;
            }
        }
    }
    let ended = coordinate(&shared, &order, timeout);
    shared.abort.store(true, Ordering::Release);
    shared.gate.1.notify_all();
    if ended == Blocking::Hung {
        // The runners blocked in a call cannot be freed: they are left behind (in the
        // generated test's child process, they die with it); the others see the abort.
        return Some((Blocking::Hung, shared, None));
    }
    for r in runners {
        let _ = r.join();
    }
    let outcomes: Vec<(Site, CallOutcome)> = shared
        .lanes
        .iter()
        .flat_map(|l| std::mem::take(&mut *lock(&l.outcomes)))
        .collect();
    let t = test.clone();
    let posted = worker.run(timeout, move || {
        let mut outcomes = outcomes;
        run_post(
            desc,
            &t,
            &pool,
            &mut outcomes,
            &AtomicUsize::new(IDLE),
            true,
        );
        outcomes
    });
    match posted {
        Some(outcomes) => {
            let results = Results::of(n, &outcomes);
            Some((Blocking::Completed, shared, results))
        }
        None => Some((Blocking::Hung, shared, None)),
    }
}

/// A runner: thread `t`'s calls, each when the coordinator allows it, but for the call
/// `leave` (the cancelled call, left out).
fn lane_body<T>(
    desc: &Description<T>,
    test: &TestCase,
    t: usize,
    leave: Option<usize>,
    pool: &super::call::Pool<T>,
    shared: &Shared,
) {
    let lane = &shared.lanes[t];
    let scope = Scope::Thread(t);
    let mut local: Vec<Option<Value>> = (0..test.var_count(scope)).map(|_| None).collect();
    for (k, call) in test.threads[t].iter().enumerate() {
        {
            let mut guard = lock(&shared.gate.0);
            while lane.allowed.load(Ordering::Acquire) <= k && !shared.abort.load(Ordering::Acquire)
            {
                guard = shared
                    .gate
                    .1
                    .wait(guard)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        }
        if shared.abort.load(Ordering::Acquire) {
            return;
        }
        lane.started.store(k + 1, Ordering::Release);
        let before = hooks::points_seen();
        let o = match panics::catch(|| materialize(desc, call)) {
            Ok(_) if leave == Some(k) => left_out(),
            Ok(fresh) => call_shared(
                desc,
                call,
                pool,
                scope,
                &mut local,
                fresh,
                Calling::whole(true),
            ),
            Err(p) => CallOutcome::Panic(p),
        };
        let failed = !matches!(o, CallOutcome::Ok(..));
        lock(&lane.outcomes).push((Site::thread(t, k), o));
        let points = hooks::points_seen() - before;
        lane.points.fetch_add(points, Ordering::AcqRel);
        lane.call_points.fetch_max(points, Ordering::AcqRel);
        if failed {
            lane.dead.store(true, Ordering::Release);
        }
        lane.done.fetch_add(1, Ordering::AcqRel);
        if lane.dead.load(Ordering::Acquire) {
            lane.done.store(test.threads[t].len(), Ordering::Release);
            return;
        }
    }
}

/// The coordinator: lets each call of `order` start in turn, the first whose thread is free
/// (a thread whose call blocked is not, so the later calls of the others go ahead), and
/// watches for the end.
fn coordinate(shared: &Shared, order: &[usize], timeout: Duration) -> Blocking {
    let me = current_tid();
    let mut left: VecDeque<usize> = order.iter().copied().collect();
    let in_call = |t: usize| {
        let lane = &shared.lanes[t];
        lane.allowed.load(Ordering::Acquire) > lane.done.load(Ordering::Acquire)
    };
    let progress = || {
        shared
            .lanes
            .iter()
            .map(|l| l.done.load(Ordering::Acquire))
            .sum::<usize>()
    };
    let mut last = (progress(), Instant::now());
    loop {
        // Calls of threads that died are dropped; the first call whose thread is free goes.
        left.retain(|&t| !shared.lanes[t].dead.load(Ordering::Acquire));
        if let Some(i) = left.iter().position(|&t| !in_call(t)) {
            let t = left.remove(i).expect("a position in the queue");
            {
                let _guard = lock(&shared.gate.0);
                shared.lanes[t].allowed.fetch_add(1, Ordering::AcqRel);
            }
            shared.gate.1.notify_all();
            settle(shared, t, timeout);
            continue;
        }
        let busy: Vec<usize> = (0..shared.lanes.len()).filter(|&t| in_call(t)).collect();
        if busy.is_empty() && left.is_empty() {
            return Blocking::Completed;
        }
        // Every thread with calls left is in a call that has not returned.
        let p = progress();
        if p != last.0 {
            last = (p, Instant::now());
        } else if last.1.elapsed() >= timeout
            || busy.iter().all(|&t| waits(shared, t))
                && asleep_for_good(me, quiet_watchdog)
                // A call that returned before the look sleeps at the gate, not in a call.
                && progress() == p
        {
            // Nothing can release the calls left, or nothing moved for the timeout.
            return Blocking::Hung;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Waits until thread `t`'s call returned, or blocked (waits for another thread), or the
/// timeout passed without either.
fn settle(shared: &Shared, t: usize, timeout: Duration) {
    let lane = &shared.lanes[t];
    let target = lane.allowed.load(Ordering::Acquire);
    let start = Instant::now();
    while lane.done.load(Ordering::Acquire) < target
        && !lane.dead.load(Ordering::Acquire)
        && start.elapsed() < timeout
    {
        if waits(shared, t) {
            return;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// Whether thread `t`'s runner is in a call (not at the gate) and waits in the kernel for
/// another thread.
fn waits(shared: &Shared, t: usize) -> bool {
    let lane = &shared.lanes[t];
    let tid = lane.tid.load(Ordering::Acquire) as u64;
    lane.started.load(Ordering::Acquire) > lane.done.load(Ordering::Acquire)
        && tid != 0
        && waits_for_another(tid) == Some(true)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::Duration;

    use super::{run_blocking, Blocking};
    use crate::exec::SeqRunner;
    use crate::os::can_tell_waits;
    use crate::subject::description;
    use crate::testcase::{Call, Made, OpId, Out, TestCase};

    /// One token handed from `give` to `take`, which waits for it.
    pub struct Handoff {
        token: Mutex<bool>,
        given: Condvar,
    }

    #[crate::thread_safe(test = false)]
    impl Handoff {
        pub fn new() -> Self {
            Handoff {
                token: Mutex::new(false),
                given: Condvar::new(),
            }
        }
        pub fn take(&self) {
            let mut token = self.token.lock().unwrap();
            while !*token {
                token = self.given.wait(token).unwrap();
            }
            *token = false;
        }
        pub fn give(&self) {
            *self.token.lock().unwrap() = true;
            self.given.notify_one();
        }
    }

    /// A fresh `Handoff`, then one call on each thread: method `a` on thread 0, `b` on 1.
    fn test(a: usize, b: usize) -> Arc<TestCase> {
        let call = |m| Call {
            op: OpId::Method(m),
            receiver: Some(0),
            args: Vec::new(),
            out: Out::None,
            cancel: None,
        };
        Arc::new(TestCase {
            prefix: vec![Call {
                op: OpId::Ctor(0),
                receiver: None,
                args: Vec::new(),
                out: Out::Instance(0, Made::Value),
                cancel: None,
            }],
            threads: vec![vec![call(a)], vec![call(b)]],
            post: Vec::new(),
        })
    }

    /// How long nothing may move before an order counts as hung: the other tests' threads
    /// keep the process from being seen asleep for good, so a hang ends by this.
    const TIMEOUT: Duration = Duration::from_millis(300);

    #[test]
    fn a_blocked_call_waits_for_the_later_calls_that_release_it() {
        if !can_tell_waits() {
            return;
        }
        let desc = description::<Handoff>();
        let (take, give) = (0, 1);
        assert_eq!(desc.methods[take].name, "take");
        let pair = test(take, give);
        let mut seq = SeqRunner::new();
        // `take` first blocks, `give` runs and releases it: the order completes. Run strictly
        // one call after the other, it would hang.
        for order in [[0, 1], [1, 0]] {
            assert_eq!(
                run_blocking(desc, &pair, &order, TIMEOUT, &mut seq).map(|r| r.ended),
                Some(Blocking::Completed),
                "{order:?}"
            );
        }
        // Two `take`s and no `give`: nothing releases them.
        assert_eq!(
            run_blocking(desc, &test(take, take), &[0, 1], TIMEOUT, &mut seq).map(|r| r.ended),
            Some(Blocking::Hung)
        );
    }
}
