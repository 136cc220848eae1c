//! The oracle (Algorithm 2 of Pradel & Gross): a concurrent execution that failed is a
//! thread-safety violation only if no *linearization* of its calls fails the same way.
//!
//! A linearization runs the test's calls one at a time, each thread's in its order, after
//! the same prefix and followed by the same post part; every interleaving of whole calls is
//! tried, each under the watchdog, as one may hang. "The same way" is a hang for a
//! deadlock, and a panic at the same `file:line:col` for a panic. Types that panic or
//! deadlock sequentially are therefore never reported.

use std::sync::Arc;
use std::time::Duration;

use crate::exec::{ExecOutcome, SeqRunner};
use crate::subject::Description;
use crate::testcase::TestCase;

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

/// All interleavings of whole calls that keep each thread's order: the multiset
/// permutations of thread ids, `lens[t]` copies of `t`.
pub(crate) fn linearizations(lens: &[usize]) -> Vec<Vec<usize>> {
    fn go(left: &mut [usize], cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if left.iter().all(|&n| n == 0) {
            out.push(cur.clone());
            return;
        }
        for t in 0..left.len() {
            if left[t] > 0 {
                left[t] -= 1;
                cur.push(t);
                go(left, cur, out);
                cur.pop();
                left[t] += 1;
            }
        }
    }
    let mut out = Vec::new();
    go(&mut lens.to_vec(), &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linearizations_keep_thread_order() {
        let l = linearizations(&[2, 1]);
        assert_eq!(l, vec![vec![0, 0, 1], vec![0, 1, 0], vec![1, 0, 0]]);
        assert_eq!(linearizations(&[2, 2]).len(), 6);
        assert_eq!(linearizations(&[2, 2, 2]).len(), 90);
        assert_eq!(linearizations(&[0, 0]), vec![Vec::<usize>::new()]);
    }
}
