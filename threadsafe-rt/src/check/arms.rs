//! How a test's executions are split between the controlled scheduler and free-running
//! threads under `schedule = "auto"`, and the free-running arm's share of the time.

use std::time::Duration;

use crate::exec::{Distinct, Res};

/// The share of a test's time the free-running arm gets when a test runs both arms, within
/// these bounds: it starts at a quarter and moves after each test by [`next_free_share`].
/// Not below a quarter: on lasso 0.6.0 (`corpus-real`, R2), whose race is inside the
/// dependency behind two-statement methods, a floor of 1/16 found it in 3 of 5 seeds where
/// free-running alone found 5 of 5; the synthetic corpus, found under control, pays for the
/// floor (README, "Races inside dependencies").
pub(super) const FREE_SHARE: (f64, f64) = (0.25, 0.75);
/// Where the share drifts after tests whose two arms gave the same results. On
/// metrics-util 0.3.2 (`corpus-real`, R6), whose race is inside the dependency's `push`,
/// every test's arms agree until the bug; with the share at its floor after such tests,
/// stress / auto was 0.32 over 30 seeds, and 0.87 with the drift; the papers' subjects
/// 0.98× side by side, the bank (W5, found under control) 1.38×
/// (`corpus/results/2026-11-26-share-drift.md`).
pub(super) const FREE_SHARE_EVEN: f64 = 0.5;
/// The share of the first test.
pub(super) const FREE_SHARE_START: f64 = 0.25;

/// How many free-running results that no sequential order gave, and that did not come back
/// when the test ran on, a check sees before it takes the calls that gave them for
/// nondeterministic (not compared from then on). One is not enough: under load a real race
/// hit once may not come back within the re-runs, and marking its calls at once hid a lost
/// update for the rest of a 20 s check.
pub(super) const UNCONFIRMED_BEFORE_VARYING: u32 = 3;

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
    /// `auto` on a test with points inside its calls: a controlled batch, then free-running
    /// executions for a share of the time ([`FreeArm`]), for races in code the scheduler
    /// cannot see (a dependency's, or std's locks between two points).
    Both,
}

/// The free-running arm of the tests that run both arms: its share of their time, and the
/// time it is owed.
///
/// After each controlled batch the arm gets its share of the batch's time, but runs at most
/// one batch of executions on that test: a free-running race that a test can hit mostly
/// shows within a batch (as `stress` runs it), and thousands of executions of a test
/// without the racing calls find nothing. What it did not use is owed, and paid with
/// tests of its own: while it is owed, a test that would run both arms runs one
/// free-running batch instead.
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

    /// Grants the arm its share of a controlled batch that took `controlled`, and returns
    /// it; owed until [`spent`](Self::spent).
    pub(super) fn grant(&mut self, controlled: Duration) -> Duration {
        let time = controlled.mul_f64(self.share / (1.0 - self.share));
        self.owed += time.as_secs_f64();
        time
    }

    /// The arm ran for `time`.
    pub(super) fn spent(&mut self, time: Duration) {
        self.owed -= time.as_secs_f64();
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
    /// controlled batch taking `controlled`, each capped free run after it `capped` at
    /// most, each free-running test of its own `own`; and how many tests ran free only.
    fn simulate(tests: usize, controlled: f64, capped: f64, own: f64) -> (f64, usize) {
        let mut arm = FreeArm::new();
        let (mut free, mut total, mut own_tests) = (0.0, 0.0, 0);
        for _ in 0..tests {
            if arm.owed() {
                arm.spent(Duration::from_secs_f64(own));
                free += own;
                total += own;
                own_tests += 1;
                continue;
            }
            let share = arm.grant(Duration::from_secs_f64(controlled));
            let ran = share.as_secs_f64().min(capped);
            arm.spent(Duration::from_secs_f64(ran));
            free += ran;
            total += controlled + ran;
        }
        (free / total, own_tests)
    }

    #[test]
    fn the_arm_gets_its_share_of_the_time_though_its_run_on_each_test_is_capped() {
        // Controlled batches of 10 ms give the arm 3.3 ms each; it runs 1 ms on the test
        // and pays the rest with tests of its own, of 1.5 ms.
        let (share, own) = simulate(10_000, 0.010, 0.001, 0.0015);
        assert!((share - FREE_SHARE_START).abs() < 0.001, "{share}");
        assert!(own > 10_000 / 3, "{own}");
        // A run that is not cut short owes nothing: no test runs free only.
        let (share, own) = simulate(1_000, 0.010, 1.0, 0.0015);
        assert!((share - FREE_SHARE_START).abs() < 1e-6, "{share}");
        assert_eq!(own, 0);
    }

    #[test]
    fn settling_forgets_what_is_owed() {
        let mut arm = FreeArm::new();
        let share = arm.grant(Duration::from_millis(30));
        assert_eq!(share, Duration::from_millis(10));
        arm.spent(Duration::from_millis(4));
        assert!(arm.owed());
        arm.settle();
        assert!(!arm.owed());
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
