//! The results oracle over one batch: a violation if no linearization gives some of the
//! batch's distinct results, confirmed by more sequential runs and by the results coming
//! back when the test runs again ([`confirm`](super::confirm)). What it learns about the
//! type's nondeterminism (methods whose results vary between sequential runs, races seen
//! once that did not come back) carries over to the check's later tests.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::confirm::{confirm, Confirmed, Rerun};
use super::notes::{method, note_not_compared, note_varying, sites_of};
use super::results::{Explained, Sequential};
use crate::config::Config;
use crate::exec::{Distinct, Seen};
use crate::point::Step;
use crate::report::{violation, Finding, Found, Report, Violation, WrongResults};
use crate::subject::Description;
use crate::testcase::TestCase;

/// How many free-running results that no sequential order gave, and that did not come back
/// when the test ran on, a check sees before it takes the calls that gave them for
/// nondeterministic (not compared from then on). One is not enough: under load a real race
/// hit once may not come back within the re-runs, and marking its calls at once hid a lost
/// update for the rest of a check (decision 0070: which other results count as coming back).
pub(crate) const UNCONFIRMED_BEFORE_VARYING: u32 = 3;

/// How long judging the last test of the budget may run past the budget, at least.
const PAST_DEADLINE: Duration = Duration::from_millis(500);

/// What the results oracle carries from one test of a check to the next.
#[derive(Default)]
pub(crate) struct ResultsOracle {
    /// Methods whose results varied between sequential runs of a test: not compared in
    /// the tests after it either.
    varying_methods: HashSet<&'static str>,
    /// Free-running results no sequential order gave that did not come back.
    unconfirmed: u32,
}

/// How the batch to judge ran.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchRun {
    /// Under control (else free-running).
    pub(crate) controlled: bool,
    /// The hang timeout its executions had; the linearizations get the same.
    pub(crate) timeout: Duration,
    /// How long it took.
    pub(crate) time: Duration,
    /// When the check's budget ends.
    pub(crate) deadline: Instant,
}

/// Results of a batch that no linearization gives, confirmed: a violation.
pub(crate) struct Wrong<'b> {
    /// The execution that gave them.
    pub(crate) seen: &'b Seen,
    /// The linearizations run, and what they gave.
    seq: Sequential,
}

impl ResultsOracle {
    /// Judges the distinct results of a batch of `test` (`distinct`); notes in `report`
    /// what was not compared or not judged, and why.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn judge<'b, T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        distinct: &'b Distinct,
        run: BatchRun,
        again: &mut dyn Rerun,
        report: &mut Report,
    ) -> Option<Wrong<'b>> {
        note_not_compared(desc, test, distinct, &mut report.results);
        if distinct.seen.is_empty() {
            return None;
        }
        let known_varying = sites_of(desc, test, &self.varying_methods);
        let deadline = run.deadline.max(Instant::now() + PAST_DEADLINE);
        let mut seq = Sequential::new(test.clone(), known_varying, run.timeout, deadline);
        seq.run_returned_orders(
            distinct.seen.iter().map(|s| &s.results),
            again.runner(),
            desc,
        );
        let mut verdict = None;
        for seen in &distinct.seen {
            match seq.explains(&seen.results, again.runner(), desc) {
                Explained::Yes => continue,
                Explained::Unknown => {
                    report.results.unjudged += seen.count as u64;
                    continue;
                }
                Explained::No => {}
            }
            let controlled = run.controlled;
            match confirm(desc, seen, &mut seq, controlled, run.time, again, report) {
                Confirmed::Explained => continue,
                Confirmed::Back => {}
                Confirmed::NotBack => {
                    report.results.not_reproduced += 1;
                    // A free-running race hit once may not come back while the machine is
                    // busy: its calls are taken for nondeterministic only the third time.
                    self.unconfirmed += 1;
                    if controlled || self.unconfirmed >= UNCONFIRMED_BEFORE_VARYING {
                        seq.vary_where_differs(&seen.results);
                    }
                    continue;
                }
            }
            verdict = Some(seen);
            break;
        }
        note_varying(desc, test, seq.varying(), &mut report.results);
        for &site in seq.varying() {
            if let Some(m) = method(desc, test, site) {
                self.varying_methods.insert(m);
            }
        }
        verdict.map(|seen| Wrong { seen, seq })
    }
}

impl Wrong<'_> {
    /// The violation to report, of an execution of `test` found as `found` says.
    pub(crate) fn violation<T>(
        &self,
        desc: &Description<T>,
        test: &TestCase,
        config: &Config,
        found: Found,
    ) -> Violation {
        violation(
            desc,
            test,
            Finding::Results(WrongResults {
                observed: &self.seen.results,
                sequential: self.seq.known(),
                varying: self.seq.varying(),
            }),
            self.seq.count() as usize,
            self.trace(),
            config,
            found,
        )
    }

    /// The schedule of the execution that gave the results, when it was controlled.
    pub(crate) fn trace(&self) -> Option<&[Step]> {
        self.seen.trace.as_deref()
    }
}
