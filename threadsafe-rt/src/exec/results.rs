//! The results of an execution as the oracle compares them: what each call returned (its
//! value, when observed) or where it panicked; and the distinct results a batch saw.

use super::call::CallOutcome;
use super::outcome::Site;
use crate::point::Step;
use crate::subject::{Observation, Observed};
use crate::testcase::Scope;

/// What one call came to.
#[derive(Clone, Debug)]
pub(crate) enum Res {
    /// It returned this value (observed, comparable).
    Value(Observed),
    /// It returned; its value is not observed (nothing returned, a method marked
    /// `nondeterministic`, or results off).
    Returned,
    /// It returned a value of a type that is not `PartialEq + Debug`: not compared.
    NotComparable,
    /// It panicked at this `file:line:col`.
    Panicked(String),
}

impl Res {
    /// Whether two results of one call agree: both panicked at the same place, or both
    /// returned, with equal values when both are compared and `ignore` is false.
    pub(crate) fn agree(a: &Res, b: &Res, ignore: bool) -> bool {
        match (a, b) {
            (Res::Value(x), Res::Value(y)) => ignore || x.same(y),
            (Res::Panicked(x), Res::Panicked(y)) => x == y,
            (Res::Panicked(_), _) | (_, Res::Panicked(_)) => false,
            _ => true,
        }
    }
}

/// What every call of one execution came to: each suffix thread's calls in order, then the
/// post part's. A list stops where its thread stopped (after a panic), and the post part is
/// empty when it did not run.
#[derive(Clone, Debug)]
pub(crate) struct Results {
    pub(crate) threads: Vec<Vec<Res>>,
    pub(crate) post: Vec<Res>,
}

impl Results {
    /// The results of an execution of `threads` threads from its calls' outcomes; `None`
    /// when a call could not be made (the execution tells nothing).
    pub(crate) fn of(threads: usize, outcomes: &[(Site, CallOutcome)]) -> Option<Results> {
        let mut r = Results {
            threads: vec![Vec::new(); threads],
            post: Vec::new(),
        };
        let mut sorted: Vec<&(Site, CallOutcome)> = outcomes.iter().collect();
        sorted.sort_by_key(|(s, _)| s.call);
        for (site, outcome) in sorted {
            let res = match outcome {
                CallOutcome::Ok(_, Some(Observation::Value(v))) => Res::Value(v.clone()),
                CallOutcome::Ok(_, Some(Observation::NotComparable)) => Res::NotComparable,
                CallOutcome::Ok(_, None) => Res::Returned,
                CallOutcome::Panic(p) if !p.aborted => Res::Panicked(p.location.clone()),
                CallOutcome::Panic(_) | CallOutcome::Unavailable => return None,
            };
            match site.scope {
                Scope::Thread(t) => r.threads.get_mut(t)?.push(res),
                Scope::Post => r.post.push(res),
                Scope::Prefix => {}
            }
        }
        Some(r)
    }

    /// Each call's site and result, threads first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Site, &Res)> + '_ {
        let threads = self.threads.iter().enumerate().flat_map(|(t, calls)| {
            calls
                .iter()
                .enumerate()
                .map(move |(k, r)| (Site::thread(t, k), r))
        });
        let post = self
            .post
            .iter()
            .enumerate()
            .map(|(k, r)| (Site::post(k), r));
        threads.chain(post)
    }

    /// True when the same calls ran, panicked at the same locations, and returned equal
    /// values wherever both values are compared and `ignore` does not leave the site out.
    pub(crate) fn same(&self, other: &Results, ignore: impl Fn(Site) -> bool) -> bool {
        self.same_shape(other)
            && self
                .iter()
                .zip(other.iter())
                .all(|((site, a), (_, b))| Res::agree(a, b, ignore(site)))
    }

    /// True when the same calls ran and each returned or panicked at the same place in
    /// both (values aside).
    pub(crate) fn same_shape(&self, other: &Results) -> bool {
        self.threads.len() == other.threads.len()
            && self
                .threads
                .iter()
                .zip(&other.threads)
                .all(|(a, b)| a.len() == b.len())
            && self.post.len() == other.post.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|((_, a), (_, b))| match (a, b) {
                    (Res::Panicked(x), Res::Panicked(y)) => x == y,
                    (Res::Panicked(_), _) | (_, Res::Panicked(_)) => false,
                    _ => true,
                })
    }

    /// The sites whose compared values differ between two results of the same shape.
    pub(crate) fn differing(&self, other: &Results) -> Vec<Site> {
        self.iter()
            .zip(other.iter())
            .filter_map(|((site, a), (_, b))| match (a, b) {
                (Res::Value(x), Res::Value(y)) if !x.same(y) => Some(site),
                _ => None,
            })
            .collect()
    }
}

/// One of the distinct results a batch saw.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) results: Results,
    /// The first execution (its number in the batch) that gave them.
    pub(crate) execution: usize,
    /// That execution's schedule, when it was controlled.
    pub(crate) trace: Option<Vec<Step>>,
    /// Executions that gave them.
    pub(crate) count: usize,
}

/// Distinct results kept per batch; beyond, executions are counted but not kept.
const MAX_DISTINCT: usize = 64;

/// The distinct results of a batch, in the order first seen.
#[derive(Debug, Default)]
pub(crate) struct Distinct {
    pub(crate) seen: Vec<Seen>,
    /// Executions whose results were not kept (more than `MAX_DISTINCT` distinct ones).
    pub(crate) dropped: usize,
    /// The entry the last execution matched, tried first next time.
    last: usize,
}

impl Distinct {
    /// Adds the results of execution `e`; `trace` makes its schedule, asked for only when
    /// the results are new.
    pub(super) fn add(
        &mut self,
        results: Results,
        e: usize,
        trace: impl FnOnce() -> Option<Vec<Step>>,
    ) {
        let exact = |s: &Seen| s.results.same(&results, |_| false);
        if let Some(s) = self.seen.get_mut(self.last).filter(|s| exact(s)) {
            s.count += 1;
            return;
        }
        if let Some(i) = self.seen.iter().position(exact) {
            self.seen[i].count += 1;
            self.last = i;
            return;
        }
        if self.seen.len() >= MAX_DISTINCT {
            self.dropped += 1;
            return;
        }
        self.last = self.seen.len();
        self.seen.push(Seen {
            results,
            execution: e,
            trace: trace(),
            count: 1,
        });
    }
}
