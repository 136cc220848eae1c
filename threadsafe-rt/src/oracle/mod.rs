//! The oracle: a concurrent execution is a thread-safety violation only if no
//! *linearization* of its calls gives the same outcome.
//!
//! A linearization runs the test's calls one at a time, each thread's in its order, after
//! the same prefix and followed by the same post part (`orders.rs` enumerates them).
//!
//! - A failed execution (Algorithm 2 of Pradel & Gross, [`judge`]): every linearization is
//!   tried, each under the watchdog, as one may hang; the failure is a violation if none
//!   fails "the same way": a hang for a deadlock, a panic at the same `file:line:col` for a
//!   panic. Types that panic or deadlock sequentially are therefore never reported. For a
//!   hang, a call that blocks in an order waits while the later calls of the other threads
//!   run (`exec/blocking.rs`): an order hangs only if its blocked calls are never released,
//!   so a lost wake-up is not explained away by the order that puts the `pop` first.
//! - A crash (the process died by a signal while a test ran in the generated test's child
//!   process, [`run_every_order`]): every linearization runs in a child process of its own
//!   making; the crash is a violation only if that process survives them all. Any crash
//!   there explains it: a signal says too little to tell two crashes apart.
//! - Results (`results.rs`, [`Sequential`]): an execution whose calls returned values (and
//!   the post part's observations) that no linearization gives is a violation too, as
//!   JetBrains' lincheck checks with the class as its own sequential specification. Results
//!   legitimately differ between runs (hash order, clocks, addresses, random values,
//!   thread identity): values that differ between runs of one linearization are not
//!   compared, every call of a linearization runs on the thread that made it in the
//!   concurrent run, and before a report the linearizations run many more times.

use std::sync::Arc;
use std::time::Duration;

use crate::exec::{run_blocking, Blocking, ExecOutcome, SeqRunner};
use crate::subject::Description;
use crate::testcase::TestCase;

mod orders;
mod results;

pub(crate) use orders::linearizations;
pub(crate) use results::{Confirmation, Explained, Sequential};

/// Algorithm 2's check of a failed execution: run every linearization of the suffixes
/// after the prefix (each with the watchdog, as one may hang); the failure is a violation
/// only if none fails the same way: a hang for a deadlock, a panic at the same location for
/// a panic. Returns the number of linearizations run when it is a violation.
pub(crate) fn judge<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    failure: &ExecOutcome,
    seq: &mut SeqRunner,
    timeout: Duration,
) -> Option<usize> {
    let lens: Vec<usize> = test.threads.iter().map(Vec::len).collect();
    let orders = linearizations(&lens);
    for order in &orders {
        // A hang is explained only by an order that hangs even when its blocking calls wait
        // for the later calls of the other threads (`run_blocking`), where that can be told.
        if let ExecOutcome::Deadlock(_) = failure {
            if let Some(run) = run_blocking(desc, test, order, timeout, seq) {
                if run.ended == Blocking::Hung {
                    return None;
                }
                continue;
            }
        }
        let same = match (
            seq.run(desc, test.clone(), order.clone(), true, timeout),
            failure,
        ) {
            (None, ExecOutcome::Deadlock(_)) => true,
            (None, _) => false,
            (Some((run, _)), ExecOutcome::Panicked(panics)) => {
                let location = &panics[0].1.location;
                run.panic_locations().any(|l| l == location)
            }
            (Some(_), _) => false,
        };
        if same {
            return None;
        }
    }
    Some(orders.len())
}

/// The crash oracle's runs: every linearization of `test`, one after the other, each under
/// the watchdog (one may hang), whatever each comes to. Run in a child process after a crash:
/// if one of them crashes too, the process dies, and that is the answer; returns the number
/// of linearizations run when none did.
pub(crate) fn run_every_order<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    seq: &mut SeqRunner,
    timeout: Duration,
) -> usize {
    let lens: Vec<usize> = test.threads.iter().map(Vec::len).collect();
    let orders = linearizations(&lens);
    for order in &orders {
        let _ = seq.run(desc, test.clone(), order.clone(), true, timeout);
    }
    orders.len()
}
