//! Sequential runs: a test's calls one at a time in a given order (a linearization, or the
//! order the generator validates), each run on a worker thread so that one that hangs is
//! noticed and left behind.

use std::sync::Arc;
use std::time::Duration;

use super::call::{
    call_in_prefix, call_shared, left_out, materialize, CallOutcome, Calling, Pool, Value,
};
use super::worker::Worker;
use crate::hooks::{self, Recorded};
use crate::panics;
use crate::subject::Description;
use crate::testcase::{entry, Scope, TestCase};

/// The outcome of a sequential run: each call run, in order, with its outcome.
#[derive(Debug, Default)]
pub(crate) struct SeqRun {
    pub(crate) steps: Vec<(Scope, usize, CallOutcome)>,
    /// Scheduling points reached (sync primitives, statement points).
    pub(crate) points: u64,
    /// The most scheduling points one call of a thread reached. With one or none, a
    /// controlled execution can switch threads only between whole calls: it runs the calls
    /// in some sequential order, and only free-running threads can make them overlap.
    pub(crate) call_points: u64,
    /// Per step, the operations it performed, when the run was recorded.
    pub(crate) recorded: Vec<Vec<Recorded>>,
}

impl SeqRun {
    /// True when every call ran and returned.
    pub(crate) fn all_ok(&self) -> bool {
        self.steps
            .iter()
            .all(|(_, _, o)| matches!(o, CallOutcome::Ok(..)))
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
        let ok = matches!(o, CallOutcome::Ok(..));
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
    for &e in order {
        let (t, left) = entry(e, n);
        let k = next[t];
        next[t] += 1;
        if dead[t] {
            continue;
        }
        let call = &test.threads[t][k];
        let scope = Scope::Thread(t);
        let before = hooks::points_seen();
        let o = match panics::catch(|| materialize(desc, call)) {
            Ok(_) if left => left_out(),
            Ok(fresh) => call_shared(
                desc,
                call,
                &pool,
                scope,
                &mut locals[t],
                fresh,
                Calling::default(),
            ),
            Err(p) => CallOutcome::Panic(p),
        };
        run.call_points = run.call_points.max(hooks::points_seen() - before);
        if !matches!(o, CallOutcome::Ok(..)) {
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
                Ok(fresh) => call_shared(
                    desc,
                    call,
                    &pool,
                    Scope::Post,
                    &mut local,
                    fresh,
                    Calling::default(),
                ),
                Err(p) => CallOutcome::Panic(p),
            };
            let ok = matches!(o, CallOutcome::Ok(..));
            run.steps.push((Scope::Post, k, o));
            run.recorded.push(hooks::take_recorded());
            if !ok {
                break;
            }
        }
    }
    run
}

/// The order that runs each thread's calls one thread after the other, the order in which
/// tests are validated: with the test's cancelled call left out (`testcase::entry`), which
/// made whole could wait there for good (a wait cancelled where it waits).
pub(crate) fn serial_order(test: &TestCase) -> Vec<usize> {
    let order = test
        .threads
        .iter()
        .enumerate()
        .flat_map(|(t, calls)| std::iter::repeat(t).take(calls.len()))
        .collect();
    test.leaving_out_cancelled(order)
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

    /// The watched worker, for the other sequential runs of `exec` (a blocking order's
    /// prefix and post part); a job that hangs there is abandoned and counted here.
    pub(super) fn worker(&mut self) -> &mut Worker {
        &mut self.worker
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
