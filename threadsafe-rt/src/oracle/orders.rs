//! The linearizations of a test: every interleaving of whole calls that keeps each thread's
//! order; and, for a test that cancels a call, each of them again with that call left out
//! (`testcase::entry`): a cancelled call took effect entirely or not at all.

use crate::testcase::TestCase;

/// Every order the oracle runs for `test`: its linearizations, then, when it cancels a call,
/// the same with the call left out.
pub(crate) fn orders_of(test: &TestCase) -> Vec<Vec<usize>> {
    let mut orders = linearizations(&lens(test));
    if test.cancelled().is_some() {
        let left: Vec<Vec<usize>> = orders
            .iter()
            .map(|o| test.leaving_out_cancelled(o.clone()))
            .collect();
        orders.extend(left);
    }
    orders
}

/// How many orders [`orders_of`] gives, saturating.
pub(crate) fn count_orders(test: &TestCase) -> u64 {
    let count = count_linearizations(&lens(test));
    if test.cancelled().is_some() {
        count.saturating_mul(2)
    } else {
        count
    }
}

/// The calls per thread of `test`.
fn lens(test: &TestCase) -> Vec<usize> {
    test.threads.iter().map(Vec::len).collect()
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

/// How many linearizations threads with `lens` calls have: the multinomial coefficient
/// `(Σ lens)! / Π lens[t]!`, saturating at `u64::MAX`.
pub(crate) fn count_linearizations(lens: &[usize]) -> u64 {
    let mut count: u64 = 1;
    let mut placed: u64 = 0;
    for &n in lens {
        // Choose the positions of this thread's `n` calls among the `placed + n` so far.
        for k in 1..=n as u64 {
            placed += 1;
            count = match count.checked_mul(placed) {
                Some(c) => c / k,
                None => return u64::MAX,
            };
        }
    }
    count
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

    #[test]
    fn a_cancelled_call_is_also_left_out() {
        let mut test = TestCase::one_call_per_thread(2);
        let second = test.threads[1][0].clone();
        test.threads[1].push(second);
        assert_eq!(orders_of(&test).len(), 3);
        test.threads[1][1].cancel = Some(1);
        let orders = orders_of(&test);
        assert_eq!(orders.len(), 6);
        assert_eq!(orders[..3], [vec![0, 1, 1], vec![1, 0, 1], vec![1, 1, 0]]);
        assert_eq!(orders[3..], [vec![0, 1, 3], vec![1, 0, 3], vec![1, 3, 0]]);
        assert_eq!(count_orders(&test), 6);
    }

    #[test]
    fn counts_match_the_enumeration() {
        for lens in [
            vec![1, 1],
            vec![2, 2],
            vec![2, 1, 3],
            vec![2, 2, 2],
            vec![3, 3, 1, 2],
        ] {
            assert_eq!(
                count_linearizations(&lens),
                linearizations(&lens).len() as u64,
                "{lens:?}"
            );
        }
        assert_eq!(count_linearizations(&[3, 3, 3, 3]), 369_600);
        assert_eq!(count_linearizations(&[40, 40, 40, 40]), u64::MAX);
    }
}
