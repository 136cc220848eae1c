//! The results of an execution as the oracle compares them: what each call returned (its
//! value, when observed) or where it panicked; and the distinct results a batch saw.

use std::time::Instant;

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
    /// Its future was dropped at its cancellation point (here) before it returned; in a
    /// linearization, the call left out.
    Cancelled(String),
}

impl Res {
    /// Whether `seen`, a call's result in an execution, agrees with `given`, its result in a
    /// linearization: both panicked at the same place, or both returned, with equal values
    /// when both are compared and `ignore` is false. A call cancelled in the execution
    /// agrees with the call made whole (whatever it returned) and with the call left out:
    /// it took effect entirely or not at all. A call that returned does not agree with the
    /// call left out.
    pub(crate) fn agree(seen: &Res, given: &Res, ignore: bool) -> bool {
        match (seen, given) {
            (Res::Value(x), Res::Value(y)) => ignore || x.same(y),
            (Res::Panicked(x), Res::Panicked(y)) => x == y,
            (Res::Panicked(_), _) | (_, Res::Panicked(_)) => false,
            (Res::Cancelled(_), _) => true,
            (_, Res::Cancelled(_)) => false,
            _ => true,
        }
    }
}

impl Res {
    /// Whether two results of one call are the same result: values equal by
    /// [`Observed::identical`], panics at the same place.
    fn identical(a: &Res, b: &Res) -> bool {
        match (a, b) {
            (Res::Value(x), Res::Value(y)) => x.identical(y),
            (Res::Panicked(x), Res::Panicked(y)) => x == y,
            (Res::Panicked(_), _) | (_, Res::Panicked(_)) => false,
            (Res::Cancelled(_), Res::Cancelled(_)) => true,
            (Res::Cancelled(_), _) | (_, Res::Cancelled(_)) => false,
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
    /// The order in which the threads' calls returned (a thread id per call), when known:
    /// the linearization the oracle tries first. Not part of the results' identity.
    pub(crate) returned: Vec<usize>,
}

impl Results {
    /// The results of an execution of `threads` threads from its calls' outcomes; `None`
    /// when a call could not be made (the execution tells nothing).
    pub(crate) fn of(threads: usize, outcomes: &[(Site, CallOutcome)]) -> Option<Results> {
        let mut r = Results {
            threads: vec![Vec::new(); threads],
            post: Vec::new(),
            returned: Vec::new(),
        };
        let mut sorted: Vec<&(Site, CallOutcome)> = outcomes.iter().collect();
        sorted.sort_by_key(|(s, _)| s.call);
        for (site, outcome) in sorted {
            let res = match outcome {
                CallOutcome::Ok(_, Some(Observation::Value(v))) => Res::Value(v.clone()),
                CallOutcome::Ok(_, Some(Observation::NotComparable)) => Res::NotComparable,
                CallOutcome::Ok(_, Some(Observation::Cancelled(at))) => Res::Cancelled(at.clone()),
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

    /// The same results, knowing when each thread's calls returned (`ends[t][k]`): the
    /// order of the returns becomes the first linearization to try.
    pub(crate) fn returned_at(mut self, ends: &[Vec<Instant>]) -> Self {
        let mut when: Vec<(Instant, usize)> = ends
            .iter()
            .enumerate()
            .flat_map(|(t, e)| e.iter().map(move |&at| (at, t)))
            .collect();
        when.sort();
        let complete = when.len() == self.threads.iter().map(Vec::len).sum::<usize>();
        if complete {
            self.returned = when.into_iter().map(|(_, t)| t).collect();
        }
        self
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

    /// True when the same calls ran, panicked at the same locations, and returned values
    /// equal by [`Observed::identical`]: whether two executions gave one result, for the
    /// batch's distinct results (stricter and cheaper than [`same`](Self::same)).
    pub(crate) fn identical(&self, other: &Results) -> bool {
        self.threads.len() == other.threads.len()
            && self.threads.iter().zip(&other.threads).all(|(a, b)| {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| Res::identical(x, y))
            })
            && self.post.len() == other.post.len()
            && self
                .post
                .iter()
                .zip(&other.post)
                .all(|(x, y)| Res::identical(x, y))
    }

    /// Whether the outcomes of an execution's calls (as [`of`](Self::of) takes them) are
    /// these results, by [`identical`](Self::identical), without building them: most
    /// executions of a test give results seen before.
    pub(crate) fn identical_to_outcomes(&self, outcomes: &[(Site, CallOutcome)]) -> bool {
        // Each call appears once among the outcomes: all of them matching a call of these
        // results, and as many as there are calls, is the same calls.
        let calls = self.threads.iter().map(Vec::len).sum::<usize>() + self.post.len();
        let mut matched = 0;
        for (site, outcome) in outcomes {
            let res = match site.scope {
                Scope::Thread(t) => self.threads.get(t).and_then(|c| c.get(site.call)),
                Scope::Post => self.post.get(site.call),
                Scope::Prefix => continue,
            };
            let same = match (res, outcome) {
                (Some(Res::Value(x)), CallOutcome::Ok(_, Some(Observation::Value(v)))) => {
                    x.identical(v)
                }
                (
                    Some(Res::NotComparable),
                    CallOutcome::Ok(_, Some(Observation::NotComparable)),
                )
                | (Some(Res::Returned), CallOutcome::Ok(_, None))
                | (Some(Res::Cancelled(_)), CallOutcome::Ok(_, Some(Observation::Cancelled(_)))) => {
                    true
                }
                (Some(Res::Panicked(at)), CallOutcome::Panic(p)) => !p.aborted && *at == p.location,
                _ => false,
            };
            if !same {
                return false;
            }
            matched += 1;
        }
        matched == calls
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
    /// Counts one more execution for the distinct results that `outcomes` (an execution's,
    /// as [`Results::of`] takes them) are, if they were seen; false if they are new.
    pub(super) fn count_if_seen(&mut self, outcomes: &[(Site, CallOutcome)]) -> bool {
        let same = |s: &Seen| s.results.identical_to_outcomes(outcomes);
        let found = match self.seen.get(self.last).filter(|s| same(s)) {
            Some(_) => Some(self.last),
            None => self.seen.iter().position(same),
        };
        match found {
            Some(i) => {
                self.seen[i].count += 1;
                self.last = i;
                true
            }
            None => false,
        }
    }

    /// Adds the results of execution `e`; `trace` makes its schedule, asked for only when
    /// the results are new.
    pub(super) fn add(
        &mut self,
        results: Results,
        e: usize,
        trace: impl FnOnce() -> Option<Vec<Step>>,
    ) {
        let exact = |s: &Seen| s.results.identical(&results);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::panics::PanicRecord;
    use crate::subject::Observation;

    fn ok(v: u32) -> CallOutcome {
        CallOutcome::Ok(
            super::super::Produced::Nothing,
            Some(Observation::Value(Observed::value(v))),
        )
    }

    #[test]
    fn a_cancelled_call_agrees_with_the_call_whole_or_left_out_but_not_the_reverse() {
        let cancelled = Res::Cancelled("its 2nd suspension".into());
        let left_out = Res::Cancelled("left out".into());
        let value = Res::Value(Observed::value(3u32));
        // Seen cancelled: whatever the call made whole returned, or the call left out.
        assert!(Res::agree(&cancelled, &value, false));
        assert!(Res::agree(&cancelled, &Res::Returned, false));
        assert!(Res::agree(&cancelled, &left_out, false));
        assert!(!Res::agree(
            &cancelled,
            &Res::Panicked("a.rs:1:1".into()),
            false
        ));
        // Seen returning: never the call left out.
        assert!(!Res::agree(&value, &left_out, false));
        assert!(!Res::agree(&Res::Returned, &left_out, false));
        // One result of a batch: cancelled only like cancelled.
        assert!(Res::identical(&cancelled, &left_out));
        assert!(!Res::identical(&cancelled, &value));
    }

    fn panic_at(location: &str) -> CallOutcome {
        CallOutcome::Panic(PanicRecord {
            location: location.to_string(),
            message: String::new(),
            order: 0,
            aborted: false,
        })
    }

    fn results(outcomes: Vec<(Site, CallOutcome)>) -> Results {
        Results::of(2, &outcomes).expect("every call was made")
    }

    #[test]
    fn results_are_ordered_by_thread_and_call_whatever_the_order_they_came_in() {
        let r = results(vec![
            (Site::post(0), ok(9)),
            (Site::thread(1, 0), ok(2)),
            (Site::thread(0, 1), ok(1)),
            (Site::thread(0, 0), ok(0)),
        ]);
        let shown: Vec<(Site, String)> = r
            .iter()
            .map(|(s, res)| match res {
                Res::Value(v) => (s, v.debug()),
                other => (s, format!("{other:?}")),
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                (Site::thread(0, 0), "0".to_string()),
                (Site::thread(0, 1), "1".to_string()),
                (Site::thread(1, 0), "2".to_string()),
                (Site::post(0), "9".to_string()),
            ]
        );
    }

    #[test]
    fn same_compares_values_panics_and_shape() {
        let a = results(vec![
            (Site::thread(0, 0), ok(1)),
            (Site::thread(1, 0), ok(2)),
        ]);
        let b = results(vec![
            (Site::thread(0, 0), ok(1)),
            (Site::thread(1, 0), ok(3)),
        ]);
        assert!(a.same(&a, |_| false));
        assert!(!a.same(&b, |_| false));
        assert!(a.same(&b, |s| s == Site::thread(1, 0)), "an ignored call");
        assert!(a.same_shape(&b));
        assert_eq!(a.differing(&b), vec![Site::thread(1, 0)]);
        let p = results(vec![
            (Site::thread(0, 0), panic_at("a.rs:1:1")),
            (Site::thread(1, 0), ok(2)),
        ]);
        let q = results(vec![
            (Site::thread(0, 0), panic_at("a.rs:9:9")),
            (Site::thread(1, 0), ok(2)),
        ]);
        assert!(!a.same_shape(&p), "a panic is not a value");
        assert!(
            !p.same(&q, |_| true),
            "panics compare by location, ignored or not"
        );
        let shorter = results(vec![(Site::thread(0, 0), ok(1))]);
        assert!(!a.same_shape(&shorter), "a thread that made fewer calls");
    }

    #[test]
    fn an_unavailable_call_or_a_deadlock_unwinding_gives_no_results() {
        let unwound = CallOutcome::Panic(PanicRecord {
            location: String::new(),
            message: String::new(),
            order: 0,
            aborted: true,
        });
        assert!(Results::of(1, &[(Site::thread(0, 0), CallOutcome::Unavailable)]).is_none());
        assert!(Results::of(1, &[(Site::thread(0, 0), unwound)]).is_none());
    }

    #[test]
    fn outcomes_are_compared_with_results_without_building_them() {
        let outcomes = || {
            vec![
                (Site::post(0), ok(9)),
                (Site::thread(1, 0), ok(2)),
                (Site::thread(0, 0), ok(1)),
            ]
        };
        let r = results(outcomes());
        assert!(r.identical_to_outcomes(&outcomes()), "in any order");
        let mut other = outcomes();
        other[1].1 = ok(3);
        assert!(!r.identical_to_outcomes(&other), "a different value");
        assert!(
            !r.identical_to_outcomes(&outcomes()[1..]),
            "the post part did not run"
        );
        let mut more = outcomes();
        more.push((Site::thread(0, 1), ok(4)));
        assert!(!r.identical_to_outcomes(&more), "a call more");
        let mut panicked = outcomes();
        panicked[2].1 = panic_at("a.rs:1:1");
        assert!(!r.identical_to_outcomes(&panicked));
        assert!(results(panicked.clone()).identical_to_outcomes(&panicked));

        let mut d = Distinct::default();
        assert!(!d.count_if_seen(&outcomes()), "nothing seen yet");
        d.add(r, 0, || None);
        assert!(d.count_if_seen(&outcomes()));
        assert!(!d.count_if_seen(&other));
        assert_eq!(d.seen[0].count, 2);
    }

    #[test]
    fn distinct_keeps_each_result_once_with_its_first_execution() {
        let one = || results(vec![(Site::thread(0, 0), ok(1))]);
        let two = || results(vec![(Site::thread(0, 0), ok(2))]);
        let mut d = Distinct::default();
        let mut traces = 0;
        for (e, r) in [one(), one(), two(), one(), two()].into_iter().enumerate() {
            d.add(r, e, || {
                traces += 1;
                None
            });
        }
        assert_eq!(d.seen.len(), 2);
        assert_eq!((d.seen[0].execution, d.seen[0].count), (0, 3));
        assert_eq!((d.seen[1].execution, d.seen[1].count), (2, 2));
        assert_eq!(
            traces, 2,
            "a trace is asked for only when the results are new"
        );
    }
}
