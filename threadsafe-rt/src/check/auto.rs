//! How a test's executions are split between the controlled scheduler and free-running
//! threads under `schedule = "auto"`, and the free-running arm's share of the time.

use std::time::Duration;

use crate::exec::{Distinct, Res};

/// The share of a test's time the free-running arm gets when a test runs both arms, within
/// these bounds: it starts at a quarter and moves after each test by [`next_free_share`].
/// Not below a quarter: with a lower floor, a race inside a dependency behind
/// two-statement methods was missed in seeds where free-running threads alone found it;
/// the synthetic corpus, found under control, pays a little for the floor (see decision
/// 0005).
pub(super) const FREE_SHARE: (f64, f64) = (0.25, 0.75);
/// Where the share drifts after tests whose two arms gave the same results. Where a race is
/// inside a dependency's call, every test's arms agree until the bug; with the share at its
/// floor after such tests, `auto` took several times as long as `stress` to find it. The
/// drift closes most of that gap, at some cost to a subject found under control (see
/// decision 0022).
pub(super) const FREE_SHARE_EVEN: f64 = 0.5;
/// The share of the first test.
pub(super) const FREE_SHARE_START: f64 = 0.25;

/// The controlled batch of a test that runs both arms holds this many tenths of the check's
/// `conc_execs` executions (at least one); the free-running batch after it holds them all.
/// On the papers' subjects the bug mostly shows in the first executions of the right test,
/// under control or free-running, so a check's time is its tests times what a test costs,
/// and a controlled execution costs more than a free-running one. With the whole count
/// under control, `auto` took clearly longer than `stress` there (see decision 0073).
pub(super) const CONTROLLED_TENTHS: usize = 2;

/// Executions of the controlled batch of a test that runs both arms, when a batch holds
/// `batch` ([`CONTROLLED_TENTHS`] of them, rounded up, at least one).
pub(super) fn controlled_count(batch: usize) -> usize {
    (batch * CONTROLLED_TENTHS).div_ceil(10).max(1)
}

/// How a test's executions run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arms {
    /// Under control only (`schedule = "controlled"`).
    Controlled,
    /// Free-running only: `schedule = "stress"`, or `auto` on a test with no scheduling
    /// point, or none inside a call (at most one per call: a controlled execution of it
    /// switches threads only between whole calls, so it is a sequential order of them and
    /// can find nothing; only free-running threads make the calls overlap).
    Free,
    /// `auto` on a test with points inside its calls: a controlled batch of a share of the
    /// count ([`controlled_count`]), then a free-running batch, and free-running tests of
    /// their own for the rest of the arm's share of the time ([`FreeArm`]), for races in
    /// code the scheduler cannot see (a dependency's, or std's locks between two points).
    Both,
}

/// The free-running arm of the tests that run both arms: its share of their time, and the
/// time it is owed.
///
/// After each controlled batch the arm runs one batch of executions on the same test, and
/// gets at least its share of the controlled batch's time: a free-running race that a test
/// can hit mostly shows within a batch (as `stress` runs it), and thousands of executions of
/// a test without the racing calls find nothing. What the share holds beyond that batch is
/// owed, and paid with tests of its own: while it is owed, a test that would run both arms
/// runs one free-running batch instead. A batch longer than the share owes nothing: that
/// batch is the arm's floor on every test, not an advance on the next ones.
#[derive(Debug)]
pub(super) struct FreeArm {
    share: f64,
    /// Seconds of its share the arm has not had (negative: it had more).
    owed: f64,
}

impl FreeArm {
    pub(super) fn new() -> Self {
        FreeArm {
            share: FREE_SHARE_START,
            owed: 0.0,
        }
    }

    /// Whether the arm is owed time: the next test that would run both arms runs
    /// free-running only.
    pub(super) fn owed(&self) -> bool {
        self.owed > 0.0
    }

    /// Grants the arm its share of a controlled batch that took `controlled`; owed until
    /// spent.
    pub(super) fn grant(&mut self, controlled: Duration) {
        let time = controlled.mul_f64(self.share / (1.0 - self.share));
        self.owed += time.as_secs_f64();
    }

