//! The confirmation of results that no linearization gave, before they are reported: every
//! linearization runs again (some of them paced, so that a result that depends on the time
//! taken shows), and the results must come back when the test runs again: under control,
//! the same execution with the same schedule; free-running, the test run on for a while.
//! Something outside the calls that decided a value once (a clock crossing a boundary, a
//! reused address) does not come back; a race does, though free-running threads mostly
//! bring a rare one back interleaved another way ([`Back::Like`]).

use std::time::{Duration, Instant};

use super::results::{Confirmation, Explained, Sequential};
use crate::exec::{BatchOutcome, ConcRunner, Results, Seen};
use crate::report::Report;
use crate::subject::Description;

/// What the oracle asks of the check to confirm results: the test run again as the check
/// ran it. The oracle knows neither how schedules are made nor how batches are sized.
pub(crate) trait Rerun {
    /// The runner whose workers ran the test; the linearizations run on them too.
    fn runner(&mut self) -> &mut ConcRunner;
    /// Under control: whether execution `execution` of the batch, run again with the same
    /// schedule, gives results that `same` accepts.
    fn controlled_again(&mut self, execution: usize, same: &dyn Fn(&Results) -> bool) -> bool;
    /// Free-running: one more batch of the test, over by `until`.
    fn free_again(&mut self, until: Instant) -> BatchOutcome;
}

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

/// Confirms `seen`, which `seq` did not explain: more runs of the linearizations, and
/// whether the results come back (`batch_time`: how long the batch that saw them took).
pub(super) fn confirm<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    seen: &Seen,
    seq: &mut Sequential,
    controlled: bool,
    batch_time: Duration,
    again: &mut dyn Rerun,
    report: &mut Report,
) -> Confirmed {
    let paced = match seq.start_confirm(&seen.results, again.runner(), desc) {
        // Results the linearizations cannot decide are not reported either.
        Confirmation::Decided(Explained::Yes | Explained::Unknown) => return Confirmed::Explained,
        Confirmation::Decided(_) => None,
        Confirmation::Pacing(paced) => Some(paced),
    };
    // Whether the results come back is asked on the batch's workers, which the paced runs
    // leave free: while those sleep (free-running, until they are through), and after them
    // if it is not settled yet.
    let until =
        Instant::now() + (batch_time * 20).clamp(Duration::from_millis(50), Duration::from_secs(2));
    let pacing = || paced.as_ref().map_or(true, |p| !p.is_through());
    let mut back = if controlled {
        let same = |r: &Results| r.same(&seen.results, |site| seq.varying().contains(&site));
        again
            .controlled_again(seen.execution, &same)
            .then_some(Back::Same)
    } else {
        reappears(seen, until, pacing, seq, again, report)
    };
    if let Some(paced) = paced {
        if seq.finish_confirm(paced, &seen.results, again.runner(), desc) != Explained::No {
            return Confirmed::Explained;
        }
        if back.is_none() && !controlled {
            back = reappears(seen, until, || true, seq, again, report);
        }
    }
    match back {
        Some(Back::Same) => Confirmed::Back,
        Some(Back::Like(other))
            if seq.rules_out_afresh(&[&seen.results, &other], again.runner(), desc) =>
        {
            Confirmed::Back
        }
        _ => Confirmed::NotBack,
    }
}

/// How results first seen free-running come back when the test runs on, until `until`
/// (20 times as long as its batch took, 50 ms to 2 s) and while `go_on` says so, if they do.
fn reappears(
    seen: &Seen,
    until: Instant,
    go_on: impl Fn() -> bool,
    seq: &Sequential,
    again: &mut dyn Rerun,
    report: &mut Report,
) -> Option<Back> {
    let varying = |site| seq.varying().contains(&site);
    while Instant::now() < until && go_on() {
        let batch = again.free_again(until);
        report.executions += batch.executions as u64;
        let results = || batch.results.seen.iter().map(|s| &s.results);
        if results().any(|r| r.same(&seen.results, varying)) {
            return Some(Back::Same);
        }
        if let Some(other) = results().find(|r| r.same_shape(&seen.results) && seq.rules_out(r)) {
            return Some(Back::Like(other.clone()));
        }
    }
    None
}
