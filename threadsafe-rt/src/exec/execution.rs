//! The parts of one concurrent execution that every executor shares: a fresh prefix, one
//! thread's suffix, and the post part after the threads joined.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::call::{
    call_in_prefix, call_shared, materialize, CallOutcome, Calling, FreshArgs, Pool, Value,
};
use super::outcome::{Site, IDLE};
use crate::panics;
use crate::subject::Description;
use crate::testcase::{Call, Scope, TestCase};

pub(super) fn run_prefix<T>(desc: &Description<T>, test: &TestCase) -> Option<Pool<T>> {
    let mut pool = Pool::new(test);
    test.prefix
        .iter()
        .all(|c| matches!(call_in_prefix(desc, c, &mut pool), CallOutcome::Ok(..)))
        .then_some(pool)
}

/// Runs thread `t`'s calls until one fails; `at` is told the call about to run. With
/// `ends`, the return values are observed and the time each call returned is pushed there
/// (the oracle tries the order in which they returned first).
pub(super) fn run_suffix<T>(
    desc: &Description<T>,
    test: &TestCase,
    t: usize,
    pool: &Pool<T>,
    fresh: Vec<FreshArgs>,
    at: &AtomicUsize,
    mut ends: Option<&mut Vec<Instant>>,
) -> Vec<(Site, CallOutcome)> {
    let scope = Scope::Thread(t);
    let mut local: Vec<Option<Value>> = (0..test.var_count(scope)).map(|_| None).collect();
    let mut results = Vec::with_capacity(test.threads[t].len());
    if let Some(ends) = ends.as_mut() {
        ends.reserve(test.threads[t].len());
    }
    for (k, (call, f)) in test.threads[t].iter().zip(fresh).enumerate() {
        at.store(k + 1, Ordering::Release);
        crate::sched::set_call(k);
        let o = call_shared(
            desc,
            call,
            pool,
            scope,
            &mut local,
            f,
            Calling {
                observe: ends.is_some(),
                cancel: true,
            },
        );
        if let Some(ends) = ends.as_mut() {
            ends.push(Instant::now());
        }
        let stop = !matches!(o, CallOutcome::Ok(..));
        results.push((Site::thread(t, k), o));
        if stop {
            break;
        }
    }
    at.store(IDLE, Ordering::Release);
    results
}

/// Runs the post part, if every suffix call returned.
pub(super) fn run_post<T>(
    desc: &Description<T>,
    test: &TestCase,
    pool: &Pool<T>,
    results: &mut Vec<(Site, CallOutcome)>,
    at: &AtomicUsize,
    observe: bool,
) {
    if !results
        .iter()
        .all(|(_, o)| matches!(o, CallOutcome::Ok(..)))
    {
        return;
    }
    let mut local: Vec<Option<Value>> = (0..test.var_count(Scope::Post)).map(|_| None).collect();
    for (k, call) in test.post.iter().enumerate() {
        at.store(k + 1, Ordering::Release);
        let o = match panics::catch(|| materialize(desc, call)) {
            Ok(fresh) => call_shared(
                desc,
                call,
                pool,
                Scope::Post,
                &mut local,
                fresh,
                Calling::whole(observe),
            ),
            Err(p) => CallOutcome::Panic(p),
        };
        let stop = !matches!(o, CallOutcome::Ok(..));
        results.push((Site::post(k), o));
        if stop {
            break;
        }
    }
    at.store(IDLE, Ordering::Release);
}

/// Fresh values of all of a thread's calls, made before the start.
pub(super) fn materialize_all<T>(desc: &Description<T>, calls: &[Call]) -> Option<Vec<FreshArgs>> {
    panics::catch(|| calls.iter().map(|c| materialize(desc, c)).collect()).ok()
}
