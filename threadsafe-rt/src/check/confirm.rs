//! The confirmation of results that no linearization gave, before they are reported: every
//! linearization runs again (some of them paced, so that a result that depends on the time
//! taken shows), and the results must come back when the test runs again: under control,
//! the same execution with the same schedule; free-running, the test run on for a while.
//! Something outside the calls that decided a value once (a clock crossing a boundary, a
//! reused address) does not come back; a race does, though free-running threads mostly
//! bring a rare one back interleaved another way ([`Back::Like`]).

use std::time::{Duration, Instant};

use super::hunt::{Hunt, Schedules};
use crate::config::Guide;
use crate::exec::{stride, BatchSpec, Results, Seen};
use crate::generate::ReadyTest;
use crate::oracle::{Confirmation, Explained, Sequential};
use crate::report::Report;

/// What the confirmation says of results that no linearization gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Confirmed {
    /// A linearization run again gave them after all.
    Explained,
    /// They did not come back: not reported.
    NotBack,
    /// They came back, and no linearization gives them: a violation.
    Back,
}

/// How results that no linearization gives came back when their test ran again.
enum Back {
    /// The same results (the controlled execution again, or free-running threads).
    Same,
    /// Free-running threads gave other results of the same calls that no linearization
    /// gives either: a rare race mostly comes back interleaved another way (the value
    /// missed on the other thread, a snapshot one longer). They stand only if a fresh run
    /// of every linearization still gives neither.
    Like(Results),
}

impl<T: Send + Sync + 'static> Hunt<'_, T> {
    /// Confirms `seen`, which `seq` did not explain: more runs of the linearizations, and
    /// whether the results come back (`batch_time`: how long the batch that saw them took).
    pub(super) fn confirm(
        &mut self,
        ready: &ReadyTest,
        seen: &Seen,
        seq: &mut Sequential,
        controlled: bool,
        batch_time: Duration,
        report: &mut Report,
    ) -> Confirmed {
        let paced = match seq.start_confirm(&seen.results, &mut self.conc, self.desc) {
            Confirmation::Decided(Explained::Yes) => return Confirmed::Explained,
            Confirmation::Decided(_) => None,
            Confirmation::Pacing(paced) => Some(paced),
        };
        // Whether the results come back is asked on the batch's workers, which the paced
        // runs leave free: while those sleep (free-running, until they are through), and
        // after them if it is not settled yet.
        let until = Instant::now()
            + (batch_time * 20).clamp(Duration::from_millis(50), Duration::from_secs(2));
        let pacing = || paced.as_ref().map_or(true, |p| !p.is_through());
        let mut back = if controlled {
            self.comes_back(ready, seen, seq).then_some(Back::Same)
        } else {
            self.reappears(ready, seen, until, pacing, seq, report)
        };
        if let Some(paced) = paced {
            if seq.finish_confirm(paced, &seen.results, &mut self.conc) == Explained::Yes {
                return Confirmed::Explained;
            }
            if back.is_none() && !controlled {
                back = self.reappears(ready, seen, until, || true, seq, report);
            }
        }
        match back {
            Some(Back::Same) => Confirmed::Back,
            Some(Back::Like(other))
                if seq.rules_out_afresh(&[&seen.results, &other], &mut self.conc, self.desc) =>
            {
                Confirmed::Back
            }
            _ => Confirmed::NotBack,
        }
    }

    /// Whether a controlled execution's results come back when the batch runs again with
    /// the same schedules (they do unless something outside the schedule decides them).
    fn comes_back(&mut self, ready: &ReadyTest, seen: &Seen, seq: &Sequential) -> bool {
        if self.config.guide == Guide::Map {
            // The schedules aimed at patterns depend on the coverage of every execution
            // so far: they do not come back. The sequential confirmation stands alone.
            return true;
        }
        let Some(schedules) = self.schedules else {
            return false;
        };
        let timeout = self.config.hang_timeout(Some(ready.seq_time));
        let spec = BatchSpec {
            count: match schedules {
                Schedules::Batch(_) => seen.execution + 1,
                Schedules::Exactly { .. } => 1,
            },
            timeout,
            deadline: Instant::now() + timeout * 4 + Duration::from_secs(1),
            control: Some(self.control_of(ready, schedules, false)),
            observe: true,
            stride: 1,
            seq_time: ready.seq_time,
            points: ready.points,
        };
        let again = self.conc.rerun_batch(self.desc, &ready.test, spec);
        again.results.seen.iter().any(|s| {
            s.execution == seen.execution
                && s.results
                    .same(&seen.results, |site| seq.varying().contains(&site))
        })
    }

    /// How results first seen free-running come back when the test runs on, until `until`
    /// (20 times as long as its batch took, 50 ms to 2 s) and while `go_on` says so, if
    /// they do.
    fn reappears(
        &mut self,
        ready: &ReadyTest,
        seen: &Seen,
        until: Instant,
        go_on: impl Fn() -> bool,
        seq: &Sequential,
        report: &mut Report,
    ) -> Option<Back> {
        let timeout = self.config.hang_timeout(Some(ready.seq_time));
        let varying = |site| seq.varying().contains(&site);
        while Instant::now() < until && go_on() {
            let spec = BatchSpec {
                count: self.config.conc_execs,
                timeout,
                deadline: until,
                control: None,
                observe: true,
                stride: stride(ready.seq_time),
                seq_time: ready.seq_time,
                points: ready.points,
            };
            let again = self.conc.rerun_batch(self.desc, &ready.test, spec);
            report.executions += again.executions as u64;
            let results = || again.results.seen.iter().map(|s| &s.results);
            if results().any(|r| r.same(&seen.results, varying)) {
                return Some(Back::Same);
            }
            if let Some(other) = results().find(|r| r.same_shape(&seen.results) && seq.rules_out(r))
            {
                return Some(Back::Like(other.clone()));
            }
        }
        None
    }
}
