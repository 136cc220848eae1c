//! The original tool's executor, for comparison (`executor = "paper"`): per execution, the
//! prefix on the calling thread, then a new thread per suffix, started with
//! `std::sync::Barrier`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use super::call::{CallOutcome, Pool};
use super::execution::{materialize_all, run_post, run_prefix, run_suffix};
use super::outcome::{blocked_at, calls_in_progress, evaluate, ExecOutcome, Site, IDLE};
use super::results::{Distinct, Results};
use super::worker::{Done, WaitEnd};
use super::BatchOutcome;
use crate::lock::lock;
use crate::panics;
use crate::subject::Description;
use crate::testcase::TestCase;

/// Up to `count` executions of `test` until `deadline`, stopping at the first that does
/// not pass; with `observe`, the distinct results are kept.
pub(super) fn run<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    count: usize,
    timeout: Duration,
    deadline: Instant,
    observe: bool,
) -> BatchOutcome {
    let mut executions = 0;
    let mut outcome = ExecOutcome::Passed;
    let mut results = Distinct::default();
    while executions < count && Instant::now() < deadline {
        let (o, r) = execution(desc, test, timeout, observe);
        if let Some(r) = r {
            results.add(r, executions, || None);
        }
        executions += 1;
        outcome = o;
        if !matches!(outcome, ExecOutcome::Passed) {
            break;
        }
    }
    BatchOutcome {
        executions,
        outcome,
        trace: None,
        uncontrolled: 0,
        cut: 0,
        results,
    }
}

/// The state one execution's spawned threads share.
struct PaperShared<T: 'static> {
    pool: Pool<T>,
    barrier: Barrier,
    at: Vec<AtomicUsize>,
    results: Mutex<Vec<(Site, CallOutcome)>>,
    done: Done,
}

/// One execution: what it came to, and its results when observed.
fn execution<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    timeout: Duration,
    observe: bool,
) -> (ExecOutcome, Option<Results>) {
    let n = test.threads.len();
    let Some(pool) = panics::catch(|| run_prefix(desc, test)).ok().flatten() else {
        return (ExecOutcome::Invalid, None);
    };
    let shared = Arc::new(PaperShared {
        pool,
        barrier: Barrier::new(n),
        at: (0..n).map(|_| AtomicUsize::new(IDLE)).collect(),
        results: Mutex::new(Vec::new()),
        done: Done::new(n),
    });
    for t in 0..n {
        let (shared, test) = (shared.clone(), test.clone());
        std::thread::Builder::new()
            .name(format!("threadsafe-paper-{t}"))
            .spawn(move || {
                panics::capture_on_this_thread();
                let fresh = materialize_all(desc, &test.threads[t]);
                shared.barrier.wait();
                let r = match fresh {
                    Some(f) => {
                        let mut ends = Vec::new();
                        let ends = observe.then_some(&mut ends);
                        run_suffix(desc, &test, t, &shared.pool, f, &shared.at[t], ends)
                    }
                    None => vec![(Site::thread(t, 0), CallOutcome::Unavailable)],
                };
                lock(&shared.results).extend(r);
                shared.done.finish();
            })
            .expect("spawn a suffix thread");
    }
    let progress = || {
        shared
            .at
            .iter()
            .map(|a| a.load(Ordering::Acquire))
            .fold(0, usize::wrapping_add)
    };
    if shared.done.wait(timeout, progress, || true) != WaitEnd::Finished {
        let stuck = blocked_at(calls_in_progress(&shared.at));
        let outcome = if stuck.is_empty() {
            ExecOutcome::Invalid
        } else {
            ExecOutcome::Deadlock(stuck)
        };
        return (outcome, None);
    }
    let mut all = std::mem::take(&mut *lock(&shared.results));
    let post_at = AtomicUsize::new(IDLE);
    run_post(desc, test, &shared.pool, &mut all, &post_at, observe);
    let results = observe.then(|| Results::of(n, &all)).flatten();
    (evaluate(&all), results)
}
