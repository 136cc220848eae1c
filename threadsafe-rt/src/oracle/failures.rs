//! Algorithm 2 of Pradel & Gross for a failed execution (a panic or a deadlock), and the
//! crash oracle's runs: every linearization, each under the watchdog.

use std::sync::Arc;
use std::time::Duration;

use crate::exec::{run_blocking, Blocking, ExecOutcome, SeqRunner};
use crate::subject::Description;
use crate::testcase::TestCase;

use super::orders::orders_of;

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
    let orders = orders_of(test);
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
    let orders = orders_of(test);
    for order in &orders {
        let _ = seq.run(desc, test.clone(), order.clone(), true, timeout);
    }
    orders.len()
}