    /// The arm ran a test of its own for `time` (paying what it is owed).
    pub(super) fn spent(&mut self, time: Duration) {
        self.owed -= time.as_secs_f64();
    }

    /// The arm ran its batch on the test of a controlled batch for `time`: what that leaves
    /// of the grant is owed, and a batch that took longer owes nothing.
    pub(super) fn ran_beside(&mut self, time: Duration) {
        self.owed = (self.owed - time.as_secs_f64()).max(0.0);
    }

    /// The share after a test whose controlled executions gave `controlled` and whose
    /// free-running ones gave `free` (see [`next_free_share`]).
    pub(super) fn judge(&mut self, controlled: &Distinct, free: &Distinct) {
        self.share = next_free_share(self.share, controlled, free);
    }

    /// Forgets what the arm is owed: a shrink candidate runs its first batch as the check
    /// ran its first test.
    pub(super) fn settle(&mut self) {
        self.owed = 0.0;
    }
}

/// Whether some results of `d` hold a value a call returned: results of calls that return
/// nothing (or whose values are not observed) are alike under any schedule, and tell
/// nothing of what an arm reaches.
fn observed_values(d: &Distinct) -> bool {
    d.seen
        .iter()
        .any(|s| s.results.iter().any(|(_, r)| matches!(r, Res::Value(_))))
}

/// Whether `a` holds results that `b` does not.
fn novel(a: &Distinct, b: &Distinct) -> bool {
    a.seen
        .iter()
        .any(|s| !b.seen.iter().any(|c| c.results.same(&s.results, |_| false)))
}

