//! Shrinking (lincheck minimizes every failing scenario; proptest shrinks every failing
//! input): after a violation, a smaller test that still fails the same way.
//!
//! Candidates, tried in this order, the first that still fails taken and the search begun
//! again from it: a thread left out (beyond two), a post call, a suffix call, a prefix call
//! left out (the last ones first), two prefix calls left out at once, a thread's first call
//! moved into the prefix or its last one into the post part, and an argument made simpler
//! (the value of its pool whose code is shortest). A candidate must still run sequentially,
//! and is run as the check runs tests (controlled or free-running, a few batches) and put
//! to the same oracle; it fails "the same way" if it panics at the same place, deadlocks,
//! or gives wrong results, as the original did. Shrinking stops at half the check's budget
//! (at least 0.3 s, at most 10 s); a replay gives it the 10 s, so that it shrinks at least
//! as far as the check did (under control, to the same test when the check was not cut short).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::exec::{serial_order, SeqRunner};
use crate::generate::ReadyTest;
use crate::report::{Failure, Shrunk, Violation};
use crate::subject::{Description, ParamKind};
use crate::testcase::{Arg, Call, Scope, TestCase};
use crate::value::Gen;

/// The longest a shrink may take: a check's share is half its budget, between
/// [`SHRINK_MIN`] and this; a replay's is this (it shrinks as far as the check could).
pub(super) const SHRINK_MAX: Duration = Duration::from_secs(10);

/// The shortest time a check gives shrinking.
const SHRINK_MIN: Duration = Duration::from_millis(300);

/// The time a check with `budget` gives shrinking.
pub(super) fn shrink_time(budget: Duration) -> Duration {
    (budget / 2).clamp(SHRINK_MIN, SHRINK_MAX)
}

/// Batches a candidate gets to fail.
const BATCHES: usize = 3;

/// What shrinking asks of the check: to run a candidate as it runs its tests.
pub(super) trait RunsCandidates {
    /// The sequential runner, for a candidate's serial run.
    fn seq(&mut self) -> &mut SeqRunner;
    /// Runs `ready` as the check runs a test, `batches` times at most, until `until`; the
    /// violation it shows, if it does.
    fn violation_of(
        &mut self,
        ready: &ReadyTest,
        batches: usize,
        until: Instant,
    ) -> Option<Box<Violation>>;
}

/// Seeds tried when looking for a simpler argument value.
const SIMPLER_SEEDS: u64 = 24;

/// Whether `b` is the failure `a` was, as far as shrinking is concerned.
fn same_way(a: &Failure, b: &Failure) -> bool {
    match (a, b) {
        (Failure::Panic { location: x, .. }, Failure::Panic { location: y, .. }) => x == y,
        (Failure::Deadlock { .. }, Failure::Deadlock { .. })
        | (Failure::Results { .. }, Failure::Results { .. }) => true,
        _ => false,
    }
}

/// Shrinks the finds of checks of `T`.
pub(super) struct Shrinker<'s, T: 'static> {
    pub(super) desc: &'static Description<T>,
    pub(super) config: &'s Config,
    /// How long a shrink may take.
    pub(super) time: Duration,
}