/// The free arm's share of the next tests' time, after a test whose controlled executions
/// gave `controlled` and whose free-running ones gave `free`. Free results the controlled
/// executions did not give double it: the free threads reach what the scheduler cannot
/// see. When both arms gave the same results, the statement points split nothing the free
/// threads do not, and the share drifts towards even. Else (the scheduler's interleavings
/// gave results the free threads did not, or no call's value was observed) it shrinks by a
/// fifth.
pub(super) fn next_free_share(share: f64, controlled: &Distinct, free: &Distinct) -> f64 {
    let free_novel = novel(free, controlled);
    let controlled_novel = novel(controlled, free);
    let same = !controlled_novel && observed_values(controlled) && observed_values(free);
    let next = if free_novel {
        share * 2.0
    } else if same {
        share + (FREE_SHARE_EVEN - share) * 0.25
    } else {
        share * 0.8
    };
    next.clamp(FREE_SHARE.0, FREE_SHARE.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Results, Seen};
    use crate::subject::Observed;

    /// Distinct results, one per entry of `each`: the one thread's call returned that value
    /// (`None`: it returned nothing observed).
    fn distinct(each: &[Option<u32>]) -> Distinct {
        let mut d = Distinct::default();
        for (e, v) in each.iter().enumerate() {
            let res = v.map_or(Res::Returned, |v| Res::Value(Observed::value(v)));
            d.seen.push(Seen {
                results: Results {
                    threads: vec![vec![res]],
                    post: Vec::new(),
                    returned: Vec::new(),
                },
                execution: e,
                trace: None,
                count: 1,
            });
        }
        d
    }

    /// The free arm's share of the time over `tests` tests that run both arms, each
    /// controlled batch taking `controlled`, each free-running batch beside it or of a test
    /// of its own `batch`; and how many tests ran free only.
    fn simulate(tests: usize, controlled: f64, batch: f64) -> (f64, usize) {
        let mut arm = FreeArm::new();
        let (mut free, mut total, mut own_tests) = (0.0, 0.0, 0);
        for _ in 0..tests {
            free += batch;
            total += batch;
            if arm.owed() {
                arm.spent(Duration::from_secs_f64(batch));
                own_tests += 1;
                continue;
            }
            arm.grant(Duration::from_secs_f64(controlled));
            arm.ran_beside(Duration::from_secs_f64(batch));
            total += controlled;
        }
        (free / total, own_tests)
    }

    #[test]
    fn slow_controlled_batches_give_the_arm_its_share_in_tests_of_its_own() {
        // Controlled batches of 10 ms grant the arm 3.3 ms each; its batch beside each takes
        // 1 ms, and it pays the rest with tests of its own.
        let (share, own) = simulate(10_000, 0.010, 0.001);
        assert!((share - FREE_SHARE_START).abs() < 0.001, "{share}");
        assert!(own > 10_000 * 2 / 3, "{own}");
    }

    #[test]
    fn a_batch_longer_than_the_share_is_the_floor_and_owes_nothing() {
        // Controlled batches of 0.3 ms grant 0.1 ms; the batch of 0.5 ms beside each runs
        // whole, and no test runs free only: the surplus is not an advance.
        let (share, own) = simulate(1_000, 0.0003, 0.0005);
        assert!((share - 0.5 / 0.8).abs() < 1e-9, "{share}");
        assert_eq!(own, 0);
        // Nor does it stand against a later slow batch's grant.
        let mut arm = FreeArm::new();
        arm.grant(Duration::from_micros(300));
        arm.ran_beside(Duration::from_micros(500));
        assert!(!arm.owed());
        arm.grant(Duration::from_millis(30));
        arm.ran_beside(Duration::from_micros(500));
        assert!(arm.owed());
    }

    #[test]
    fn settling_forgets_what_is_owed() {
        let mut arm = FreeArm::new();
        arm.grant(Duration::from_millis(30));
        arm.spent(Duration::from_millis(4));
        assert!(arm.owed());
        arm.settle();
        assert!(!arm.owed());
    }

    #[test]
    fn the_controlled_batch_holds_its_share_of_the_count_and_at_least_one() {
        assert_eq!(controlled_count(100), 20);
        assert_eq!(controlled_count(1_000), 200);
        assert_eq!(controlled_count(7), 2);
        assert_eq!(controlled_count(1), 1);
        assert_eq!(controlled_count(0), 1);
    }

    #[test]
    fn free_results_the_scheduler_did_not_give_double_the_share() {
        let controlled = distinct(&[Some(1)]);
        let free = distinct(&[Some(1), Some(2)]);
        assert_eq!(next_free_share(0.25, &controlled, &free), 0.5);
        assert_eq!(next_free_share(0.5, &controlled, &free), FREE_SHARE.1);
    }

    #[test]
    fn results_only_the_scheduler_gave_shrink_the_share_to_its_floor() {
        let controlled = distinct(&[Some(1), Some(2)]);
        let free = distinct(&[Some(1)]);
        assert!((next_free_share(0.5, &controlled, &free) - 0.4).abs() < 1e-12);
        assert_eq!(next_free_share(0.25, &controlled, &free), FREE_SHARE.0);
    }

    #[test]
    fn arms_with_the_same_values_drift_towards_even_from_either_side() {
        let controlled = distinct(&[Some(1), Some(2)]);
        let free = distinct(&[Some(2), Some(1)]);
        let mut share = FREE_SHARE_START;
        for _ in 0..40 {
            let next = next_free_share(share, &controlled, &free);
            assert!(next > share && next < FREE_SHARE_EVEN, "{share} -> {next}");
            share = next;
        }
        assert!(FREE_SHARE_EVEN - share < 0.01, "{share}");
        let down = next_free_share(FREE_SHARE.1, &controlled, &free);
        assert!(down < FREE_SHARE.1 && down > FREE_SHARE_EVEN, "{down}");
    }

    #[test]
    fn without_observed_values_the_same_results_tell_nothing_and_the_share_shrinks() {
        let unit = distinct(&[None]);
        assert!((next_free_share(0.5, &unit, &unit) - 0.4).abs() < 1e-12);
        let values = distinct(&[Some(1)]);
        let empty = Distinct::default();
        assert!((next_free_share(0.5, &values, &empty) - 0.4).abs() < 1e-12);
        assert!((next_free_share(0.5, &empty, &empty) - 0.4).abs() < 1e-12);
    }
}