impl<T: Send + Sync + 'static> Shrinker<'_, T> {
    /// `found` (a violation of `ready`'s test) made about the smallest test found that
    /// fails the same way: its failure, interleaving and reproducers; the counts, time and
    /// replay token of the find stay, and `shrunk` says what was done and keeps the
    /// original reproducer. When no candidate fails, `found` as it was, with `shrunk`
    /// saying so (`smaller: false`, the same number of calls before and after).
    pub(super) fn shrink(
        &self,
        check: &mut dyn RunsCandidates,
        ready: &ReadyTest,
        found: Violation,
    ) -> Violation {
        let start = Instant::now();
        let until = start + self.time;
        let mut current: Option<(TestCase, Box<Violation>)> = None;
        let mut tried = 0;
        'search: while Instant::now() < until {
            let test = current
                .as_ref()
                .map_or_else(|| (*ready.test).clone(), |(t, _)| t.clone());
            for candidate in self.candidates(&test) {
                if Instant::now() >= until {
                    break 'search;
                }
                tried += 1;
                let failure = &found.failure;
                if let Some(v) = self.fails_the_same_way(check, candidate.clone(), failure, until) {
                    current = Some((candidate, v));
                    continue 'search;
                }
            }
            break;
        }
        let Some((test, smaller)) = current else {
            let shrunk = Shrunk {
                smaller: false,
                from_calls: ready.test.len(),
                to_calls: ready.test.len(),
                candidates: tried,
                time: start.elapsed(),
                original: found.reproducer.clone(),
            };
            return Violation {
                shrunk: Some(shrunk),
                ..found
            };
        };
        Violation {
            shrunk: Some(Shrunk {
                smaller: true,
                from_calls: ready.test.len(),
                to_calls: test.len(),
                candidates: tried,
                time: start.elapsed(),
                original: found.reproducer,
            }),
            linearizations: smaller.linearizations,
            failure: smaller.failure,
            reproducer: smaller.reproducer,
            interleaving: smaller.interleaving,
            gated: smaller.gated,
            schedule: smaller.schedule,
            ..found
        }
    }

    /// The smaller versions of `test`, in the order they are tried.
    fn candidates(&self, test: &TestCase) -> Vec<TestCase> {
        let mut out = Vec::new();
        let n = test.threads.len();
        out.extend((0..n).rev().filter_map(|t| test.without_thread(t)));
        out.extend(
            (0..test.post.len())
                .rev()
                .filter_map(|k| test.without(Scope::Post, k)),
        );
        for t in (0..n).rev() {
            let len = test.threads[t].len();
            out.extend(
                (0..len)
                    .rev()
                    .filter_map(|k| test.without(Scope::Thread(t), k)),
            );
        }
        let prefix = test.prefix.len();
        out.extend(
            (0..prefix)
                .rev()
                .filter_map(|k| test.without(Scope::Prefix, k)),
        );
        for i in (0..prefix).rev() {
            for j in (0..i).rev() {
                if let Some(t) = test
                    .without(Scope::Prefix, i)
                    .and_then(|t| t.without(Scope::Prefix, j))
                {
                    out.push(t);
                }
            }
        }
        for t in 0..n {
            out.extend(test.first_call_to_prefix(t));
            out.extend(test.last_call_to_post(t));
        }
        // A failure that needs no cancellation is shown without it.
        out.extend(test.uncancelled());
        out.extend(self.simpler_arguments(test));
        out
    }

    /// `test` with one argument made from a seed whose value is written shorter (the
    /// simplest value of its pool), for each argument that has such a seed.
    fn simpler_arguments(&self, test: &TestCase) -> Vec<TestCase> {
        let mut out = Vec::new();
        let parts = std::iter::once((Scope::Prefix, &test.prefix))
            .chain(
                test.threads
                    .iter()
                    .enumerate()
                    .map(|(t, c)| (Scope::Thread(t), c)),
            )
            .chain(std::iter::once((Scope::Post, &test.post)));
        for (scope, calls) in parts {
            for (k, call) in calls.iter().enumerate() {
                for (a, seed) in fresh_args(call) {
                    if let Some(simpler) = self.simplest_seed(call, a, seed) {
                        out.push(test.with_seed(scope, k, a, simpler));
                    }
                }
            }
        }
        out
    }

    /// A seed whose value for argument `a` of `call` is written shorter than `seed`'s.
    fn simplest_seed(&self, call: &Call, a: usize, seed: u64) -> Option<u64> {
        let param = self.desc.op_at(call.op).params.get(a)?;
        let ParamKind::Value {
            maker: Some(maker),
            pass,
            ..
        } = &param.kind
        else {
            return None;
        };
        let code = |s: u64| (maker.render)(&mut Gen::from_seed(s), *pass);
        let simplicity = |c: &String| (c.len(), c.clone());
        let now = simplicity(&code(seed)?);
        (0..SIMPLER_SEEDS)
            .filter_map(|s| code(s).map(|c| (simplicity(&c), s)))
            .filter(|(c, _)| *c < now)
            .min()
            .map(|(_, s)| s)
    }

    /// Runs `test` as the check runs tests, a few batches until `until`; its violation, if
    /// it fails as `failure` says.
    fn fails_the_same_way(
        &self,
        check: &mut dyn RunsCandidates,
        test: TestCase,
        failure: &Failure,
        until: Instant,
    ) -> Option<Box<Violation>> {
        let test = Arc::new(test);
        let timeout = self.config.hang_timeout(None);
        let order = serial_order(&test);
        let ready = match check
            .seq()
            .run(self.desc, test.clone(), order, true, timeout)
        {
            Some((run, _)) if !run.all_ok() => return None,
            Some((run, seq_time)) => ReadyTest {
                test,
                seq_time,
                points: run.points,
                call_points: run.call_points,
                target: None,
            },
            // A candidate whose first thread blocks until another thread's call releases it,
            // as the generator makes for a lost wake-up.
            None => ReadyTest::blocking(self.desc, test, timeout, check.seq())?,
        };
        check
            .violation_of(&ready, BATCHES, until)
            .filter(|v| same_way(failure, &v.failure))
    }
}

/// The arguments of `call` made fresh, with their seeds.
fn fresh_args(call: &Call) -> impl Iterator<Item = (usize, u64)> + '_ {
    call.args
        .iter()
        .enumerate()
        .filter_map(|(a, arg)| match arg {
            Arg::Fresh(seed) => Some((a, *seed)),
            _ => None,
        })
}
